//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user+system CPU time so far (0 if it cannot be
// read).
func Process() time.Duration { return usage(syscall.RUSAGE_SELF) }

// Thread is the calling OS thread's CPU time (Linux; lock the goroutine to
// its thread around a measurement). 0 where it cannot be read.
func Thread() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	return usage(rusageThread)
}

func usage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
