package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/leaktest"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// ChaosOptions configure the reliability scenarios.
type ChaosOptions struct {
	// Long runs many more requests per scenario (GUARD_CHAOS_LONG=1).
	Long bool
	// Log receives the servers' logs; nil = none.
	Log *zap.Logger
}

func (o ChaosOptions) n(short, long int) int {
	if o.Long {
		return long
	}
	return short
}

// ChaosResult is the outcome of one scenario.
type ChaosResult struct {
	Name     string         `json:"name"`
	Expect   string         `json:"expect"`
	Requests int            `json:"requests"`
	Outcomes map[string]int `json:"outcomes"` // "200 done", "502 upstream_error", "200 error_event upstream_timeout", ...
	Problems []string       `json:"problems,omitempty"`
	Skipped  string         `json:"skipped,omitempty"`
	Elapsed  time.Duration  `json:"elapsed_ns"`
	// Slowest is the longest single request of the scenario.
	Slowest          time.Duration `json:"slowest_ns"`
	GoroutinesBefore int           `json:"goroutines_before"`
	GoroutinesAfter  int           `json:"goroutines_after"`
}

// OK reports whether the scenario met its expectation (a skipped one is ok).
func (r ChaosResult) OK() bool { return len(r.Problems) == 0 }

// ChaosScenario is one reliability scenario.
type ChaosScenario struct {
	Name   string
	Expect string
	run    func(ctx context.Context, opt ChaosOptions, r *ChaosResult)
}

// ChaosScenarios lists every scenario in run order.
func ChaosScenarios() []ChaosScenario {
	return []ChaosScenario{
		{"upstream_refuses", "503 from the upstream: 502 upstream_error with an OpenAI error body, stream and non-stream", scenarioRefuse},
		{"upstream_down", "upstream port closed: 502 upstream_unavailable, fast", scenarioUpstreamDown},
		{"upstream_resets_mid_stream", "connection cut mid-stream: 200, held text, error event upstream_stream_failed, [DONE]", faultStream("disconnect=1", nil, "upstream_stream_failed")},
		{"stall_before_first_byte", "no first byte within upstream.first_byte_timeout (streams) or request_timeout (non-stream): 504 upstream_timeout well before the stall ends", scenarioSlowFirst},
		{"stall_between_events", "stall longer than upstream.idle_timeout: error event upstream_timeout, [DONE], before the stall ends", faultStream("stall=1", func(m *mockllm.Config, c *proxy.Config) {
			m.StallDelay = 2 * time.Second
			c.Upstream.IdleTimeout = 150 * time.Millisecond
		}, "upstream_timeout")},
		{"malformed_sse_json", "an event whose data is not JSON: error event, [DONE]", faultStream("bad_json=1", nil, "upstream_stream_failed")},
		{"huge_event", "an event above upstream.max_event_bytes: error event, [DONE]", faultStream("huge_event=1", func(m *mockllm.Config, c *proxy.Config) {
			m.HugeEventBytes = 256 << 10
			c.Upstream.MaxEventBytes = 64 << 10
		}, "upstream_stream_failed")},
		{"client_disconnects", "clients vanish at random points: server stays up, later requests succeed, no goroutine left", scenarioClientDisconnect},
		{"reload_under_load", "config reloads while streams and completions run: every request completes normally", scenarioReload},
		{"reload_storm_invalid", "a storm of SIGHUP-style reloads from invalid files (empty, bad YAML, unknown key, bad value, restart-only change) under load: every reload refused and counted, the running config kept, every request completes normally", scenarioReloadStormInvalid},
		{"upstream_closes_idle", "an upstream that closes keep-alive connections idle for 1 s, requests in waves with gaps around 1 s: every request completes (a request that meets a closed pooled connection is retried once on a fresh one)", scenarioUpstreamClosesIdle},
		{"remote_stages_down", "rerank, rewrite and judge endpoints on a closed port: 200 with guard.degraded naming each, never 5xx", scenarioRemoteDown},
		{"remote_stages_slow", "rerank, rewrite and judge endpoints that never answer: each gives up at its timeout, 200 with guard.degraded naming each, bounded time", scenarioRemoteSlow},
		{"bad_input", "hostile requests (deep JSON, huge, invalid UTF-8, wrong types, smuggling, oversized headers): clear 4xx, server stays up", scenarioBadInput},
		{"prompt_injection", "requests asking for internal ids and notes verbatim: 200, no id-shaped string or cited id in the answer, no cited id sent to the model", scenarioInjection},
		{"tenant_isolation", "many tenants/KBs concurrently: wrong tenant/KB refused, zero cross-tenant citations", scenarioIsolation},
		{"state_dir_full", "the operator plane's state dir (turns.jsonl, gaps.json) on a 256 KiB tmpfs that fills under load: chat unaffected, every gap kept in memory (bounded), each failing file logged once, shutdown (SIGTERM) returns nil, so exit 0; needs root for the mount", scenarioStateDirFull},
	}
}

