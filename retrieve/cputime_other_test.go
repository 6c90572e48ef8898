//go:build !unix

package retrieve

import "time"

// cpuTime is not measured here (0: the cpu-ns/op metric reads 0).
func cpuTime() time.Duration { return 0 }
