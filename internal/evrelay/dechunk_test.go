package evrelay

import (
	"bytes"
	"fmt"
	"net/http/httputil"
	"testing"
)

// chunked frames parts as a chunked body, then the last chunk and a
// trailer.
func chunked(parts []string, trailer string) []byte {
	var b []byte
	for _, p := range parts {
		b = fmt.Appendf(b, "%x\r\n%s\r\n", len(p), p)
	}
	return append(b, "0\r\n"+trailer+"\r\n"...)
}

// decode runs a chunked body through a Dechunker in pieces cut at the
// given offsets, as reads would return them.
func decode(body []byte, cuts []int) (data []byte, done bool, err error) {
	var d Dechunker
	prev := 0
	for _, c := range append(cuts, len(body)) {
		if c <= prev || c > len(body) {
			continue
		}
		if done {
			return nil, done, fmt.Errorf("bytes after the end")
		}
		var extra bool
		data, done, extra, err = d.Decode(data, body[prev:c])
		if err != nil {
			return nil, done, err
		}
		if extra {
			return nil, done, fmt.Errorf("extra bytes reported within the body")
		}
		prev = c
	}
	return data, done, nil
}

func TestDechunkEverySplit(t *testing.T) {
	parts := []string{"data: {\"a\":1}\n\n", "data: [DONE]\n\n", string(bytes.Repeat([]byte("x"), 300))}
	for _, trailer := range []string{"", "X-Trailer: 1\r\n"} {
		body := chunked(parts, trailer)
		want := parts[0] + parts[1] + parts[2]
		for i := 0; i <= len(body); i++ {
			for _, j := range []int{i, i + 1, i + 7} {
				got, done, err := decode(body, []int{i, j})
				if err != nil || !done || string(got) != want {
					t.Fatalf("trailer %q, cuts %d, %d: got %q, %v, %v; want the data, done", trailer, i, j, got, done, err)
				}
			}
		}
	}
}

func TestDechunkRejects(t *testing.T) {
	for _, in := range []string{"g\r\n", "\r\n", "3\r\nabcX", "fffffffffffffffff\r\n"} {
		if _, _, err := decode([]byte(in), nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestDechunkExtra: bytes after the trailer are reported (the connection
// is not reused).
func TestDechunkExtra(t *testing.T) {
	var d Dechunker
	_, done, extra, err := d.Decode(nil, []byte("1\r\na\r\n0\r\n\r\nHTTP"))
	if err != nil || !done || !extra {
		t.Fatalf("got done %v, extra %v, %v; want done, extra", done, extra, err)
	}
}

func TestParseAnswerHead(t *testing.T) {
	tests := []struct {
		in     string
		noBody bool
		want   AnswerHead
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nServer: up\r\n\r\n", false,
			AnswerHead{Status: 200, StatusText: []byte("200 OK"), Body: BodyChunked, Length: -1, ContentType: []byte("text/event-stream")}},
		{"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 5\r\nConnection: close\r\n\r\n", false,
			AnswerHead{Status: 502, StatusText: []byte("502 Bad Gateway"), Body: BodyLength, Length: 5, Close: true}},
		{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false,
			AnswerHead{Status: 200, StatusText: []byte("200 OK"), Body: BodyNone, Length: 0}},
		{"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", true,
			AnswerHead{Status: 200, StatusText: []byte("200 OK"), Body: BodyNone, Length: 9}},
		{"HTTP/1.1 204 No Content\r\n\r\n", false,
			AnswerHead{Status: 204, StatusText: []byte("204 No Content"), Body: BodyNone, Length: -1}},
	}
	for _, tt := range tests {
		got, err := ParseAnswerHead([]byte(tt.in), tt.noBody, nil)
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if got.Status != tt.want.Status || string(got.StatusText) != string(tt.want.StatusText) || got.Body != tt.want.Body ||
			got.Length != tt.want.Length || string(got.ContentType) != string(tt.want.ContentType) || got.Close != tt.want.Close {
			t.Errorf("%q: got %+v; want %+v", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "SPDY 200\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n"} {
		if _, err := ParseAnswerHead([]byte(in), false, nil); err != ErrBadAnswer {
			t.Errorf("%q: got %v; want ErrBadAnswer", in, err)
		}
	}
}

// FuzzDechunk: a body chunked by net/http, fed to the decoder in two reads
// split anywhere, decodes to the body and ends at the last chunk.
func FuzzDechunk(f *testing.F) {
	f.Add([]byte("data: {}\n\n"), uint(3), uint(7))
	f.Add([]byte(""), uint(0), uint(0))
	f.Add([]byte("00"), uint(1), uint(3)) // chunk data that reads as a size, cut in its size line (found by evproxy's former fuzz target)
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
		var d Dechunker
		data, done1, _, err1 := d.Decode(nil, b[:s])
		data, done2, extra, err2 := d.Decode(data, b[s:])
		if err1 != nil || err2 != nil || extra {
			t.Fatalf("dechunk %q split at %d: %v %v, extra %v", b, s, err1, err2, extra)
		}
		if !done2 && !(done1 && s == len(b)) {
			t.Fatalf("dechunk %q split at %d: not done", b, s)
		}
		if !bytes.Equal(data, body) {
			t.Fatalf("dechunk %q: got %q, want %q", b, data, body)
		}
	})
}