// RunChaos runs the named scenarios (all when names is empty), one after the
// other, each against its own in-process servers.
func RunChaos(ctx context.Context, opt ChaosOptions, names ...string) ([]ChaosResult, error) {
	var out []ChaosResult
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all := len(want) == 0
	for _, s := range ChaosScenarios() {
		if !all && !want[s.Name] {
			continue
		}
		want[s.Name] = false
		out = append(out, RunScenario(ctx, s, opt))
	}
	var left []string
	for n, missing := range want {
		if missing {
			left = append(left, n)
		}
	}
	if len(left) > 0 {
		sort.Strings(left)
		return out, fmt.Errorf("unknown chaos scenario(s): %s", strings.Join(left, ", "))
	}
	return out, nil
}

// RunScenario runs one scenario and checks that every goroutine it started
// has ended within leakWait (internal/leaktest: library janitors aside).
// GoroutinesBefore and GoroutinesAfter are the counts before it ran and
// after that check, for the report.
func RunScenario(ctx context.Context, s ChaosScenario, opt ChaosOptions) ChaosResult {
	r := ChaosResult{Name: s.Name, Expect: s.Expect, Outcomes: map[string]int{}}
	before := goleak.IgnoreCurrent()
	r.GoroutinesBefore = runtime.NumGoroutine()
	t0 := time.Now()
	s.run(ctx, opt, &r)
	r.Elapsed = time.Since(t0)
	if err := settle(leakWait, before); err != nil {
		r.problem("goroutines left %s after the scenario: %s", leakWait, leakSummary(err))
	}
	r.GoroutinesAfter = runtime.NumGoroutine()
	return r
}

// leakWait bounds how long a scenario's goroutines may take to end after
// its last request: connections closing, a simulated upstream sleeping out
// a stall the proxy already cut.
const leakWait = 5 * time.Second

