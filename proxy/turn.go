package proxy

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/cpustage"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
)

// TurnRequest is what the pipeline sees of one chat turn.
type TurnRequest struct {
	Tenant, KB string
	Model      string
	Stream     bool
	Query      string // text of the last user message
	// Previous is the text of the user message before it ("" when none):
	// retrieve reads a follow-up with it (retrieve.followup).
	Previous string
	// Before is the user message before Previous: when Previous itself
	// follows up on it, the two are Previous's context ("and on monday?"
	// after "and on sunday?" after "what time do you open on saturday?").
	Before string
	// Actions are the tools that fired this turn (assistant tool calls
	// after the last user message, answered by a tool message).
	Actions []string
}

// Plan is what the pipeline decided before the upstream call.
type Plan struct {
	Decision gate.Decision
	Answer   string // refuse: answer with this text and make no upstream call
	System   string // system message to prepend ("" = none)
	Fallback bool   // send the configured fallback model instead of the request's
	// Coverage is the best calibrated relevance the gate saw (0 on
	// pass-through), for the operator plane's re-ask.
	Coverage float64
}

// Turn is one chat turn's trip through the stages after planning. It is used
// by one goroutine at a time.
type Turn interface {
	Plan() Plan
	// Content appends to dst what may be released of one content delta of
	// the answer (markers resolved, invented ones deleted, held text kept).
	// ctx is the request's: sentence checks started for this delta run
	// under it.
	Content(ctx context.Context, dst, delta []byte) []byte
	// Finish appends the held-back text at the end of the answer and
	// returns the trust report.
	Finish(ctx context.Context, dst []byte) ([]byte, *Report)
	// Abandon ends a turn that will not be finished (the client left, the
	// stream failed before the answer ended): it returns once every check
	// the turn started in the background has stopped. Not needed after
	// Finish.
	Abandon()
}

// Pipeline is one configuration's guard stages: the server begins a turn
// with it for every chat request. Implementations must be safe for
// concurrent use.
type Pipeline interface {
	Begin(ctx context.Context, req TurnRequest) (Turn, error)
	// Retire is called once, after a reload replaced this pipeline with
	// another built by the same factory; turns begun before may still run.
	Retire()
	// Close releases everything the factory's pipelines hold (at server
	// shutdown, after the last turn).
	Close()
	// WriteMetrics appends the pipeline's own series to /metrics, in the
	// Prometheus text format.
	WriteMetrics(w io.Writer) error
}

// maxJudgedAnswer bounds the answer text kept for the end-of-stream report.
const maxJudgedAnswer = 1 << 20

// outline runs the synthesis planner over a grounded outcome: the remote
// planner when configured (falling back to the local one, with
// degraded "planner", when it fails), else the local one.
func (p *guardPipe) outline(ctx context.Context, question string, o gate.Outcome, degrade func(string)) []int {
	if o.Decision != gate.Ground {
		return nil
	}
	if p.planner != nil {
		idx, err := p.planner.Outline(ctx, question, o.Notes)
		if err == nil {
			return idx
		}
		p.log.Warn("remote planner failed; the local planner decides", zap.Error(err))
		degrade("planner")
	}
	return gate.LocalOutline(p.gate, o)
}

