package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/remoteplan"
	"github.com/answer-guard/guard/mockllm"
)

// The planner step of the grounding suite. Besides the local planner (the
// answerability model against planner.min_support), every dev corpus gets
//
//   - an oracle planner row: the planner keeps exactly the labelled answer
//     passages among the notes the coverage gate passed (an empty outline,
//     so a refusal, for an unanswerable question). It is the upper bound of
//     any planner behind today's relevance gate: what it still gets wrong
//     is the gate's;
//   - with GatePlanner set, a remote planner row: the product's remote
//     planner (internal/remoteplan) called for each question the gate
//     grounds, with its notes; a failed call falls back to the local
//     planner, as the proxy does, and is counted as degraded.
//
// Both run behind the shipped models and behind each left-out fold's
// models at the default thresholds.

// PlannerSpec configures the suite's remote planner step.
type PlannerSpec struct {
	// Config is gate.planner with base_url resolved (remoteplan.Resolve);
	// unused when Simulated.
	Config gate.PlannerConfig
	// Simulated starts the built-in simulated upstream (mockllm) on
	// loopback and plans with its scripted planner: a simulation, no model.
	Simulated bool
	// Concurrency bounds the calls in flight (default 4).
	Concurrency int
	// Budget bounds the whole step; once it is spent the remaining
	// questions fall back to the local planner and count as degraded
	// (default 15m).
	Budget time.Duration
}

// GatePlanner, when set, adds the remote planner rows to the suite.
var GatePlanner *PlannerSpec

// plannerRun holds the remote planner of one suite run and what its calls
// measured. The zero-spec run (no GatePlanner) adds only the oracle rows.
type plannerRun struct {
	spec    *PlannerSpec
	label   string
	planner *remoteplan.Planner
	mock    *mockllm.Server
	// deadline is when the budget runs out.
	deadline time.Time
	timeout  time.Duration // of one call

	// pooled are the left-out rows pooled over the dev corpora, for their
	// failures by cause.
	pooled map[string]*GateScore
	order  []string

	mu       sync.Mutex
	outlines map[string][]int // by planKey; nil = the call failed
	latency  []time.Duration
	failed   int
	errs     map[string]int // failures by message, for the report
}

func newPlannerRun(_ context.Context, spec *PlannerSpec) (*plannerRun, error) {
	r := &plannerRun{spec: spec, outlines: map[string][]int{}, errs: map[string]int{}}
	if spec == nil {
		return r, nil
	}
	if spec.Concurrency < 1 {
		spec.Concurrency = 4
	}
	if spec.Budget <= 0 {
		spec.Budget = 15 * time.Minute
	}
	pc := spec.Config
	if spec.Simulated {
		mc := mockllm.DefaultConfig()
		mc.Pace, mc.LogSize = 0, 0
		m, err := mockllm.Start(mc, "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("simulated planner: %w", err)
		}
		r.mock = m
		pc = gate.PlannerConfig{Mode: "remote", BaseURL: m.BaseURL(), Model: "mock-1", Timeout: 2 * time.Second}
		r.label = "simulated upstream (mockllm's scripted planner, word overlap; a simulation, no model)"
	} else {
		if pc.Mode != "remote" || pc.BaseURL == "" || pc.BaseURL == gate.PlannerUpstream || pc.Model == "" {
			return nil, errors.New("remote planner: gate.planner needs mode remote, a resolved base_url and a model")
		}
		r.label = fmt.Sprintf("remote planner %s at %s", pc.Model, pc.BaseURL)
	}
	if pc.Timeout <= 0 {
		pc.Timeout = gate.DefaultConfig().Planner.Timeout
	}
	r.planner, r.timeout = remoteplan.New(pc), pc.Timeout
	r.deadline = time.Now().Add(spec.Budget)
	return r, nil
}

func (r *plannerRun) close() {
	if r.planner != nil {
		r.planner.Close()
	}
	if r.mock != nil {
		r.mock.Close()
	}
}

// The systems of the planner rows.
const (
	sysOracleShip = "oracle planner: the labelled answer passages among the notes (shipped models)"
	sysOracleLOO  = "oracle planner: the labelled answer passages among the notes (fitted without this set, default thresholds)"
)

// rows scores set's cases with the oracle planner, and with the remote
// one when configured, behind loo (the fold's models, default thresholds)
// and shipped (the shipped models, whose rows are labelled by their fit).
func (r *plannerRun) rows(ctx context.Context, set string, cases []gateCase, loo, shipped gateSystem) []GateRow {
	shipFit := shipped.models.fitOf(set)
	rows := []GateRow{
		{System: sysOracleShip, Set: set, Fit: shipFit, Score: shipped.scoreWith(cases, shipped.withOutline(oracleOutline))},
		{System: sysOracleLOO, Set: set, Fit: "out-of-sample", Score: loo.scoreWith(cases, loo.withOutline(oracleOutline))},
	}
	if r.planner != nil {
		for _, sys := range []gateSystem{shipped, loo} {
			r.call(ctx, sys, cases)
			fit := shipFit
			name := r.label + " (shipped models)"
			if sys.name == loo.name {
				fit, name = "out-of-sample", r.label+" (fitted without this set, default thresholds)"
			}
			rows = append(rows, GateRow{System: name, Set: set, Fit: fit, Score: sys.scoreWith(cases, sys.withOutline(r.outline(sys)))})
		}
	}
	for _, row := range rows {
		if row.Fit == "out-of-sample" {
			if r.pooled == nil {
				r.pooled = map[string]*GateScore{}
			}
			if r.pooled[row.System] == nil {
				r.pooled[row.System] = &GateScore{}
				r.order = append(r.order, row.System)
			}
			r.pooled[row.System].add(row.Score)
		}
	}
	return rows
}