// settle repeats the leak check (goleak retries for under a second) until
// it passes or limit has passed, and returns its last result.
func settle(limit time.Duration, opts ...goleak.Option) error {
	deadline := time.Now().Add(limit)
	for {
		err := leaktest.Find(opts...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// leakSummary keeps one line per leaked goroutine of goleak's report
// ("Goroutine 12 in state select, with net/http.(*persistConn).readLoop on
// top of the stack"), so a problem fits a table cell.
func leakSummary(err error) string {
	var heads []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if i := strings.Index(l, "Goroutine "); i >= 0 && strings.Contains(l, "on top of the stack") {
			heads = append(heads, strings.TrimSuffix(l[i:], ":"))
		}
	}
	if len(heads) == 0 {
		return err.Error()
	}
	return strings.Join(heads, "; ")
}

func (r *ChaosResult) problem(format string, args ...any) {
	if len(r.Problems) < 20 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// WriteChaosTable prints the results as a Markdown table.
func WriteChaosTable(w io.Writer, rs []ChaosResult) {
	fmt.Fprintln(w, "| scenario | result | requests | outcomes | slowest | goroutines before/after | elapsed |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rs {
		res := "ok"
		switch {
		case r.Skipped != "":
			res = "skipped: " + r.Skipped
		case !r.OK():
			res = "FAIL: " + strings.Join(r.Problems, "; ")
		}
		keys := make([]string, 0, len(r.Outcomes))
		for k := range r.Outcomes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var oc []string
		for _, k := range keys {
			oc = append(oc, fmt.Sprintf("%s x%d", k, r.Outcomes[k]))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %d/%d | %s |\n", r.Name, res, r.Requests, strings.Join(oc, ", "),
			fmtDur(r.Slowest), r.GoroutinesBefore, r.GoroutinesAfter, r.Elapsed.Round(time.Millisecond))
	}
}

// ---- client side ----

// chaosClient sends requests and classifies the answers.
type chaosClient struct {
	base    string
	http    *http.Client
	timeout time.Duration
	headers map[string]string
}

func newChaosClient(base string, timeout time.Duration) *chaosClient {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64, DisableCompression: true}
	return &chaosClient{base: base, http: &http.Client{Transport: tr}, timeout: timeout}
}

func (c *chaosClient) close() { c.http.CloseIdleConnections() }

// outcome is one request's classification.
type outcome struct {
	status  int
	label   string // "200 done", "502 upstream_error", "200 error_event x", ...
	check   StreamCheck
	body    []byte // non-stream body
	elapsed time.Duration
	err     error
}

// chatBody is a chat request for prompt. Scenarios that test the upstream
// path ask demoQuestions, which the demo corpus grounds, so the gate sends
// them on instead of refusing them before the upstream is reached.
func chatBody(prompt string, stream bool) []byte {
	b, _ := json.Marshal(map[string]any{"model": "mock-1", "stream": stream,
		"messages": []map[string]string{{"role": "user", "content": prompt}}})
	return b
}

// chat posts body and reads the whole answer, checking the error body or
// the stream contract.
func (c *chaosClient) chat(ctx context.Context, body []byte, hdr map[string]string) outcome {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	t0 := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return outcome{err: err, label: "client_error"}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return outcome{err: err, label: "transport_error", elapsed: time.Since(t0)}
	}
	defer resp.Body.Close()
	o := outcome{status: resp.StatusCode}
	if resp.StatusCode == 200 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		o.check = CheckStream(resp.Body, 64<<20)
		o.elapsed = time.Since(t0)
		switch {
		case o.check.ErrCode != "":
			o.label = "200 error_event " + o.check.ErrCode
		case o.check.Done && o.check.Finished:
			o.label = "200 done"
			if gjson.Get(o.check.Final, "guard.decision").Str == "refuse" {
				o.label = "200 refused_by_guard"
			}
		default:
			o.label = "200 broken"
		}
		return o
	}
	o.body, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	o.elapsed = time.Since(t0)
	if err != nil {
		o.err = err
		o.label = fmt.Sprintf("%d read_error", o.status)
		return o
	}
	if o.status == 200 {
		o.label = "200 done"
		if gjson.GetBytes(o.body, "guard.decision").Str == "refuse" {
			o.label = "200 refused_by_guard"
		}
		if !gjson.GetBytes(o.body, "choices").IsArray() {
			o.label = "200 not_a_completion"
		}
		return o
	}
	code := gjson.GetBytes(o.body, "error.code").Str
	if code == "" || gjson.GetBytes(o.body, "error.message").Str == "" {
		code = "no_openai_error_body"
	}
	o.label = fmt.Sprintf("%d %s", o.status, code)
	return o
}

// record adds an outcome and checks it against what the scenario allows.
func (r *ChaosResult) record(o outcome, allowed ...string) {
	r.Requests++
	r.Outcomes[o.label]++
	r.Slowest = max(r.Slowest, o.elapsed)
	for _, p := range o.check.Problems {
		r.problem("%s: %s", o.label, p)
	}
	for _, a := range allowed {
		if o.label == a {
			return
		}
	}
	detail := ""
	if o.err != nil {
		detail = ": " + o.err.Error()
	}
	r.problem("unexpected outcome %q%s (want one of %s)", o.label, detail, strings.Join(allowed, " | "))
}

