//go:build !unix

package encoder

import "time"

func cpuTime() time.Duration       { return 0 }
func threadCPUTime() time.Duration { return 0 }
