// Package resident places long-lived data in memory: PageOut tells the
// system which read-only pages a process need not keep resident now, and
// an Arena keeps pointer-free data outside the Go heap.
package resident

// PageOut asks the system to reclaim the whole memory pages inside b now:
// data read once at load (an embedded model file, after its weights were
// copied or indexed) need not stay resident. The bytes stay readable and
// unchanged: a page the process reads again is read back from the
// executable's file. Only file-backed, unmodified data may be given (the
// go:embed bytes of a model); on a system without the advice it does
// nothing.
func PageOut(b []byte) { pageOut(b) }
