package peerclose

import (
	"bytes"
	"io"
	"testing"
)

// OnSend runs once per send, before any byte, by either way of reading,
// and a rewound body is whole again.
func TestBodySendsOnce(t *testing.T) {
	var out bytes.Buffer
	sends := 0
	b := &Body{B: []byte("hello"), OnSend: func() {
		sends++
		if out.Len() != 0 {
			t.Error("OnSend after a byte was written")
		}
	}}
	if _, err := io.Copy(&out, b); err != nil || out.String() != "hello" || sends != 1 {
		t.Fatalf("WriteTo: got %q, %v, %d sends; want hello, nil, 1", out.String(), err, sends)
	}
	out.Reset()
	got, err := io.ReadAll(io.MultiReader(b.Rewind()))
	if err != nil || string(got) != "hello" || sends != 2 {
		t.Fatalf("Read after Rewind: got %q, %v, %d sends; want hello, nil, 2", got, err, sends)
	}
}
