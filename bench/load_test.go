package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/mockllm"
)

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	p := percentiles(ds)
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"p50", p.P50, 50 * time.Millisecond},
		{"p90", p.P90, 90 * time.Millisecond},
		{"p99", p.P99, 99 * time.Millisecond},
		{"max", p.Max, 100 * time.Millisecond},
		{"mean", p.Mean, 50500 * time.Microsecond},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if got := percentiles(nil); got.N != 0 || got.P99 != 0 {
		t.Errorf("percentiles(nil) = %+v, want zero", got)
	}
}

func TestHistogramCountsEverySample(t *testing.T) {
	ds := []time.Duration{time.Microsecond, 90 * time.Microsecond, time.Millisecond, 3 * time.Millisecond, time.Second}
	total := 0
	for _, b := range histogram(ds) {
		total += b.Count
		if b.Hi <= b.Lo {
			t.Errorf("bin [%s,%s) is empty or reversed", b.Lo, b.Hi)
		}
	}
	if total != len(ds) {
		t.Errorf("histogram holds %d samples, want %d", total, len(ds))
	}
}

func TestChatURLLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions", true},
		{"http://localhost:9/v1/chat/completions", "http://localhost:9/v1/chat/completions", true},
		{"http://[::1]:8080/v1/", "http://[::1]:8080/v1/chat/completions", true},
		{"http://10.0.0.1:8080/v1", "", false},
		{"http://example.com/v1", "", false},
		{"https://127.0.0.1/v1", "", false},
		{"http://127.0.0.1.evil.com/v1", "", false},
	} {
		got, err := chatURL(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("chatURL(%q) = %q, %v; want %q, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestCheckStream(t *testing.T) {
	const chunk = `{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`
	const final = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"guard":{"decision":"passthrough"}}`
	const errEv = `{"error":{"message":"m","type":"upstream_error","code":"upstream_stream_failed"}}`
	ev := func(ds ...string) string {
		var b strings.Builder
		for _, d := range ds {
			b.WriteString("data: " + d + "\n\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		name     string
		in       string
		problems int
		errCode  string
		content  string
	}{
		{"complete", ev(chunk, final, "[DONE]"), 0, "", "hi"},
		{"keepalive comments are ignored", ": keep-alive\n\n" + ev(chunk, final, "[DONE]"), 0, "", "hi"},
		{"error event then done", ev(chunk, errEv, "[DONE]"), 0, "upstream_stream_failed", "hi"},
		{"half-written", ev(chunk, "[DONE]"), 1, "", "hi"},
		{"no done", ev(chunk, final), 1, "", "hi"},
		{"cut mid-event", ev(chunk) + "data: {\"cho", 2, "", "hi"},
		{"cut before the blank line", ev(chunk) + "data: [DONE]\n", 2, "", "hi"},
		{"CRLF line ends", strings.ReplaceAll(ev(chunk, final, "[DONE]"), "\n", "\r\n"), 0, "", "hi"},
		{"CR line ends", strings.ReplaceAll(ev(chunk, final, "[DONE]"), "\n", "\r"), 0, "", "hi"},
		{"event after done", ev(chunk, final, "[DONE]", chunk), 1, "", "hi"},
		{"not json", ev("oops", final, "[DONE]"), 1, "", ""},
	} {
		got := CheckStream(strings.NewReader(c.in), 1<<20)
		if len(got.Problems) != c.problems || got.ErrCode != c.errCode || got.Content != c.content {
			t.Errorf("%s: problems %q, err %q, content %q; want %d problems, err %q, content %q",
				c.name, got.Problems, got.ErrCode, got.Content, c.problems, c.errCode, c.content)
		}
	}
}

func FuzzCheckStream(f *testing.F) {
	f.Add("data: {}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"error\":{}}\r\n\r\ndata: [DONE]\n\n")
	f.Add(": x\n\ndata:\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		c := CheckStream(strings.NewReader(in), 1<<20)
		if !c.Done && len(c.Problems) == 0 {
			t.Errorf("a stream without [DONE] passed the check")
		}
	})
}

func TestRunAgainstMock(t *testing.T) {
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		name string
		cfg  LoadConfig
	}{
		{"closed non-stream", LoadConfig{Concurrency: 4, MaxRequests: 40}},
		{"closed stream", LoadConfig{Concurrency: 4, MaxRequests: 40, Stream: true}},
		{"open non-stream", LoadConfig{Concurrency: 8, Rate: 2000, MaxRequests: 40, Duration: 10 * time.Second}},
	} {
		c.cfg.Target = mock.BaseURL()
		res, err := Run(ctx, c.name, c.cfg, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.OK+res.Dropped != 40 || len(res.Errors) != 0 {
			t.Errorf("%s: ok %d dropped %d errors %v, want 40 ok or dropped and no errors", c.name, res.OK, res.Dropped, res.Errors)
		}
		if res.Latency.P50 <= 0 || res.Latency.Max < res.Latency.P99 {
			t.Errorf("%s: implausible latency %+v", c.name, res.Latency)
		}
		if c.cfg.Stream && (res.TTFT == nil || res.TTFT.P50 <= 0 || res.TTFT.P50 > res.Latency.Max) {
			t.Errorf("%s: implausible TTFT %+v", c.name, res.TTFT)
		}
	}
}

func TestRunRefusesRemoteTarget(t *testing.T) {
	_, err := Run(context.Background(), "x", LoadConfig{Target: "http://192.0.2.1/v1", Concurrency: 1, MaxRequests: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "non-loopback") {
		t.Errorf("Run against a non-loopback target: err %v, want a refusal", err)
	}
}

func TestReportFiles(t *testing.T) {
	dir := t.TempDir()
	run := RunResult{Name: "proxy", OK: 2, Errors: map[string]int{"http_502": 1},
		Latency:         Percentiles{N: 2, P50: time.Millisecond, P99: 2 * time.Millisecond, Max: 2 * time.Millisecond},
		UpstreamLatency: Percentiles{N: 2, P50: time.Millisecond, P99: 2 * time.Millisecond, Max: 2 * time.Millisecond},
		Seconds:         []Second{{T: 0, N: 2, P50: time.Millisecond, P99: 2 * time.Millisecond}},
		Hist:            histogram([]time.Duration{time.Millisecond, 2 * time.Millisecond})}
	direct := run
	direct.Name = "direct"
	direct.Latency.P50 = time.Millisecond / 2
	direct.UpstreamLatency.P50 = time.Millisecond / 2
	rep := LoadReport{Config: LoadConfig{Concurrency: 1, Duration: time.Second}, Runs: []RunResult{run, direct}, Overhead: Compare(run, direct)}
	if err := WriteReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	if rep.Overhead.P50Diff != time.Millisecond/2 || rep.Overhead.P50Ratio != 2 {
		t.Errorf("overhead %+v, want p50 +0.5ms ratio 2", rep.Overhead)
	}
	var md strings.Builder
	WriteMarkdown(&md, rep)
	for _, want := range []string{"| proxy |", "| direct |", "http_502=1", "| p50 | +500.0us | 2.000 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
	for _, base := range []string{LatencyTimeChart, LatencyHistChart} {
		checkChart(t, dir, base)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(latency-time.svg)", "(latency-hist.svg)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.md does not link %s", want)
		}
	}
}

// readStream classifies a stream with byte tests before any parse: a
// finish reason is found however the JSON is spaced, not inside a string,
// and not when it is null.
func TestReadStream(t *testing.T) {
	const chunk = `{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`
	ev := func(ds ...string) string {
		var b strings.Builder
		for _, d := range ds {
			b.WriteString("data: " + d + "\n\n")
		}
		return b.String()
	}
	for _, c := range []struct{ name, in, want string }{
		{"complete", ev(chunk, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"), ""},
		{"spaced finish", ev(chunk, `{"choices": [{"index": 0, "delta": {}, "finish_reason" : "length"}]}`, "[DONE]"), ""},
		{"null finish only", ev(chunk, chunk, "[DONE]"), "stream_unfinished"},
		{"finish named inside a string", ev(`{"choices":[{"index":0,"delta":{"content":"say \"finish_reason\":\"stop\""},"finish_reason":null}]}`, "[DONE]"), "stream_unfinished"},
		{"a longer key ending in finish_reason", ev(`{"choices":[{"index":0,"delta":{"content":"a"},"x_finish_reason":"stop","finish_reason":null}]}`, "[DONE]"), "stream_unfinished"},
		{"error event", ev(chunk, `{"error":{"message":"m","code":"x"}}`, "[DONE]"), "stream_error_event"},
		{"no done", ev(chunk), "stream_no_done"},
	} {
		ttft, got, _ := readStream(strings.NewReader(c.in), time.Now().Add(-time.Millisecond))
		if got != c.want || ttft <= 0 {
			t.Errorf("%s: got %q (ttft %s), want %q and a first token", c.name, got, ttft, c.want)
		}
	}
	// The guard's decision comes from the final chunk.
	final := `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"guard":{"decision":"refuse","coverage":{}}}`
	if _, kind, d := readStream(strings.NewReader(ev(chunk, final, "[DONE]")), time.Now()); kind != "" || d != "refuse" {
		t.Errorf("decision %q (kind %q), want refuse", d, kind)
	}
}

// TestOverheadComparesLikeWithLike: a proxied run that mixes 1 ms
// refusals (answered without the upstream) with grounded answers is
// compared with the direct run on its grounded answers only, and the
// report says what it compared; counts agree (offered = sent + dropped,
// sent = ok + errors).
func TestOverheadComparesLikeWithLike(t *testing.T) {
	ms := time.Millisecond
	proxied := &recorder{}
	for _, l := range []time.Duration{11 * ms, 12 * ms, 13 * ms} {
		proxied.samples = append(proxied.samples, sample{lat: l, decision: "ground"})
	}
	for range 5 {
		proxied.samples = append(proxied.samples, sample{lat: ms, decision: "refuse"})
	}
	proxied.samples = append(proxied.samples, sample{lat: 30 * ms, kind: "http_502"})
	proxied.sent.Store(9)
	proxied.dropped.Store(2)
	direct := &recorder{}
	for _, l := range []time.Duration{10 * ms, 10 * ms, 11 * ms} {
		direct.samples = append(direct.samples, sample{lat: l})
	}
	direct.sent.Store(3)
	cfg := LoadConfig{Concurrency: 1, Duration: time.Second}
	p := summarize("proxy", cfg, "open", proxied, time.Second)
	d := summarize("direct", cfg, "open", direct, time.Second)
	if p.UpstreamN != 3 || p.Decisions["refuse"] != 5 || p.Decisions["ground"] != 3 || d.Decisions["none"] != 3 {
		t.Fatalf("upstream n %d, decisions %v / %v; want 3 grounded compared, 5 refusals, 3 direct", p.UpstreamN, p.Decisions, d.Decisions)
	}
	o := Compare(p, d)
	if o.P50Diff != 2*ms {
		t.Errorf("p50 difference %s, want +2ms (12ms grounded vs 10ms direct; all answers would give -9ms)", o.P50Diff)
	}
	for _, want := range []string{"3 answers of proxy", "(ground 3)", "3 answers of direct", "5 refusals", "left out"} {
		if !strings.Contains(o.Compared, want) {
			t.Errorf("compared %q lacks %q", o.Compared, want)
		}
	}
	var md strings.Builder
	WriteMarkdown(&md, LoadReport{Config: cfg, Runs: []RunResult{p, d}, Overhead: o})
	for _, want := range []string{"| proxy | 11 | 9 | 8 | 1 | 2 |", "| direct | 3 | 3 | 3 | 0 | 0 |", "Compared: latency of the 3 answers of proxy",
		"answers of proxy by guard decision: ground 3, refuse 5"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, md.String())
		}
	}
	if sent, ok, errs := p.Sent, p.OK, len(proxied.samples)-int(p.OK); sent != ok+int64(errs) {
		t.Errorf("sent %d != ok %d + errors %d", sent, ok, errs)
	}
}

// BenchmarkReadStream is the load generator's cost to read one streamed
// answer of 24 events (internal/sse's reader and the byte tests; go-sse's
// Read cost 60 us and 50 allocations here).
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"mock-1","choices":[{"index":0,"delta":`
	sb.WriteString("data: " + head + `{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for range 20 {
		sb.WriteString("data: " + head + `{"content":"word "},"finish_reason":null}]}` + "\n\n")
	}
	sb.WriteString("data: " + head + `{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	in := sb.String()
	r := strings.NewReader(in)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Reset(in)
		if _, kind, _ := readStream(r, time.Now()); kind != "" {
			b.Fatal(kind)
		}
	}
}

// The CPU profile a stage split comes from is saved beside the report, one
// file per run that has one.
func TestReportSavesStageProfile(t *testing.T) {
	dir := t.TempDir()
	run := RunResult{Name: "proxy", OK: 1, Latency: Percentiles{N: 1, P50: time.Millisecond, Max: time.Millisecond},
		Seconds: []Second{{T: 0, N: 1, P50: time.Millisecond, P99: time.Millisecond}},
		Hist:    histogram([]time.Duration{time.Millisecond}), Stages: &StageSplit{profile: []byte("profile bytes")}}
	direct := run
	direct.Name, direct.Stages = "direct", nil
	if err := WriteReport(dir, LoadReport{Config: LoadConfig{Concurrency: 1, Duration: time.Second}, Runs: []RunResult{run, direct}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "stages-proxy.pprof")); err != nil || string(b) != "profile bytes" {
		t.Errorf("stages-proxy.pprof = %q, %v; want the split's profile", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stages-direct.pprof")); err == nil {
		t.Error("stages-direct.pprof written for a run without a split")
	}
}