// withServers starts mockllm (pace 0 unless mutated) and a proxy, runs fn
// and shuts both down.
func withServers(opt ChaosOptions, r *ChaosResult, faults string, mutate func(*mockllm.Config, *proxy.Config), fn func(ip *InProcess, c *chaosClient)) {
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	f, err := mockllm.ParseFaults(faults)
	if err != nil {
		r.problem("faults: %v", err)
		return
	}
	mcfg.Faults = f
	pc := proxy.DefaultConfig()
	if mutate != nil {
		mutate(&mcfg, &pc)
	}
	ip, err := StartInProcess(mcfg, func(c *proxy.Config) {
		base := c.Upstream.BaseURL
		*c = pc
		if pc.Upstream.BaseURL == "" {
			c.Upstream.BaseURL = base
		}
		c.Server.DisconnectProbe = 20 * time.Millisecond
		c.Server.ShutdownGrace = 5 * time.Second
	}, opt.Log)
	if err != nil {
		r.problem("start servers: %v", err)
		return
	}
	c := newChaosClient(ip.ProxyURL, 20*time.Second)
	defer func() {
		c.close()
		if err := ip.Close(); err != nil {
			r.problem("shutdown: %v", err)
		}
	}()
	fn(ip, c)
}

// healthy checks the proxy still answers a plain request.
func healthy(ctx context.Context, r *ChaosResult, c *chaosClient) {
	o := c.chat(ctx, chatBody("health check after the scenario", false), nil)
	if o.label != "200 done" && o.label != refusedByGuard {
		r.problem("proxy not healthy after the scenario: %s %v", o.label, o.err)
	}
}

// refusedByGuard is a guard refusal answered without calling the upstream:
// an upstream fault cannot reach it, so fault scenarios accept it.
const refusedByGuard = "200 refused_by_guard"

// ---- scenarios ----

func scenarioRefuse(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	withServers(opt, r, "refuse=1", nil, func(ip *InProcess, c *chaosClient) {
		for i := range opt.n(6, 200) {
			r.record(c.chat(ctx, chatBody(demoQuestions[i%len(demoQuestions)], i%2 == 0), nil), "502 upstream_error")
		}
	})
}

func scenarioUpstreamDown(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.problem("listen: %v", err)
		return
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	withServers(opt, r, "", func(_ *mockllm.Config, c *proxy.Config) { c.Upstream.BaseURL = closed }, func(ip *InProcess, c *chaosClient) {
		for i := range opt.n(6, 200) {
			o := c.chat(ctx, chatBody(demoQuestions[i%len(demoQuestions)], i%2 == 0), nil)
			r.record(o, "502 upstream_unavailable")
			if o.elapsed > 2*time.Second {
				r.problem("upstream down took %s to report", o.elapsed)
			}
		}
	})
}

// faultStream is a scenario where every streamed answer meets one fault and
// must end with an error event of code want.
func faultStream(faults string, mutate func(*mockllm.Config, *proxy.Config), want string) func(context.Context, ChaosOptions, *ChaosResult) {
	return func(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
		var bound time.Duration
		withServers(opt, r, faults, func(m *mockllm.Config, c *proxy.Config) {
			if mutate != nil {
				mutate(m, c)
			}
			bound = m.StallDelay
		}, func(ip *InProcess, c *chaosClient) {
			n := opt.n(8, 300)
			var wg sync.WaitGroup
			var mu sync.Mutex
			sem := make(chan struct{}, 8)
			for i := range n {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					o := c.chat(ctx, chatBody(fmt.Sprintf("fault %s %d", faults, i), true), nil)
					mu.Lock()
					defer mu.Unlock()
					// A fault drawn before the first content event is still a
					// clean failure when it arrives as a status.
					r.record(o, "200 error_event "+want, "502 upstream_stream_failed", "502 upstream_unavailable", "504 upstream_timeout", refusedByGuard)
					if strings.Contains(faults, "stall") && o.elapsed >= bound {
						r.problem("stalled stream took %s, not cut before the %s stall ended", o.elapsed, bound)
					}
				})
			}
			wg.Wait()
			healthy(ctx, r, c)
		})
	}
}