// withOutline is sys.decide with outline in place of the local planner.
func (sys gateSystem) withOutline(outline func(gateCase, gate.Outcome) []int) func(gateCase) (gate.Outcome, []gate.Candidate) {
	return func(c gateCase) (gate.Outcome, []gate.Candidate) {
		o, cands := sys.gateOnly(c)
		if o.Decision != gate.Ground {
			return o, cands
		}
		return gate.ApplyOutline(o, outline(c, o)), cands
	}
}

// oracleOutline keeps exactly the notes that are labelled answer passages
// of c, in the gate's order.
func oracleOutline(c gateCase, o gate.Outcome) []int {
	idx := []int{}
	for i, n := range o.Notes {
		for j, cand := range c.cands {
			if cand.ID == n.ID && c.answers(j) {
				idx = append(idx, i)
				break
			}
		}
	}
	return idx
}

// planKey names one planner call: the question and the notes, so a call
// is made once for every system that grounds the question on the same
// notes.
func planKey(c gateCase, o gate.Outcome) string {
	var b strings.Builder
	b.WriteString(c.q.Question)
	for _, n := range o.Notes {
		b.WriteString("\x00" + n.ID)
	}
	return b.String()
}

// call asks the remote planner, at most spec.Concurrency calls at a time,
// about every case sys grounds whose question and notes it has not seen.
func (r *plannerRun) call(ctx context.Context, sys gateSystem, cases []gateCase) {
	ctx, cancel := context.WithDeadline(ctx, r.deadline)
	defer cancel()
	g := errgroup.Group{}
	g.SetLimit(r.spec.Concurrency)
	queued := map[string]bool{}
	for _, c := range cases {
		o, _ := sys.gateOnly(c)
		if o.Decision != gate.Ground {
			continue
		}
		key := planKey(c, o)
		r.mu.Lock()
		_, done := r.outlines[key]
		r.mu.Unlock()
		if done || queued[key] {
			continue
		}
		queued[key] = true
		g.Go(func() error {
			t0 := time.Now()
			idx, err := r.planner.Outline(ctx, c.q.Question, o.Notes)
			d := time.Since(t0)
			r.mu.Lock()
			defer r.mu.Unlock()
			if err != nil {
				r.failed++
				r.errs[shortErr(err)]++
				r.outlines[key] = nil
				return nil
			}
			r.latency = append(r.latency, d)
			r.outlines[key] = idx
			return nil
		})
	}
	g.Wait()
}

// shortErr is err's message cut to a line for the report.
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

// outline is the remote planner's outline for a case sys grounds, or the
// local planner's when the call failed (degraded, as in the proxy).
func (r *plannerRun) outline(sys gateSystem) func(gateCase, gate.Outcome) []int {
	return func(c gateCase, o gate.Outcome) []int {
		r.mu.Lock()
		idx, ok := r.outlines[planKey(c, o)]
		r.mu.Unlock()
		if !ok || idx == nil {
			return gate.LocalOutline(sys.cfg, o)
		}
		return idx
	}
}

// String is the left-out planner rows' failures by cause and the remote
// planner's call summary.
func (r *plannerRun) String() string {
	var b strings.Builder
	for _, name := range r.order {
		s := r.pooled[name]
		fmt.Fprintf(&b, "\nFailures of %q (out-of-sample, dev corpora pooled), by cause:\n\n", name)
		causes := make([]string, 0, len(s.Causes))
		for c := range s.Causes {
			causes = append(causes, c)
		}
		sort.Strings(causes)
		for _, c := range causes {
			fmt.Fprintf(&b, "- %s: %d\n", c, s.Causes[c])
		}
	}
	if r.planner == nil {
		return b.String()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := len(r.latency) + r.failed
	lat := append([]time.Duration(nil), r.latency...)
	slices.Sort(lat)
	fmt.Fprintf(&b, "\nPlanner calls, %s: %d calls (one per distinct question and notes, concurrency %d, timeout %s, budget %s); %d failed and fell back to the local planner (degraded)",
		r.label, calls, r.spec.Concurrency, r.timeout, r.spec.Budget, r.failed)
	if len(lat) > 0 {
		fmt.Fprintf(&b, "; latency of the calls that answered: p50 %s, p95 %s, max %s",
			rank(lat, 0.50).Round(time.Microsecond), rank(lat, 0.95).Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
	}
	b.WriteString(".\n")
	msgs := make([]string, 0, len(r.errs))
	for m := range r.errs {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	for _, m := range msgs {
		fmt.Fprintf(&b, "- %d x %s\n", r.errs[m], m)
	}
	return b.String()
}
