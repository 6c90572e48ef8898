package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// queryOut is the part of guard index query --json these tests read.
type queryOut struct {
	Query string `json:"query"`
	Notes []struct {
		ID        string  `json:"id"`
		Answer    float64 `json:"answer"`
		Forced    bool    `json:"forced"`
		Relevance float64 `json:"relevance"`
		Kept      bool    `json:"kept"`
	} `json:"notes"`
	RerankActive bool `json:"rerank_active"`
	Verdict      struct {
		Decision       string          `json:"decision"`
		Reason         string          `json:"reason"`
		Planner        string          `json:"planner"`
		Read           string          `json:"read"`
		Trimmed        bool            `json:"trimmed"`
		Followup       bool            `json:"followup"`
		Ask            map[string]any  `json:"ask"`
		CoverageMax    float64         `json:"coverage_max"`
		BailOutBelow   float64         `json:"bail_out_below"`
		GoodEnoughMax  float64         `json:"good_enough_max"`
		General        float64         `json:"general"`
		GeneralAbove   float64         `json:"general_above"`
		GeneralApplied bool            `json:"general_applied"`
		BestSim        *float64        `json:"best_sim"`
		MinSupport     float64         `json:"min_support"`
		MinBest        float64         `json:"min_best"`
		WeakBest       bool            `json:"weak_best"`
		Outline        int             `json:"outline"`
		Checks         map[string]bool `json:"checks"`
	} `json:"verdict"`
}

