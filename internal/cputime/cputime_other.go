//go:build !unix

package cputime

import "time"

// Process is 0 where CPU time cannot be read.
func Process() time.Duration { return 0 }

// Thread is 0 where CPU time cannot be read.
func Thread() time.Duration { return 0 }
