package proxy

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
)

// maxJudgedAnswer bounds the answer text kept for the end-of-stream report.
const maxJudgedAnswer = 1 << 20

// engineHolder keeps one retrieval engine across reloads: a reload that
// changes neither the index nor the retrieval settings keeps it; one that
// points at a new snapshot swaps the snapshot in atomically.
type engineHolder struct {
	mu      sync.Mutex
	log     *zap.Logger
	eng     *retrieve.Engine
	dir     string    // snapshot dir in use
	stamp   time.Time // manifest mtime of that snapshot
	ixCfg   index.Config
	rCfg    retrieve.Config
	demoDir string     // temp dir of the embedded demo snapshot, removed on Close
	terms   *termCache // passages' prepared terms, across turns and reloads (terms.go)
}

// NewPipeline returns the factory of the guard pipeline: retrieval over the
// configured snapshot (or the embedded demo corpus), the gate, the marker
// gauntlet and the citation verifier.
func NewPipeline(log *zap.Logger) PipelineFactory {
	if log == nil {
		log = zap.NewNop()
	}
	h := &engineHolder{log: log.Named("pipeline"), terms: newTermCache()}
	jm := &judge.Metrics{} // one set of verifier series across reloads
	return func(cfg Config) (Pipeline, error) {
		eng, err := h.engine(cfg)
		if err != nil {
			return nil, err
		}
		spec, err := gauntlet.Compile(cfg.Stages.Gauntlet)
		if err != nil {
			return nil, fmt.Errorf("gauntlet: %w", err)
		}
		j, err := judge.New(cfg.Stages.Verify, log)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		j.UseMetrics(jm)
		gcfg := cfg.Stages.Gate
		gcfg.Scrub = spec.Scrub
		gp := &guardPipe{log: h.log, eng: eng, spec: spec, judge: j, gate: gcfg, answer: gate.DefaultAnswerModel(), holder: h, terms: h.terms}
		if gcfg.Planner.Mode == "remote" {
			gp.planner = newRemotePlanner(gcfg.Planner)
		}
		return gp, nil
	}
}

func (h *engineHolder) engine(cfg Config) (*retrieve.Engine, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	dir := cfg.Pipeline.Index
	if dir == "" {
		if h.demoDir == "" || !reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) {
			tmp, err := os.MkdirTemp("", "answer-guard-demo-*")
			if err != nil {
				return nil, fmt.Errorf("demo index: %w", err)
			}
			t0 := time.Now()
			if _, err := index.BuildDemo(context.Background(), cfg.Stages.Index, tmp, h.log); err != nil {
				os.RemoveAll(tmp)
				return nil, fmt.Errorf("index the embedded demo corpus: %w", err)
			}
			h.log.Info("indexed the embedded demo corpus", zap.Duration("took", time.Since(t0)))
			if h.demoDir != "" {
				defer os.RemoveAll(h.demoDir) // after the swap below; open files stay readable
			}
			h.demoDir = tmp
		}
		dir = h.demoDir
	}
	st, err := os.Stat(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	same := h.eng != nil && h.dir == dir && st.ModTime().Equal(h.stamp) &&
		reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) && reflect.DeepEqual(h.rCfg, cfg.Stages.Retrieve)
	if same {
		return h.eng, nil
	}
	snap, err := index.Load(dir)
	if err != nil {
		return nil, err
	}
	if h.eng != nil && reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) && reflect.DeepEqual(h.rCfg, cfg.Stages.Retrieve) {
		h.eng.Swap(snap) // in-flight queries finish on the old snapshot
	} else {
		eng, err := retrieve.New(cfg.Stages.Retrieve, cfg.Stages.Index, snap, h.log)
		if err != nil {
			snap.Close()
			return nil, fmt.Errorf("retrieval engine: %w", err)
		}
		// The old engine stays open: the configuration in force still
		// serves with it until the new one is stored, and if this build
		// fails it goes on doing so. Its pipeline closes it on Retire.
		h.eng = eng
	}
	h.dir, h.stamp, h.ixCfg, h.rCfg = dir, st.ModTime(), cfg.Stages.Index, cfg.Stages.Retrieve
	h.log.Info("serving index", zap.String("dir", dir))
	return h.eng, nil
}

// retire closes eng when it is no longer the engine in use: the pipeline
// that held it was replaced by a reload. In-flight queries finish on its
// snapshot (Engine.Close retires it once they end).
func (h *engineHolder) retire(eng *retrieve.Engine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if eng != nil && eng != h.eng {
		eng.Close()
	}
}

func (h *engineHolder) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.eng != nil {
		h.eng.Close()
	}
	if h.demoDir != "" {
		os.RemoveAll(h.demoDir)
		h.demoDir = ""
	}
	h.terms.close() // a turn still running finds it closed: Get misses, Set is dropped
}

