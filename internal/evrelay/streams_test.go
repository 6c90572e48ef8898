package evrelay

import "testing"

// Streams counts what is open and Wait returns once none is.
func TestStreams(t *testing.T) {
	var s Streams
	s.Add(1)
	s.Add(1)
	if n := s.Open(); n != 2 {
		t.Fatalf("Open %d, want 2", n)
	}
	s.Done()
	s.Done()
	s.Wait()
	if n := s.Open(); n != 0 {
		t.Fatalf("Open %d, want 0", n)
	}
}
