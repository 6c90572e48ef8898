package gatefeed

import (
	"context"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/retrieve"
)

// testEngine builds a snapshot with build, the index's default
// configuration, in a temporary folder, and returns a retrieval engine
// over it with retrieve's (closed when tb ends).
func testEngine(tb testing.TB, build func(ctx context.Context, ic index.Config, dir string) (index.Manifest, error)) *retrieve.Engine {
	tb.Helper()
	ic := index.DefaultConfig()
	dir := filepath.Join(tb.TempDir(), "snap")
	if _, err := build(context.Background(), ic, dir); err != nil {
		tb.Fatal(err)
	}
	s, err := index.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	e, err := retrieve.New(retrieve.DefaultConfig(), ic, s, zap.NewNop())
	if err != nil {
		s.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// FuzzTurnGate runs a turn's question through retrieval and the gate in
// the order the proxy's Begin does (TurnQuery, retrieve, TurnGate: these
// adapters, both models with the corpus calibration, the primary-kind
// rule and Decide; the local planner, the refusal or the prompt), over
// the demo corpus with the default configuration: the gate then sees real
// semantic features, which gate's own FuzzGateTurn (a lexical pool) does
// not. Not run: Begin's passage-terms cache (termcache imports this
// package; the models compute the same terms per turn without it) and the
// remote planner. No panic; the outline indexes the survivors.
func FuzzTurnGate(f *testing.F) {
	for _, q := range []string{"How do I restore a backup?", "What does error LF-4002 mean?", "whats your phone number?",
		"what time do you close on sundays?", "How can I contact you", "explain hb 5.3", "hi! how do i restore a backup? thanks", "İİ \xff LF-4002 \u212a", ""} {
		f.Add(q)
	}
	e := testEngine(f, func(ctx context.Context, ic index.Config, dir string) (index.Manifest, error) {
		return index.BuildDemo(ctx, ic, dir, zap.NewNop())
	})
	cfg := gate.DefaultConfig()
	cfg.CorpusCalibration = true
	pcfg := cfg
	pcfg.Scrub = func(s string) string { return s }
	am, rm := gate.DefaultAnswerModel(), gate.DefaultRelevanceModel()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, text string) {
		rq := TurnQuery(index.DefaultTenant, index.DefaultKB, text, "", "")
		res, err := e.Retrieve(ctx, rq)
		if err != nil {
			t.Fatal(err)
		}
		turn := TurnGate(cfg, am, rm, rq, res, Candidates(res.Candidates))
		o := turn.Outcome
		outline := gate.LocalOutline(turn.Config, o)
		for _, i := range outline {
			if i < 0 || i >= len(o.Survivors) {
				t.Fatalf("outline %v over %d survivors", outline, len(o.Survivors))
			}
		}
		o = gate.ApplyOutline(o, outline)
		if o.Decision == gate.Refuse {
			gate.RefusalMessage(turn.Config, o)
		} else {
			gate.SystemPrompt(pcfg, o, nil)
		}
	})
}
