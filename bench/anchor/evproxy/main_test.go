//go:build linux

package main

import (
	"bytes"
	"fmt"
	"testing"
)

func TestParseRequest(t *testing.T) {
	post := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	tests := []struct {
		in                 string
		ok, bad            bool
		path, ctype, body  string
		total              int
		close              bool
		wantHead, wantPost bool
	}{
		{in: post, ok: true, path: "/v1/chat/completions", ctype: "application/json", body: "{}", total: len(post), wantPost: true},
		{in: post[:len(post)-1]}, // body incomplete
		{in: post[:30]},          // header incomplete
		{in: post + "GET / HTTP/1.1\r\n", ok: true, path: "/v1/chat/completions", ctype: "application/json", body: "{}", total: len(post), wantPost: true}, // pipelined
		{in: "GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n", ok: true, path: "/v1/models", total: 46, close: true},
		{in: "GET /v1/models HTTP/1.0\r\n\r\n", ok: true, path: "/v1/models", total: 27, close: true},
		{in: "HEAD / HTTP/1.1\r\n\r\n", ok: true, path: "/", total: 19, wantHead: true},
		{in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", bad: true},
		{in: "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", bad: true},
		{in: "garbage\r\n\r\n", bad: true},
	}
	for i, tt := range tests {
		r, ok, err := parseRequest([]byte(tt.in))
		if (err != nil) != tt.bad || ok != tt.ok {
			t.Errorf("%d: ok, err = %v, %v; want ok %v, bad %v", i, ok, err, tt.ok, tt.bad)
			continue
		}
		if !ok {
			continue
		}
		if string(r.path) != tt.path || string(r.ctype) != tt.ctype || string(r.body) != tt.body || r.total != tt.total || r.close != tt.close || r.head != tt.wantHead {
			t.Errorf("%d: got path %q ctype %q body %q total %d close %v head %v", i, r.path, r.ctype, r.body, r.total, r.close, r.head)
		}
		if got := appendRequest(nil, &r, []byte("up:1")); tt.wantPost && !bytes.Contains(got, []byte("Content-Length: 2\r\n\r\n{}")) {
			t.Errorf("%d: upstream request %q", i, got)
		}
	}
}

// chunked frames parts as a chunked body, then the last chunk and a
// trailer.
func chunked(parts []string, trailer string) []byte {
	var b []byte
	for _, p := range parts {
		b = fmt.Appendf(b, "%x\r\n%s\r\n", len(p), p)
	}
	return append(b, "0\r\n"+trailer+"\r\n"...)
}

// decode runs an answer's body through the decoder in pieces cut at the
// given offsets, as reads would return them.
func decode(body []byte, cuts []int) (data []byte, done bool, err error) {
	l := &loop{}
	u := &conn{body: bodyChunked}
	prev := 0
	for _, c := range append(cuts, len(body)) {
		if c <= prev || c > len(body) {
			continue
		}
		if done {
			return nil, done, fmt.Errorf("bytes after the end")
		}
		done, err = l.dechunk(u, body[prev:c])
		if err != nil {
			return nil, done, err
		}
		prev = c
	}
	return l.data, done, nil
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

func TestAnswerHead(t *testing.T) {
	tests := []struct {
		in, want string
		body     uint8
		noReuse  bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nServer: up\r\n\r\n",
			"HTTP/1.1 200 OK\r\nServer: evproxy\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", bodyChunked, false},
		{"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 5\r\nConnection: close\r\n\r\n",
			"HTTP/1.1 502 Bad Gateway\r\nServer: evproxy\r\nContent-Length: 5\r\n\r\n", bodyLength, true},
		{"HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 204 No Content\r\nServer: evproxy\r\n\r\n", bodyNone, false},
	}
	for _, tt := range tests {
		l, u := &loop{}, &conn{}
		if err := l.answerHead(u, []byte(tt.in)); err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if string(l.head) != tt.want || u.body != tt.body || u.noReuse != tt.noReuse {
			t.Errorf("%q: got %q, body %d, noReuse %v; want %q, %d, %v", tt.in, l.head, u.body, u.noReuse, tt.want, tt.body, tt.noReuse)
		}
	}
	for _, in := range []string{"HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "SPDY 200\r\n\r\n"} {
		if err := (&loop{}).answerHead(&conn{}, []byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// FuzzDechunk: a body framed in chunks decodes to its data wherever the
// reads cut it.
func FuzzDechunk(f *testing.F) {
	f.Add([]byte("data: x\n\n"), []byte("yz"), uint16(3), uint16(9))
	f.Fuzz(func(t *testing.T, a, b []byte, c1, c2 uint16) {
		if len(a) == 0 || len(b) == 0 {
			return
		}
		body := chunked([]string{string(a), string(b)}, "")
		got, done, err := decode(body, []int{int(c1) % (len(body) + 1), int(c2) % (len(body) + 1)})
		if err != nil || !done || !bytes.Equal(got, append(append([]byte{}, a...), b...)) {
			t.Fatalf("got %q, %v, %v", got, done, err)
		}
	})
}
