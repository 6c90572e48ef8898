//go:build !amd64

package encoder

func dot2x4(x *float32, xstride int, w *float32, wstride int, n int, out *[8]float32) {
	panic("dot2x4: not available")
}

func dot2x4q(x *float32, xstride int, w *int8, wstride int, n int, out *[8]float32) {
	panic("dot2x4q: not available")
}

func dot2x2q(x *float32, xstride int, w *int8, wstride int, n int, out *[4]float32) {
	panic("dot2x2q: not available")
}

func dot8x2q(x *float32, xstride int, w *int8, wstride int, n int, out *[16]float32) {
	panic("dot8x2q: not available")
}

func axpyq(dst *float32, w *int8, a float32, n int) {
	panic("axpyq: not available")
}

const (
	haveDot2x4 = false
	haveDot8x2 = false
)
