package resident

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pageOut uses MADV_PAGEOUT (Linux 5.4 and later), which reclaims pages
// without changing what they hold (unlike MADV_DONTNEED, which would
// zero anonymous ones). An older kernel refuses it: nothing happens.
func pageOut(b []byte) {
	ps := uintptr(os.Getpagesize())
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + ps - 1) &^ (ps - 1)
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b))) &^ (ps - 1)
	if len(b) == 0 || end <= start {
		return
	}
	unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_PAGEOUT)
}

// mapAnon maps n bytes of zeroed anonymous memory, outside the Go heap;
// nil when the system refuses.
func mapAnon(n int) []byte {
	if n <= 0 {
		return nil
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

func unmap(b []byte) { unix.Munmap(b) }
