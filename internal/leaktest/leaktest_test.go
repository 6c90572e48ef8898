package leaktest

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// Find names a goroutine started after the snapshot and still blocked, and
// is quiet once it has ended.
func TestFindReportsAGoroutineUntilItEnds(t *testing.T) {
	before := goleak.IgnoreCurrent()
	release, done := make(chan struct{}), make(chan struct{})
	go blockedUntil(release, done)
	err := Find(before)
	if err == nil || !strings.Contains(err.Error(), "leaktest.blockedUntil") {
		t.Fatalf("Find = %v, want the blocked goroutine named", err)
	}
	close(release)
	<-done
	if err := Find(before); err != nil {
		t.Errorf("after the goroutine ended: %v", err)
	}
}

func blockedUntil(release <-chan struct{}, done chan<- struct{}) {
	<-release
	close(done)
}