// guardPipe is the pipeline of one configuration.
type guardPipe struct {
	log    *zap.Logger
	eng    *retrieve.Engine
	spec   *gauntlet.Spec
	judge  *judge.Judge
	gate   gate.Config
	answer gate.AnswerModel
	holder *engineHolder
	// planner is the remote synthesis planner; nil unless
	// gate.planner.mode is remote.
	planner gate.Planner
	// terms is the holder's passage-terms cache, shared across reloads; read
	// without the holder's lock, which a reload holds while it indexes.
	terms *termCache
}

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

// WriteMetrics appends the verifier's series to /metrics.
func (p *guardPipe) WriteMetrics(w io.Writer) error { return p.judge.WriteMetrics(w) }

// Close releases the engine and the demo snapshot (at server shutdown).
func (p *guardPipe) Close() { p.holder.close() }

// Retire is called once a reload has replaced p: it closes p's retrieval
// engine unless the new configuration still uses it.
func (p *guardPipe) Retire() { p.holder.retire(p.eng) }

func (p *guardPipe) Begin(ctx context.Context, req TurnRequest) (Turn, error) {
	t := &guardTurn{p: p, req: req, latency: map[string]float64{}}
	t0 := time.Now()
	res, err := p.eng.Retrieve(ctx, retrieve.Query{Tenant: req.Tenant, KB: req.KB, Text: req.Query})
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	t1 := time.Now()
	t.latency["retrieve"] = ms(t1.Sub(t0))
	t.degraded = append(t.degraded, res.Degraded...)
	cands := gate.CandidatesFrom(res.Candidates)
	p.terms.fill(cands)
	p.answer.Assess(gate.PrepareQuestion(req.Query, res.IDF), cands)
	if p.gate.CorpusCalibration {
		gate.Recalibrate(res.Calibration, cands)
	}
	t.out = gate.Decide(p.gate, cands, res.RerankActive)
	t.out = gate.ApplyOutline(t.out, p.outline(ctx, req.Query, t.out, t.addDegraded))
	t.trace = gateTrace{question: req.Query, cands: cands, rerankActive: res.RerankActive, cfg: &p.gate, out: &t.out,
		remote: p.planner != nil && !slices.Contains(t.degraded, "planner")}
	memory := make([]string, 0, len(res.Memory))
	for _, m := range res.Memory {
		memory = append(memory, m.Text)
	}
	switch t.out.Decision {
	case gate.Refuse:
		t.plan = Plan{Decision: string(gate.Refuse), Answer: p.gate.RefusalText}
	case gate.Fallback:
		t.plan = Plan{Decision: string(gate.Fallback), System: gate.SystemPrompt(p.gate, t.out, memory), Fallback: true}
		t.prefix = p.gate.Disclaimer
	default:
		t.plan = Plan{Decision: string(gate.Ground), System: gate.SystemPrompt(p.gate, t.out, memory)}
	}
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
	tenant, kb := req.Tenant, req.KB
	t.st = p.spec.New(gauntlet.Options{
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
	})
	t.strictMode = p.judge.Mode() == "strict"
	if t.out.Decision != gate.Refuse {
		t.split = judge.NewSplitter()
		t.ctx = ctx
		notes := make([]judge.Passage, len(t.out.Notes))
		for i, n := range t.out.Notes {
			notes[i] = judge.Passage{ID: n.ID, Text: n.Text}
		}
		t.jt = p.judge.Turn(notes) // the turn's combined context (verify.min_context_chars)
	}
	if ce := p.log.Check(zap.DebugLevel, "gate"); ce != nil {
		ce.Write(zap.String("decision", string(t.out.Decision)), zap.Any("checks", t.out.Checks),
			zap.Int("floored", t.out.Floored), zap.Int("notes", len(t.out.Notes)))
	}
	return t, nil
}

