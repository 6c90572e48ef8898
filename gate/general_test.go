package gate

import (
	"math"
	"testing"
)

// A general-knowledge question (Ask.General above general_above) on a
// corpus that keeps to one topic has every passage's relevance lowered by
// general_weight x (score - general_above) in logit, and is never refused
// as on-topic by on_topic_sim: "what's the capital of australia" against
// a campsite's prices goes to general knowledge. A mixed archive, a
// contact question, a score at or below the threshold and the rule off
// (weight 0) leave the decision to the thresholds.
func TestGeneralQuestion(t *testing.T) {
	pool := func(rel, coh float64) []Candidate {
		return []Candidate{
			{ID: "prices", Kind: "library", Title: "Prices", Relevance: rel, Sim: 0.34, Semantic: true, Coherence: coh},
			{ID: "rules", Kind: "library", Title: "Site rules", Relevance: rel / 4, Sim: 0.27, Semantic: true, Coherence: coh},
		}
	}
	for _, tc := range []struct {
		name    string
		rel     float64
		coh     float64
		ask     Ask
		weight  float64
		want    Decision
		general bool
	}{
		{"general question grounded on one shared register: general knowledge", 0.56, 0.6, Ask{General: 0.27}, 32, Fallback, true},
		{"general, saturated relevance lowered too", 1, 0.6, Ask{General: 0.6}, 32, Fallback, true},
		{"general but strong evidence: still grounded", 0.9999, 0.6, Ask{General: 0.2}, 32, Ground, true},
		{"below bail-out: general knowledge, not refused as on-topic", 0.10, 0.6, Ask{General: 0.2}, 32, Fallback, true},
		{"between band after lowering: general knowledge, not refused", 0.6, 0.6, Ask{General: 0.16}, 32, Fallback, true},
		{"between band, not general: refused", 0.5, 0.6, Ask{General: 0.1}, 32, Refuse, false},
		{"at the threshold: not general", 0.56, 0.6, Ask{General: 0.15}, 32, Ground, false},
		{"below bail-out, not general: refused as on-topic", 0.10, 0.6, Ask{General: 0.05}, 32, Refuse, false},
		{"mixed archive: relevance kept", 0.56, 0.35, Ask{General: 0.3}, 32, Ground, false},
		{"contact question: relevance kept", 0.56, 0.6, Ask{General: 0.3, Contact: true}, 32, Ground, false},
		{"rule off", 0.56, 0.6, Ask{General: 0.3}, 0, Ground, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.PrimaryKind, cfg.PrimaryMin, cfg.GeneralWeight = "", 1, tc.weight
			o := Decide(cfg, pool(tc.rel, tc.coh), true, tc.ask)
			if o.Decision != tc.want || o.Checks["general"] != tc.general {
				t.Fatalf("decision %s general %v, want %s %v (max %.3f, checks %v)", o.Decision, o.Checks["general"], tc.want, tc.general, o.Coverage.Max, o.Checks)
			}
		})
	}
}

func TestLowered(t *testing.T) {
	for _, tc := range []struct{ r, d, want float64 }{
		{0.5, 0, 0.5},
		{0.5, math.Log(3), 0.25},
		{0.9, math.Log(9), 0.5},
		{0, 2, 1e-6 / (1e-6 + (1-1e-6)*math.Exp(2))},
	} {
		if got := lowered(tc.r, tc.d); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("lowered(%v, %v) = %v, want %v", tc.r, tc.d, got, tc.want)
		}
	}
	if got := lowered(math.NaN(), 1); !math.IsNaN(got) {
		t.Errorf("lowered(NaN) = %v, want NaN", got)
	}
}

func TestGeneralConfigRange(t *testing.T) {
	for _, tc := range []struct {
		above, weight float64
		ok            bool
	}{{0.15, 32, true}, {-1, 0, true}, {1.5, 32, false}, {0.1, -1, false}, {0.1, math.NaN(), false}, {0.1, 1001, false}} {
		cfg := DefaultConfig()
		cfg.GeneralAbove, cfg.GeneralWeight = tc.above, tc.weight
		if err := cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("general_above %v general_weight %v: err %v, want ok %v", tc.above, tc.weight, err, tc.ok)
		}
	}
}