func (p *guardPipe) Begin(ctx context.Context, req TurnRequest) (Turn, error) {
	t := &guardTurn{p: p, req: req, latency: map[string]float64{}}
	t0 := time.Now()
	// Read without "hi there," and "thanks!"; a follow-up's context is at
	// most the two user messages before it.
	rq := gatefeed.TurnQuery(req.Tenant, req.KB, req.Query, req.Previous, req.Before)
	res, err := p.eng.Retrieve(ctx, rq)
	if err != nil {
		cpustage.Relay.Enter()
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	t1 := time.Now()
	t.latency["retrieve"] = ms(t1.Sub(t0))
	cpustage.Gate.Enter()
	t.degraded = append(t.degraded, res.Degraded...)
	cands := gatefeed.Candidates(res.Candidates)
	p.terms.Fill(cands)
	turn := gatefeed.TurnGate(p.gate, p.answer, p.relevance, rq, res, cands)
	question, ask, gcfg := turn.Question, turn.Ask, &turn.Config
	t.out = turn.Outcome
	cpustage.Planner.Enter()
	outline := p.outline(ctx, question, t.out, t.addDegraded)
	cpustage.Gate.Enter()
	t.out = gate.ApplyOutline(t.out, outline)
	t.trace = turnrec.GateTrace{Question: question, Ask: ask, Cands: cands, RerankActive: res.RerankActive, Config: gcfg, Outcome: &t.out,
		Remote: p.planner != nil && !slices.Contains(t.degraded, "planner")}
	memory := make([]string, 0, len(res.Memory))
	for _, m := range res.Memory {
		memory = append(memory, m.Text)
	}
	tenant, kb := req.Tenant, req.KB
	// The note texts lose id-shaped tokens and every real id of the
	// partition, not only this turn's: one passage must not put another's
	// id in front of the model.
	pcfg := p.gate
	isAddress := noteAddress(t.out.Notes)
	isID := func(id string) bool { return p.eng.Contains(tenant, kb, id) }
	pcfg.Scrub = func(s string) string {
		return p.spec.ScrubNote(s, isID, isAddress)
	}
	switch t.out.Decision {
	case gate.Refuse:
		t.plan = Plan{Decision: gate.Refuse, Answer: gate.RefusalMessage(*gcfg, t.out)}
	case gate.Fallback:
		t.plan = Plan{Decision: gate.Fallback, System: gate.SystemPrompt(pcfg, t.out, memory), Fallback: true}
		t.prefix = p.gate.Disclaimer
	default:
		t.plan = Plan{Decision: gate.Ground, System: gate.SystemPrompt(pcfg, t.out, memory)}
	}
	t.plan.Coverage = t.out.Coverage.Max
	t.latency["gate"] = ms(time.Since(t1))
	t.byID = make(map[string]gate.Note, len(t.out.Notes))
	for _, n := range t.out.Notes {
		t.byID[n.ID] = n
	}
	// Card markers may name the addresses of this turn's notes; action
	// markers the tools that fired this turn.
	var cards, actions map[string]bool
	for _, n := range t.out.Notes {
		if n.Address != "" {
			if cards == nil {
				cards = make(map[string]bool, len(t.out.Notes))
			}
			cards[n.Address] = true
		}
	}
	for _, a := range req.Actions {
		if actions == nil {
			actions = make(map[string]bool, len(req.Actions))
		}
		actions[a] = true
	}
	t.stOpts = gauntlet.Options{
		Notes:   t.out.Notes,
		Cards:   cards,
		Actions: actions,
		Bailout: t.out.Decision == gate.Fallback,
		Catalog: func(id string) bool { return p.eng.Contains(tenant, kb, id) },
		// A token ending a delta goes out at once up to where an id could
		// still start in it (the first token is not held for the next event).
		CatalogPrefix: func(s string) bool { return p.eng.CatalogPrefix(tenant, kb, s) },
		OnDrop: func(r gauntlet.Reason, b []byte) {
			if ce := p.log.Check(zap.InfoLevel, "marker dropped"); ce != nil {
				ce.Write(zap.String("reason", string(r)), zap.String("tenant", tenant), zap.String("kb", kb))
			}
		},
	}
	t.st = p.spec.Get(t.stOpts) // back to the pool at release
	t.strictMode = p.judge.Mode() == "strict"
	if t.out.Decision != gate.Refuse {
		t.split = judge.NewSplitter()
		notes := make([]judge.Passage, len(t.out.Notes))
		for i, n := range t.out.Notes {
			notes[i] = judge.Passage{ID: n.ID, Text: n.Text}
		}
		t.jt = p.judge.Turn(notes) // cited claims are checked whatever its length; Finish applies verify.min_context_chars to uncited ones
	}
	if ce := p.log.Check(zap.DebugLevel, "gate"); ce != nil {
		ce.Write(zap.String("decision", string(t.out.Decision)), zap.Any("checks", t.out.Checks),
			zap.Int("floored", t.out.Floored), zap.Int("notes", len(t.out.Notes)))
	}
	cpustage.Relay.Enter()
	return t, nil
}

// noteAddress returns whether a token is the address of one of notes, or
// a word of one: in corpora whose id is the human address, it is not an id
// to hide (the gauntlet exempts the same tokens).
func noteAddress(notes []gate.Note) func(string) bool {
	// The addresses and their words, split once per turn rather than once
	// per token of every note scrubbed.
	var keep map[string]bool
	for _, n := range notes {
		if n.Address == "" {
			continue
		}
		if keep == nil {
			keep = make(map[string]bool, 4*len(notes)) // an address and its words: no growth
		}
		keep[n.Address] = true
		for w := range strings.FieldsSeq(n.Address) {
			keep[w] = true
		}
	}
	return func(tok string) bool { return keep[tok] }
}

func (t *guardTurn) addDegraded(what string) {
	if !slices.Contains(t.degraded, what) {
		t.degraded = append(t.degraded, what)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// guardTurn is one turn through gauntlet and judge.
type guardTurn struct {
	p        *guardPipe
	req      TurnRequest
	plan     Plan
	out      gate.Outcome
	st       *gauntlet.Stream
	stOpts   gauntlet.Options            // st's options, for the side filters
	sides    map[string]*gauntlet.Stream // side.go: filters of the text that is not the answer
	byID     map[string]gate.Note
	prefix   string // fallback disclaimer, emitted before the model's text
	answer   strings.Builder
	degraded []string
	latency  map[string]float64
	trace    turnrec.GateTrace // the gate's inputs, for the operator plane

	// Sentences are cut as they complete and verified at once: in strict
	// mode before they are released, in report mode concurrently with the
	// rest of the stream (pending).
	split        *judge.Splitter
	jt           *judge.Turn
	strictMode   bool
	claims       []judge.Claim
	strictDrops  int
	strictVerify time.Duration
	scratch      []byte
	citedMap     map[int]judge.Passage // cited's last map, for citedN citations
	citedN       int
	pending      sync.WaitGroup
	mu           sync.Mutex // guards claims while report-mode checks run
}

func (t *guardTurn) Plan() Plan { return t.plan }

func (t *guardTurn) Content(ctx context.Context, dst, delta []byte) []byte {
	if t.prefix != "" { // the disclaimer is the guard's, not a claim to judge
		dst = append(dst, t.prefix...)
		dst = append(dst, "\n\n"...)
		t.prefix = ""
	}
	start := len(dst)
	switch {
	case t.split == nil:
		dst = t.st.WriteFlush(dst, delta)
	case t.strictMode:
		t.scratch = t.st.Write(t.scratch[:0], delta)
		for _, s := range t.split.Feed(string(t.scratch)) {
			dst = t.strict(ctx, dst, s)
		}
	default:
		// Every event is flushed to the client: the held token goes out up
		// to where an id could still start (a relay that coalesces events
		// flushes only the last one it has read).
		dst = t.st.WriteFlush(dst, delta)
		if t.answer.Len() < maxJudgedAnswer {
			for _, s := range t.split.FeedBytes(dst[start:]) {
				t.dispatch(ctx, s)
			}
		}
	}
	t.keep(dst[start:])
	return dst
}

// dispatch verifies one completed sentence of a report-mode answer against
// the citations shown so far (its own included: they are numbered by first
// appearance), in the background unless the check is the local verifier's
// (judge.Turn.Inline: run here, a goroutine's stack growth costs more).
// Finish waits for it.
func (t *guardTurn) dispatch(ctx context.Context, sentence string) {
	t.mu.Lock()
	i := len(t.claims)
	t.claims = append(t.claims, judge.Claim{})
	t.mu.Unlock()
	cited := t.cited()
	run := t.pending.Go
	if t.jt.Inline() {
		run = func(f func()) { f(); cpustage.Relay.Enter() }
	}
	run(func() {
		cpustage.Verify.Enter()
		c := t.jt.Claim(ctx, sentence, cited)
		t.mu.Lock()
		t.claims[i] = c
		t.mu.Unlock()
	})
}

func (t *guardTurn) keep(b []byte) {
	if room := maxJudgedAnswer - t.answer.Len(); room > 0 {
		t.answer.Write(b[:min(len(b), room)])
	}
}

// cited maps the citation numbers shown so far to their passages. A
// turn's citations only grow (numbered by first appearance), so the map is
// made again only when one was added since the last call; a map handed
// out is never changed (a check in the background may still read it).
func (t *guardTurn) cited() map[int]judge.Passage {
	cs := t.st.Citations()
	if t.citedMap != nil && len(cs) == t.citedN {
		return t.citedMap
	}
	m := make(map[int]judge.Passage, len(cs))
	for _, c := range cs {
		n := t.byID[c.ID]
		m[c.N] = judge.Passage{N: c.N, ID: c.ID, Title: c.Title, Text: n.Text}
	}
	t.citedMap, t.citedN = m, len(cs)
	return m
}

// strict verifies one completed sentence and drops the citations judged
// contradicted or unsupported before it is released.
func (t *guardTurn) strict(ctx context.Context, dst []byte, sentence string) []byte {
	t0 := time.Now()
	cpustage.Verify.Enter()
	claim, drop := t.jt.Check(ctx, sentence, t.cited())
	cpustage.Relay.Enter()
	t.strictVerify += time.Since(t0)
	if claim.Verdict != "" {
		t.claims = append(t.claims, claim)
	}
	for _, n := range drop {
		m := "[" + strconv.Itoa(n) + "]"
		if strings.Contains(sentence, m) {
			sentence = strings.ReplaceAll(strings.ReplaceAll(sentence, " "+m, ""), m, "")
			t.strictDrops++
		}
	}
	return append(dst, sentence...)
}

func (t *guardTurn) Finish(ctx context.Context, dst []byte) ([]byte, *Report) {
	if t.prefix != "" {
		dst = append(dst, t.prefix...)
		t.prefix = ""
	}
	start := len(dst)
	v0 := time.Now()
	if t.out.Decision != gate.Refuse {
		if t.strictMode {
			t.scratch = t.st.Close(t.scratch[:0])
			sents := t.split.Feed(string(t.scratch))
			sents = append(sents, t.split.Flush()...)
			for _, s := range sents {
				dst = t.strict(ctx, dst, s)
			}
			v0 = time.Now() // those checks are in strictVerify already
		} else {
			dst = t.st.Close(dst)
			if t.answer.Len() < maxJudgedAnswer {
				for _, s := range append(t.split.FeedBytes(dst[start:]), t.split.Flush()...) {
					t.dispatch(ctx, s)
				}
			}
		}
		t.keep(dst[start:])
	}
	t.pending.Wait()
	cov := t.out.Coverage
	r := &Report{Decision: t.out.Decision, Coverage: &cov, LatencyMS: t.latency, trace: &t.trace}
	if t.trace.Question != t.req.Query {
		r.Query = t.trace.Question
	}
	counts := t.st.Counts()
	if t.strictDrops > 0 {
		if counts.ByReason == nil {
			counts.ByReason = map[string]int{}
		}
		counts.ByReason["strict_unsupported"] += t.strictDrops
		counts.Dropped += t.strictDrops
		counts.Kept = max(counts.Kept-t.strictDrops, 0)
	}
	// The online auditor (no model) re-reads the released answer: markers
	// that name no citation, footnote syntax left over, leaked ids.
	audit := t.st.Audit(t.answer.String())
	r.Markers = &MarkerReport{Counts: counts, Audit: audit}
	if audit.LeakedIDs+audit.Invented+audit.Broken > 0 {
		t.p.log.Warn("auditor found markers the gauntlet let through", zap.Any("findings", audit.Findings))
	}

	// Only the citations that survive in the answer are reported.
	answer := t.answer.String()
	cites := []gauntlet.Citation{}
	for _, c := range t.st.Citations() {
		if strings.Contains(answer, "["+strconv.Itoa(c.N)+"]") {
			cites = append(cites, c)
			r.URLs = append(r.URLs, cmp.Or(c.URL, c.ID))
		}
	}
	r.Citations = cites

	cpustage.Verify.Enter()
	pool := make([]judge.Passage, len(t.out.Notes))
	for i, n := range t.out.Notes {
		pool[i] = judge.Passage{ID: n.ID, Title: n.Title, Text: n.Text}
	}
	jr := judge.Report{Claims: []judge.Claim{}}
	if t.out.Decision != gate.Refuse {
		jr = t.p.judge.Finish(ctx, t.claims, pool, t.otherKBs())
	}
	// verify: what verification added to the end of the stream (waiting for
	// the last checks, classifying uncited claims), plus strict holds.
	t.latency["verify"] = ms(time.Since(v0) + t.strictVerify)
	cpustage.Relay.Enter()
	if jr.Claims == nil {
		jr.Claims = []judge.Claim{}
	}
	r.Claims, r.Summary = jr.Claims, &jr.Summary
	r.Degraded = append(append([]string{}, t.degraded...), jr.Degraded...)
	if jr.Footer != "" && t.out.Decision != gate.Refuse {
		dst = append(dst, "\n\n"...)
		dst = append(dst, jr.Footer...)
	}
	return dst, r
}

// otherKBs adapts the retriever to the judge's uncited-claim flagger: a
// sentence is looked up in the tenant's other knowledge bases.
func (t *guardTurn) otherKBs() judge.OtherKBs {
	var kbs []string
	for _, kb := range t.p.eng.KBs(t.req.Tenant) {
		if kb != t.req.KB {
			kbs = append(kbs, kb)
		}
	}
	if len(kbs) == 0 {
		return nil
	}
	return otherKBs{eng: t.p.eng, tenant: t.req.Tenant, kbs: kbs, min: t.p.gate.SufficientMax}
}

// Kinds lists the kinds of a partition's chunks in the index in force
// (Server.PartitionKinds).
func (p *guardPipe) Kinds(tenant, kb string) []string { return p.eng.Kinds(tenant, kb) }

type otherKBs struct {
	eng    *retrieve.Engine
	tenant string
	kbs    []string
	min    float64
}

func (o otherKBs) Find(ctx context.Context, sentence string) (string, judge.Passage, bool) {
	for _, kb := range o.kbs {
		res, err := o.eng.Retrieve(ctx, retrieve.Query{Tenant: o.tenant, KB: kb, Text: sentence})
		cpustage.Verify.Enter() // the lookup's lanes entered their own stages
		if err != nil || len(res.Candidates) == 0 {
			continue
		}
		c := res.Candidates[0]
		if c.Score >= o.min {
			return kb, judge.Passage{ID: c.ID, Title: c.Title, Text: c.Text}, true
		}
	}
	return "", judge.Passage{}, false
}

var (
	_ Pipeline       = (*guardPipe)(nil)
	_ Turn           = (*guardTurn)(nil)
	_ judge.OtherKBs = otherKBs{}
	_ kindLister     = (*guardPipe)(nil)
)

// Abandon waits for the report-mode checks already started; their context
// (the request's) has ended, so a remote judge call returns at once.
func (t *guardTurn) Abandon() { t.pending.Wait() }

// releaser is a Turn with pooled parts: release gives them back once the
// request is done with the turn (its report built and summarized, every
// check it started joined). Nothing may call the turn after release.
type releaser interface{ release() }

// releaseTurn ends t's life: the request's last use of it.
func releaseTurn(t Turn) {
	if r, ok := t.(releaser); ok {
		r.release()
	}
}

// release gives the gauntlet stream back to the spec's pool. The report
// shares nothing with it (Finish copies the citations, the counts and the
// audit out), and the turn drops it: a call after release fails on a nil
// stream instead of writing into another turn's.
func (t *guardTurn) release() {
	if st := t.st; st != nil {
		t.st = nil
		t.p.spec.Put(st)
	}
}

// passthrough is the pipeline with every stage switched off: the answer is
// relayed as the upstream wrote it and the report says so.
type passthrough struct{}

type passTurn struct{}

func (passthrough) Begin(context.Context, TurnRequest) (Turn, error) { return passTurn{}, nil }
func (passthrough) Retire()                                          {}
func (passthrough) Close()                                           {}
func (passthrough) WriteMetrics(io.Writer) error                     { return nil }

func (passTurn) Plan() Plan                                             { return Plan{Decision: gate.Passthrough} }
func (passTurn) Content(_ context.Context, dst, delta []byte) []byte    { return append(dst, delta...) }
func (passTurn) Finish(_ context.Context, dst []byte) ([]byte, *Report) { return dst, passReport }

func (passTurn) Abandon() {}

// passReport is every pass-through turn's report: shared, so it must not be
// changed.
var passReport = func() *Report {
	r := &Report{Decision: gate.Passthrough, Degraded: []string{}, Citations: []gauntlet.Citation{}, Claims: []judge.Claim{},
		LatencyMS: map[string]float64{}}
	r.raw = r.json()
	return r
}()

var (
	_ Pipeline = passthrough{}
	_ Turn     = passTurn{}
)
