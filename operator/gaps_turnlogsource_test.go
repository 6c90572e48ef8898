package operator

import (
	"fmt"
	"testing"
)

// GET /v1/guard/gaps?source=turnlog groups the turn log's refusals and
// fallbacks as the queue files them: on a server with both, the same
// entries (tenant, KB, kind, text, count, coverage) in the same order,
// without ids; the turn log has no resolved or dismissed entries; an
// unknown source is a 400.
func TestGapsFromTurnLogSource(t *testing.T) {
	root, _ := offTopicGuard(t, nil)
	type row struct {
		ID                  string `json:"id"`
		Tenant, KB, Kind    string
		Text                string
		Count               int
		CoverageMax         float64 `json:"coverage_max"`
		FirstSeen, LastSeen string  `json:"-"`
	}
	type body struct {
		Enabled bool           `json:"enabled"`
		Source  string         `json:"source"`
		Total   int            `json:"total"`
		ByKind  map[string]int `json:"by_kind"`
		Data    []row          `json:"data"`
	}
	get := func(q string) body {
		t.Helper()
		var b body
		if code := opReq(t, "GET", root+"/v1/guard/gaps?"+q, nil, "", &b); code != 200 {
			t.Fatalf("GET gaps?%s: %d", q, code)
		}
		return b
	}
	const kinds = "kind=refused,fallback,off_topic"
	queue, log := get(kinds), get(kinds+"&source=turnlog")
	if queue.Total != 3 {
		t.Fatalf("the queue holds %d entries of those kinds, want one of each: it would prove nothing", queue.Total)
	}
	for i := range queue.Data {
		queue.Data[i].ID = ""
	}
	byKind := queue.ByKind
	byKind[GapClaim] = 0 // the turn log holds no claims
	if fmt.Sprint(log.Data) != fmt.Sprint(queue.Data) || log.Total != queue.Total || fmt.Sprint(log.ByKind) != fmt.Sprint(byKind) || log.Source != "turnlog" {
		t.Errorf("source=turnlog:\n%+v\nwant the queue's entries without ids:\n%+v", log, queue)
	}
	if b := get("source=turnlog&status=resolved"); b.Total != 0 || len(b.Data) != 0 {
		t.Errorf("source=turnlog&status=resolved: %d entries, want none", b.Total)
	}
	if code := opReq(t, "GET", root+"/v1/guard/gaps?source=bogus", nil, "", nil); code != 400 {
		t.Errorf("source=bogus: %d, want 400", code)
	}
}
