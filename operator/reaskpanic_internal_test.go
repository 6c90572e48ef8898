package operator

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
)

// panicHost grounds every question but one whose asking panics (a bug in
// a stage the re-ask runs).
type panicHost struct{ fakeHost }

func (panicHost) Ask(_ context.Context, _, _, q string) (gate.Decision, float64, error) {
	if strings.Contains(q, "lava") {
		panic("a gate's bug")
	}
	return gate.Ground, 0.9, nil
}

// A question whose re-ask panics is skipped and logged; the pass goes on
// to the next gap and resolves it, and the process lives.
func TestReaskSurvivesPanic(t *testing.T) {
	q, err := newGapQueue("", zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	p := &Plane{host: panicHost{}, gapQ: q, log: zap.NewNop()}
	p.cfg.Store(&cfg)
	q.add(cfg.Gaps, "default", "default", GapRefused, "How hot is the lava of an erupting volcano?", "", 0.2)
	q.add(cfg.Gaps, "default", "default", GapRefused, "When is the kangaroo migration schedule published?", "", 0.2)
	resolved, asked := p.reaskOpen(context.Background(), 10)
	if asked != 2 || resolved != 1 {
		t.Fatalf("re-ask past a panic: asked %d resolved %d, want 2 and 1", asked, resolved)
	}
}
