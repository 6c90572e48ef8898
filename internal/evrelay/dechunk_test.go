//go:build linux

package evrelay

import (
	"bytes"
	"net/http/httputil"
	"testing"
)

// FuzzDechunk: a body chunked by net/http, fed to the loop's decoder in
// two reads split anywhere, decodes to the body and ends at the last
// chunk.
func FuzzDechunk(f *testing.F) {
	f.Add([]byte("data: {}\n\n"), uint(3), uint(7))
	f.Add([]byte(""), uint(0), uint(0))
	f.Fuzz(func(t *testing.T, body []byte, cut, split uint) {
		var enc bytes.Buffer
		w := httputil.NewChunkedWriter(&enc)
		c := int(cut % uint(len(body)+1))
		w.Write(body[:c])
		w.Write(body[c:])
		w.Close()
		enc.WriteString("\r\n")
		b := enc.Bytes()
		s := int(split % uint(len(b)+1))
		l, u := &Loop{}, &conn{}
		done1, err1 := l.dechunk(u, b[:s])
		done2, err2 := l.dechunk(u, b[s:])
		if err1 != nil || err2 != nil {
			t.Fatalf("dechunk %q split at %d: %v %v", b, s, err1, err2)
		}
		if !done2 && !(done1 && s == len(b)) {
			t.Fatalf("dechunk %q split at %d: not done", b, s)
		}
		if !bytes.Equal(l.data, body) {
			t.Fatalf("dechunk %q: got %q, want %q", b, l.data, body)
		}
	})
}
