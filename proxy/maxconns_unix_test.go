//go:build unix

package proxy

import (
	"syscall"
	"testing"

	"github.com/answer-guard/guard/internal/evrelay"
)

// With upstream.max_conns 0 (the default) the pool is sized from the file
// descriptor limit, whose soft value is raised to the hard one first.
func TestMaxConnsFromFileLimit(t *testing.T) {
	cfg := DefaultConfig().Upstream
	if cfg.MaxConns != 0 {
		t.Fatalf("default upstream.max_conns = %d, want 0 (derived)", cfg.MaxConns)
	}
	var before syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &before); err != nil {
		t.Skipf("no RLIMIT_NOFILE here: %v", err)
	}
	c := newFastClient(cfg, nil)
	var after syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &after); err != nil {
		t.Fatal(err)
	}
	if after.Cur != after.Max {
		t.Errorf("soft file limit %d after start, want the hard limit %d", after.Cur, after.Max)
	}
	if want := evrelay.MaxFromFileLimit(after.Cur); c.conns.Max != want || c.MaxConnsPerHost != want {
		t.Errorf("derived max conns %d (client %d), want %d for a limit of %d", c.conns.Max, c.MaxConnsPerHost, want, after.Cur)
	}
	cfg.MaxConns = 7
	if got := newFastClient(cfg, nil).MaxConnsPerHost; got != 7 {
		t.Errorf("explicit upstream.max_conns 7 gave %d", got)
	}
}
