package operator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// startRedis runs a real redis-server on a free loopback port (no
// persistence) and returns its URL and a function that kills it. It waits
// for the server's own "Ready to accept connections" line.
func startRedis(t *testing.T) (string, func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (Debian package redis-server; .ci/run installs it)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Ready to accept connections") {
				ready <- true
				io.Copy(io.Discard, out) //nolint:errcheck // drain until exit
				return
			}
		}
		ready <- false
	}()
	// No clock: a redis-server that neither gets ready nor exits is left
	// to go test's -timeout.
	if !<-ready {
		t.Fatal("redis-server exited before it was ready")
	}
	killed := false
	kill := func() {
		if !killed {
			killed = true
			cmd.Process.Kill()
			cmd.Wait() //nolint:errcheck // killed on purpose
		}
	}
	t.Cleanup(kill)
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port), kill
}

func startReplica(t *testing.T, cfg testCfg) (*server, string) {
	t.Helper()
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	cfg.Upstream.BaseURL = mock.BaseURL()
	srv := newServer(t, cfg, proxy.NewPipeline(nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.px.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx) //nolint:errcheck
	})
	return srv, "http://" + ln.Addr().String()
}

func chatOnce(t *testing.T, base, q string) string {
	t.Helper()
	c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0),
		option.WithRequestTimeout(10*time.Second))
	resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "mock-1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}})
	if err != nil {
		t.Fatalf("chat %q: %v", q, err)
	}
	var g struct {
		Guard struct{ Decision string } `json:"guard"`
	}
	json.Unmarshal([]byte(resp.RawJSON()), &g) //nolint:errcheck
	return g.Guard.Decision
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v: %s", url, err, b)
		}
	}
	return resp.StatusCode
}

// Two replicas sharing one real Redis: each one's turn list, what-if and
// gap queue show both replicas' turns. With Redis killed mid-run every chat
// request still succeeds, the state is dropped and counted, /readyz says
// degraded and the reads fall back to the replica's own turns.
func TestSharedStateTwoReplicas(t *testing.T) {
	url, killRedis := startRedis(t)
	cfg := testConfig()
	cfg.State.RedisURL = url
	cfg.State.RedisFlush = time.Hour // flushed by the test, so nothing races it
	a, baseA := startReplica(t, cfg)
	b, baseB := startReplica(t, cfg)

	qsA := []string{"What does error LF-4002 mean?", "How do I restore a backup?", "What is the capital of Mongolia?"}
	qsB := []string{"Which port does Lanternfish listen on?", "How tall is Mount Everest?"}
	for _, q := range qsA {
		chatOnce(t, baseA, q)
	}
	for _, q := range qsB {
		chatOnce(t, baseB, q)
	}
	a.op.shared.Flush()
	b.op.shared.Flush()

	type turns struct {
		Total    int `json:"total"`
		Shared   bool
		Degraded []string
		Turns    []struct {
			Question string `json:"question"`
		} `json:"turns"`
	}
	for _, base := range []string{baseA, baseB} {
		var got turns
		if code := getJSON(t, base+"/v1/guard/turns", &got); code != 200 {
			t.Fatalf("turns: status %d", code)
		}
		if got.Total != len(qsA)+len(qsB) || !got.Shared {
			t.Errorf("%s: %d turns (shared %v), want %d from both replicas", base, got.Total, got.Shared, len(qsA)+len(qsB))
		}
		seen := map[string]bool{}
		for _, tr := range got.Turns {
			seen[tr.Question] = true
		}
		for _, q := range append(append([]string{}, qsA...), qsB...) {
			if !seen[q] {
				t.Errorf("%s: turn %q missing from the fleet view", base, q)
			}
		}
		var wi struct {
			Total int `json:"turns"`
			Exact struct {
				Mismatched int `json:"mismatched"`
			} `json:"exact"`
		}
		resp, err := http.Post(base+"/v1/guard/whatif", "application/json", strings.NewReader(`{"gate":{"bail_out_below":0.45}}`))
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&wi) //nolint:errcheck
		resp.Body.Close()
		if wi.Total != len(qsA)+len(qsB) || wi.Exact.Mismatched != 0 {
			t.Errorf("%s: what-if over %d turns (%d mismatched at the thresholds in force), want %d, 0", base, wi.Total, wi.Exact.Mismatched, len(qsA)+len(qsB))
		}
		var gaps struct {
			Data []struct{ Text string } `json:"data"`
		}
		getJSON(t, base+"/v1/guard/gaps", &gaps)
		texts := map[string]bool{}
		for _, g := range gaps.Data {
			texts[g.Text] = true
		}
		if !texts["What is the capital of Mongolia?"] || !texts["How tall is Mount Everest?"] {
			t.Errorf("%s: gap queue %v lacks a replica's off-topic question", base, gaps.Data)
		}
	}

	// Redis goes away mid-run.
	killRedis()
	for i := range 6 {
		base := []string{baseA, baseB}[i%2]
		if d := chatOnce(t, base, qsA[i%len(qsA)]); d == "" {
			t.Errorf("chat %d without redis: no decision", i)
		}
	}
	a.op.shared.Flush()
	var ready struct {
		Status   string   `json:"status"`
		Degraded []string `json:"degraded"`
	}
	if code := getJSON(t, baseA+"/readyz", &ready); code != 200 || ready.Status != "degraded" {
		t.Errorf("readyz with redis down: %d %+v, want 200 degraded", code, ready)
	}
	var local turns
	getJSON(t, baseA+"/v1/guard/turns", &local)
	if local.Total != len(qsA)+3 || local.Shared || len(local.Degraded) != 1 {
		t.Errorf("turns with redis down: %d (shared %v, degraded %v), want this replica's own %d, degraded", local.Total, local.Shared, local.Degraded, len(qsA)+3)
	}
	resp, err := http.Get(baseA + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(m), `guard_state_dropped_total{kind="turns"} 3`) {
		t.Errorf("metrics lack 3 dropped turns:\n%s", grepLines(string(m), "guard_state"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
