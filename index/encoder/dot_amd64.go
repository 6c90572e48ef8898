package encoder

import "golang.org/x/sys/cpu"

// dot2x4 computes out[2*t+c] = x[t*xstride:][:n] · w[c*wstride:][:n] for
// four rows of x and two of w at once (dot_amd64.s): each weight load
// serves four tokens, which is what makes the matmuls of a forward pass
// compute-bound rather than load-bound. n must be a positive multiple of 8.
//
//go:noescape
func dot2x4(x *float32, xstride int, w *float32, wstride int, n int, out *[8]float32)

// dot2x4q is dot2x4 over int8 weights (wstride in bytes), converted to
// float in registers: a quarter of the memory traffic of fp32 weights.
//
//go:noescape
func dot2x4q(x *float32, xstride int, w *int8, wstride int, n int, out *[8]float32)

// dot2x2q is dot2x4q for two rows of x.
//
//go:noescape
func dot2x2q(x *float32, xstride int, w *int8, wstride int, n int, out *[4]float32)

// dot8x2q is dot2x4q for eight rows of x with AVX-512 (n a multiple of
// 16): each converted weight vector serves eight tokens, and each
// instruction sixteen lanes.
//
//go:noescape
func dot8x2q(x *float32, xstride int, w *int8, wstride int, n int, out *[16]float32)

// axpyq adds a times the int8 vector w to dst (n a multiple of 32), with
// AVX-512.
//
//go:noescape
func axpyq(dst *float32, w *int8, a float32, n int)

var (
	haveDot2x4 = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	haveDot8x2 = haveDot2x4 && cpu.X86.HasAVX512F
)
