package proxy_test

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/answer-guard/guard/proxy"
)

// syncBuffer is a log sink the server's goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Sync() error { return nil }

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// No request the HTTP parser rejects, nor one refused for its framing,
// puts its Authorization header or its body into the log, at any level,
// fasthttp's own log lines included: each is sent on a raw socket with a
// key and a body marker, the answer read to the connection's close (fasthttp
// logs before it closes), and the whole debug-level log grepped for both.
func TestRejectedRequestsNeverLogged(t *testing.T) {
	const key, marker = "sk-live-SECRETKEY0123456789", "BODYMARKER7731"
	body := `{"model":"m","messages":[{"role":"user","content":"` + marker + `"}]}`
	var sink syncBuffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig()), &sink, zap.DebugLevel))
	cfg, _ := withMock(t, testConfig())
	cfg.Pipeline.Enabled = false
	srv, err := proxy.New(cfg, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { shutdown(t, srv) })

	head := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/json\r\n"
	cl := "Content-Length: " + itoa(len(body)) + "\r\n"
	for _, tc := range []struct {
		name, req string
		status    string
	}{
		{"two Content-Length", head + cl + cl + "\r\n" + body, " 400 "},
		{"bad header character", head + "X-Bad\x01Name: v\r\n" + cl + "\r\n" + body, " 400 "},
		{"bad header value", head + "X-Bad: v\x00v\r\n" + cl + "\r\n" + body, " 400 "},
		{"unsupported Transfer-Encoding", head + "Transfer-Encoding: gzip, chunked, foo\r\n\r\n" + body, " 4"},
		{"Transfer-Encoding and Content-Length", head + "Transfer-Encoding: chunked\r\n" + cl + "\r\n" + body, " 400 "},
		{"bad chunk", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + body + "\r\n0\r\n\r\n", " 400 "},
		{"two Host headers", strings.Replace(head, "Host: x\r\n", "Host: x\r\nHost: y\r\n", 1) + cl + "\r\n" + body, " 400 "},
		{"HTTP/2.0 request line", strings.Replace(head, "HTTP/1.1", "HTTP/2.0", 1) + cl + "\r\n" + body, " 505 "},
		{"HTTP/3 request line", strings.Replace(head, "HTTP/1.1", "HTTP/3", 1) + cl + "\r\n" + body, " 505 "},
		{"header too large", head + "X-Big: " + strings.Repeat("a", 64<<10) + "\r\n" + cl + "\r\n" + body, " 431 "},
	} {
		resp := rawExchange(t, ln.Addr().String(), tc.req)
		if !strings.HasPrefix(resp, "HTTP/1.1") || !strings.Contains(strings.SplitN(resp, "\r\n", 2)[0], tc.status) {
			t.Errorf("%s: status line %q, want%s", tc.name, strings.SplitN(resp, "\r\n", 2)[0], tc.status)
		}
		logged := sink.String()
		for _, secret := range []string{key, marker, "SECRETKEY"} {
			if strings.Contains(logged, secret) {
				t.Fatalf("%s: the log holds %q:\n%s", tc.name, secret, logged)
			}
		}
	}
	if !strings.Contains(sink.String(), "request rejected") {
		t.Errorf("no rejection was logged at all (the test would pass with logging off):\n%s", sink.String())
	}
}

// rawExchange writes req on a new connection and reads until the server
// closes it.
func rawExchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang fails instead of blocking the suite
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
