//go:build unix

package encoder

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time. On the shared 2-core test
// machine wall time per op mostly measures the neighbours; CPU time per op
// is what an idle core would take.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPUTime is the calling OS thread's CPU time (lock the goroutine
// to its thread around a measurement).
func threadCPUTime() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
