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

// TestArenaMake: Make hands out zeroed, writable memory of each type, and
// a nil arena the heap's.
func TestArenaMake(t *testing.T) {
	var a Arena
	f := Make[float32](&a, 1000)
	i := Make[int32](&a, 3)
	q := Make[int8](nil, 5)
	if len(f) != 1000 || len(i) != 3 || len(q) != 5 {
		t.Fatalf("lengths %d %d %d, want 1000 3 5", len(f), len(i), len(q))
	}
	for k := range f {
		if f[k] != 0 {
			t.Fatalf("f[%d] = %v, want 0", k, f[k])
		}
		f[k] = float32(k)
	}
	i[2] = -7
	if f[999] != 999 || i[2] != -7 {
		t.Error("written values did not read back")
	}
	if len(Make[uint32](&a, 0)) != 0 {
		t.Error("Make(0) not empty")
	}
	owner := new(int)
	ReleaseWith(&a, owner)
}
