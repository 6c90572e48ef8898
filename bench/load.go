package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"
	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/cputime"
)

// LoadConfig is one load run: where to send, how hard and for how long.
type LoadConfig struct {
	// Target is the OpenAI base URL (http://127.0.0.1:8080/v1) or the full
	// chat completions URL. It must be a loopback address.
	Target string `json:"target"`
	// Concurrency bounds the requests in flight (open loop) or is the number
	// of back-to-back workers (closed loop, Rate 0).
	Concurrency int `json:"concurrency"`
	// Rate is the fixed arrival rate in requests per second; 0 = closed loop.
	Rate float64 `json:"rate"`
	// Duration bounds the run in time; MaxRequests (0 = no bound) in count.
	Duration    time.Duration `json:"duration_ns"`
	MaxRequests int           `json:"max_requests"`
	// Stream asks for SSE answers and measures time to first token.
	Stream bool `json:"stream"`
	// Prompts are sent round robin; empty = DefaultPrompts.
	Prompts []string `json:"-"`
	// Model is the request's model; default "mock-1".
	Model string `json:"model"`
	// Key is sent as "Authorization: Bearer <key>" when not empty.
	Key string `json:"-"`
	// Headers are extra request headers (X-Tenant-ID, ...).
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds one request; default 30s.
	Timeout time.Duration `json:"timeout_ns"`
	// Warmup requests are sent closed loop before the measured run and not
	// recorded (connection set-up, JIT-like warm caches); default 0.
	Warmup int `json:"warmup"`
	// Stages profiles the measured run and splits this process's CPU time
	// per request by pipeline stage (loadstages.go): for --self runs,
	// where the proxy is in this process.
	Stages bool `json:"stages,omitempty"`
}

// DefaultPrompts are sent when no prompts file is given.
var DefaultPrompts = []string{
	"What does John 3:16 say?",
	"Summarize the creation account in Genesis 1.",
	"Who was Moses and what did he do?",
	"What is the parable of the prodigal son about?",
	"Which psalm begins with 'The Lord is my shepherd'?",
	"How many days did the flood rain last according to Genesis?",
	"What are the fruits of the spirit in Galatians?",
	"Explain the beatitudes in Matthew 5.",
}

// ReadPrompts reads a prompts file: one prompt per line; a line holding a
// JSON object with a "prompt" string uses that; blank lines and lines
// starting with # are skipped.
func ReadPrompts(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "{") {
			p := gjson.Get(line, "prompt")
			if p.Type != gjson.String {
				return nil, fmt.Errorf("%s:%d: JSON line without a \"prompt\" string", path, n)
			}
			line = p.Str
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no prompts", path)
	}
	return out, nil
}

// Validate reports every problem at once.
func (c LoadConfig) Validate() error {
	var errs []error
	if _, err := chatURL(c.Target); err != nil {
		errs = append(errs, fmt.Errorf("target: %w", err))
	}
	if c.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("concurrency: must be >= 1, got %d", c.Concurrency))
	}
	if c.Rate < 0 {
		errs = append(errs, fmt.Errorf("rate: must be >= 0, got %g", c.Rate))
	}
	if c.Duration <= 0 && c.MaxRequests <= 0 {
		errs = append(errs, errors.New("duration: a run needs a duration or a max request count"))
	}
	if c.Duration > 24*time.Hour {
		errs = append(errs, fmt.Errorf("duration: must be <= 24h, got %s", c.Duration))
	}
	if c.MaxRequests < 0 {
		errs = append(errs, fmt.Errorf("max_requests: must be >= 0, got %d", c.MaxRequests))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout: must be >= 0, got %s", c.Timeout))
	}
	return errors.Join(errs...)
}

// chatURL returns the chat completions URL of a target and refuses anything
// that is not a loopback http URL: the harness must never load a real
// service by mistake.
func chatURL(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", target, err)
	}
	if u.Scheme != "http" {
		return "", fmt.Errorf("want an http:// loopback URL, got %q", target)
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("refusing non-loopback target %q: the load harness only runs against 127.0.0.1/::1/localhost", host)
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/chat/completions") {
		p += "/chat/completions"
	}
	u.Path = p
	return u.String(), nil
}

