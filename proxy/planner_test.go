package proxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/looptest"
	"github.com/answer-guard/guard/proxy"
)

// plannerServer is a scripted OpenAI-compatible planner on loopback: it
// replies with reply and records the user message it was sent.
func plannerServer(t *testing.T, reply string) (string, func() []string) {
	return looptest.ChatServer(t, reply)
}

// upstreamCalls is how many requests the simulated upstream has served.
func upstreamCalls(ts *testServer) int64 { return ts.mock.Requests() }

// An empty outline refuses before the answer model runs: the remote
// planner says no note answers, the decision is refuse and the upstream
// was never called.
func TestPlannerEmptyOutlineRefusesWithoutUpstream(t *testing.T) {
	url, seen := plannerServer(t, "[]")
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = url
		c.Stages.Gate.Planner.Model = "planner"
	})
	before := upstreamCalls(ts)
	for _, stream := range []bool{false, true} {
		text, g := complete(t, ts, groundQ, stream)
		if g.Decision != "refuse" || len(g.Citations) != 0 {
			t.Errorf("stream=%v: decision %q citations %v (%q), want refuse", stream, g.Decision, g.Citations, text)
		}
	}
	if n := upstreamCalls(ts) - before; n != 0 {
		t.Errorf("the upstream answered %d requests after an empty outline", n)
	}
	if len(seen()) != 2 {
		t.Errorf("planner called %d times, want 2", len(seen()))
	}
}

// A remote planner that is down: the local planner decides and the report
// says degraded "planner"; the answer is still grounded.
func TestRemotePlannerDownDegradesToLocal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = "http://" + addr + "/v1"
		c.Stages.Gate.Planner.Model = "planner"
	})
	_, g := complete(t, ts, groundQ, false)
	if g.Decision != "ground" || len(g.Citations) == 0 {
		t.Fatalf("decision %q citations %v, want ground from the local planner", g.Decision, g.Citations)
	}
	if !strings.Contains(strings.Join(g.Degraded, ","), "planner") {
		t.Errorf("degraded %v, want planner", g.Degraded)
	}
}

// A threshold edited in the configuration changes decisions on reload.
func TestGateThresholdReload(t *testing.T) {
	ts := startGuard(t, nil)
	if _, g := complete(t, ts, groundQ, false); g.Decision != "ground" {
		t.Fatalf("default thresholds: decision %q, want ground", g.Decision)
	}
	cfg := ts.srv.Config()
	cfg.Stages.Gate.SufficientMax, cfg.Stages.Gate.GoodEnoughMax = 1, 1 // relevance reaches 0.9998 here
	cfg.Stages.Gate.BailOutBelow = 1
	cfg.Stages.Gate.OnTopicSim = 1 // no cosine reaches it: below bail-out is off-topic
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if _, g := complete(t, ts, groundQ, false); g.Decision != "fallback" {
		t.Errorf("after raising every threshold: decision %q, want fallback", g.Decision)
	}
}

// The planner and the answerability features see only the asking tenant's
// passages: tenant b's text never reaches the planner on tenant a's turn.
func TestPlannerTenantIsolation(t *testing.T) {
	corpus := writeCorpus(t,
		`{"id":"a-1","tenant":"a","kind":"lecture","title":"Ferry tickets","text":"Children under 5 travel free on the Skerry ferry and do not need a ticket, but must be counted at check-in."}`,
		`{"id":"a-2","tenant":"a","kind":"lecture","title":"Ferry dogs","text":"Up to two dogs per passenger travel free on the Skerry ferry when kept on a lead."}`,
		`{"id":"b-1","tenant":"b","kind":"lecture","title":"Ferry tickets","text":"Children need a ticket on the Zephyr ferry: children under 12 pay half fare, and infants travel on a lap ticket costing 3 euros."}`,
	)
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{corpus}, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	url, seen := plannerServer(t, "[1]")
	ts := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = dir
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = url
		c.Stages.Gate.Planner.Model = "planner"
	})
	for _, tenant := range []string{"a", "b"} {
		req, _ := http.NewRequest("POST", ts.base+"/chat/completions", strings.NewReader(
			`{"model":"mock-1","messages":[{"role":"user","content":"Do children need a ticket on the ferry?"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Tenant-ID", tenant)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		other := map[string]string{"a": "Zephyr", "b": "Skerry"}[tenant]
		if strings.Contains(string(b), other) || strings.Contains(string(b), `"id":"`+map[string]string{"a": "b-1", "b": "a-1"}[tenant]) {
			t.Errorf("tenant %s's answer carries the other tenant's passage: %s", tenant, b)
		}
	}
	got := seen()
	if len(got) != 2 {
		t.Fatalf("planner saw %d turns, want 2", len(got))
	}
	if strings.Contains(got[0], "Zephyr") || strings.Contains(got[1], "Skerry") {
		t.Errorf("the planner saw another tenant's passage:\n%s\n---\n%s", got[0], got[1])
	}
}

// gate.planner {mode: remote, base_url: upstream, model: mock-1} on the
// demo: the simulated upstream plans (its scripted planner) and answers;
// nothing is degraded and the answer cites only outlined notes.
func TestPlannerOnSimulatedUpstream(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Stages.Gate.Planner.Mode = "remote"
		c.Stages.Gate.Planner.BaseURL = "upstream"
		c.Stages.Gate.Planner.Model = "mock-1"
	})
	before := upstreamCalls(ts)
	_, g := complete(t, ts, groundQ, false)
	if g.Decision != "ground" || len(g.Citations) == 0 {
		t.Fatalf("decision %q citations %v, want ground", g.Decision, g.Citations)
	}
	if len(g.Degraded) != 0 {
		t.Errorf("degraded %v, want none (the simulated upstream plans)", g.Degraded)
	}
	if n := upstreamCalls(ts) - before; n != 2 {
		t.Errorf("the upstream served %d requests, want 2 (plan, answer)", n)
	}
	planned := 0
	for _, r := range ts.mock.Log().Records() {
		if r.Planner {
			planned++
		}
	}
	if planned != 1 {
		t.Errorf("the simulated upstream planned %d times, want 1", planned)
	}
}
