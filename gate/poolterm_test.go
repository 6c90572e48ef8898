package gate

import (
	"math"
	"testing"
)

// PoolCosine reads the first PoolTermK semantic candidates: the mean of
// their two best cosines (the best alone when there is one); lexical
// candidates do not count, none gives 0.
func TestPoolCosine(t *testing.T) {
	sem := func(sims ...float64) []Candidate {
		cs := make([]Candidate, len(sims))
		for i, s := range sims {
			cs[i] = Candidate{Sim: s, Semantic: true}
		}
		return cs
	}
	long := make([]float64, PoolTermK+4)
	for i := range long {
		long[i] = 0.2
	}
	long[PoolTermK+1] = 0.8
	tests := []struct {
		name  string
		cands []Candidate
		want  float64
	}{
		{"none", nil, 0},
		{"lexical only", []Candidate{{Sim: 0.9}}, 0},
		{"one", sem(0.3), 0.3},
		{"unordered", sem(0.2, 0.6, 0.1, 0.4, 0.5), 0.55},
		{"a lexical one skipped", append(sem(0.2, 0.4), Candidate{Sim: 0.9}), 0.3},
		{"past PoolTermK nothing counts", sem(long...), 0.2},
	}
	for _, tc := range tests {
		if got := PoolCosine(tc.cands); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: PoolCosine = %.4f, want %.4f", tc.name, got, tc.want)
		}
	}
}
