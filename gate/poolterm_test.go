package gate

import (
	"math"
	"testing"
)

// PoolCosines reads the first PoolTermK semantic candidates: the mean of
// their three best cosines (of fewer when there are fewer) and their mean
// cosine; lexical candidates do not count, none gives zeros.
func TestPoolCosines(t *testing.T) {
	sem := func(sims ...float64) []Candidate {
		cs := make([]Candidate, len(sims))
		for i, s := range sims {
			cs[i] = Candidate{Sim: s, Semantic: true}
		}
		return cs
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	tests := []struct {
		name       string
		cands      []Candidate
		top3, mean float64
	}{
		{"none", nil, 0, 0},
		{"lexical only", []Candidate{{Sim: 0.9}}, 0, 0},
		{"one", sem(0.3), 0.3, 0.3},
		{"two", sem(0.1, 0.5), 0.3, 0.3},
		{"unordered", sem(0.2, 0.6, 0.1, 0.4, 0.5), 0.5, 0.36},
		{"a lexical one skipped", append(sem(0.2, 0.4), Candidate{Sim: 0.9}), 0.3, 0.3},
	}
	for _, tc := range tests {
		top3, mean := PoolCosines(tc.cands)
		if !near(top3, tc.top3) || !near(mean, tc.mean) {
			t.Errorf("%s: PoolCosines = %.4f, %.4f; want %.4f, %.4f", tc.name, top3, mean, tc.top3, tc.mean)
		}
	}
	// Past PoolTermK nothing counts.
	long := make([]float64, PoolTermK+4)
	for i := range long {
		long[i] = 0.2
	}
	long[PoolTermK+1] = 0.8
	top3, mean := PoolCosines(sem(long...))
	if !near(mean, 0.2) || !near(top3, 0.2) {
		t.Errorf("past PoolTermK: PoolCosines = %.4f, %.4f; want 0.2000, 0.2000", top3, mean)
	}
}
