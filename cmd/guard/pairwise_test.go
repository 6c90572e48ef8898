package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// startProxy runs a proxy on a loopback port with its own simulated
// upstream until the test ends; pipeline false is the same model with the
// guard switched off.
func startProxy(t *testing.T, pipeline bool) string {
	t.Helper()
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	cfg := proxy.DefaultConfig()
	cfg.Upstream.BaseURL = mock.BaseURL()
	cfg.Log.Level = "error"
	cfg.Pipeline.Enabled = pipeline
	srv, _, err := wire(cfg, operator.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String() + "/v1"
}

// demoQuestions writes n questions about the demo corpus's pages, one per
// page title.
func demoQuestions(t *testing.T, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(demoCorpus)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if n == 0 {
			break
		}
		var d struct{ ID, Title string }
		if json.Unmarshal([]byte(line), &d) != nil || d.Title == "" {
			continue
		}
		topic := d.Title
		if _, after, ok := strings.Cut(topic, ": "); ok {
			topic = after
		}
		q, _ := json.Marshal(map[string]string{"id": "q-" + d.ID, "question": "What does Lanternfish's documentation say about " + strings.ToLower(topic) + "?"})
		sb.Write(q)
		sb.WriteByte('\n')
		n--
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPairwiseGuardVsPipelineOff answers 50 demo questions through the
// guard and through the same simulated model with the pipeline off, then
// judges the pairs with the scripted judge (mockllm) on loopback: the
// report, the deterministic sides and the swapped-sides audit.
func TestPairwiseGuardVsPipelineOff(t *testing.T) {
	dir := t.TempDir()
	qs := filepath.Join(dir, "q.jsonl")
	demoQuestions(t, qs, 50)
	guardURL, offURL := startProxy(t, true), startProxy(t, false)
	ansA, ansB := filepath.Join(dir, "guard.jsonl"), filepath.Join(dir, "off.jsonl")
	for _, tc := range [][2]string{{guardURL, ansA}, {offURL, ansB}} {
		code, out, errOut := runCLI(t, "bench", "answers", "--target", tc[0], "--questions", qs, "--out", tc[1])
		if code != 0 {
			t.Fatalf("bench answers: exit %d\n%s%s", code, out, errOut)
		}
		t.Log(strings.TrimSpace(out))
	}
	strict := true
	a, err := readAnswers(ansA, &badLines{w: io.Discard, policy: badPolicy{strict: &strict, skipBad: new(bool)}})
	if err != nil || len(a) != 50 {
		t.Fatalf("answers A: %d, %v", len(a), err)
	}
	notes := 0
	for _, x := range a {
		if len(x.Guard) == 0 || x.Error != "" {
			t.Fatalf("answer without guard report: %+v", x)
		}
		if len(x.Notes) > 0 && x.Notes[0].Text != "" {
			notes++
		}
	}
	if notes == 0 {
		t.Errorf("no guard answer kept its notes")
	}

	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	jm, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer jm.Close()
	judgeRun := func(name, a, b string) (judge.PairwiseReport, []judge.PairResult, string) {
		t.Helper()
		lines, repPath := filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".json")
		code, out, errOut := runCLI(t, "judge", "--pairwise", "--a", a, "--b", b, "--judge-base-url", jm.BaseURL(), "--judge-model", "judge-1",
			"--out", lines, "--report", repPath)
		if code != 0 {
			t.Fatalf("judge --pairwise: exit %d\n%s%s", code, out, errOut)
		}
		var rep judge.PairwiseReport
		rb, _ := os.ReadFile(repPath)
		if err := json.Unmarshal(rb, &rep); err != nil {
			t.Fatal(err)
		}
		var rs []judge.PairResult
		lb, _ := os.ReadFile(lines)
		for _, l := range strings.Split(strings.TrimSpace(string(lb)), "\n") {
			var r judge.PairResult
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r)
		}
		return rep, rs, string(lb)
	}
	rep, rs, raw1 := judgeRun("run1", ansA, ansB)
	_, out, _ := runCLI(t, "judge", "--pairwise", "--a", ansA, "--b", ansB, "--judge-base-url", jm.BaseURL(), "--judge-model", "judge-1")
	t.Logf("report:\n%s", out)
	if rep.Questions != 50 || rep.Errors != 0 || len(rs) != 50 {
		t.Fatalf("report %+v, %d lines", rep, len(rs))
	}
	// Sides: from the id's hash, about half each way.
	for _, r := range rs {
		if r.First != judge.FirstSide(r.ID) {
			t.Errorf("%s: first %s, want %s", r.ID, r.First, judge.FirstSide(r.ID))
		}
	}
	if rep.AFirst < 15 || rep.AFirst > 35 {
		t.Errorf("A shown first in %d of 50", rep.AFirst)
	}
	// The same input gives the same sides and verdicts.
	if _, _, raw2 := judgeRun("run2", ansA, ansB); raw2 != raw1 {
		t.Errorf("a second run differs")
	}
	// The guard's cited answers win faithfulness against uncited ones.
	f := rep.Criteria[0]
	if f.Criterion != "faithfulness" || f.Win <= f.Loss || f.NetCI[0] <= 0 || f.WinCI[0] > f.WinRate || f.WinCI[1] < f.WinRate {
		t.Errorf("faithfulness %+v: want A (guard) ahead with a CI above 0", f)
	}
	// Swapped-sides audit: the scripted judge looks at content only, so
	// swapping agrees everywhere.
	au := rep.Audit
	if au.Sampled < 3 || au.Agreement != 1 {
		t.Errorf("position audit %+v: want a sample and agreement 1", au)
	}
	for _, r := range rs {
		if judge.InSwapSample(r.ID, 0.2) != (r.Swapped != nil) {
			t.Errorf("%s: swapped run %v, sample says %v", r.ID, r.Swapped != nil, judge.InSwapSample(r.ID, 0.2))
		}
	}
	// B against A mirrors the report.
	rev, _, _ := judgeRun("rev", ansB, ansA)
	if g := rev.Criteria[0]; g.Win != f.Loss || g.Loss != f.Win {
		t.Errorf("reversed faithfulness %+v, want mirror of %+v", g, f)
	}
	if !strings.Contains(out, "position audit:") || !strings.Contains(out, fmt.Sprintf("%d questions judged", 50)) {
		t.Errorf("text report:\n%s", out)
	}
}
