// Package turnrec defines the finished-turn record: what the proxy (the
// data plane) hands the operator plane (package operator) once per chat
// turn, after the answer is complete. It is the only thing the two planes
// share about a turn; neither reads the other's internals.
package turnrec

import (
	"time"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/judge"
)

// Turn is one finished chat turn. The proxy fills it on the request path
// and hands it over by pointer: a receiver copies what it keeps before it
// returns and must not keep the pointer. The slices, maps and pointers it
// holds belong to the finished turn and are never changed again, so a
// receiver may keep references to them.
type Turn struct {
	Tenant, KB, Model string
	// Query is the last user message (the question the gap queue files).
	Query  string
	Stream bool
	// Status is the HTTP status the client got.
	Status int
	// Start is when the request arrived, Finished when the turn ended.
	Start, Finished time.Time
	// TTFT is the time to the first content byte (0 when none was sent);
	// UpstreamWait the time spent waiting on the upstream.
	TTFT, UpstreamWait time.Duration
	// Report is the turn's guard report.
	Report Report
	// Gate is the gate's exact inputs; nil on a pass-through turn.
	Gate *GateTrace
}

// Report is the part of the turn's "guard" object the operator plane
// keeps (the proxy's Report, field for field).
type Report struct {
	Decision  gate.Decision
	Citations []gauntlet.Citation
	Markers   *Markers
	Claims    []judge.Claim
	Summary   *judge.Summary
	Degraded  []string
	LatencyMS map[string]float64
}

// Markers is guard.markers: the gauntlet's marker counts plus what the
// online auditor found in the released answer.
type Markers struct {
	gauntlet.Counts
	Audit gauntlet.AuditReport `json:"audit"`
}

// DroppedByReason is the markers dropped, by reason (nil without markers).
func (r *Report) DroppedByReason() map[string]int {
	if r.Markers == nil {
		return nil
	}
	return r.Markers.ByReason
}

// VerdictCounts counts the claims by verdict.
func (r *Report) VerdictCounts() map[string]int {
	m := make(map[string]int, 4)
	for _, c := range r.Claims {
		m[c.Verdict]++
	}
	return m
}

// GateTrace is the gate decision's exact inputs, so that the what-if can
// recompute it with the gate's own functions.
type GateTrace struct {
	Question     string
	Ask          gate.Ask         // what the question asks for (gate.AskOf), an input of gate.Decide
	Cands        []gate.Candidate // after the answer model's assessment, in retrieval order
	RerankActive bool
	Config       *gate.Config // the gate configuration the turn was decided with
	// Remote: the outline came from the remote planner (the what-if
	// replays it as logged); otherwise the local planner made it.
	Remote  bool
	Outcome *gate.Outcome // after the outline
}