func (t *guardTurn) addDegraded(what string) {
	if !slices.Contains(t.degraded, what) {
		t.degraded = append(t.degraded, what)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// markerReport is guard.markers: the gauntlet's counts plus the auditor's.
type markerReport struct {
	gauntlet.Counts
	Audit gauntlet.AuditReport `json:"audit"`
}

// guardTurn is one turn through gauntlet and judge.
type guardTurn struct {
	p        *guardPipe
	req      TurnRequest
	plan     Plan
	out      gate.Outcome
	st       *gauntlet.Stream
	byID     map[string]gate.Note
	prefix   string // fallback disclaimer, emitted before the model's text
	answer   strings.Builder
	degraded []string
	latency  map[string]float64
	trace    gateTrace // the gate's inputs, for the turn log

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
	// ctx is the turn's request context (from Begin), for the verifications
	// started while the answer streams; it ends when the request does.
	ctx     context.Context
	pending sync.WaitGroup
	mu      sync.Mutex // guards claims while report-mode checks run
}

func (t *guardTurn) Plan() Plan { return t.plan }

func (t *guardTurn) Content(dst, delta []byte) []byte {
	if t.prefix != "" { // the disclaimer is the guard's, not a claim to judge
		dst = append(dst, t.prefix...)
		dst = append(dst, "\n\n"...)
		t.prefix = ""
	}
	start := len(dst)
	switch {
	case t.split == nil:
		dst = t.st.Flush(t.st.Write(dst, delta))
	case t.strictMode:
		t.scratch = t.st.Write(t.scratch[:0], delta)
		for _, s := range t.split.Feed(string(t.scratch)) {
			dst = t.strict(dst, s)
		}
	default:
		// Every event is flushed to the client: the held token goes out up
		// to where an id could still start (a relay that coalesces events
		// flushes only the last one it has read).
		dst = t.st.Flush(t.st.Write(dst, delta))
		if t.answer.Len() < maxJudgedAnswer {
			for _, s := range t.split.Feed(string(dst[start:])) {
				t.dispatch(s)
			}
		}
	}
	t.keep(dst[start:])
	return dst
}

// dispatch verifies one completed sentence of a report-mode answer in the
// background, against the citations shown so far (its own included: they
// are numbered by first appearance). Finish waits for it.
func (t *guardTurn) dispatch(sentence string) {
	t.mu.Lock()
	i := len(t.claims)
	t.claims = append(t.claims, judge.Claim{})
	t.mu.Unlock()
	cited := t.cited()
	t.pending.Go(func() {
		c := t.jt.Claim(t.ctx, sentence, cited)
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

// cited maps the citation numbers shown so far to their passages.
func (t *guardTurn) cited() map[int]judge.Passage {
	cs := t.st.Citations()
	m := make(map[int]judge.Passage, len(cs))
	for _, c := range cs {
		n := t.byID[c.ID]
		m[c.N] = judge.Passage{N: c.N, ID: c.ID, Title: c.Title, Text: n.Text}
	}
	return m
}

// strict verifies one completed sentence and drops the citations judged
// contradicted or unsupported before it is released.
func (t *guardTurn) strict(dst []byte, sentence string) []byte {
	t0 := time.Now()
	claim, drop := t.jt.Check(t.ctx, sentence, t.cited())
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
				dst = t.strict(dst, s)
			}
			v0 = time.Now() // those checks are in strictVerify already
		} else {
			dst = t.st.Close(dst)
			if t.answer.Len() < maxJudgedAnswer {
				for _, s := range append(t.split.Feed(string(dst[start:])), t.split.Flush()...) {
					t.dispatch(s)
				}
			}
		}
		t.keep(dst[start:])
	}
	t.pending.Wait()
	r := &Report{Decision: string(t.out.Decision), Coverage: t.out.Coverage, LatencyMS: t.latency, trace: &t.trace}
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
	r.Markers = markerReport{Counts: counts, Audit: audit}
	r.Dropped = counts.ByReason
	r.Audit = map[string]int{"invented_marker": audit.Invented, "broken_marker": audit.Broken,
		"leaked_id": audit.LeakedIDs, "unknown_citation": audit.UnknownCitations, "unknown_named": audit.UnknownNamed}
	if audit.LeakedIDs+audit.Invented+audit.Broken > 0 {
		t.p.log.Warn("auditor found markers the gauntlet let through", zap.Any("findings", audit.Findings))
	}

	// Only the citations that survive in the answer are reported.
	answer := t.answer.String()
	cites := []gauntlet.Citation{}
	for _, c := range t.st.Citations() {
		if strings.Contains(answer, "["+fmt.Sprint(c.N)+"]") {
			cites = append(cites, c)
			if c.URL != "" {
				r.URLs = append(r.URLs, c.URL)
			} else {
				r.URLs = append(r.URLs, c.ID)
			}
		}
	}
	r.Citations = cites

	var jr judge.Report
	pool := make([]judge.Passage, len(t.out.Notes))
	for i, n := range t.out.Notes {
		pool[i] = judge.Passage{ID: n.ID, Title: n.Title, Text: n.Text}
	}
	if t.out.Decision == gate.Refuse {
		jr = judge.Report{Claims: []judge.Claim{}}
	} else {
		jr = t.p.judge.Finish(ctx, t.claims, pool, t.otherKBs())
	}
	// verify: what verification added to the end of the stream (waiting for
	// the last checks, classifying uncited claims), plus strict holds.
	t.latency["verify"] = ms(time.Since(v0) + t.strictVerify)
	if jr.Claims == nil {
		jr.Claims = []judge.Claim{}
	}
	r.Claims, r.Summary = jr.Claims, jr.Summary
	r.Verdicts = map[string]int{}
	for _, c := range jr.Claims {
		r.Verdicts[c.Verdict]++
	}
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

type otherKBs struct {
	eng    *retrieve.Engine
	tenant string
	kbs    []string
	min    float64
}

func (o otherKBs) Find(ctx context.Context, sentence string) (string, judge.Passage, bool) {
	for _, kb := range o.kbs {
		res, err := o.eng.Retrieve(ctx, retrieve.Query{Tenant: o.tenant, KB: kb, Text: sentence})
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
)

// Abandon waits for the report-mode checks already started; their context
// (the request's) has ended, so a remote judge call returns at once.
func (t *guardTurn) Abandon() { t.pending.Wait() }
