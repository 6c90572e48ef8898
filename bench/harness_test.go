package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/answer-guard/guard/internal/cputime"
	"github.com/answer-guard/guard/internal/sse"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// guardStream is a guarded turn's stream as the proxy sends it to the
// client (a demo question through the lexical-only pipeline: 106 events,
// the last chunk carrying the guard report).
func guardStream(tb testing.TB) string {
	b, err := os.ReadFile("testdata/loadgen/guard_stream.sse")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkHarnessTurn is the bench's own cost for one turn of a --self
// run without the proxy: the load generator sends the body the proxy sends
// the simulated upstream (a demo question with its eight notes), and
// reads the simulated upstream's stream (107 events) over loopback, 32
// requests in flight as with --concurrency 32. cpu-us/op is the process's
// CPU time per turn (generator and simulated upstream together).
func BenchmarkHarnessTurn(b *testing.B) {
	body, err := os.ReadFile("../mockllm/testdata/proxied_body.json")
	if err != nil {
		b.Fatal(err)
	}
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mcfg.LogSize = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer mock.Close()
	l, err := newLoader(LoadConfig{Target: mock.BaseURL(), Concurrency: 32, Stream: true, MaxRequests: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer l.close()
	l.bodies = [][]byte{body}
	if s := l.one(0, 0, time.Time{}); s.kind != "" {
		b.Fatal(s.kind)
	}
	runTurns(b, l)
}

// runTurns times l's turns from 32 goroutines and reports CPU per turn.
func runTurns(b *testing.B, l *loader) {
	b.SetParallelism(16) // 32 goroutines on 2 CPUs
	b.ReportAllocs()
	cpu0 := cputime.Process()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if s := l.one(0, 0, time.Time{}); s.kind != "" {
				b.Error(s.kind)
				return
			}
		}
	})
	b.StopTimer()
	cpuPerOp(b, cpu0)
}

// cpuPerOp reports the process's CPU time per op since cpu0 (steadier than
// wall time on a shared machine).
func cpuPerOp(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
}

// BenchmarkReadGuardStream is the load generator's cost to read one
// guarded turn's stream (106 events, the guard report in the last one).
func BenchmarkReadGuardStream(b *testing.B) {
	in := guardStream(b)
	r := strings.NewReader(in)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	cpu0 := cputime.Process()
	for b.Loop() {
		r.Reset(in)
		if _, kind, d := readStream(r, time.Now()); kind != "" || d != "ground" {
			b.Fatal(kind, d)
		}
	}
	cpuPerOp(b, cpu0)
}

// readStreamRef is the load generator's reading before it knew a content
// chunk by its last bytes: every event searched for an error key and a
// finish reason.
func readStreamRef(r io.Reader, t0 time.Time) (ttft time.Duration, kind, decision string) {
	src := sse.NewReader(r, maxStreamEvent)
	defer src.Release()
	finished, errEvent := false, false
	for {
		ev, more, err := src.Next(nil)
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				return ttft, "stream_event_too_large", decision
			}
			return ttft, errKind(err), decision
		}
		if !more {
			return ttft, "stream_no_done", decision
		}
		data := strings.TrimSpace(string(ev.Data))
		if data == "[DONE]" {
			switch {
			case errEvent:
				return ttft, "stream_error_event", decision
			case !finished:
				return ttft, "stream_unfinished", decision
			}
			return ttft, "", decision
		}
		if ttft == 0 {
			if c := gjson.Get(data, "choices.0.delta.content"); c.Type == gjson.String && c.Str != "" {
				ttft = time.Since(t0)
			}
		}
		if strings.Contains(data, `"error"`) && gjson.Get(data, "error").Exists() {
			errEvent = true
		}
		if !finished && finishNamed(data) && gjson.Get(data, "choices.0.finish_reason").Type == gjson.String {
			finished = true
			decision = internDecision(gjson.Get(data, "guard.decision").Str)
		}
	}
}

// hidden reports whether an event ends as an ordinary chunk and yet has a
// candidate error key or a finish reason: the events readStream takes for
// content chunks without a search, which no stream of the guard or the
// simulated upstream has (TestOrdinaryChunksHideNothing).
func hidden(data string) bool {
	data = strings.TrimSpace(data)
	return strings.HasSuffix(data, string(ordinaryChunk)) && (strings.Contains(data, `"error"`) || finishNamed(data))
}

