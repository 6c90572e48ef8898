// Package proctune tunes the process the guard runs in: the Go garbage
// collector (GOGC / GOMEMLIMIT from config) and the open-file limit the
// upstream connection pool is sized from.
package proctune

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
)

// GC tunes the Go garbage collector of the whole process (the proxy's
// server.gc). It is applied when the server is built and on every reload.
//
// The default (percent 400) was measured: at 5,000 pass-through req/s on a
// 2-core machine the proxy's p99 overhead is set by GC pauses and the mark
// assists they bring; collecting at 5x the live heap instead of 2x keeps it
// under 1 ms (docs/bench.md). The heap then grows to about 5x the live
// heap; set memory_limit to cap it (the collector runs more often near the
// limit instead of growing past it).
type GC struct {
	// Percent is GOGC: a collection starts when the heap has grown by this
	// percentage over the live heap. Range -1 (off: needs memory_limit) or
	// [10, 10000]; default 400. The GOGC environment variable wins when set.
	Percent int `yaml:"percent"`
	// MemoryLimit is GOMEMLIMIT in bytes, a soft limit on the memory the Go
	// runtime holds; 0 = none (the default). The GOMEMLIMIT environment
	// variable wins when set.
	MemoryLimit int64 `yaml:"memory_limit"`
}

// Validate reports every out-of-range field at once, each prefixed with
// its YAML key.
func (g GC) Validate() error {
	var errs []error
	if g.Percent != -1 && (g.Percent < 10 || g.Percent > 10000) {
		errs = append(errs, fmt.Errorf("percent: must be -1 or in [10,10000], got %d", g.Percent))
	}
	if g.MemoryLimit < 0 {
		errs = append(errs, fmt.Errorf("memory_limit: must be >= 0 bytes, got %d", g.MemoryLimit))
	}
	if g.Percent == -1 && g.MemoryLimit == 0 {
		errs = append(errs, errors.New("percent: -1 switches the collector off, which needs a memory_limit"))
	}
	return errors.Join(errs...)
}

// Apply sets the collector's percent and memory limit, leaving each to its
// environment variable when that is set. It reports what is in force.
func (g GC) Apply() (percent int, limit int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(g.Percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		l := g.MemoryLimit
		if l == 0 {
			l = 1<<63 - 1 // none (the runtime's default)
		}
		debug.SetMemoryLimit(l)
	}
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}
