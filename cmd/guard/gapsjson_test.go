package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/answer-guard/guard/operator"
)

// TestGapListIsTheServersShape: what guard gaps decodes is the operator
// plane's own entry: a list the server writes with every field set reads
// back and writes again unchanged, so a field added there reaches here.
func TestGapListIsTheServersShape(t *testing.T) {
	at := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	g := &operator.Gap{ID: "00112233aabbccdd", Tenant: "t", KB: "kb", Kind: operator.GapClaim, Text: "a claim", Question: "q?",
		Count: 3, FirstSeen: at, LastSeen: at.Add(time.Hour), CoverageMax: 0.42, Status: operator.GapResolved,
		ResolvedAt: &at, Resolution: "operator: covered"}
	on := true
	want, err := json.Marshal(gapList{Enabled: &on, Source: "queue", Total: 1, ByKind: map[string]int{"gap": 1}, Data: []*operator.Gap{g}})
	if err != nil {
		t.Fatal(err)
	}
	var l gapList
	if err := json.Unmarshal(want, &l); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(l)
	if string(got) != string(want) {
		t.Errorf("round trip:\n%s\nwant\n%s", got, want)
	}
}
