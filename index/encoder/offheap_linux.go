package encoder

import "syscall"

// mapAnon maps n bytes of zeroed anonymous memory, outside the Go heap;
// nil when the system refuses.
func mapAnon(n int) []byte {
	if n <= 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

func unmap(b []byte) { syscall.Munmap(b) }