func scenarioSlowFirst(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	// The stall is far beyond the timeouts (150 and 300 ms) so that a
	// request the proxy cut still ends before it on a loaded machine
	// under the race detector (800 ms was passed once there: 816 ms at
	// load 8.6); the 504 outcome, not the time, shows the timeout fired.
	const stall = 2 * time.Second
	withServers(opt, r, "slow_first=1", func(m *mockllm.Config, c *proxy.Config) {
		m.SlowFirstDelay = stall
		c.Upstream.FirstByteTimeout = 150 * time.Millisecond
		c.Upstream.RequestTimeout = 300 * time.Millisecond // non-stream: the body arrives whole
	}, func(ip *InProcess, c *chaosClient) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range opt.n(6, 100) {
			wg.Go(func() {
				o := c.chat(ctx, chatBody(demoQuestions[i%len(demoQuestions)], i%2 == 0), nil)
				mu.Lock()
				defer mu.Unlock()
				r.record(o, "504 upstream_timeout")
				if o.elapsed >= stall {
					r.problem("first-byte timeout took %s (stall %s)", o.elapsed, stall)
				}
			})
		}
		wg.Wait()
	})
}

// scenarioClientDisconnect opens raw connections, sends a chat request and
// closes after a random number of bytes of the answer (or before sending
// the whole request).
func scenarioClientDisconnect(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	withServers(opt, r, "", func(m *mockllm.Config, c *proxy.Config) {
		m.Pace = 2 * time.Millisecond // streams last long enough to be cut
	}, func(ip *InProcess, c *chaosClient) {
		addr := strings.TrimSuffix(strings.TrimPrefix(ip.ProxyURL, "http://"), "/v1")
		rng := rand.New(rand.NewPCG(7, 11))
		n := opt.n(40, 1000)
		cuts := make([]int, n)
		for i := range cuts {
			cuts[i] = rng.IntN(1500) - 100 // < 0: cut inside the request
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 16)
		var mu sync.Mutex
		for i := range n {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				label, err := cutClient(ctx, addr, chatBody(demoQuestions[i%len(demoQuestions)], i%3 != 0), cuts[i])
				mu.Lock()
				defer mu.Unlock()
				r.Requests++
				r.Outcomes[label]++
				if err != nil {
					r.problem("client %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		healthy(ctx, r, c)
	})
}

// cutClient sends the request over a raw connection and closes it after
// reading cut bytes of the answer (cut < 0: after sending only part of the
// request).
func cutClient(ctx context.Context, addr string, body []byte, cut int) (string, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "dial_error", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
	req := fmt.Appendf(nil, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	if cut < 0 {
		conn.Write(req[:len(req)/2]) //nolint:errcheck
		return "cut_in_request", nil
	}
	if _, err := conn.Write(req); err != nil {
		return "write_error", err
	}
	buf := make([]byte, 256)
	got := 0
	for got < cut {
		n, err := conn.Read(buf[:min(len(buf), cut-got)])
		got += n
		if err != nil {
			return "answer_ended_before_cut", nil
		}
	}
	return "cut_in_answer", nil
}

// invalidConfigs are files a careless operator might leave behind before a
// SIGHUP; each must be refused with the running configuration kept.
var invalidConfigs = []string{
	"",
	"   \n\t\n",
	"# only a comment\n",
	"server: [unclosed\n",
	"gate:\n  bail_out_beloww: 0.3\n",
	"gate:\n  bail_out_below: 7\n",
	"upstream:\n  idle_timeout: -5s\n",
	"server:\n  addr: 127.0.0.1:1\n",
	"server:\n  max_body_bytes: 1\n",
	"log:\n  level: shouting\n",
}

// scenarioReloadStormInvalid reloads from invalid files as fast as it can,
// the way guard serve does on SIGHUP (LoadConfig, then Reload or
// ReloadFailed), while streams and completions run.
func scenarioReloadStormInvalid(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	withServers(opt, r, "", func(m *mockllm.Config, c *proxy.Config) {
		m.Pace = time.Millisecond
		c.Upstream.IdleTimeout = 17 * time.Second // a marker: the running config must keep it
	}, func(ip *InProcess, c *chaosClient) {
		dir, err := os.MkdirTemp("", "guard-chaos-reload-")
		if err != nil {
			r.problem("temp dir: %v", err)
			return
		}
		defer os.RemoveAll(dir)
		quit := make(chan struct{})
		done := make(chan struct{})
		refused, accepted := 0, 0
		var werr error
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				path := filepath.Join(dir, fmt.Sprintf("guard-%d.yaml", i%len(invalidConfigs)))
				if err := os.WriteFile(path, []byte(invalidConfigs[i%len(invalidConfigs)]), 0o600); err != nil {
					werr = err
					return
				}
				cfg, err := proxy.LoadConfig(path)
				if err != nil {
					err = ip.Proxy.ReloadFailed(err)
				} else {
					err = ip.Proxy.Reload(cfg)
				}
				if err != nil {
					refused++
				} else {
					accepted++
				}
				runtime.Gosched()
			}
		}()
		demoLoad(ctx, opt, c, r)
		close(quit)
		<-done
		if werr != nil {
			r.problem("write config: %v", werr)
		}
		if accepted > 0 {
			r.problem("%d invalid reloads were accepted", accepted)
		}
		if refused == 0 {
			r.problem("no reload happened during the load")
		}
		if got := ip.Proxy.Config().Upstream.IdleTimeout; got != 17*time.Second {
			r.problem("running config changed: upstream.idle_timeout %s, want 17s", got)
		}
		r.Outcomes[fmt.Sprintf("reloads refused %d", refused)] = 1
		healthy(ctx, r, c)
	})
}

// scenarioUpstreamClosesIdle runs requests in concurrent waves separated by
// gaps around the upstream's 1 s keep-alive, so pooled connections are
// reused right when the upstream closes them. The proxy's own idle limit is
// raised above the upstream's to make the race certain.
func scenarioUpstreamClosesIdle(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	withServers(opt, r, "", func(m *mockllm.Config, c *proxy.Config) {
		m.IdleTimeout = time.Second
		c.Upstream.IdleConnTimeout = 30 * time.Second
	}, func(ip *InProcess, c *chaosClient) {
		gaps := []time.Duration{950 * time.Millisecond, 1000 * time.Millisecond, 1050 * time.Millisecond, 1200 * time.Millisecond, 2 * time.Second}
		for w := range opt.n(3, 12) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			for i := range 12 {
				wg.Go(func() {
					// non-stream requests are the ones a broken pooled
					// connection used to fail (issue 16); streams ride along
					o := c.chat(ctx, chatBody(demoQuestions[(w*12+i)%len(demoQuestions)], i%4 == 0), nil)
					mu.Lock()
					defer mu.Unlock()
					r.record(o, "200 done", refusedByGuard)
				})
			}
			wg.Wait()
			select {
			case <-ctx.Done():
				return
			case <-time.After(gaps[w%len(gaps)]): // the idle gap is the scenario itself
			}
		}
		healthy(ctx, r, c)
	})
}

// demoLoad sends 60 (long form 3000) demo questions, half streamed, 16 at a
// time, and records each outcome; a guard refusal counts as normal.
func demoLoad(ctx context.Context, opt ChaosOptions, c *chaosClient, r *ChaosResult) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, 16)
	for i := range opt.n(60, 3000) {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			o := c.chat(ctx, chatBody(demoQuestions[i%len(demoQuestions)], i%2 == 0), nil)
			mu.Lock()
			defer mu.Unlock()
			r.record(o, "200 done", refusedByGuard)
		})
	}
	wg.Wait()
}

