package bench

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/cputime"
	"github.com/answer-guard/guard/mockllm"
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
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-us/op")
}

// BenchmarkReadGuardStream is the load generator's cost to read one
// guarded turn's stream (106 events, the guard report in the last one).
func BenchmarkReadGuardStream(b *testing.B) {
	in := guardStream(b)
	r := strings.NewReader(in)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Reset(in)
		if _, kind, d := readStream(r, time.Now()); kind != "" || d != "ground" {
			b.Fatal(kind, d)
		}
	}
}
