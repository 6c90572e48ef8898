//go:build !amd64

package encoder

func dot2x4(x *float32, xstride int, w *float32, wstride int, n int, out *[8]float32) {
	panic("dot2x4: not available")
}

const haveDot2x4 = false
