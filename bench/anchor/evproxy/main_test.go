//go:build linux

package main

import (
	"bytes"
	"testing"

	"github.com/answer-guard/guard/internal/evrelay"
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

// TestAnswerHead: the client gets the upstream's status, Content-Type and
// framing under evproxy's Server header (the parsing itself is
// evrelay.ParseAnswerHead's, tested there).
func TestAnswerHead(t *testing.T) {
	tests := []struct {
		in, want string
		headReq  bool
		body     evrelay.Framing
		noReuse  bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nServer: up\r\n\r\n",
			"HTTP/1.1 200 OK\r\nServer: evproxy\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n", false, evrelay.BodyChunked, false},
		{"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 5\r\nConnection: close\r\n\r\n",
			"HTTP/1.1 502 Bad Gateway\r\nServer: evproxy\r\nContent-Length: 5\r\n\r\n", false, evrelay.BodyLength, true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 200 OK\r\nServer: evproxy\r\nContent-Length: 0\r\n\r\n", false, evrelay.BodyNone, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n", "HTTP/1.1 200 OK\r\nServer: evproxy\r\nContent-Length: 7\r\n\r\n", true, evrelay.BodyNone, false},
		{"HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 204 No Content\r\nServer: evproxy\r\n\r\n", false, evrelay.BodyNone, false},
	}
	for _, tt := range tests {
		l, u := &loop{}, &conn{headReq: tt.headReq}
		if err := l.answerHead(u, []byte(tt.in)); err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if string(l.head) != tt.want || u.body != tt.body || u.noReuse != tt.noReuse {
			t.Errorf("%q: got %q, body %d, noReuse %v; want %q, %d, %v", tt.in, l.head, u.body, u.noReuse, tt.want, tt.body, tt.noReuse)
		}
	}
	if err := (&loop{}).answerHead(&conn{}, []byte("HTTP/1.1 200 OK\r\n\r\n")); err == nil {
		t.Error("an answer without a length: no error")
	}
}
