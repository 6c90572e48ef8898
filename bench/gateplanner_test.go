package bench

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/looptest"
)

// plannerCases are an answerable question (answer passage b) and an
// on-topic unanswerable one over the same two passages, and a system that
// grounds both on both passages (zero models rate every passage 0.5; the
// thresholds are lowered to ground at 0.5).
func plannerCases() ([]gateCase, gateSystem) {
	tok := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	cands := []gate.Candidate{
		{ID: "a#0", Kind: "library", Title: "Opening hours", Text: "We open at nine every weekday and close at five."},
		{ID: "b#0", Kind: "library", Title: "Returns", Text: "Books can be returned through the chute by the door when we are shut."},
	}
	mk := func(q string, answerable bool, answers ...string) gateCase {
		return gateCase{set: "s", q: GateQuestion{ID: q, Question: q, Answerable: answerable, AnswerIDs: answers, RelatedIDs: []string{"a"}},
			pq: gate.PrepareQuestion(tok, q, nil), cands: cands, docIDs: []string{"a", "b"}, primaryAbsent: true, related: map[string]bool{"a": true}}
	}
	cfg := gate.DefaultConfig()
	cfg.SufficientMax, cfg.GoodEnoughMax, cfg.BailOutBelow = 0.5, 0.5, 0.1
	return []gateCase{mk("can I return books when it is shut?", true, "b"), mk("can I borrow books from another branch?", false)},
		gateSystem{name: "local", cfg: cfg, semantic: true}
}

// plannerReplies is a scripted OpenAI-compatible planner on loopback that
// replies reply to every call; calls counts them.
func plannerReplies(t *testing.T, reply string) (url string, calls func() int) {
	url, seen := looptest.ChatServer(t, reply)
	return url, func() int { return len(seen()) }
}

func remoteSpec(url string) *PlannerSpec {
	return &PlannerSpec{Config: gate.PlannerConfig{Mode: "remote", BaseURL: url, Model: "p", Timeout: 2 * time.Second}, Concurrency: 2}
}

// The oracle keeps the answer passage and refuses the unanswerable
// question; the remote planner's outline replaces the local one; one call
// per distinct question and notes, shared by the two systems.
func TestPlannerRows(t *testing.T) {
	cases, sys := plannerCases()
	local := sys.score(cases)
	if local.Grounded != 1 || local.Refused != 0 {
		t.Fatalf("local planner: grounded %d refused %d, want 1 and 0 (the setup grounds both)", local.Grounded, local.Refused)
	}
	url, calls := plannerReplies(t, "[2]") // note 2 is passage b
	run, err := newPlannerRun(context.Background(), remoteSpec(url))
	if err != nil {
		t.Fatal(err)
	}
	defer run.close()
	loo := sys
	loo.name = "loo"
	rows := run.rows(context.Background(), "s", cases, loo, sys)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (oracle and remote, each behind two systems)", len(rows))
	}
	for _, r := range rows {
		s := r.Score
		switch oracle := strings.HasPrefix(r.System, "oracle"); {
		case oracle && (s.Grounded != 1 || s.Refused != 1):
			t.Errorf("%s: grounded %d refused %d, want 1 and 1", r.System, s.Grounded, s.Refused)
		case !oracle && (s.Grounded != 1 || s.Refused != 0 || s.Causes["on-topic unanswerable: grounded (planner kept a note)"] != 1):
			t.Errorf("%s: grounded %d refused %d causes %v, want the answer grounded and the other grounded too", r.System, s.Grounded, s.Refused, s.Causes)
		}
	}
	if n := calls(); n != 2 {
		t.Errorf("%d planner calls, want 2 (one per question and notes)", n)
	}
	if got := run.String(); !strings.Contains(got, "2 calls") || !strings.Contains(got, "0 failed") || !strings.Contains(got, "p95") {
		t.Errorf("summary %q", got)
	}
}

// A planner that is down: every call fails, the local planner decides and
// the summary counts the failures.
func TestPlannerRowsDown(t *testing.T) {
	cases, sys := plannerCases()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	run, err := newPlannerRun(context.Background(), remoteSpec("http://"+addr+"/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer run.close()
	local := sys.score(cases)
	rows := run.rows(context.Background(), "s", cases, sys, sys)
	if got := rows[2].Score; got.Grounded != local.Grounded || got.Refused != local.Refused {
		t.Errorf("fallback: grounded %d refused %d, want the local planner's %d and %d", got.Grounded, got.Refused, local.Grounded, local.Refused)
	}
	if got := run.String(); !strings.Contains(got, "2 failed") {
		t.Errorf("summary %q, want 2 failed", got)
	}
}

// A spec without a remote planner is refused with a clear error.
func TestPlannerSpecNeedsRemote(t *testing.T) {
	for _, pc := range []gate.PlannerConfig{{Mode: "local"}, {Mode: "remote", BaseURL: gate.PlannerUpstream, Model: "m"}, {Mode: "remote", BaseURL: "http://x/v1"}} {
		if _, err := newPlannerRun(context.Background(), &PlannerSpec{Config: pc}); err == nil {
			t.Errorf("%+v: no error", pc)
		}
	}
}

// The simulated upstream plans through real HTTP.
func TestPlannerRowsSimulated(t *testing.T) {
	cases, sys := plannerCases()
	run, err := newPlannerRun(context.Background(), &PlannerSpec{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer run.close()
	rows := run.rows(context.Background(), "s", cases, sys, sys)
	if !strings.Contains(rows[2].System, "simulated") {
		t.Errorf("row %q is not labelled a simulation", rows[2].System)
	}
	if got := rows[2].Score; got.Grounded != 1 {
		t.Errorf("simulated planner: grounded %d, want 1 (its notes sharing the question's words: the returns passage)", got.Grounded)
	}
	if got := run.String(); !strings.Contains(got, "0 failed") {
		t.Errorf("summary %q, want no failure", got)
	}
}

// The shipped models' rows are in-sample only on the corpora their fit
// notes name; a converted operator trial is outside their fit.
func TestShippedFitLabel(t *testing.T) {
	m := gateModels{answer: gate.DefaultAnswerModel(), relevance: gate.DefaultRelevanceModel()}
	if got := m.fitOf("allotment"); got != "in-sample" {
		t.Errorf("allotment: %q, want in-sample", got)
	}
	for _, set := range []string{"t9-kennels", "allot", ""} {
		if got := m.fitOf(set); got != notInShippedFit {
			t.Errorf("%q: %q, want %q", set, got, notInShippedFit)
		}
	}
	if got := (gateModels{}).fitOf("allotment"); got != notInShippedFit {
		t.Errorf("models without a fit note: %q, want %q", got, notInShippedFit)
	}
}
