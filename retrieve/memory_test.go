package retrieve

import (
	"context"
	"slices"
	"testing"

	"github.com/answer-guard/guard/index"
)

func TestMemoryThresholdBoundaries(t *testing.T) {
	c := DefaultConfig().Memory
	judge := func(s float64) func() (float64, bool) { return func() (float64, bool) { return s, true } }
	noJudge := func() (float64, bool) { return 0, false }
	const eps = 1e-9
	pins := []struct {
		name  string
		sim   float64
		judge func() (float64, bool)
		want  bool
	}{
		{"at pin_accept 0.85", 0.85, noJudge, true},
		{"just below 0.85, no judge", 0.85 - eps, noJudge, false},
		{"border, judge at 0.50", 0.85 - eps, judge(0.50), true},
		{"border, judge just below 0.50", 0.85 - eps, judge(0.50 - eps), false},
		{"at pin_border 0.70, judge 0.50", 0.70, judge(0.50), true},
		{"at pin_border 0.70, no judge", 0.70, noJudge, false},
		{"just below 0.70, judge 1", 0.70 - eps, judge(1), false},
	}
	for _, tt := range pins {
		if got := c.acceptPin(tt.sim, tt.judge); got != tt.want {
			t.Errorf("pin %s: acceptPin(%v) = %v, want %v", tt.name, tt.sim, got, tt.want)
		}
	}
	notes := []struct {
		sim  float64
		want bool
	}{{0.60, true}, {0.60 - eps, false}, {0.95, true}}
	for _, tt := range notes {
		if got := c.matchNote(tt.sim); got != tt.want {
			t.Errorf("matchNote(%v) = %v, want %v", tt.sim, got, tt.want)
		}
	}
	sc := []struct {
		sim  float64
		refs int
		want bool
	}{{0.70, 3, true}, {0.70 - eps, 3, false}, {0.70, 2, false}, {0.90, 5, true}}
	for _, tt := range sc {
		if got := c.shortCircuits(tt.sim, tt.refs); got != tt.want {
			t.Errorf("shortCircuits(%v, %d) = %v, want %v", tt.sim, tt.refs, got, tt.want)
		}
	}
}

// TestMemoryLaneOnIndex places the configured thresholds exactly at the
// measured similarity of a real question, on both sides.
func TestMemoryLaneOnIndex(t *testing.T) {
	ic := index.DefaultConfig()
	_, s := buildSnap(t, ic, testDocs(), testMemory())
	defer s.Close()
	p := s.Partition("acme", "docs")
	ctx := context.Background()
	q := "restore an old backup archive from last week"
	qs := p.Local().SparseText(q)
	pinSim := p.Local().Calib.Apply(qs.Cosine(p.MemoryVectors(0)[0]))
	var noteSim float64
	for _, v := range p.MemoryVectors(1) {
		noteSim = max(noteSim, p.Local().Calib.Apply(qs.Cosine(v)))
	}
	if pinSim <= 0.1 || noteSim <= 0.1 || pinSim > 0.99 {
		t.Fatalf("similarities too low to test: pin %v note %v", pinSim, noteSim)
	}
	restore := p.Resolve("a-restore")[0]
	tests := []struct {
		name       string
		mut        func(*MemoryConfig)
		rerankOff  bool
		wantPinRef bool
		wantNote   bool
		wantSC     bool
	}{
		{"pin accepted at its similarity", func(m *MemoryConfig) { m.PinAccept, m.PinBorder = pinSim, pinSim; m.NoteMatch = 1 }, false, true, false, false},
		{"pin border without judge rejected", func(m *MemoryConfig) { m.PinAccept, m.PinBorder = pinSim+1e-9, pinSim; m.NoteMatch = 1 }, true, false, false, false},
		{"pin border, judge threshold 0", func(m *MemoryConfig) { m.PinAccept, m.PinBorder, m.PinJudge = pinSim+1e-9, pinSim, 0; m.NoteMatch = 1 }, false, true, false, false},
		{"pin below border", func(m *MemoryConfig) {
			m.PinAccept, m.PinBorder, m.PinJudge = pinSim+2e-9, pinSim+1e-9, 0
			m.NoteMatch = 1
		}, false, false, false, false},
		{"note at its similarity short-circuits with 3 refs", func(m *MemoryConfig) { m.PinAccept, m.PinBorder = 1, 1; m.NoteMatch, m.ShortCircuit = noteSim, noteSim }, false, true, true, true},
		{"note needs 4 refs: no short circuit", func(m *MemoryConfig) {
			m.PinAccept, m.PinBorder = 1, 1
			m.NoteMatch, m.ShortCircuit, m.ShortCircuitRefs = noteSim, noteSim, 4
		}, false, true, true, false},
		{"note just above its similarity: unmatched", func(m *MemoryConfig) { m.PinAccept, m.PinBorder = 1, 1; m.NoteMatch = noteSim + 1e-9 }, false, false, false, false},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		tt.mut(&cfg.Memory)
		if tt.rerankOff {
			cfg.Rerank.Mode = "off"
		}
		e := newEngine(t, cfg, ic, nil)
		out := e.memoryLane(ctx, p, q, qs)
		_, gotRef := out.refs[restore]
		if gotRef != tt.wantPinRef || (len(out.notes) > 0) != tt.wantNote || out.shortCircuit != tt.wantSC {
			t.Errorf("%s: ref %v notes %d short-circuit %v; want ref %v note %v short-circuit %v",
				tt.name, gotRef, len(out.notes), out.shortCircuit, tt.wantPinRef, tt.wantNote, tt.wantSC)
		}
		if tt.wantSC {
			r, err := e.RetrieveFrom(ctx, s, Query{Tenant: "acme", KB: "docs", Text: q})
			if err != nil || !r.ShortCircuit {
				t.Fatalf("%s: Retrieve short-circuit = %v, %v", tt.name, r.ShortCircuit, err)
			}
			for _, c := range r.Candidates {
				if !slices.Equal(c.Lanes, []string{"memory"}) {
					t.Errorf("%s: short-circuited result has %s via %v", tt.name, c.ID, c.Lanes)
				}
			}
		}
	}
}