// TestIndexQueryVerdict runs guard index query over the demo snapshot on
// disk and checks the gate's verdict it prints: a grounded question, an
// off-topic one that falls back (and is refused under a config whose
// gate section says off_topic: refuse), a greeting read away, a
// follow-up read with --previous, and the --json verdict agreeing with
// its own notes.
func TestIndexQueryVerdict(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "demo")
	if code, out, errOut := runCLI(t, "index", "build", "--demo", "--out", snap); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	query := func(t *testing.T, args ...string) queryOut {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"index", "query", "--index", snap, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("index query %q: exit %d\n%s", args, code, errOut)
		}
		var q queryOut
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatalf("index query %q: %v\n%s", args, err, out)
		}
		return q
	}

	t.Run("ground", func(t *testing.T) {
		code, out, errOut := runCLI(t, "index", "query", "--index", snap, "How do I restore a backup?")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		verdict, table, ok := strings.Cut(out, "\nrank ")
		if !ok {
			t.Fatalf("no candidate table after the verdict:\n%s", out)
		}
		for _, want := range []string{"gate verdict (built-in defaults; local planner", "decision:  ground", "reason:    ", "coverage:  max ",
			"bail_out_below 0.40", "good_enough_max 0.65", "general:   score ", "on-topic:  best encoder cosine ", "planner:   local, min_support 0.20"} {
			if !strings.Contains(verdict, want) {
				t.Errorf("verdict lacks %q:\n%s", want, verdict)
			}
		}
		if !strings.Contains(table, "hb-5-4") || !strings.Contains(table, " yes ") {
			t.Errorf("candidate list lacks the restore passage kept by the planner:\n%s", table)
		}
		q := query(t, "How do I restore a backup?")
		if q.Verdict.Decision != "ground" || q.Verdict.Planner != "local" || q.Verdict.Outline == 0 {
			t.Errorf("verdict %+v, want ground with the local planner keeping notes", q.Verdict)
		}
		if q.Verdict.Trimmed || q.Verdict.Followup || q.Verdict.Read != "How do I restore a backup?" {
			t.Errorf("read %q (trimmed %v, followup %v), want the question as given", q.Verdict.Read, q.Verdict.Trimmed, q.Verdict.Followup)
		}
		checkNotes(t, q)
	})

	t.Run("fallback", func(t *testing.T) {
		q := query(t, "What is the weather in Paris today?")
		if q.Verdict.Decision != "fallback" || !q.Verdict.Checks["bail_out"] {
			t.Errorf("decision %s, checks %v: want fallback below bail-out", q.Verdict.Decision, q.Verdict.Checks)
		}
		if q.Verdict.CoverageMax >= q.Verdict.BailOutBelow {
			t.Errorf("coverage max %v not below bail_out_below %v", q.Verdict.CoverageMax, q.Verdict.BailOutBelow)
		}
		if !strings.Contains(q.Verdict.Reason, "below bail-out") || !strings.Contains(q.Verdict.Reason, "off_topic: fallback") {
			t.Errorf("reason %q", q.Verdict.Reason)
		}
		if q.Verdict.GeneralApplied != (q.Verdict.General > q.Verdict.GeneralAbove) || q.Verdict.GeneralApplied != q.Verdict.Checks["general"] {
			t.Errorf("general %v above %v: applied %v, checks %v", q.Verdict.General, q.Verdict.GeneralAbove, q.Verdict.GeneralApplied, q.Verdict.Checks["general"])
		}
		if q.Verdict.GeneralApplied && !strings.Contains(q.Verdict.Reason, "a general question") {
			t.Errorf("reason %q does not name the general rule", q.Verdict.Reason)
		}
		for _, n := range q.Notes {
			if n.Kept {
				t.Errorf("note %s kept on a fallback turn", n.ID)
			}
		}
		checkNotes(t, q)

		// The config's gate section decides: off_topic: refuse.
		cfg := filepath.Join(dir, "refuse.yaml")
		if err := os.WriteFile(cfg, []byte("gate:\n  off_topic: refuse\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, "index", "query", "--index", snap, "--config", cfg, "What is the weather in Paris today?")
		if code != 0 {
			t.Fatalf("--config: exit %d\n%s", code, errOut)
		}
		for _, want := range []string{"gate section of " + cfg, "decision:  refuse", "off_topic: refuse"} {
			if !strings.Contains(out, want) {
				t.Errorf("with off_topic: refuse, output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("min_best", func(t *testing.T) {
		// The same grounded question with planner.min_best 1: no note can
		// reach it, so the planner refuses and says why.
		cfg := filepath.Join(dir, "minbest.yaml")
		if err := os.WriteFile(cfg, []byte("gate:\n  planner:\n    min_best: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		base := query(t, "How do I restore a backup?")
		q := query(t, "--config", cfg, "How do I restore a backup?")
		if base.Verdict.Decision != "ground" || base.Verdict.WeakBest || base.Verdict.MinBest != 0.31 {
			t.Fatalf("default: decision %s, weak_best %v, min_best %v: want ground, false, 0.31", base.Verdict.Decision, base.Verdict.WeakBest, base.Verdict.MinBest)
		}
		if q.Verdict.Decision != "refuse" || !q.Verdict.WeakBest || !q.Verdict.Checks["empty_outline"] || !strings.Contains(q.Verdict.Reason, "is below min_best 1.00") {
			t.Errorf("min_best 1: decision %s, weak_best %v, checks %v, reason %q", q.Verdict.Decision, q.Verdict.WeakBest, q.Verdict.Checks, q.Verdict.Reason)
		}
	})

	t.Run("greeting", func(t *testing.T) {
		q := query(t, "hi! how do i restore a backup? thanks")
		if got, want := q.Verdict.Read, "how do i restore a backup?"; got != want || !q.Verdict.Trimmed {
			t.Errorf("read %q (trimmed %v), want %q trimmed", got, q.Verdict.Trimmed, want)
		}
		if q.Query != "hi! how do i restore a backup? thanks" {
			t.Errorf("query = %q, want the question as given", q.Query)
		}
		if q.Verdict.Decision != "ground" {
			t.Errorf("decision %s, want ground: %s", q.Verdict.Decision, q.Verdict.Reason)
		}
		_, out, _ := runCLI(t, "index", "query", "--index", snap, "hi! how do i restore a backup? thanks")
		if !strings.Contains(out, `read:      "how do i restore a backup?" (greetings and courtesies trimmed)`) {
			t.Errorf("read line:\n%s", out)
		}
	})

	t.Run("contact", func(t *testing.T) {
		// The demo handbook gives no phone number: a gap of the corpus.
		q := query(t, "whats your phone number?")
		if q.Verdict.Decision != "refuse" || !q.Verdict.Checks["contact_gap"] || !strings.Contains(q.Verdict.Reason, "no passage holds a phone number") {
			t.Errorf("decision %s, checks %v, reason %q: want refused as a contact gap", q.Verdict.Decision, q.Verdict.Checks, q.Verdict.Reason)
		}
		if q.Verdict.Ask["type"] != "phone" || q.Verdict.Ask["contact"] != true {
			t.Errorf("ask %v, want a contact question for a phone number", q.Verdict.Ask)
		}
	})

	t.Run("followup", func(t *testing.T) {
		alone := query(t, "and how long does it take?")
		q := query(t, "--previous", "How do I restore a backup?", "and how long does it take?")
		if !q.Verdict.Followup || q.Verdict.Read != "How do I restore a backup?\nand how long does it take?" {
			t.Errorf("read %q (followup %v), want the previous message and the question", q.Verdict.Read, q.Verdict.Followup)
		}
		if alone.Verdict.Followup || alone.Verdict.Read != "and how long does it take?" {
			t.Errorf("without --previous: read %q (followup %v)", alone.Verdict.Read, alone.Verdict.Followup)
		}
		if q.Verdict.Ask["type"] != "duration" {
			t.Errorf("ask %v, want the last message's (type duration)", q.Verdict.Ask)
		}
		if q.Verdict.Decision != "ground" {
			t.Errorf("follow-up decision %s, want ground: %s", q.Verdict.Decision, q.Verdict.Reason)
		}
		// Two earlier messages, oldest first: the one before the previous
		// is read only through the previous one.
		two := query(t, "--previous", "What is the weather in Paris today?", "--previous", "How do I restore a backup?", "and how long does it take?")
		if two.Verdict.Read != q.Verdict.Read {
			t.Errorf("with two --previous: read %q, want %q", two.Verdict.Read, q.Verdict.Read)
		}
		_, out, _ := runCLI(t, "index", "query", "--index", snap, "--previous", "What is the weather in Paris today?", "How do I restore a backup?")
		if !strings.Contains(out, "not a follow-up: read without the --previous messages") {
			t.Errorf("a standalone question after --previous:\n%s", out)
		}
	})
}

// checkNotes checks that the --json notes agree with the verdict: the
// coverage max is the best relevance that cleared the prefloor (or was
// forced), the kept notes are as many as the outline and each reaches
// min_support.
func checkNotes(t *testing.T, q queryOut) {
	t.Helper()
	floor := 0.45 // gate.prefloor_no_rerank
	if q.RerankActive {
		floor = 0.18 // gate.prefloor
	}
	best, kept := 0.0, 0
	for _, n := range q.Notes {
		if n.Forced || n.Relevance >= floor {
			best = math.Max(best, n.Relevance)
		}
		if n.Kept {
			kept++
			if n.Answer < q.Verdict.MinSupport {
				t.Errorf("note %s kept with answerability %v < min_support %v", n.ID, n.Answer, q.Verdict.MinSupport)
			}
		}
	}
	if math.Abs(best-q.Verdict.CoverageMax) > 1e-9 {
		t.Errorf("coverage_max %v, but the best relevance past the prefloor is %v", q.Verdict.CoverageMax, best)
	}
	if kept != q.Verdict.Outline {
		t.Errorf("%d notes kept, outline %d", kept, q.Verdict.Outline)
	}
}

// TestIndexQueryPreviousUsage: an unknown flag or a misused --previous is a
// usage error (exit 2, usage on stderr); --help prints the usage with
// --previous on stdout and exits 0.
func TestIndexQueryPreviousUsage(t *testing.T) {
	code, out, errOut := runCLI(t, "index", "query", "--help")
	if code != 0 || errOut != "" || !strings.Contains(out, "--previous MSG") || !strings.Contains(out, "local planner") {
		t.Errorf("--help: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"--bogus", "q"},
		{"--previous", "a", "--previous", "b", "--previous", "c", "q"},
		{"--previous", "a", "--queries", "q.jsonl", "--run", "r"},
	} {
		code, out, errOut := runCLI(t, append([]string{"index", "query"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage: guard index query") {
			t.Errorf("%q: exit %d, want 2 with usage on stderr\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
}

// TestIndexQueryVerdictIsTheProxys asks the proxy's own pipeline
// (proxy.NewPipeline over the same snapshot, default configuration) the
// turns guard index query decides, and wants the same decision and
// coverage: the CLI's verdict is the proxy's, not a copy that can drift.
func TestIndexQueryVerdictIsTheProxys(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "demo")
	if code, out, errOut := runCLI(t, "index", "build", "--demo", "--out", snap); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	cfg := proxy.DefaultConfig()
	cfg.Pipeline.Index = snap
	pipe, err := proxy.NewPipeline(zap.NewNop())(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	for _, tc := range []struct {
		last     string
		previous []string // oldest first
	}{
		{last: "How do I restore a backup?"},
		{last: "What is the weather in Paris today?"},
		{last: "hi! how do i restore a backup? thanks"},
		{last: "and how long does it take?", previous: []string{"How do I restore a backup?"}},
		{last: "and on the arm64 build?", previous: []string{"What does Lanternfish run on?", "What about memory?"}},
		{last: "whats your phone number?"},
		{last: "Who founded Lanternfish?"},
		{last: "write me a poem about backups"},
		{last: "What does error LF-4002 mean?"},
	} {
		var prev, before string
		args := []string{"index", "query", "--index", snap, "--json"}
		for i, p := range tc.previous {
			args = append(args, "--previous", p)
			if i == len(tc.previous)-1 {
				prev = p
			} else {
				before = p
			}
		}
		code, out, errOut := runCLI(t, append(args, tc.last)...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s", tc.last, code, errOut)
		}
		var q queryOut
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatal(err)
		}
		turn, err := pipe.Begin(context.Background(), proxy.TurnRequest{Tenant: index.DefaultTenant, KB: index.DefaultKB,
			Query: tc.last, Previous: prev, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		plan := turn.Plan()
		turn.Abandon()
		if string(plan.Decision) != q.Verdict.Decision || math.Abs(plan.Coverage-q.Verdict.CoverageMax) > 1e-9 {
			t.Errorf("%q after %q: proxy %s (coverage %v), index query %s (coverage %v): %s",
				tc.last, tc.previous, plan.Decision, plan.Coverage, q.Verdict.Decision, q.Verdict.CoverageMax, q.Verdict.Reason)
		}
	}
}

// Without --index, guard index query answers from the snapshot --config's
// pipeline.index names, as serve would, not from the demo corpus.
func TestIndexQueryConfigSnapshot(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "faq.jsonl")
	rows := `{"id":"parking","title":"Parking","text":"Parking in the yard costs £2 an hour, free after 6pm."}
{"id":"hours","title":"Opening hours","text":"We are open Monday to Friday, 9am to 5pm."}
`
	if err := os.WriteFile(corpus, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snap")
	if code, out, errOut := runCLI(t, "index", "build", "--corpus", corpus, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d\n%s%s", code, out, errOut)
	}
	cfg := filepath.Join(dir, "guard.yaml")
	if err := os.WriteFile(cfg, []byte("pipeline:\n  index: "+snap+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "index", "query", "--config", cfg, "--json", "how much is parking?")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var q queryOut
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Notes) == 0 || !strings.HasPrefix(q.Notes[0].ID, "parking") {
		t.Errorf("first note %v, want the config's snapshot's parking row", q.Notes)
	}
}

// guard index query cuts the question (and each --previous message) to
// pipeline.max_query_chars, as the proxy cuts a turn's messages, so its
// verdict is the proxy's for a long message too.
func TestIndexQueryCutsAsProxy(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "guard.yaml")
	if err := os.WriteFile(cfg, []byte("pipeline:\n  max_query_chars: 64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := "how much does a lecture cost? " + strings.Repeat("and what about the parking and the café ", 20)
	code, out, errOut := runCLI(t, "index", "query", "--config", cfg, "--json", "--previous", long, long)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var q queryOut
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Verdict.Read) == 0 || len(q.Verdict.Read) > 2*64+1 || !utf8.ValidString(q.Verdict.Read) {
		t.Errorf("read %d bytes %q, want the two messages cut to 64 bytes each", len(q.Verdict.Read), q.Verdict.Read)
	}
}
