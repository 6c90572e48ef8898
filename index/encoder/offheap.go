package encoder

import (
	"runtime"
	"unsafe"
)

// weightArena hands out the memory of a model's transposed int8 weights
// (about 5 MB) outside the Go heap where the system allows it
// (offheap_linux.go), else from the heap. The weights live as long as
// the model and hold no pointers; on the heap they would count in the
// collector's goal, and under the proxy's server.gc.percent 400 each live
// megabyte is five of heap at the peak. The regions are unmapped when the
// model they were handed to is collected (release).
type weightArena struct {
	regions [][]byte
}

// int8s returns n zeroed int8s (from the heap for a nil arena).
func (a *weightArena) int8s(n int) []int8 {
	if a == nil {
		return make([]int8, n)
	}
	b := mapAnon(n)
	if b == nil {
		return make([]int8, n)
	}
	a.regions = append(a.regions, b)
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// release unmaps the arena's regions once owner is unreachable. owner
// must hold every slice int8s handed out, and nothing else may.
func (a *weightArena) release(owner *model) {
	if len(a.regions) == 0 {
		return
	}
	runtime.AddCleanup(owner, func(regions [][]byte) {
		for _, r := range regions {
			unmap(r)
		}
	}, a.regions)
}