// Every event that ends as an ordinary chunk, in a guarded turn's stream
// and in the simulated upstream's streams with every fault, has neither
// an error key nor a finish reason: readStream loses nothing by not
// searching them.
func TestOrdinaryChunksHideNothing(t *testing.T) {
	streams := []string{guardStream(t)}
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mcfg.HugeEventBytes = 100
	mcfg.Faults = mockllm.Faults{Invent: 0.2, Split: 0.3, Malformed: 0.1, Repeat: 0.1, Leak: 0.2, Contradict: 0.2, Uncited: 0.2,
		BadJSON: 0.3, HugeEvent: 0.3, Refuse: 0.1}
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	for i := range 30 {
		body := fmt.Sprintf(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Notes:\n[^1] (kind: lecture; address: A 1) The limit is 25 MB per file, case %d.\n[^2] (kind: lecture; address: A 2) Backups run nightly at 02:00."},{"role":"user","content":"limits?"}]}`, i)
		resp, err := http.Post(mock.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		streams = append(streams, string(b))
	}
	events := 0
	for _, s := range streams {
		for ev := range strings.SplitSeq(s, "\n\n") {
			data, _ := strings.CutPrefix(ev, "data: ")
			events++
			if hidden(data) {
				t.Errorf("an ordinary chunk with an error key or a finish reason: %q", data)
			}
		}
	}
	if events < 1000 {
		t.Errorf("%d events checked, want more", events)
	}
}

// readStream reads a stream as readStreamRef does (error kind, decision,
// a first token or none) unless an event ends as an ordinary chunk and yet
// has an error key or a finish reason (hidden).
func FuzzReadStream(f *testing.F) {
	f.Add(guardStream(f))
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\ndata: {\"error\":{\"message\":\"m\"}}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\" : \"stop\"}],\"guard\":{\"decision\":\"refuse\"}}\n\ndata: [DONE]\n\n",
		"data:  [DONE] \r\n\r\n", ": c\n\ndata: {\"choices\":[]}\nevent: error\n\n",
		"data:\v[DONE]\n\n", // found by the fuzzer: TrimSpace reads \v as space, JSON does not
		"data: [DONE]\u00a0\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		t0 := time.Now()
		ttft, kind, d := readStream(strings.NewReader(in), t0)
		rttft, rkind, rd := readStreamRef(strings.NewReader(in), t0)
		if kind == rkind && d == rd && (ttft > 0) == (rttft > 0) {
			return
		}
		src := sse.NewReader(strings.NewReader(in), maxStreamEvent)
		defer src.Release()
		for {
			ev, more, err := src.Next(nil)
			if err != nil || !more {
				break
			}
			if hidden(string(ev.Data)) {
				return // the documented exception
			}
		}
		t.Errorf("got %q %q first token %t, want %q %q %t, for %q", kind, d, ttft > 0, rkind, rd, rttft > 0, in)
	})
}

// BenchmarkReadGuardStreamRef is BenchmarkReadGuardStream for the reading
// before (readStreamRef, with its copy of each event removed: it viewed
// the reader's buffer).
func BenchmarkReadGuardStreamRef(b *testing.B) {
	in := guardStream(b)
	r := strings.NewReader(in)
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		r.Reset(in)
		readStreamRefView(r)
	}
	cpuPerOp(b, cpu0)
}

// readStreamRefView is readStreamRef's per-event work without its copy.
func readStreamRefView(r io.Reader) {
	src := sse.NewReader(r, maxStreamEvent)
	defer src.Release()
	finished, errEvent := false, false
	for first := true; ; {
		ev, more, err := src.Next(nil)
		if err != nil || !more {
			return
		}
		data := strings.TrimSpace(unsafe.String(unsafe.SliceData(ev.Data), len(ev.Data)))
		if data == "[DONE]" {
			_ = errEvent || finished
			return
		}
		if first {
			if c := gjson.Get(data, "choices.0.delta.content"); c.Type == gjson.String && c.Str != "" {
				first = false
			}
		}
		if strings.Contains(data, `"error"`) && gjson.Get(data, "error").Exists() {
			errEvent = true
		}
		if !finished && finishNamed(data) && gjson.Get(data, "choices.0.finish_reason").Type == gjson.String {
			finished = true
			_ = internDecision(gjson.Get(data, "guard.decision").Str)
		}
	}
}

// BenchmarkSelfTurn is one guarded turn of a lexical-only --self run
// (retrieve.semantic false, index.embedder hashed, no question cache, the
// demo questions), 32 in flight: the load generator, the proxy with its
// pipeline and operator plane, and the simulated upstream in this process,
// as guard bench load --self --stream --pipeline runs them. B/op and
// allocs/op count every allocation of the process (the garbage collector's
// work, "other" in the stage split, follows them); cpu-us/op is the
// process's CPU time per turn.
func BenchmarkSelfTurn(b *testing.B) {
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mcfg.LogSize = 0
	ip, err := StartInProcess(mcfg, func(c *proxy.Config) {
		c.Pipeline.Enabled = true
		c.Stages.Retrieve.Semantic = false
		c.Stages.Index.Embedder = "hashed"
		c.Stages.Retrieve.QuestionCacheMB = 0
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ip.Close()
	prompts, err := ReadPrompts("testdata/demo_prompts.txt")
	if err != nil {
		b.Fatal(err)
	}
	l, err := newLoader(LoadConfig{Target: ip.ProxyURL, Concurrency: 32, Stream: true, MaxRequests: 1, Prompts: prompts})
	if err != nil {
		b.Fatal(err)
	}
	defer l.close()
	warm(context.Background(), l, 256)
	runTurns(b, l)
}