// sample is one finished request.
type sample struct {
	at   time.Duration // send time since the run started
	lat  time.Duration // send to last byte
	ttft time.Duration // send to first non-empty content delta (streams)
	lag  time.Duration // how late the send was against the open-loop schedule
	kind string        // "" = ok, otherwise the error kind
	// decision is the guard's decision on the turn (guard.decision: ground,
	// refuse, fallback, passthrough); "" when the answer carries none (a
	// direct upstream, or an error).
	decision string
}

// recorder collects samples from many goroutines.
type recorder struct {
	mu      sync.Mutex
	samples []sample
	sent    atomic.Int64
	done    atomic.Int64
	failed  atomic.Int64
	dropped atomic.Int64 // open loop: arrivals that found every slot busy
}

func (r *recorder) add(s sample) {
	r.done.Add(1)
	if s.kind != "" {
		r.failed.Add(1)
	}
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
}

func (r *recorder) snapshot(from int) []sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from > len(r.samples) {
		from = len(r.samples)
	}
	return append([]sample(nil), r.samples[from:]...)
}

// loader sends requests of one run.
type loader struct {
	cfg    LoadConfig
	url    string
	client *fasthttp.Client
	bodies [][]byte
	seq    atomic.Uint64
}

func newLoader(cfg LoadConfig) (*loader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := chatURL(cfg.Target)
	if cfg.Model == "" {
		cfg.Model = "mock-1"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	prompts := cfg.Prompts
	if len(prompts) == 0 {
		prompts = DefaultPrompts
	}
	l := &loader{cfg: cfg, url: u}
	for _, p := range prompts {
		body := map[string]any{"model": cfg.Model, "stream": cfg.Stream,
			"messages": []map[string]string{{"role": "user", "content": p}}}
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		l.bodies = append(l.bodies, b)
	}
	l.client = &fasthttp.Client{
		Name:                          "guard-bench",
		MaxConnsPerHost:               cfg.Concurrency + 16,
		MaxIdleConnDuration:           time.Minute,
		ReadTimeout:                   cfg.Timeout,
		WriteTimeout:                  cfg.Timeout,
		StreamResponseBody:            cfg.Stream,
		DisableHeaderNamesNormalizing: true,
		NoDefaultUserAgentHeader:      true,
		MaxResponseBodySize:           64 << 20,
		// A guarded turn's answer is 11-32 KB: read whatever has arrived
		// in one read, not 4 KiB (the default) at a time. strace over
		// 2,256 lexical-only turns (BenchmarkSelfTurn): the process's
		// reads 16.5 -> 11.1 per turn; the proxy's writes unchanged.
		ReadBufferSize: 32 << 10,
	}
	return l, nil
}

func (l *loader) close() { l.client.CloseIdleConnections() }

// one sends one request and classifies the outcome.
func (l *loader) one(at time.Duration, lag time.Duration, start time.Time) sample {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(l.url)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if l.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+l.cfg.Key)
	}
	for k, v := range l.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.SetBodyRaw(l.bodies[int(l.seq.Add(1)-1)%len(l.bodies)])
	s := sample{at: at, lag: lag}
	t0 := time.Now()
	if !start.IsZero() {
		s.at = t0.Sub(start)
	}
	var err error
	if l.cfg.Stream {
		err = l.client.Do(req, resp)
	} else {
		err = l.client.DoTimeout(req, resp, l.cfg.Timeout)
	}
	if err != nil {
		s.lat = time.Since(t0)
		s.kind = errKind(err)
		return s
	}
	status := resp.StatusCode()
	if l.cfg.Stream && status == 200 {
		body := resp.BodyStream()
		ttft, kind, decision := readStream(body, t0)
		if body != nil && kind == "" {
			// Read the chunked terminator so the connection is reusable.
			io.Copy(io.Discard, body) //nolint:errcheck // the answer is complete; a failure here only costs the connection
		}
		s.ttft, s.kind, s.decision = ttft, kind, decision
		s.lat = time.Since(t0)
		return s
	}
	if l.cfg.Stream {
		io.Copy(io.Discard, resp.BodyStream()) //nolint:errcheck // error bodies are small; the status is the outcome
	}
	s.lat = time.Since(t0)
	if status != 200 {
		s.kind = fmt.Sprintf("http_%d", status)
		return s
	}
	if !gjson.ValidBytes(resp.Body()) || !gjson.GetBytes(resp.Body(), "choices").IsArray() {
		s.kind = "bad_body"
		return s
	}
	s.decision = internDecision(gjson.GetBytes(resp.Body(), "guard.decision").Str)
	return s
}

func errKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		return "no_free_conns"
	case errors.Is(err, fasthttp.ErrDialTimeout):
		return "dial_timeout" // fasthttp's default dialer gives up after 3 s
	case errors.Is(err, io.ErrNoProgress):
		return "stream_no_progress" // the body read returned nothing, twice
	case errors.Is(err, fasthttp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "conn_closed"
	case strings.Contains(err.Error(), "connection refused"):
		return "conn_refused"
	case strings.Contains(err.Error(), "reset by peer"):
		return "conn_reset"
	}
	return "transport"
}

// RunResult is the outcome of one load run against one target.
type RunResult struct {
	Name    string         `json:"name"`
	Target  string         `json:"target"`
	Mode    string         `json:"mode"` // open | closed
	Elapsed time.Duration  `json:"elapsed_ns"`
	Sent    int64          `json:"sent"`
	OK      int64          `json:"ok"`
	Errors  map[string]int `json:"errors"`
	Dropped int64          `json:"dropped"` // open loop: arrivals with every slot busy (not sent); offered = sent + dropped, sent = ok + errors
	// Decisions counts the successful answers by the guard's decision
	// (guard.decision); "none" for answers without one (a direct upstream).
	Decisions map[string]int `json:"decisions,omitempty"`
	// UpstreamLatency is the latency of the successful answers that
	// reached the upstream (every decision but refuse, which is answered
	// without it): the like-with-like set the overhead compares.
	UpstreamLatency Percentiles  `json:"upstream_latency"`
	UpstreamTTFT    *Percentiles `json:"upstream_ttft,omitempty"`
	UpstreamN       int          `json:"upstream_n"`
	Throughput      float64      `json:"throughput_rps"`
	Latency         Percentiles  `json:"latency"`
	TTFT            *Percentiles `json:"ttft,omitempty"`
	// Lag is how late sends were against the open-loop schedule: a large
	// value means the generator itself could not keep the rate.
	Lag     Percentiles `json:"schedule_lag"`
	Seconds []Second    `json:"seconds"`
	Hist    []HistBin   `json:"histogram"`
	// CPUPerRequest is this process's CPU time (user+system) during the run
	// divided by the requests completed: in --self mode it covers generator,
	// proxy and upstream, so proxy minus direct is the proxy's own CPU cost
	// per request, a number far less sensitive to a busy machine than
	// latency.
	CPUPerRequest time.Duration `json:"cpu_per_request_ns"`
	// Resources samples this process once a second (in --self mode that is
	// proxy, upstream and generator together).
	Resources []Resource `json:"resources"`
	// Stages is the CPU per request by stage (LoadConfig.Stages).
	Stages *StageSplit `json:"stages,omitempty"`
}

// Resource is one sample of this process's goroutines and resident memory.
type Resource struct {
	T          int   `json:"t"`
	Goroutines int   `json:"goroutines"`
	RSSBytes   int64 `json:"rss_bytes"`
	HeapBytes  int64 `json:"heap_bytes"`
}

func sampleResource(t int) Resource {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Resource{T: t, Goroutines: runtime.NumGoroutine(), RSSBytes: rss(), HeapBytes: int64(ms.HeapAlloc)}
}

