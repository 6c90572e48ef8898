package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"

	"github.com/answer-guard/guard/internal/sse"
)

func nopLogger() *zap.Logger { return zap.NewNop() }

// loopReader returns its events over and over, per events in each read,
// as an upstream that sends bursts would; it never ends.
type loopReader struct {
	burst []byte
	off   int // where the next Read continues in burst
}

// Read returns the rest of the burst, or as much as p holds: a burst larger
// than the reader's buffer goes in several reads, as from a socket.
func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.burst[l.off:])
	l.off = (l.off + n) % len(l.burst)
	return n, nil
}

// gauntletTurn is a guard turn that only runs the gauntlet over the content
// (the content rewrite of the guard path).
type gauntletTurn struct{ st *gauntlet.Stream }

func (g gauntletTurn) Plan() Plan { return Plan{Decision: "ground"} }
func (g gauntletTurn) Content(_ context.Context, dst, delta []byte) []byte {
	return g.st.Write(dst, delta)
}
func (gauntletTurn) Abandon() {}

func (g gauntletTurn) Finish(_ context.Context, dst []byte) ([]byte, *Report) {
	return g.st.Close(dst), &Report{Decision: "ground", LatencyMS: map[string]float64{}}
}

func newGauntletTurn(t testing.TB) gauntletTurn {
	spec, err := gauntlet.Compile(gauntlet.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return gauntletTurn{spec.New(gauntlet.Options{Notes: []gate.Note{{N: 1, ID: "doc-a", Title: "A"}}})}
}

const allocEvent = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"mock-1","choices":[{"index":0,"delta":{"content":%s},"logprobs":null,"finish_reason":null}]}`

// TestRelayAllocs: in steady state the relay allocates nothing per event,
// in pass-through and in the guard path (content unescaped, rewritten by
// the gauntlet, spliced back), whether events come one per read or in
// bursts that are written together.
func TestRelayAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race")
	}
	for _, tc := range []relayCase{
		{"passthrough/one", func() Turn { return passTurn{} }, 1},
		{"passthrough/burst", func() Turn { return passTurn{} }, 3},
		{"guard/one", func() Turn { return newGauntletTurn(t) }, 1},
		{"guard/burst", func() Turn { return newGauntletTurn(t) }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &countWriter{}
			step := relayLoop(t, tc.turn(), tc.burst, sink)
			for range 200 { // grow the buffers
				step()
			}
			if a := testing.AllocsPerRun(2000, step); a != 0 {
				t.Errorf("%v allocations per event, want 0", a)
			}
			if sink.writes == 0 || sink.bytes == 0 {
				t.Fatalf("nothing written")
			}
			if tc.burst > 1 && sink.writes*int64(tc.burst) > sink.events+int64(tc.burst) {
				t.Errorf("%d writes for %d events in bursts of %d: not coalesced", sink.writes, sink.events, tc.burst)
			}
		})
	}
}

// relayCase is a relay run: its turn and how many events come per read.
type relayCase struct {
	name  string
	turn  func() Turn
	burst int
}

// relayLoop starts a relay over an upstream that repeats a burst of
// events without end, writing to w; step relays one event.
func relayLoop(tb testing.TB, turn Turn, burst int, w io.Writer) (step func()) {
	return relayLoopOf(tb, turn, burst, w, []string{
		`"The return window is 30 days "`,
		`"from delivery [^1]. Ask doc_1a2b \"support\"\n"`,
		`"caf\u00e9 \ud83d\ude00 ok. "`,
	})
}

// relayLoopOf is relayLoop with events of the given raw contents, in turn.
func relayLoopOf(tb testing.TB, turn Turn, burst int, w io.Writer, contents []string) (step func()) {
	var b []byte
	for i := 0; i < burst; i++ {
		b = append(b, "data: "...)
		b = append(b, strings.Replace(allocEvent, "%s", contents[i%len(contents)], 1)...)
		b = append(b, "\n\n"...)
	}
	src := sse.NewReader(&loopReader{burst: b}, 1<<20)
	tb.Cleanup(src.Release)
	cfg := DefaultConfig()
	ctx, cancel := context.WithCancelCause(context.Background())
	tb.Cleanup(func() { cancel(nil) })
	s := &Server{m: newMetrics(), log: nopLogger()}
	r := newRelay(&exchange{s: s, rt: &runtime{cfg: cfg}, req: &chatRequest{stream: true}, turn: turn, log: &reqLog{start: time.Now()}, stop: func(err error) { cancel(err) }}, src)
	tb.Cleanup(r.free)
	// No run: end the probe a wait armed (armProbe) as run would, before
	// free resets the relay.
	p := r.ps
	tb.Cleanup(func() {
		p.mu.Lock()
		if p.t != nil {
			p.t.Stop()
		}
		p.ended = true
		p.mu.Unlock()
	})
	r.w = w
	return func() {
		ev, ok, err := src.Next(r.waitFn)
		if err != nil || !ok || !r.event(ctx, ev) {
			tb.Fatalf("relay stopped: %v %v", ok, err)
		}
	}
}

// BenchmarkRelayEvent is the relay's own cost per event (ns/op), upstream
// read, scan, turn and client write framing included, with the upstream
// sending streams' worth of events in one read (burst 50) or one per read.
func BenchmarkRelayEvent(b *testing.B) {
	for _, tc := range []relayCase{
		{"passthrough/burst50", func() Turn { return passTurn{} }, 50},
		{"passthrough/one", func() Turn { return passTurn{} }, 1},
		{"guard/burst50", func() Turn { return newGauntletTurn(b) }, 50},
	} {
		b.Run(tc.name, func(b *testing.B) {
			step := relayLoop(b, tc.turn(), tc.burst, io.Discard)
			b.ReportAllocs()
			for b.Loop() {
				step()
			}
		})
	}
}

type countWriter struct{ writes, bytes, events int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.writes++
	c.bytes += int64(len(p))
	c.events += int64(bytes.Count(p, []byte("data: ")))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)

// TestRelayCoalesces: events that arrive in one read reach the client in
// one write, and an event is written before the relay waits for the next
// read (never held back for it).
func TestRelayCoalesces(t *testing.T) {
	ev := func(c string) string {
		return "data: " + strings.Replace(allocEvent, "%s", `"`+c+`"`, 1) + "\n\n"
	}
	finish := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	reads := []string{ev("a") + ev("b") + ev("c"), ev("d"), ev("e") + finish}
	up := &stepReader{reads: reads}
	var sink countWriter
	src := sse.NewReader(up, 1<<20)
	defer src.Release()
	up.before = func(i int) {
		// Before read i, everything of reads[:i] must have been written.
		want := int64(strings.Count(strings.Join(reads[:i], ""), "data: "))
		if i == 1 {
			want = 3
		}
		if sink.events != want {
			t.Errorf("before read %d: %d events written, want %d", i, sink.events, want)
		}
	}
	relayPass(t, context.Background(), src, &sink)
	if sink.events != 7 || sink.writes != 3 {
		t.Errorf("%d events in %d writes, want 7 in 3 (one per upstream read)", sink.events, sink.writes)
	}
}

// stepReader returns one element of reads per Read, calling before(i)
// first.
type stepReader struct {
	reads  []string
	i      int
	before func(int)
}

func (s *stepReader) Read(p []byte) (int, error) {
	if s.i >= len(s.reads) {
		return 0, io.EOF
	}
	if s.before != nil && s.i > 0 {
		s.before(s.i)
	}
	n := copy(p, s.reads[s.i])
	s.i++
	return n, nil
}

// TestRelayCoalescesChunkedUpstream: through the real upstream client, an
// upstream that sends three events as three HTTP chunks in one TCP write
// reaches the client in one write (fasthttp's body reader returns one
// chunk per Read, so the relay must not flush before each Read, only
// before one that waits on the network), and the next event, sent once
// those were written, in a write of its own.
func TestRelayCoalescesChunkedUpstream(t *testing.T) {
	ev := func(c string) string {
		return "data: " + strings.Replace(allocEvent, "%s", `"`+c+`"`, 1) + "\n\n"
	}
	chunk := func(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }
	finish := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var sink countWriter
	wrote3 := make(chan struct{})
	base := scriptedUpstream(t, []string{chunk(ev("a")) + chunk(ev("b")) + chunk(ev("c")),
		chunk(ev("d")) + chunk(finish) + "0\r\n\r\n"}, wrote3, nil)
	up := newUpstream(base, "", newFastClient(UpstreamConfig{MaxConns: 4, MaxResponseBytes: 1 << 20, IdleConnTimeout: time.Second, ConnWaitTimeout: time.Second}, nil))
	defer up.close()
	ctx, cancel, src, done := openTestStream(t, up)
	defer cancel(nil)
	defer done()
	relayPass(t, ctx, src, writerFunc(func(p []byte) (int, error) {
		n, err := sink.Write(p)
		if sink.events == 3 {
			close(wrote3)
		}
		return n, err
	}))
	if sink.events != 6 || sink.writes != 2 {
		t.Errorf("%d events in %d writes, want 6 in 2 (a, b, c together; then d, the finish and [DONE])", sink.events, sink.writes)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// relayPass relays src to w as a pass-through stream (no disconnect probe:
// w is not a connection) until the stream ends.
func relayPass(t *testing.T, ctx context.Context, src *sse.Reader, w io.Writer) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Server.DisconnectProbe = time.Hour
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &Server{m: newMetrics(), log: nopLogger()}
	r := newRelay(&exchange{s: s, rt: &runtime{cfg: cfg}, req: &chatRequest{stream: true}, turn: passTurn{}, log: &reqLog{start: time.Now()}, stop: func(err error) { cancel(err) }}, src)
	first, ok, err := src.Next(nil)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	r.run(ctx, w, first)
	r.free()
}

// scriptedUpstream answers one streamed chat completion with the given
// parts, each one TCP write of raw chunked body bytes; before part i > 0
// it waits for next (so a test can see what reached the client first).
// Then it waits until the proxy closes or pools the connection, and closes
// gone (when not nil) once the proxy closed it.
func scriptedUpstream(t *testing.T, parts []string, next <-chan struct{}, gone chan<- struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		for i, p := range parts {
			if i == 0 {
				p = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + p
			} else {
				<-next
			}
			if _, err := c.Write([]byte(p)); err != nil {
				return
			}
		}
		var b [1]byte
		c.Read(b[:]) // until the proxy closes or pools the connection
		if gone != nil {
			close(gone)
		}
	}()
	return "http://" + ln.Addr().String() + "/v1"
}