func scenarioReload(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	withServers(opt, r, "", func(m *mockllm.Config, c *proxy.Config) {
		m.Pace = time.Millisecond
	}, func(ip *InProcess, c *chaosClient) {
		quit := make(chan struct{})
		reloads := 0
		var rerr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			base := ip.Proxy.Config()
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				case <-t.C:
				}
				cfg := base
				cfg.Upstream.IdleTimeout = base.Upstream.IdleTimeout + time.Duration(i%7)*time.Second
				// An alias map turns on the allow-list: keep mock-1 reachable.
				cfg.Models.Aliases = map[string]string{"mock-1": "mock-1", "alias-" + fmt.Sprint(i%3): "mock-1"}
				if err := ip.Proxy.Reload(cfg); err != nil && rerr == nil {
					rerr = err
				}
				reloads++
			}
		}()
		demoLoad(ctx, opt, c, r)
		close(quit)
		<-done
		if rerr != nil {
			r.problem("reload: %v", rerr)
		}
		if reloads == 0 {
			r.problem("no reload happened during the load")
		}
		r.Outcomes[fmt.Sprintf("reloads %d", reloads)] = 1
	})
}

// scenarioRemoteDown switches every remote stage the proxy can degrade at
// request time (reranker, query rewriter, LLM judge) to an endpoint on a
// closed port. Every answer must still arrive, and guard.degraded must name
// each stage that was called: rerank and rewrite on every retrieval, judge
// whenever a claim was verified. (The embedder is fixed by the snapshot; its
// outage is covered by retrieve's TestEmbedderDownDegrades.)
func scenarioRemoteDown(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.problem("listen: %v", err)
		return
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	remoteStages(ctx, opt, r, closed, 0)
}

