package bench

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/retrieve"
)

// t12Parking is trial 12's parking set as the suite reads it with --trials.
func t12Parking(t *testing.T) GateSet {
	t.Helper()
	sets, err := DevGateSets(filepath.Join(filepath.Dir(gateDevDir()), "gate_trials"))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sets, func(s GateSet) bool { return s.Name == "t12-parking" })
	if i < 0 {
		t.Fatal("no t12-parking set in gate_trials (go run ./tools/trialgate)")
	}
	return sets[i]
}

// TestGateHistoryReadAsProxy: a multi-turn row of the grounding suite is
// retrieved for as the proxy reads that chat (retrieve.followup on): a
// follow-up joined with the user message before it, and with the one
// before that when that one followed up too; a new question after an
// unrelated history alone; the ask the last message's own.
func TestGateHistoryReadAsProxy(t *testing.T) {
	s := t12Parking(t)
	byID := map[string]GateQuestion{}
	for _, q := range s.Questions {
		byID[q.ID] = q
	}
	tests := []struct {
		q         GateQuestion
		wantQuery string
		top3      bool // a labelled answer passage is among the first three candidates
	}{
		{byID["t12-parking-km1"], "How much is a residents' permit?\nAnd for a second car?", true},
		{byID["t12-parking-km7"], "How long does the refund take?\nAnd what if there are only three weeks left?", false},
		// a standalone question after an unrelated history is read alone
		{byID["t12-parking-km12"], "Do motorbikes need a permit?", false},
		// three messages, the second a follow-up of the first (proxy
		// TurnRequest.Before)
		{GateQuestion{ID: "three", History: []string{"When do the restrictions apply in zone C?", "and in zone E?"}, Question: "and on saturdays?"},
			"When do the restrictions apply in zone C?\nand in zone E?\nand on saturdays?", false},
	}
	qs := make([]GateQuestion, len(tests))
	for i, tt := range tests {
		if tt.q.ID == "" {
			t.Fatalf("row %d: question not in the set", i)
		}
		qs[i] = tt.q
	}
	cases, err := prepareGateSet(context.Background(), GateSet{Name: s.Name, Docs: s.Docs, Questions: qs})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		c := cases[i]
		if c.query != tt.wantQuery {
			t.Errorf("%s: retrieval read %q, want %q", tt.q.ID, c.query, tt.wantQuery)
		}
		// the wording's ask is the last message's; the general score and
		// the named word are of the text retrieval read
		got, want := c.pq.Ask(), gate.AskOf(gate.Focus(tt.q.Question))
		got.General, got.Names = 0, ""
		if got != want {
			t.Errorf("%s: asks %+v, want the last message's %+v", tt.q.ID, got, want)
		}
		if !tt.top3 {
			continue
		}
		rank := slices.IndexFunc(c.docIDs, func(id string) bool { return slices.Contains(tt.q.AnswerIDs, id) })
		if rank < 0 || rank >= 3 {
			t.Errorf("%s: answer %v at index %d of %v, want among the first three", tt.q.ID, tt.q.AnswerIDs, rank, c.docIDs)
		}
	}
}

// TestGateNoHistoryUnchanged: a row without history is retrieved and
// prepared exactly as before histories were read (the last message alone,
// no previous message), in trial 12's parking set and in a dev corpus of
// bench/testdata/gate.
func TestGateNoHistoryUnchanged(t *testing.T) {
	dev, err := DevGateSets(gateDevDir())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(dev, func(s GateSet) bool { return s.Name == "faq" })
	if i < 0 {
		t.Fatal("no faq set in bench/testdata/gate")
	}
	ctx := context.Background()
	for _, s := range []GateSet{t12Parking(t), dev[i]} {
		e, err := gateEngine(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, q := range s.Questions {
			if len(q.History) > 0 {
				continue
			}
			if n++; n > 8 {
				break
			}
			text := gate.Focus(q.Question)
			before, err := e.Retrieve(ctx, retrieve.Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: text, Also: gate.AskOf(text).Also()})
			if err != nil {
				t.Fatal(err)
			}
			rq, now, err := retrieveTurn(ctx, e, q)
			gotText := rq.Text
			if err != nil {
				t.Fatal(err)
			}
			if gotText != text || now.Query != text {
				t.Errorf("%s: read %q (retrieval %q), want %q", q.ID, gotText, now.Query, text)
			}
			if !reflect.DeepEqual(now.Candidates, before.Candidates) {
				t.Errorf("%s: candidates differ from a retrieval of the message alone", q.ID)
			}
			_, got := gatefeed.TurnQuestion(rq, now)
			want := gatefeed.Question(text, before)
			if got.Ask() != want.Ask() {
				t.Errorf("%s: asks %+v, want %+v", q.ID, got.Ask(), want.Ask())
			}
		}
		e.Close()
		if n == 0 {
			t.Fatalf("%s: no row without history", s.Name)
		}
	}
}
