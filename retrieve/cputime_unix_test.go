//go:build unix

package retrieve

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on the shared 2-core
// machine wall time per op mostly measures the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