// scenarioRemoteSlow points the same stages at a server that accepts every
// request and never answers: each stage must give up at its own timeout,
// degrade, and the answer must arrive within a bound of those timeouts.
func scenarioRemoteSlow(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.problem("listen: %v", err)
		return
	}
	quit := make(chan struct{})
	stall := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// Read the body so the server watches the connection: the request
		// context then ends when the caller hangs up.
		io.Copy(io.Discard, req.Body)
		select { // hold the request until the caller gives up (or the scenario ends)
		case <-req.Context().Done():
		case <-quit:
		case <-ctx.Done():
		}
	})}
	go stall.Serve(ln)
	defer stall.Close()
	defer close(quit)
	// rerank and rewrite run before the upstream call, judge calls after:
	// with 300 ms timeouts an answer takes about a second longer. The
	// bound only tells "gave up" from "hung" (guard.degraded shows which
	// stage gave up), so it leaves room for a loaded machine under the
	// race detector.
	remoteStages(ctx, opt, r, "http://"+ln.Addr().String(), 5*time.Second)
}

// remoteStages runs grounded questions with rerank, rewrite and the LLM
// judge at base and checks guard.degraded names each stage that was called.
// bound > 0 also bounds each answer's time.
func remoteStages(ctx context.Context, opt ChaosOptions, r *ChaosResult, base string, bound time.Duration) {
	timeout := time.Second
	if bound > 0 {
		timeout = 300 * time.Millisecond
	}
	withServers(opt, r, "", func(_ *mockllm.Config, c *proxy.Config) {
		rr := &c.Stages.Retrieve
		rr.Rerank.Mode, rr.Rerank.URL, rr.Rerank.Timeout = "remote", base+"/rerank", timeout
		rr.Rewrite.Enabled, rr.Rewrite.BaseURL, rr.Rewrite.Model, rr.Rewrite.Timeout = true, base+"/v1", "rewriter", timeout
		v := &c.Stages.Verify
		v.Verifier, v.LLM.BaseURL, v.LLM.Model, v.LLM.Timeout = "llm", base+"/v1", "judge", timeout
		v.MinContextChars = 0
	}, func(ip *InProcess, c *chaosClient) {
		for i := range opt.n(6, 100) {
			q := demoQuestions[i%len(demoQuestions)]
			o := c.chat(ctx, chatBody(q, i%2 == 0), nil)
			r.record(o, "200 done", refusedByGuard)
			if bound > 0 && o.elapsed > bound {
				r.problem("%q took %s with stalled remote stages, want < %s", q, o.elapsed, bound)
			}
			guard := gjson.GetBytes(o.body, "guard")
			if o.check.Final != "" {
				guard = gjson.Get(o.check.Final, "guard")
			}
			deg := map[string]bool{}
			for _, d := range guard.Get("degraded").Array() {
				deg[d.Str] = true
			}
			want := []string{"rerank", "rewrite"}
			if guard.Get("summary.claims").Int() > 0 && guard.Get(`claims.#(verdict!="not_checked")`).Exists() {
				want = append(want, "judge")
			}
			for _, w := range want {
				if !deg[w] {
					r.problem("%q: guard.degraded %s lacks %q", q, guard.Get("degraded").Raw, w)
				}
			}
			r.Outcomes[fmt.Sprintf("decision %s degraded %s", guard.Get("decision").Str, guard.Get("degraded").Raw)]++
		}
	})
}
