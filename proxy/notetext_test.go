package proxy_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// The notes reach the model as written: slug ids that are ordinary words
// ("lockers", "sauna", "lanes", "parties") stay in the prose; a passage
// naming another passage's real id (one not among this turn's notes) loses
// that id; a bare "[1]" in a passage reaches the model as "(1)".
func TestNoteTextAsWrittenEndToEnd(t *testing.T) {
	corpus := writeCorpus(t,
		`{"id":"lockers","kind":"lecture","title":"Lockers","text":"Larger lockers for bags and prams are by the pool entrance [1]. The lockers take a one pound coin, returned when you open them again."}`,
		`{"id":"sauna","kind":"lecture","title":"Sauna","text":"The sauna and steam room are for adults only. Sauna sessions are included with the pool ticket; see swim-faq-0402 for the pool opening times."}`,
		`{"id":"lanes","kind":"lecture","title":"Lanes","text":"The pool has six lanes for lane swimming. Lanes are split into slow, medium and fast from seven in the morning."}`,
		`{"id":"parties","kind":"library","title":"Parties","text":"Children's pool parties can be booked for up to twenty guests. Parties include one hour in the pool and one hour in the party room."}`,
		`{"id":"swim-faq-0402","kind":"library","title":"Bicycles","text":"Bicycle racks are in the car park beside the main road entrance; bring your own lock."}`,
	)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = dir
		c.Stages.Gate.GoodEnoughMax, c.Stages.Gate.SufficientMax, c.Stages.Gate.BailOutBelow = 0, 0, 0
	})
	for _, tc := range []struct{ q, want string }{
		{"Where are the larger lockers for bags and prams?", "Larger lockers for bags and prams are by the pool entrance (1)."},
		{"Are the sauna and steam room for adults?", "The sauna and steam room are for adults only."},
		{"How many lanes does the pool have for lane swimming?", "The pool has six lanes for lane swimming."},
		{"How many guests can come to pool parties?", "Parties include one hour in the pool"},
	} {
		complete(t, ts, tc.q, false)
		var body struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(ts.mock.LastBody(), &body); err != nil {
			t.Fatal(err)
		}
		sys := body.Messages[0].Content
		if !strings.Contains(sys, "[^1] ") {
			t.Fatalf("%s: no notes in the system message:\n%s", tc.q, sys)
		}
		if !strings.Contains(sys, tc.want) {
			t.Errorf("%s: system message lacks %q:\n%s", tc.q, tc.want, sys)
		}
		for _, bad := range []string{"swim-faq-0402", "[1]", "  "} {
			if strings.Contains(sys, bad) {
				t.Errorf("%s: system message carries %q:\n%s", tc.q, bad, sys)
			}
		}
	}
}
