package proxy

import (
	"context"
	"maps"
	"testing"

	"github.com/answer-guard/guard/judge"
)

// freshCited is guardTurn.cited as it was: a new map on every call.
func freshCited(t *guardTurn) map[int]judge.Passage {
	m := map[int]judge.Passage{}
	for _, c := range t.st.Citations() {
		m[c.N] = judge.Passage{N: c.N, ID: c.ID, Title: c.Title, Text: t.byID[c.ID].Text}
	}
	return m
}

// cited, which makes its map again only when a citation was added, gives
// what a new map per call gave after every delta of a grounded answer
// (citations first shown mid-answer, repeated, unknown), and a map it
// handed out keeps its contents when later citations come.
func TestCitedAsFresh(t *testing.T) {
	pipe := lexicalPipeline(t)
	tr, err := pipe.Begin(context.Background(), TurnRequest{Tenant: "default", KB: "default", Model: "mock-1", Stream: true, Query: "What does error LF-4002 mean?"})
	if err != nil {
		t.Fatal(err)
	}
	turn := tr.(*guardTurn)
	defer turn.Abandon()
	type handed struct {
		m, copy map[int]judge.Passage
	}
	var out []handed
	grew := 0
	for _, d := range []string{"Error LF-4002 means", " the account is locked [^", "1].", " An admin", " unlocks it [^2]", " (see [^9]).",
		" Again [^1][^2].", " Done."} {
		turn.Content(context.Background(), nil, []byte(d))
		got, want := turn.cited(), freshCited(turn)
		if !maps.Equal(got, want) {
			t.Fatalf("after %q: cited %v, want %v", d, got, want)
		}
		if len(out) > 0 && len(got) > len(out[len(out)-1].m) {
			grew++
		}
		out = append(out, handed{got, maps.Clone(got)})
	}
	if grew < 2 {
		t.Fatalf("the answer added citations %d times, want at least 2 (the test needs them)", grew)
	}
	for i, h := range out {
		if !maps.Equal(h.m, h.copy) {
			t.Errorf("map %d changed after it was handed out: %v, was %v", i, h.m, h.copy)
		}
	}
}
