package encoder

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/answer-guard/guard/index/encoder/modelfile"
)

// TestLinearKernelsAgree runs an int8 layer through every kernel this
// machine has (AVX-512 eight-row blocks and sparse rows, AVX2 four-row
// blocks) for row counts that leave every kind of tail, dense and mostly
// zero inputs, against a plain float64 product.
func TestLinearKernelsAgree(t *testing.T) {
	if !haveDot2x4 {
		t.Skip("no SIMD kernel on this machine")
	}
	const in, out = 64, 32
	rng := rand.New(rand.NewPCG(1, 2))
	m := modelfile.Matrix{Rows: in, Cols: out, PerColumn: true, Q: make([]int8, in*out), Scale: make([]float32, out)}
	for i := range m.Q {
		m.Q[i] = int8(rng.IntN(255) - 127)
	}
	for c := range m.Scale {
		m.Scale[c] = 0.01 * float32(c+1)
	}
	bias := make([]float32, out)
	for c := range bias {
		bias[c] = float32(c%5) - 1.5
	}
	l := newLinear(&m, bias, nil)
	l.keepRows(&m)
	for n := 1; n <= 19; n++ {
		x := make([]float32, n*in)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			if n%2 == 0 && rng.IntN(10) > 0 {
				x[i] = 0 // mostly zeros, as after a ReLU: applySparse's own path
			}
		}
		want := make([]float64, n*out)
		for r := 0; r < n; r++ {
			for c := 0; c < out; c++ {
				s := 0.0
				for k := 0; k < in; k++ {
					s += float64(x[r*in+k]) * float64(m.Q[k*out+c])
				}
				want[r*out+c] = s*float64(m.Scale[c]) + float64(bias[c])
			}
		}
		kernels := map[string]func(dst, x []float32, n int, pad *[]float32){"avx2": l.apply4}
		if haveDot8x2 {
			kernels["avx512"] = l.apply8
			kernels["avx512-sparse"] = l.applySparse
		}
		for name, apply := range kernels {
			var pad []float32
			got := make([]float32, n*out)
			apply(got, x, n, &pad)
			for i := range got {
				if d := math.Abs(float64(got[i]) - want[i]); d > 1e-3 {
					t.Fatalf("%s n=%d: element %d = %g, want %g", name, n, i, got[i], want[i])
				}
			}
		}
	}
}
