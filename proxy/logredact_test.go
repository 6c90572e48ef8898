package proxy

import (
	"errors"
	"net"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// fasthttp's log lines keep their format, addresses, numbers and the kind
// of an error; a string argument (fasthttp's per-request logger passes the
// request line) and an error's text (which may quote the request) never
// reach the log.
func TestRedactLog(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	l := redactLog{zap.New(core)}
	const secret = "Bearer sk-SECRET"
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	l.Printf("error when serving connection %q<->%q: %v", addr, addr,
		errors.New(`error when reading request headers: duplicate Content-Length header. Buffer size=99, contents: "POST / HTTP/1.1\r\nAuthorization: `+secret+`"`))
	l.Printf("%.3f %s - %s", 1.5, "#0000000000000001 - 127.0.0.1:1<->127.0.0.1:2 - POST http://x/?key="+secret, "message "+secret)
	all := logs.All()
	if len(all) != 2 {
		t.Fatalf("%d lines, want 2", len(all))
	}
	for _, e := range all {
		for k, v := range e.ContextMap() {
			if s, ok := v.(string); ok && strings.Contains(s, "SECRET") {
				t.Errorf("field %s holds the secret: %q", k, s)
			}
		}
	}
	if got := all[0].ContextMap()["error_kind"]; got != errKindHeader.Error() {
		t.Errorf("error kind %v, want %q", got, errKindHeader)
	}
	if got := all[0].ContextMap()["addr"]; got != "127.0.0.1:8080" {
		t.Errorf("addr %v, want the address kept", got)
	}
}
