package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/sjson"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/jsonw"
	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
)

// Report is the "guard" object sent with every answer: in the last chunk
// of a stream (the one with finish_reason) and at the top level of a whole
// completion, next to "citations" (URLs). Its JSON shape, matched by
// testdata/report-*.json (TestReportGolden):
//
//	{
//	  "decision":   "ground" | "fallback" | "refuse" | "passthrough",
//	  "coverage":   {"max": float, "primary_kind_count": int, "outline": int}   (null on passthrough),
//	  "citations":  [{"n": int, "id": str, "title": str, "address": str, "url": str}, ...]
//	                (the notes cited in the released answer, in output order),
//	  "markers":    {"kept": int, "dropped": int, "by_reason": {reason: int},
//	                 "audit": {"markers", "invented", "broken", "leaked_ids", "unknown_citations",
//	                           "unused_citations", "unknown_named": int, "findings": [...]}}
//	                (null on passthrough),
//	  "claims":     [judge.Claim, ...]  (one per checked sentence; [] when none),
//	  "summary":    {"claims", "verified", "miscited", "uncited", "gaps": int} (null on passthrough),
//	  "degraded":   [str, ...]  (the remote pieces that failed and were replaced by local ones),
//	  "latency_ms": {stage: float}  (retrieve, gate, verify; {} on passthrough)
//	}
type Report struct {
	Decision  gate.Decision       `json:"decision"`
	Coverage  *gate.Coverage      `json:"coverage"`
	Citations []gauntlet.Citation `json:"citations"`
	Markers   *MarkerReport       `json:"markers"`
	Claims    []judge.Claim       `json:"claims"`
	Summary   *judge.Summary      `json:"summary"`
	Degraded  []string            `json:"degraded"`
	LatencyMS map[string]float64  `json:"latency_ms"`
	// Query is the text retrieval and the gate read when it is not the
	// last user message: a follow-up's, with the message before it.
	Query string `json:"query,omitempty"`
	// URLs is the top-level "citations" array of the response: each cited
	// source's URL, or its id when it has none, in output order.
	URLs []string `json:"-"`
	// trace is the gate's inputs, for the operator plane (nil on
	// pass-through).
	trace *turnrec.GateTrace
	// raw is the report's JSON, made once, for a report that never changes
	// (the pass-through one).
	raw []byte
}

// droppedByReason is the markers dropped, by reason (nil without markers).
func (r *Report) droppedByReason() map[string]int {
	if r.Markers == nil {
		return nil
	}
	return r.Markers.ByReason
}

// verdictCounts counts the claims by verdict.
func (r *Report) verdictCounts() map[string]int {
	m := make(map[string]int, 4)
	for _, c := range r.Claims {
		m[c.Verdict]++
	}
	return m
}

// MarkerReport is guard.markers: the gauntlet's marker counts plus what the
// online auditor found in the released answer (one definition, shared with
// the finished-turn record).
type MarkerReport = turnrec.Markers

func (r *Report) json() []byte {
	if r.raw != nil {
		return r.raw
	}
	b, ok := jsonw.Report(make([]byte, 0, 2048), r.Decision, r.Coverage, r.Citations, r.Markers, r.Claims, r.Summary, r.Degraded, r.LatencyMS)
	if !ok { // a NaN or infinity: what encoding/json sends (nothing)
		b, _ = json.Marshal(r)
	} else if r.Query != "" {
		b = jsonw.AppendMembers(b, jsonw.String([]byte(`"query":`), r.Query))
	}
	return b
}

// attachReportTo returns the JSON object b with the report set as its
// "citations" and "guard" members; has says whether b already has either
// (the chunk scan's report flag), which is then replaced. It returns a new
// buffer and keeps nothing of b, which may be a pooled response's body.
func attachReportTo(b []byte, rep *Report, has bool) []byte {
	return appendReport(nil, b, rep, has)
}

// appendReport is attachReportTo appending to dst, which must not overlap
// b: a whole answer is written straight into the response's pooled body.
func appendReport(dst, b []byte, rep *Report, has bool) []byte {
	if rep == nil {
		return append(dst, b...)
	}
	cites := jsonw.List(nil, rep.URLs)
	guard := rep.json()
	// Common case: append both fields before the object's closing brace,
	// without re-parsing the body. If the upstream already sent either
	// field, replace it instead so no key appears twice.
	if has || bytes.LastIndexByte(b, '}') < 0 {
		b, _ = sjson.SetRawBytes(b, "citations", cites)
		b, _ = sjson.SetRawBytes(b, "guard", guard)
		return append(dst, b...)
	}
	return jsonw.AppendMembersTo(dst, b, citationsKey, cites, guardKey, guard)
}

var citationsKey, guardKey = []byte(`"citations":`), []byte(`,"guard":`)
