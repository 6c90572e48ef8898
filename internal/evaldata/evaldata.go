// Package evaldata finds the public evaluation data (../shared/data beside
// the repository, or $GUARD_DATA) for tests and benchmarks, which skip
// with a message when it is absent: a user's clone has no ../shared.
package evaldata

import (
	"os"
	"path/filepath"
	"testing"
)

// Root is $GUARD_DATA, or ../shared/data seen from a package directory
// (where go test runs).
func Root() string {
	if d := os.Getenv("GUARD_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// Require returns Root joined with rel, skipping tb when that path is
// absent.
func Require(tb testing.TB, what string, rel ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Root()}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s absent at %s (set GUARD_DATA): %v", what, p, err)
	}
	return p
}

// KJV returns the KJV verses file (kjv/kjv.jsonl), skipping tb when it is
// absent.
func KJV(tb testing.TB) string {
	tb.Helper()
	return Require(tb, "KJV data", "kjv", "kjv.jsonl")
}
