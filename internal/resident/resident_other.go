//go:build !linux

package resident

func pageOut([]byte) {}

// mapAnon: memory stays on the heap here.
func mapAnon(int) []byte { return nil }

func unmap([]byte) {}
