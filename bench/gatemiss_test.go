package bench

import (
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// TestGateMissDetail: an answerable question the gate gets wrong is listed
// with its answer passage's rank, lanes, relevance and answerability and
// the notes the turn kept; a question whose answer passage was not
// retrieved says so.
func TestGateMissDetail(t *testing.T) {
	tok := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	cands := []gate.Candidate{
		{ID: "a", Text: "opening hours of the shop", Lanes: []string{"dense"}},
		{ID: "b", Text: "returns chute by the door", Lanes: []string{"dense", "lexical"}},
	}
	mk := func(answer string) gateCase {
		return gateCase{set: "s", q: GateQuestion{Question: "can I return books when it is shut?", Answerable: true, AnswerIDs: []string{answer}},
			pq: gate.PrepareQuestion(tok, "can I return books when it is shut?", nil), cands: cands,
			docIDs: []string{"a", "b"}, primaryAbsent: true, related: map[string]bool{}}
	}
	// Zero models rate every passage 0.5: in the between band, refused.
	sys := gateSystem{name: "zero", cfg: gate.DefaultConfig(), semantic: true}
	for _, tc := range []struct {
		answer, want string
	}{
		{"b", "[right passage b at rank 2, lanes dense+lexical, relevance 0.50, answerability 0.50; notes kept: none]"},
		{"z", "[right passage not retrieved; notes kept: none]"},
	} {
		g := sys.score([]gateCase{mk(tc.answer)})
		if len(g.Failures) != 1 {
			t.Fatalf("answer %s: failures %q, want one", tc.answer, g.Failures)
		}
		if got := g.Failures[0]; !strings.HasSuffix(got, "shut? "+tc.want) || !strings.HasPrefix(got, "answerable: relevance in the between band") {
			t.Errorf("answer %s: failure %q, want the between band and %q", tc.answer, got, tc.want)
		}
	}
}

func TestRightAmong(t *testing.T) {
	c := gateCase{
		q:      GateQuestion{Answerable: true, AnswerIDs: []string{"b"}},
		cands:  []gate.Candidate{{ID: "a#0"}, {ID: "b#0"}, {ID: "c#0"}, {ID: "d#0"}},
		docIDs: []string{"a", "b", "c", "d"},
	}
	notes := func(ids ...string) []gate.Note {
		ns := make([]gate.Note, len(ids))
		for i, id := range ids {
			ns[i] = gate.Note{N: i + 1, ID: id}
		}
		return ns
	}
	for _, tc := range []struct {
		notes []gate.Note
		k     int
		want  bool
	}{
		{notes("b#0"), 3, true},
		{notes("a#0", "c#0", "d#0", "b#0"), 3, false},
		{notes("a#0", "c#0", "d#0", "b#0"), 4, true},
		{notes("a#0", "c#0"), 3, false},
		{nil, 3, false},
	} {
		if got := c.rightAmong(tc.notes, tc.k); got != tc.want {
			t.Errorf("rightAmong(%v, %d) = %v, want %v", tc.notes, tc.k, got, tc.want)
		}
	}
}
