//go:build linux

package evrelay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/leaktest"
	"github.com/answer-guard/guard/internal/looptest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }

// echo passes the body through and reports the stream's end.
type echo struct {
	body int
	done chan bool
}

func (h *echo) Body(dst, p []byte) []byte { h.body += len(p); return append(dst, p...) }
func (h *echo) End(dst []byte, err error) []byte {
	if err != nil {
		return append(dst, "error: "+err.Error()...)
	}
	return dst
}
func (h *echo) Refuse(dst []byte, status int, _, _ []byte, err error) []byte {
	return AppendResponse(dst, "t", 502, "", fmt.Appendf(nil, `{"status":%d,"err":%q}`, status, fmt.Sprint(err)), false)
}
func (h *echo) Done(gone bool) { h.done <- gone }

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	client, server = looptest.Pair(t)
	return server, client
}

// Back-pressure: a client that does not read makes the loop stop reading
// the upstream with at most MaxPending bytes (and one read's worth) held
// for it; once it reads, the rest of the answer follows, whole.
func TestBackPressureBound(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	const total = 32 << 20
	chunk := strings.Repeat("data: x\n\n", 1<<10)
	want := int64((total + len(chunk) - 1) / len(chunk) * len(chunk))
	upDone := make(chan error, 1)
	go func() {
		c, err := up.Accept()
		if err != nil {
			upDone <- err
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if _, err := http.ReadRequest(br); err != nil {
			upDone <- err
			return
		}
		bw := bufio.NewWriterSize(c, 64<<10)
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		for n := 0; n < total; n += len(chunk) {
			fmt.Fprintf(bw, "%x\r\n%s\r\n", len(chunk), chunk)
		}
		bw.WriteString("0\r\n\r\n")
		upDone <- bw.Flush()
	}()
	ap := netip.MustParseAddrPort(up.Addr().String())
	l, err := New(Config{Addr: ap, IdleTimeout: time.Minute, IdleConnTimeout: time.Minute, ConnWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	paused := make(chan int, 1)
	l.onPause = func(pending int) {
		select {
		case paused <- pending:
		default:
		}
	}
	srv, cli := tcpPair(t)
	defer cli.Close()
	fd, ok := FD(srv)
	if !ok {
		t.Fatal("no descriptor")
	}
	h := &echo{done: make(chan bool, 1)}
	if err := l.Start(&Stream{Conn: srv, FD: fd, Request: AppendRequest(nil, "x", "/v1/chat/completions", "", []byte("{}")),
		Header: AppendStreamHeader(nil, "t", false), Handler: h}); err != nil {
		t.Fatal(err)
	}
	if pending := <-paused; pending < MaxPending || pending > MaxPending+(64<<10)+32 {
		t.Errorf("paused with %d bytes pending, want %d..%d", pending, MaxPending, MaxPending+(64<<10)+32)
	}
	resp, err := http.ReadResponse(bufio.NewReader(cli), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != want {
		t.Errorf("client read %d bytes (%v), want %d", n, err, want)
	}
	if gone := <-h.done; gone {
		t.Error("Done(clientGone=true) for a complete stream")
	}
	if err := <-upDone; err != nil {
		t.Errorf("upstream: %v", err)
	}
	if l.Pauses() == 0 {
		t.Error("Pauses() = 0")
	}
}

// Pipelined sees the bytes fasthttp buffered past a request (a pipelined
// second request) and leaves the ones still in the socket unread: a
// request that arrives after the hijack is read whole from the connection
// underneath.
func TestPipelined(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	req := "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
	type result struct {
		pipelined bool
		later     string
	}
	got, sent, handled := make(chan result, 1), make(chan struct{}), make(chan struct{})
	srv := &fasthttp.Server{KeepHijackedConns: true, Handler: func(ctx *fasthttp.RequestCtx) {
		handled <- struct{}{}
		ctx.HijackSetNoResponse(true)
		ctx.Hijack(func(h net.Conn) {
			<-sent
			var r result
			r.pipelined = Pipelined(h)
			if !r.pipelined {
				b := make([]byte, len(req))
				h.(interface{ UnsafeConn() net.Conn }).UnsafeConn().SetReadDeadline(time.Now().Add(10 * time.Second))
				n, _ := io.ReadFull(h.(interface{ UnsafeConn() net.Conn }).UnsafeConn(), b)
				r.later = string(b[:n])
			}
			got <- r
			h.Close()
		})
	}}
	go srv.Serve(ln) //nolint:errcheck // ends with Shutdown
	defer srv.Shutdown()
	for i, want := range []result{{later: req}, {pipelined: true}} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, strings.Repeat(req, i+1))
		<-handled
		if i == 0 {
			io.WriteString(c, req) // after the first request was read: in the socket
		}
		sent <- struct{}{}
		if r := <-got; r != want {
			t.Errorf("%d requests in one write: got %+v, want %+v", i+1, r, want)
		}
		io.Copy(io.Discard, c)
		c.Close()
	}
}

// With a budget of one connection held by a stream, a second stream waits
// in the loop's queue and gets the slot once the first stream's client
// leaves (its upstream connection closes). (A wait that runs out:
// proxy's TestEventLoopUpstreamBusy.)
func TestWaitForConnection(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		for i := 0; ; i++ {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				if _, err := http.ReadRequest(br); err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: x\n\n\r\n")
				if i == 0 {
					io.Copy(io.Discard, br) // the first answer never ends
					return
				}
				io.WriteString(c, "0\r\n\r\n")
				io.Copy(io.Discard, br)
			}()
		}
	}()
	b := NewBudget(1)
	l, err := New(Config{Addr: netip.MustParseAddrPort(up.Addr().String()), IdleTimeout: time.Minute, IdleConnTimeout: time.Minute,
		Budget: b, ConnWait: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	waiting := make(chan struct{}, 2)
	l.onWait = func() { waiting <- struct{}{} }
	start := func() (net.Conn, *bufio.Reader, *echo) {
		srv, cli := tcpPair(t)
		fd, _ := FD(srv)
		h := &echo{done: make(chan bool, 1)}
		if err := l.Start(&Stream{Conn: srv, FD: fd, Request: AppendRequest(nil, "x", "/v1/chat/completions", "", []byte("{}")),
			Header: AppendStreamHeader(nil, "t", false), Handler: h}); err != nil {
			t.Fatal(err)
		}
		return cli, bufio.NewReader(cli), h
	}
	cliA, brA, hA := start()
	if line, err := brA.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("first stream: %q, %v", line, err)
	}
	cliB, brB, hB := start()
	defer cliB.Close()
	<-waiting
	cliA.Close() // the first stream's client leaves: its connection's slot goes to the second
	if gone := <-hA.done; !gone {
		t.Error("first stream: Done(clientGone=false) after its client closed")
	}
	resp, err := http.ReadResponse(brB, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || err != nil || string(body) != "data: x\n\n" {
		t.Errorf("second stream: %d %q %v, want 200 and its event", resp.StatusCode, body, err)
	}
	if gone := <-hB.done; gone {
		t.Error("second stream: Done(clientGone=true) for a complete answer")
	}
	if b.Busy.Load() != 0 {
		t.Errorf("Busy = %d after a wait that got a connection, want 0", b.Busy.Load())
	}
}
