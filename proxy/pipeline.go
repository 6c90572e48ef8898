package proxy

import (
	"context"
	"encoding/json"
)

// TurnRequest is what the pipeline sees of one chat turn.
type TurnRequest struct {
	Tenant, KB string
	Model      string
	Stream     bool
	Query      string // text of the last user message
	// Actions are the tools that fired this turn (assistant tool calls
	// after the last user message, answered by a tool message).
	Actions []string
}

// Plan is what the pipeline decided before the upstream call.
type Plan struct {
	Decision string // passthrough | ground | refuse | fallback
	Answer   string // refuse: answer with this text and make no upstream call
	System   string // system message to prepend ("" = none)
	Fallback bool   // send the configured fallback model instead of the request's
}

// Turn is one chat turn's trip through the stages after planning. It is used
// by one goroutine at a time.
type Turn interface {
	Plan() Plan
	// Content appends to dst what may be released of one content delta of
	// the answer (markers resolved, invented ones deleted, held text kept).
	Content(dst, delta []byte) []byte
	// Finish appends the held-back text at the end of the answer and
	// returns the trust report.
	Finish(ctx context.Context, dst []byte) ([]byte, *Report)
	// Abandon ends a turn that will not be finished (the client left, the
	// stream failed before the answer ended): it returns once every check
	// the turn started in the background has stopped. Not needed after
	// Finish.
	Abandon()
}

// Pipeline begins turns. Implementations must be safe for concurrent use.
type Pipeline interface {
	Begin(ctx context.Context, req TurnRequest) (Turn, error)
}

// Report is the guard object sent with the answer (DESIGN.md).
type Report struct {
	Decision  string             `json:"decision"`
	Coverage  any                `json:"coverage"`
	Citations any                `json:"citations"`
	Markers   any                `json:"markers"`
	Claims    any                `json:"claims"`
	Summary   any                `json:"summary"`
	Degraded  []string           `json:"degraded"`
	LatencyMS map[string]float64 `json:"latency_ms"`
	// URLs is the top-level "citations" array of the response: each cited
	// source's URL, or its id when it has none, in output order.
	URLs []string `json:"-"`
	// Dropped and Verdicts feed the metrics: markers dropped by reason and
	// claim verdict counts.
	Dropped  map[string]int `json:"-"`
	Verdicts map[string]int `json:"-"`
	// Audit counts what the online auditor found in the released answer.
	Audit map[string]int `json:"-"`
	// trace is the gate's inputs, for the turn log (nil on pass-through).
	trace *gateTrace
	// raw is the report's JSON, made once, for a report that never changes
	// (the pass-through one).
	raw []byte
}

func (r *Report) json() []byte {
	if r.raw != nil {
		return r.raw
	}
	b, _ := json.Marshal(r)
	return b
}

// passthrough is the pipeline with every stage switched off: the answer is
// relayed as the upstream wrote it and the report says so.
type passthrough struct{}

type passTurn struct{}

func (passthrough) Begin(context.Context, TurnRequest) (Turn, error) { return passTurn{}, nil }

func (passTurn) Plan() Plan                                             { return Plan{Decision: "passthrough"} }
func (passTurn) Content(dst, delta []byte) []byte                       { return append(dst, delta...) }
func (passTurn) Finish(_ context.Context, dst []byte) ([]byte, *Report) { return dst, passReport }

func (passTurn) Abandon() {}

// passReport is every pass-through turn's report: shared, so it must not be
// changed.
var passReport = func() *Report {
	r := &Report{Decision: "passthrough", Degraded: []string{}, Citations: []any{}, Claims: []any{},
		LatencyMS: map[string]float64{}}
	r.raw = r.json()
	return r
}()

var (
	_ Pipeline = passthrough{}
	_ Turn     = passTurn{}
)
