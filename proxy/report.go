package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

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

func attachReport(b []byte, rep *Report) []byte {
	if rep == nil {
		return b
	}
	cites := []byte("[]")
	if len(rep.URLs) > 0 {
		cites, _ = json.Marshal(rep.URLs)
	}
	guard := rep.json()
	// Common case: append both fields before the object's closing brace,
	// without re-parsing the body. If the upstream already sent either
	// field, replace it instead so no key appears twice.
	end := bytes.LastIndexByte(b, '}')
	if end < 0 || gjson.GetBytes(b, "citations").Exists() || gjson.GetBytes(b, "guard").Exists() {
		b, _ = sjson.SetRawBytes(b, "citations", cites)
		b, _ = sjson.SetRawBytes(b, "guard", guard)
		return b
	}
	out := make([]byte, 0, len(b)+len(cites)+len(guard)+24)
	out = append(out, b[:end]...)
	if start := bytes.IndexByte(b, '{'); start >= 0 && start < end && len(bytes.TrimSpace(b[start+1:end])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"citations":`...)
	out = append(out, cites...)
	out = append(out, `,"guard":`...)
	out = append(out, guard...)
	return append(out, b[end:]...)
}
