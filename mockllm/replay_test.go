package mockllm

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/cputime"
)

// countConn is a connection that only counts its closes.
type countConn struct {
	net.Conn
	closes int
}

func (c *countConn) Close() error { c.closes++; return nil }

// readAll reads body with reads of size bytes and returns what each read
// gave (bytes and error) and the waits it asked for, in order.
type reading struct {
	reads []string
	errs  []error
	waits []time.Duration
}

func readAll(r io.Reader, size int) reading {
	var out reading
	p := make([]byte, size)
	for range 1 << 20 {
		n, err := r.Read(p)
		out.reads = append(out.reads, string(p[:n]))
		out.errs = append(out.errs, err)
		if err != nil {
			break
		}
	}
	return out
}

// A replayed script sends what a stream rendered per request sent (the
// reference in refstream_test.go): the same bytes in the same reads, the
// same waits before them, the same cut; for every fault, pace, tool calls
// and the usage event, with reads of any size.
func TestReplayAsRendered(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 15 * time.Millisecond
	cfg.HugeEventBytes = 5000 // more than one block of xs
	cfg.Faults = Faults{Invent: 0.2, Split: 0.3, Malformed: 0.1, Repeat: 0.1, Leak: 0.2, Contradict: 0.2, Uncited: 0.2,
		Disconnect: 0.2, SlowFirst: 0.2, Stall: 0.3, BadJSON: 0.3, HugeEvent: 0.3, Paraphrase: 0.2, Alter: 0.5}
	type answerCase struct {
		name string
		body string
	}
	var cases []answerCase
	for i := range 60 {
		usage := ""
		if i%2 == 0 {
			usage = `,"stream_options":{"include_usage":true}`
		}
		cases = append(cases, answerCase{fmt.Sprintf("notes %d", i), fmt.Sprintf(`{"model":"m-%d","stream":true%s,"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file, case %d.\n[^2] (kind: lecture; address: A 2) Backups run nightly at 02:00 and keep 30 copies. They are \"encrypted\"\\nat rest."},{"role":"user","content":"limits %d?"}]}`, i%3, usage, i, i)})
	}
	cases = append(cases,
		answerCase{"no notes", `{"stream":true,"messages":[{"role":"user","content":"what is a \"quark\"?"}]}`},
		answerCase{"tool call", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"search"}}],"messages":[{"role":"user","content":"find \"x\" é"}]}`})
	if body, err := os.ReadFile("testdata/proxied_body.json"); err == nil {
		cases = append(cases, answerCase{"proxied demo turn", string(body)})
	} else {
		t.Fatal(err)
	}
	for _, pace := range []time.Duration{0, 15 * time.Millisecond} {
		for _, huge := range []int{0, 5000} {
			cfg.Pace, cfg.HugeEventBytes = pace, huge
			s := &Server{cfg: cfg, gen: generator{cfg: cfg}, log: newLog(0), closed: make(chan string, 1024)}
			for _, c := range cases {
				var req chatRequest
				if err := json.Unmarshal([]byte(c.body), &req); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				a := s.gen.build(&req, []byte(c.body), "")
				model := req.Model
				if model == "" {
					model = "mock-1"
				}
				usage := ""
				if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
					usage = usageJSON(a)
				}
				sc := s.newScript(&a, model, usage)
				for _, seq := range []uint64{7, 1234567890123} {
					const created = 1795804343
					id := "chatcmpl-mock-" + fmt.Sprint(seq)
					for _, size := range []int{1, 7, 100, 4096, 1 << 16} {
						var refWaits, waits []time.Duration
						refConn, conn := &countConn{}, &countConn{}
						ref := &refEventBody{s: s, conn: refConn, id: id, refPlan: refSteps(s, a, id, model, created, usage),
							sleep: func(d time.Duration) { refWaits = append(refWaits, d) }}
						rb := s.newEventBody(conn, sc, seq, created)
						rb.sleep = func(d time.Duration) { waits = append(waits, d) }
						want, got := readAll(ref, size), readAll(rb, size)
						name := fmt.Sprintf("%s, pace %s, huge %d, seq %d, reads of %d", c.name, pace, huge, seq, size)
						if !slices.Equal(got.reads, want.reads) {
							t.Fatalf("%s: reads differ\ngot  %q\nwant %q", name, got.reads, want.reads)
						}
						if !slices.EqualFunc(got.errs, want.errs, func(x, y error) bool { return (x == nil) == (y == nil) && (x == nil || x.Error() == y.Error()) }) {
							t.Fatalf("%s: errors %v, want %v", name, got.errs, want.errs)
						}
						if !slices.Equal(refWaits, waits) || refConn.closes != conn.closes {
							t.Fatalf("%s: waits %v and %d closes, want %v and %d", name, waits, conn.closes, refWaits, refConn.closes)
						}
						if errors.Is(got.errs[len(got.errs)-1], io.EOF) != !a.rec.Disconnect {
							t.Fatalf("%s: ended with %v, disconnect recorded %t", name, got.errs[len(got.errs)-1], a.rec.Disconnect)
						}
						ref.Close()
						rb.Close()
					}
				}
			}
		}
	}
}

// BenchmarkScript lays out a streamed answer of 100 pieces, as a memoised
// answer is laid out once.
func BenchmarkScript(b *testing.B) {
	s := &Server{}
	a := answer{pieces: make([]string, 100), cutAt: -1, stallAt: -1, badAt: -1, hugeAt: -1}
	for i := range a.pieces {
		a.pieces[i] = " word"
	}
	b.ReportAllocs()
	for b.Loop() {
		s.newScript(&a, "mock-1", "")
	}
}

// BenchmarkStream is the simulated upstream's own work for one streamed
// answer to the proxy's request of a demo turn (its eight notes; 107
// events, 23 KB), from the request's arrival to its last chunk, on
// fasthttp's RequestCtx with the response written to a discarding buffer:
// what a load run's repeated request costs the upstream, less the sockets.
func BenchmarkStream(b *testing.B) {
	body, err := os.ReadFile("testdata/proxied_body.json")
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.LogSize = 0
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var ctx fasthttp.RequestCtx
	var req fasthttp.Request
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI("/v1/chat/completions")
	req.SetBodyRaw(body)
	ctx.Init(&req, nil, nil)
	var out countWriter
	w := bufio.NewWriterSize(&out, 8<<10) // the server's WriteBufferSize
	serve := func() int {
		out = 0
		ctx.Response.Reset()
		s.handle(&ctx)
		if err := ctx.Response.Write(w); err != nil {
			b.Fatal(err)
		}
		w.Flush()
		return int(out)
	}
	if n := serve(); n < 20000 {
		b.Fatalf("answer of %d bytes", n)
	}
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		serve()
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
