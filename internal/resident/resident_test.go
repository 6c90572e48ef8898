package resident

import (
	"bytes"
	"testing"
)

// TestPageOutKeepsBytes: after PageOut the bytes read back unchanged,
// however the slice lies across pages (heap memory here: the system
// reclaims it only to swap, if at all).
func TestPageOutKeepsBytes(t *testing.T) {
	b := make([]byte, 1<<20+123)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	want := bytes.Clone(b)
	for _, s := range [][]byte{b, b[1:], b[4095 : 3*4096+1], b[:10], b[:0]} {
		PageOut(s)
	}
	if !bytes.Equal(b, want) {
		t.Fatal("PageOut changed the bytes")
	}
}
