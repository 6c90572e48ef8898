package resident

import (
	"runtime"
	"unsafe"
)

// Arena hands out zeroed memory outside the Go heap where the system
// allows it (Linux: anonymous mappings), else from the heap. It is for
// data that holds no pointers and lives as long as one owner (a model's
// weights, a table built at load): on the heap such data counts in the
// collector's goal, and under the proxy's server.gc.percent 400 each live
// megabyte is five of heap at the peak. The zero Arena is ready to use.
type Arena struct {
	regions [][]byte
}

// Number is what an Arena hands out.
type Number interface {
	~int8 | ~int32 | ~uint32 | ~float32
}

// Make returns n zeroed values from a (from the heap when a is nil).
func Make[T Number](a *Arena, n int) []T {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if a == nil || n <= 0 {
		return make([]T, n)
	}
	b := mapAnon(size)
	if b == nil {
		return make([]T, n)
	}
	a.regions = append(a.regions, b)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// ReleaseWith unmaps the arena's memory once owner is unreachable. owner
// must hold every slice Make handed out from a, and nothing else may.
func ReleaseWith[O any](a *Arena, owner *O) {
	if len(a.regions) == 0 {
		return
	}
	runtime.AddCleanup(owner, func(regions [][]byte) {
		for _, r := range regions {
			unmap(r)
		}
	}, a.regions)
}
