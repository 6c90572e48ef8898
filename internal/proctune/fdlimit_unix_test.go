//go:build unix

package proctune

import (
	"syscall"
	"testing"
)

// OpenFileLimit raises the soft RLIMIT_NOFILE to the hard limit and
// returns the new soft limit.
func TestOpenFileLimitRaises(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Skipf("no RLIMIT_NOFILE here: %v", err)
	}
	if l.Cur > 64 {
		lowered := l
		lowered.Cur = 64
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
			t.Fatalf("lower the soft limit: %v", err)
		}
	}
	got := OpenFileLimit()
	var after syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &after); err != nil {
		t.Fatal(err)
	}
	if after.Cur != after.Max {
		t.Errorf("soft limit %d after OpenFileLimit, want the hard limit %d", after.Cur, after.Max)
	}
	if got != uint64(after.Cur) { //nolint:unconvert // int64 on some BSDs
		t.Errorf("OpenFileLimit() = %d, want the soft limit %d", got, after.Cur)
	}
}
