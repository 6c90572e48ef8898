//go:build unix

package proxy_test

import "syscall"

// cpuSeconds is the process's user+system CPU time, to report throughput
// per CPU second on a shared machine where wall time overstates the cost.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