// rss reads VmRSS from /proc/self/status (0 where there is no procfs).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// Percentiles of a set of durations (exact, from all samples).
type Percentiles struct {
	N    int           `json:"n"`
	Mean time.Duration `json:"mean_ns"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	P999 time.Duration `json:"p999_ns"`
	Max  time.Duration `json:"max_ns"`
}

// Second is the latency of the requests sent during one second of a run.
type Second struct {
	T      int           `json:"t"`
	N      int           `json:"n"`
	Errors int           `json:"errors"`
	P50    time.Duration `json:"p50_ns"`
	P90    time.Duration `json:"p90_ns"`
	P99    time.Duration `json:"p99_ns"`
}

// Run executes one load run. progress (may be nil) gets one line per second.
func Run(ctx context.Context, name string, cfg LoadConfig, progress io.Writer) (RunResult, error) {
	l, err := newLoader(cfg)
	if err != nil {
		return RunResult{}, err
	}
	defer l.close()
	cfg = l.cfg
	var res RunResult
	labelled("loadgen", func() { res = run(ctx, name, cfg, l, progress) })
	return res, ctx.Err()
}

func run(ctx context.Context, name string, cfg LoadConfig, l *loader, progress io.Writer) RunResult {
	warm(ctx, l, cfg.Warmup)
	rec := &recorder{}
	if cfg.MaxRequests > 0 {
		rec.samples = make([]sample, 0, cfg.MaxRequests)
	} else if cfg.Rate > 0 && cfg.Duration > 0 {
		rec.samples = make([]sample, 0, int(cfg.Rate*cfg.Duration.Seconds())+16)
	}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if cfg.Duration > 0 {
		runCtx, cancel = context.WithTimeout(ctx, cfg.Duration)
	}
	defer cancel()
	var stages func(time.Duration) *StageSplit
	if cfg.Stages {
		stages = startStageProfile()
	}
	cpu0 := cputime.Process()
	start := time.Now()
	var resMu sync.Mutex
	var resources []Resource
	stopProgress := startProgress(name, rec, start, progress, func(t int) Resource {
		r := sampleResource(t)
		resMu.Lock()
		resources = append(resources, r)
		resMu.Unlock()
		return r
	})
	mode := "closed"
	if cfg.Rate > 0 {
		mode = "open"
		openLoop(runCtx, l, rec, start)
	} else {
		closedLoop(runCtx, l, rec, start)
	}
	elapsed := time.Since(start)
	stopProgress()
	res := summarize(name, cfg, mode, rec, elapsed)
	res.Resources = resources
	if n := rec.done.Load(); n > 0 {
		res.CPUPerRequest = (cputime.Process() - cpu0) / time.Duration(n)
	}
	if stages != nil {
		res.Stages = stages(res.CPUPerRequest)
	}
	return res
}

// warm sends n unrecorded requests from Concurrency workers, for at most
// 10 seconds.
func warm(ctx context.Context, l *loader, n int) {
	if n <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for range min(l.cfg.Concurrency, n) {
		wg.Go(func() {
			for ctx.Err() == nil && left.Add(-1) >= 0 {
				l.one(0, 0, time.Time{})
			}
		})
	}
	wg.Wait()
}

// closedLoop runs Concurrency workers back to back.
func closedLoop(ctx context.Context, l *loader, rec *recorder, start time.Time) {
	var wg sync.WaitGroup
	for range l.cfg.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				if n := rec.sent.Add(1); l.cfg.MaxRequests > 0 && n > int64(l.cfg.MaxRequests) {
					rec.sent.Add(-1)
					return
				}
				rec.add(l.one(0, 0, start))
			}
		})
	}
	wg.Wait()
}

// openLoop sends at the fixed arrival rate whatever the latency (so slow
// answers do not slow the offered load), with at most Concurrency requests
// in flight: an arrival that finds every slot busy is counted as dropped.
func openLoop(ctx context.Context, l *loader, rec *recorder, start time.Time) {
	// Concurrency workers wait for sends; a send at its time goes to an
	// idle one, or is dropped when none is idle (at most Concurrency in
	// flight). Workers, not a goroutine per send: a fresh goroutine grows
	// its stack through the HTTP client on every request (~2.5 us of the
	// generator's CPU per request, taken from what it measures on a shared
	// machine).
	sends := make(chan time.Duration) // unbuffered: a send succeeds only to an idle worker
	var wg sync.WaitGroup
	for range l.cfg.Concurrency {
		wg.Go(func() {
			for intended := range sends {
				rec.add(l.one(intended, max(time.Since(start)-intended, 0), start))
			}
		})
	}
	interval := time.Duration(float64(time.Second) / l.cfg.Rate)
	var i int64
	tick := time.NewTicker(min(max(interval, 100*time.Microsecond), 5*time.Millisecond))
	defer tick.Stop()
loop:
	for {
		now := time.Since(start)
		for due := int64(now / interval); i <= due; i++ {
			if l.cfg.MaxRequests > 0 && i >= int64(l.cfg.MaxRequests) {
				break loop
			}
			select {
			case sends <- time.Duration(i) * interval:
				rec.sent.Add(1)
			default:
				rec.dropped.Add(1)
			}
		}
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
		}
	}
	close(sends)
	wg.Wait()
}

func startProgress(name string, rec *recorder, start time.Time, w io.Writer, sample func(t int) Resource) func() {
	if w == nil {
		w = io.Discard
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		seen := 0
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				win := rec.snapshot(seen)
				seen += len(win)
				lat := make([]time.Duration, 0, len(win))
				errs := 0
				for _, s := range win {
					if s.kind != "" {
						errs++
						continue
					}
					lat = append(lat, s.lat)
				}
				p := percentiles(lat)
				res := sample(int(time.Since(start) / time.Second))
				fmt.Fprintf(w, "[%s %3.0fs] sent=%d done=%d failed=%d dropped=%d | last 1s: %d req, %d err, p50=%s p99=%s | goroutines=%d rss=%dMiB\n",
					name, time.Since(start).Seconds(), rec.sent.Load(), rec.done.Load(), rec.failed.Load(), rec.dropped.Load(),
					len(win), errs, fmtDur(p.P50), fmtDur(p.P99), res.Goroutines, res.RSSBytes>>20)
			}
		}
	}()
	return func() { close(quit); <-done }
}

func summarize(name string, cfg LoadConfig, mode string, rec *recorder, elapsed time.Duration) RunResult {
	res := RunResult{Name: name, Target: cfg.Target, Mode: mode, Elapsed: elapsed, Sent: rec.sent.Load(),
		Dropped: rec.dropped.Load(), Errors: map[string]int{}}
	var lat, ttft, lag, upLat, upTTFT []time.Duration
	for _, s := range rec.samples {
		if s.kind != "" {
			res.Errors[s.kind]++
			continue
		}
		res.OK++
		lat = append(lat, s.lat)
		lag = append(lag, s.lag)
		if s.ttft > 0 {
			ttft = append(ttft, s.ttft)
		}
		d := s.decision
		if d == "" {
			d = "none"
		}
		if res.Decisions == nil {
			res.Decisions = map[string]int{}
		}
		res.Decisions[d]++
		if s.decision != "refuse" {
			upLat = append(upLat, s.lat)
			if s.ttft > 0 {
				upTTFT = append(upTTFT, s.ttft)
			}
		}
	}
	res.UpstreamN = len(upLat)
	res.UpstreamLatency = percentiles(upLat)
	if cfg.Stream {
		p := percentiles(upTTFT)
		res.UpstreamTTFT = &p
	}
	res.Throughput = float64(res.OK) / elapsed.Seconds()
	res.Latency = percentiles(lat)
	res.Lag = percentiles(lag)
	if cfg.Stream {
		p := percentiles(ttft)
		res.TTFT = &p
	}
	res.Seconds = perSecond(rec.samples)
	res.Hist = histogram(lat)
	return res
}
