package retrieve

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/wordvec"
	"github.com/answer-guard/guard/internal/cpustage"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"
)

// Query is one retrieval request, scoped to a (tenant, kb) partition.
type Query struct {
	Tenant, KB, Text string
	// Also are further texts the lanes search for besides Text, as a
	// rewrite's are (gate.Ask.Also: the words of a contact detail for
	// "how can I reach you"); Text alone is scored and reranked against.
	Also []string
	// Previous is the conversation's user message before Text ("" when
	// none). With retrieve.followup on, a Text that follows up on it
	// (FollowsUp) is retrieved for as Previous and Text together
	// (FollowupQuery; Result.Query), and the remote rewriter reads it as
	// context; with followup off it is ignored.
	Previous string
}

// Candidate is one retrieved chunk.
type Candidate struct {
	ID, DocID, Title, Kind, Address, URL, Text string // ID is the citable real id (in the catalog)
	// Score is calibrated relevance in [0,1] (DESIGN.md); rerank never changes it.
	Score float64
	// Rerank is the rerank score; it only orders.
	Rerank float64
	// Lanes lists the lanes that found it: "dense", "lexical", "address", "memory".
	Lanes []string
	// Forced hits (lexical, address, memory refs) skip the prefloor.
	Forced bool
	// Sim is the sentence encoder's cosine between the question and the
	// passage, Soft the word vectors' soft coverage of the question's
	// words (SoftMin the worst-covered word's best cosine); set (and
	// Semantic true) when retrieve.semantic is on. They are features of
	// the gate's models; they do not change the order.
	Sim, Soft, SoftMin float64
	// Focus, FocusMiss, FocusWorst and SentSoft are the focus features
	// (semantic_focus.go): what the passage offers the question's rarest
	// words, and its best sentence's soft coverage.
	Focus, FocusMiss, FocusWorst, SentSoft float64
	Semantic                               bool
	// Coherence is the partition's topical coherence (index's
	// DenseCoherence: the mean cosine between two of its chunks' encoder
	// vectors relative to the encoder's background), set with the
	// semantic features; 0 when the snapshot keeps none.
	Coherence float64
}

// MemoryNote is curated background: injected, never cited.
type MemoryNote struct {
	Text  string
	Refs  []string
	Score float64
}

// Result is the outcome of one retrieval.
type Result struct {
	Candidates   []Candidate // final ranked list (top k + reserves), best first
	Memory       []MemoryNote
	RerankActive bool     // a reranker (remote or local) ordered the pool
	Degraded     []string // remote pieces that failed and were stood in for or skipped
	ShortCircuit bool     // a strong memory note short-circuited the corpus sweep
	// Expansion lists the question's words the partition does not know
	// and the partition's words the lexical lane added for each
	// (retrieve.expand_max).
	Expansion []Expansion
	// IDF weighs a stemmed term by its rarity in the queried partition
	// (the answerability model's coverage features); nil when no
	// partition matched.
	IDF func(term string) float64
	// Calibration is the queried partition's answerability calibration
	// (measured at index time), nil when its snapshot has none.
	Calibration *index.AnswerCalibration
	// HasKind reports whether the queried partition holds any chunk of a
	// kind (the gate's primary-kind rule counts every survivor in a
	// partition without the primary kind); nil when no partition matched.
	HasKind func(kind string) bool
	// Query is the text retrieved for and scored against: Query.Text, or
	// with Followup the previous user message and Query.Text together
	// (FollowupQuery). The gate's question is this text; its ask is
	// Query.Text's alone.
	Query string
	// General is the question's general-question score (general.go): the
	// mean cosine of its encoder vector to its 3 nearest general-knowledge
	// questions less that to its 3 nearest customer questions, both sets
	// embedded in the binary. 0 without the semantic features or
	// candidates.
	General float64
	// Names is the first word of the question that the queried partition
	// uses and that is rare in English (general.go): the question names
	// something of the corpus's own, so the gate does not take it for a
	// general-knowledge question. "" when none does.
	Names string
	// Other is the name of another business the question asks about
	// ("how much does Specsavers charge?", other.go), a word the
	// partition never uses; the gate handles such a question as
	// off-topic. "" when it names none or without the semantic features.
	Other string
}

// QueryEmbedder embeds query texts for one (tenant, kb); cache keys must
// include both. *index.RemoteEmbedder implements it.
type QueryEmbedder interface {
	EmbedScoped(ctx context.Context, tenant, kb string, texts []string) ([][]float32, error)
}

var _ QueryEmbedder = (*index.RemoteEmbedder)(nil)

// Engine runs hybrid retrieval over a snapshot. It is safe for concurrent
// use; Swap publishes a new snapshot atomically.
type Engine struct {
	cfg      Config
	log      *zap.Logger
	embedder QueryEmbedder // nil for local-embedder snapshots
	remote   Reranker      // nil unless rerank.mode is remote
	rewriter *rewriter
	patterns []*regexp.Regexp
	digitPat []bool // patterns[i] matches only text with a digit (needsDigit)
	cur      atomic.Pointer[state]

	// ownEmbedder is the embedder New made (nil otherwise); Close releases
	// its cache, whose goroutines would outlive the engine.
	ownEmbedder *index.RemoteEmbedder
	// sem computes the semantic features; nil unless cfg.Semantic.
	sem *semantic
	// exp expands the lexical query into the partition's vocabulary; nil
	// unless cfg.Semantic and cfg.ExpandMax > 0.
	exp *expander
	// questions caches questions' encoder vectors (nil when off).
	questions *questionCache
	// kinds caches each partition's set of kinds (*index.Partition ->
	// map[string]bool), dropped when a snapshot is published.
	kinds sync.Map
}

// kindSet returns the kinds of p's chunks, computed once per snapshot.
func (e *Engine) kindSet(p *index.Partition) map[string]bool {
	if v, ok := e.kinds.Load(p); ok {
		return v.(map[string]bool)
	}
	set := map[string]bool{}
	for _, c := range p.Chunks() {
		set[c.Kind] = true
	}
	e.kinds.Store(p, set)
	return set
}

// state is one published snapshot with a reader count, so that a swapped
// out snapshot is closed only after its in-flight queries finish.
type state struct {
	snap    *index.Snapshot
	refs    atomic.Int64
	retired atomic.Bool
	once    sync.Once
	log     *zap.Logger
}

func (s *state) release() {
	if s.refs.Add(-1) == 0 && s.retired.Load() {
		s.close()
	}
}

func (s *state) close() {
	s.once.Do(func() {
		if s.snap != nil {
			if err := s.snap.Close(); err != nil {
				s.log.Warn("close retired snapshot", zap.Error(err))
			}
		}
	})
}

// New builds an engine over snap (which it owns from now on; see Swap).
func New(cfg Config, ixCfg index.Config, snap *index.Snapshot, log *zap.Logger) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("retrieve config: %w", err)
	}
	if log == nil {
		log = zap.NewNop()
	}
	e := &Engine{cfg: cfg, log: log.Named("retrieve")}
	for _, p := range cfg.AddressPatterns {
		e.patterns = append(e.patterns, regexp.MustCompile(p))
		e.digitPat = append(e.digitPat, needsDigit(p))
	}
	if snap != nil && snap.Manifest.Embedder == "remote" || ixCfg.Embedder == "remote" {
		if ixCfg.Remote.BaseURL != "" {
			re, err := index.NewRemoteEmbedder(ixCfg.Remote, ixCfg.CacheMB)
			if err != nil {
				return nil, err
			}
			e.embedder, e.ownEmbedder = re, re
		}
	}
	if cfg.Rerank.Mode == "remote" {
		e.remote = NewRemoteReranker(cfg.Rerank)
	}
	e.questions = newQuestionCache(cfg.QuestionCacheMB)
	if cfg.Rewrite.Enabled {
		e.rewriter = newRewriter(cfg.Rewrite)
	}
	if cfg.Semantic {
		enc, err := encoder.Default()
		if err != nil {
			return nil, fmt.Errorf("sentence encoder: %w", err)
		}
		wv, err := wordvec.Default()
		if err != nil {
			return nil, fmt.Errorf("word vectors: %w", err)
		}
		e.sem = newSemantic(enc, wv)
		e.sem.banks() // the general-question sets, embedded once per process
		e.exp = newExpander(wv, cfg.ExpandMinCos, cfg.ExpandMax)
	}
	e.Swap(snap)
	return e, nil
}

// SetSemantic replaces the encoder and word vectors behind the semantic
// features (tests hand in fakes; nil enc switches them off). Call it
// before the engine serves queries.
func (e *Engine) SetSemantic(enc SentenceEncoder, wv WordVectors) {
	if enc == nil {
		e.sem, e.exp = nil, nil
		return
	}
	e.sem = newSemantic(enc, wv)
	e.exp = newExpander(wv, e.cfg.ExpandMinCos, e.cfg.ExpandMax)
}

// Swap publishes snap atomically. Queries already running finish on the
// previous snapshot, which is closed once the last of them returns. The
// engine owns snap from now on.
func (e *Engine) Swap(snap *index.Snapshot) {
	next := &state{snap: snap, log: e.log}
	next.refs.Store(1) // the engine's own reference
	old := e.cur.Swap(next)
	if e.sem != nil {
		e.sem.reset()
	}
	if e.exp != nil {
		e.exp.reset()
	}
	e.kinds.Clear()
	if old != nil {
		old.retired.Store(true)
		old.release()
	}
}

// Close retires the current snapshot and releases the remote embedder New
// made, if any (its cache runs goroutines), and the idle connections of the
// remote reranker and query rewriter.
func (e *Engine) Close() {
	e.Swap(nil)
	e.questions.close()
	if e.ownEmbedder != nil {
		e.ownEmbedder.Close()
	}
	if rr, ok := e.remote.(*RemoteReranker); ok {
		rr.client.Close()
	}
	if e.rewriter != nil {
		e.rewriter.client.Close()
	}
}

func (e *Engine) acquire() *state {
	for {
		s := e.cur.Load()
		if s == nil {
			return nil
		}
		if s.refs.Add(1) > 1 {
			return s
		}
		// Raced with the last release of a retired state: undo and retry.
		s.refs.Add(-1)
	}
}

// Contains reports whether id is a real citable id in the partition.
func (e *Engine) Contains(tenant, kb, id string) bool {
	s := e.acquire()
	if s == nil {
		return false
	}
	defer s.release()
	p := s.snap.Partition(tenant, kb)
	return p != nil && p.Contains(id)
}

// KBs lists the KBs this tenant has in the current snapshot.
func (e *Engine) KBs(tenant string) []string {
	s := e.acquire()
	if s == nil {
		return nil
	}
	defer s.release()
	return s.snap.KBs(tenant)
}

// Kinds lists the kinds of the partition's chunks in the current
// snapshot, sorted; nil for an unknown partition (the operator's what-if
// applies the primary-kind rule with them).
func (e *Engine) Kinds(tenant, kb string) []string {
	s := e.acquire()
	if s == nil {
		return nil
	}
	defer s.release()
	p := s.snap.Partition(tenant, kb)
	if p == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(e.kindSet(p)))
}

// cand is a pool member while a query is being answered.
type cand struct {
	slot    int
	lanes   uint8
	lexical float64 // BM25 of the question's own words (the rerank feature)
	lexRank int
	// lexExp is the lexical score with the expansion's part
	// (LexicalExpanded), order is the local reranker's score with it in
	// place of lexical: it orders the pool, while rerank, the gate's
	// feature, stays the question's own (0: no expansion).
	lexExp   float64
	order    float64
	score    float64
	rerank   float64
	forced   bool
	memScore float64
	match    index.Match
	// cos is the question's raw cosine to the chunk in the embedded
	// encoder's space; hasCos says it was computed (the partition's dense
	// lane is the encoder).
	cos    float64
	hasCos bool
	// key orders the pool when set (fuse), else rerank does.
	key float64
}

const (
	laneDense uint8 = 1 << iota
	laneLexical
	laneAddress
	laneMemory
)

var laneNames = []string{"dense", "lexical", "address", "memory"}

// NoCorpus is the degraded piece of a turn whose tenant and KB have no
// indexed passages (a misspelt X-KB-ID with auth off, a tenant whose corpus
// was never built): the turn cannot ground, and the report says why rather
// than falling back to general knowledge in silence.
const NoCorpus = "corpus"

// Retrieve runs the lanes for q and returns the final ranked candidates.
// An unknown (tenant, kb) returns a Result with no candidates, degraded
// NoCorpus, and no error.
func (e *Engine) Retrieve(ctx context.Context, q Query) (Result, error) {
	st := e.acquire()
	if st == nil {
		return Result{Degraded: []string{NoCorpus}}, nil
	}
	defer st.release()
	return e.RetrieveFrom(ctx, st.snap, q)
}

// RetrieveFrom is Retrieve against a snapshot the caller owns and keeps
// open for the duration of the call (benchmarks comparing configurations
// over one snapshot).
func (e *Engine) RetrieveFrom(ctx context.Context, snap *index.Snapshot, q Query) (Result, error) {
	p := snap.Partition(q.Tenant, q.KB)
	if p == nil {
		return Result{Degraded: []string{NoCorpus}}, nil
	}
	if strings.TrimSpace(q.Text) == "" {
		return Result{}, nil
	}
	kinds := e.kindSet(p)
	res := Result{IDF: p.Local().IDF, Calibration: p.AnswerCalibration(), HasKind: func(k string) bool { return kinds[k] }}
	degrade := func(what string) {
		if !slices.Contains(res.Degraded, what) {
			res.Degraded = append(res.Degraded, what)
		}
	}
	last := q.Text
	if e.cfg.Followup {
		q.Text, _ = FollowupQuery(q.Text, q.Previous)
	} else {
		q.Previous = ""
	}
	res.Query = q.Text
	texts := []string{q.Text}
	if e.rewriter != nil {
		rctx, cancel := context.WithTimeout(ctx, e.cfg.Rewrite.Timeout)
		rw, err := e.rewriter.rewrite(rctx, last, q.Previous)
		cancel()
		if err != nil {
			e.log.Warn("query rewrite failed", zap.Error(err))
			degrade("rewrite")
		} else {
			texts = append(texts, rw...)
		}
	}
	for _, t := range q.Also {
		if strings.TrimSpace(t) != "" {
			texts = append(texts, t)
		}
	}
	// Query vectors: in the partition's local dense space (the embedded
	// encoder, or the hashed model); remote when the snapshot's dense lane
	// is remote.
	cpustage.Embed.Enter()
	// The question's tokens, made once: the hashed model's vector, the
	// exact vector and the prepared query below read them.
	qToks := index.Tokenize(q.Text)
	localQ := make([][]float32, len(texts))
	for i, t := range texts {
		switch enc := p.Encoder(); {
		case enc != nil:
			localQ[i] = e.questions.embed(enc.Checksum(), q.Tenant, q.KB, t, p.EmbedQuery)
		case i == 0:
			localQ[i] = p.Local().EmbedTokens(qToks) // p.EmbedQuery(q.Text), as texts[0] is q.Text
		default:
			localQ[i] = p.EmbedQuery(t) // the hashed model: cheaper than a cache
		}
	}
	primaryQ, primaryOK := localQ, true
	if p.Remote() {
		primaryOK = false
		if e.embedder != nil {
			ectx, cancel := context.WithTimeout(ctx, e.cfg.LaneTimeout)
			vs, err := e.embedder.EmbedScoped(ectx, q.Tenant, q.KB, texts)
			cancel()
			if err == nil && len(vs) == len(texts) && len(vs[0]) == p.PrimaryDims() {
				primaryQ, primaryOK = vs, true
			} else if err != nil {
				e.log.Warn("query embedding failed; dense lane skipped", zap.Error(err))
			} else {
				e.log.Warn("query embedding dims mismatch; dense lane skipped")
			}
		}
		if !primaryOK {
			degrade("embeddings")
		}
	}
	cpustage.Retrieve.Enter()
	pool := map[int]*cand{}
	var block []cand // candidates are made in blocks, each never grown: pointers into it stay valid
	get := func(slot int) *cand {
		c := pool[slot]
		if c == nil {
			if len(block) == cap(block) {
				block = make([]cand, 0, 32)
			}
			block = append(block, cand{slot: slot, lexRank: -1})
			c = &block[len(block)-1]
			pool[slot] = c
		}
		return c
	}
	// Curated memory first: a strong note may short-circuit the sweep.
	qTerms, qSparse := p.Local().PrepareTokens(qToks) // PrepareQuery and SparseText of q.Text
	mem := e.memoryLane(ctx, p, q.Text, qSparse)
	res.Memory = mem.notes
	if mem.judgeFailed {
		degrade("rerank")
	}
	for slot, s := range mem.refs {
		c := get(slot)
		c.lanes |= laneMemory
		c.forced = true
		c.memScore = max(c.memScore, s)
	}
	res.ShortCircuit = mem.shortCircuit
	if !mem.shortCircuit {
		if e.exp != nil && e.cfg.LexicalK > 0 {
			res.Expansion = e.exp.expand(p, q.Text)
		}
		if err := e.sweep(ctx, p, texts, expansionWords(res.Expansion), primaryQ, primaryOK, get, degrade); err != nil {
			return Result{}, err
		}
		cpustage.Retrieve.Enter()
	}
	// Calibrated score of the original question: the remote model's cosine,
	// or the local model's exact cosine (also when the remote is down).
	for _, c := range pool {
		c.match = p.Match(qTerms, c.slot)
		if primaryOK && p.Remote() {
			c.score = p.Calibrate(p.Cosine(primaryQ[0], c.slot), true)
		} else {
			c.score = p.Local().Calib.Apply(c.match.Relevance())
		}
		if c.lanes&laneAddress != 0 {
			c.score = max(c.score, e.cfg.AddressScore)
		}
		if c.lanes&laneMemory != 0 {
			c.score = max(c.score, c.memScore)
		}
	}
	cands := e.capPool(pool)
	if p.Encoder() != nil && len(localQ[0]) == p.PrimaryDims() {
		for _, c := range cands {
			c.cos, c.hasCos = p.Cosine(localQ[0], c.slot), true
		}
	}
	cpustage.Rerank.Enter()
	res.RerankActive = e.rerank(ctx, p, q.Text, cands, degrade)
	ordered := e.order(q.Text, p, cands)
	var slots []int
	var cos []float64
	res.Candidates, slots, cos = e.cut(ordered, p)
	if e.sem != nil {
		cpustage.Semantic.Enter()
		qv := e.sem.fill(p, q.Text, localQ[0], slots, cos, res.Candidates, func(text string) []float32 {
			sum := ""
			if c, ok := e.sem.enc.(checksummer); ok {
				sum = c.Checksum()
			}
			return e.questions.embed(sum, q.Tenant, q.KB, text, e.sem.enc.Embed)
		})
		res.General = e.sem.generalScore(qv)
		if res.General != 0 {
			res.Names = e.sem.namedTerm(p, q.Text)
		}
		res.Other = e.sem.otherTerm(p, q.Text)
	}
	return res, nil
}

// sweep runs the dense, lexical and address lanes for every query text
// concurrently and merges their hits into the pool. The first text's
// lexical query is widened by extra (the expansion of the question).
func (e *Engine) sweep(ctx context.Context, p *index.Partition, texts, extra []string, primaryQ [][]float32, primaryOK bool,
	get func(int) *cand, degrade func(string)) error {
	type laneOut struct {
		lane uint8
		hits []index.Hit
		err  error
	}
	outs := make([]laneOut, 0, 3*len(texts))
	var mu sync.Mutex
	put := func(o laneOut) {
		mu.Lock()
		outs = append(outs, o)
		mu.Unlock()
	}
	g, gctx := errgroup.WithContext(ctx)
	// The last text's lexical and address lanes run on this goroutine once
	// the others are started: its stack is grown already, and growing a new
	// goroutine's stack for the Bleve query cost about a tenth of the lane.
	// The merge below does not depend on the order the lanes finish in.
	var here []func() error
	for ti, t := range texts {
		last := ti == len(texts)-1
		run := func(f func() error) {
			if last {
				here = append(here, f)
			} else {
				g.Go(f)
			}
		}
		if primaryOK {
			g.Go(func() error {
				cpustage.Dense.Enter()
				hits, err := p.Dense(primaryQ[ti], e.cfg.DenseK, e.cfg.DenseOverfetch)
				put(laneOut{laneDense, hits, err})
				return nil
			})
		}
		if e.cfg.LexicalK > 0 {
			run(func() error {
				cpustage.Lexical.Enter()
				lctx, cancel := context.WithTimeout(gctx, e.cfg.LaneTimeout)
				defer cancel()
				var hits []index.Hit
				var err error
				if ti == 0 && len(extra) > 0 {
					hits, err = p.LexicalExpanded(lctx, t, extra, e.cfg.ExpandBoost, e.cfg.LexicalK)
				} else {
					hits, err = p.Lexical(lctx, t, e.cfg.LexicalK)
				}
				put(laneOut{laneLexical, hits, err})
				return nil
			})
		}
		run(func() error {
			cpustage.Lexical.Enter()
			put(laneOut{laneAddress, e.addressLane(p, t), nil})
			return nil
		})
	}
	for _, f := range here {
		_ = f()
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("retrieve: %w", err)
	}
	var errs []error
	for _, o := range outs {
		if o.err != nil {
			errs = append(errs, o.err)
			if o.lane == laneDense {
				degrade("dense")
			} else {
				degrade("lexical")
			}
			continue
		}
		rank := 0
		for _, h := range o.hits {
			if o.lane == laneLexical && h.Base == 0 {
				// Found by the expansion alone: a candidate for the
				// pool, neither forced past the prefloor nor a lexical
				// lane hit in the gate's features.
				c := get(h.Index)
				c.lexExp = max(c.lexExp, h.Score)
				continue
			}
			c := get(h.Index)
			c.lanes |= o.lane
			switch o.lane {
			case laneLexical:
				c.forced = true
				c.lexical = max(c.lexical, h.Base)
				c.lexExp = max(c.lexExp, h.Score)
				if c.lexRank < 0 || rank < c.lexRank {
					c.lexRank = rank
				}
				rank++
			case laneAddress:
				c.forced = true
			}
		}
	}
	if len(errs) > 0 {
		e.log.Warn("retrieval lane failed", zap.Error(errors.Join(errs...)))
	}
	return nil
}

// addressLane finds address-shaped spans in the question and resolves them
// deterministically through the partition's address table.
func (e *Engine) addressLane(p *index.Partition, text string) []index.Hit {
	var hits []index.Hit
	seen := map[int]bool{}
	digits := hasDigit(text)
	for i, re := range e.patterns {
		if e.digitPat[i] && !digits {
			continue // it cannot match
		}
		for _, m := range re.FindAllString(text, 8) {
			for _, slot := range p.Address(m) {
				if !seen[slot] {
					seen[slot] = true
					hits = append(hits, index.Hit{Index: slot, Score: 1})
				}
			}
		}
	}
	return hits
}

// capPool keeps address and memory hits and the best LexicalKeep lexical
// hits, then fills up to PoolCap by calibrated dense score.
func (e *Engine) capPool(pool map[int]*cand) []*cand {
	all := make([]*cand, 0, len(pool))
	for _, c := range pool {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b *cand) int { return cmpDesc(a.score, b.score, a.slot, b.slot) })
	keep := make([]*cand, 0, e.cfg.PoolCap)
	rest := make([]*cand, 0, len(all))
	for _, c := range all {
		if c.lanes&(laneAddress|laneMemory) != 0 || (c.lexRank >= 0 && c.lexRank < e.cfg.LexicalKeep) {
			keep = append(keep, c)
		} else {
			rest = append(rest, c)
		}
	}
	for _, c := range rest {
		if len(keep) >= e.cfg.PoolCap {
			break
		}
		keep = append(keep, c)
	}
	return keep
}

func cmpDesc(a, b float64, ia, ib int) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return ia - ib
}

func (e *Engine) localReranker(p *index.Partition) *LocalReranker {
	return &LocalReranker{IDF: p.Local().IDF, W: DefaultLocalWeights}
}

// rerank fills c.rerank; it reports whether a reranker ordered the pool.
func (e *Engine) rerank(ctx context.Context, p *index.Partition, q string, cands []*cand, degrade func(string)) bool {
	if e.cfg.Rerank.Mode == "off" || len(cands) == 0 {
		for _, c := range cands {
			c.rerank = c.score
		}
		return false
	}
	var maxLex float64
	for _, c := range cands {
		maxLex = max(maxLex, c.lexical)
	}
	docs := make([]RerankDoc, len(cands))
	for i, c := range cands {
		ch := p.Chunk(c.slot)
		docs[i] = RerankDoc{Title: ch.Title, Text: ch.Text, Dense: c.score, Match: &c.match}
		if maxLex > 0 {
			docs[i].Lexical = c.lexical / maxLex
		}
	}
	var scores []float64
	var err error
	remoteFailed := false
	if e.remote != nil {
		rctx, cancel := context.WithTimeout(ctx, e.cfg.Rerank.Timeout)
		scores, err = e.remote.Rerank(rctx, q, docs)
		cancel()
		if err != nil || len(scores) != len(docs) {
			e.log.Warn("remote rerank failed; local reranker stands in", zap.Error(err))
			degrade("rerank")
			scores, remoteFailed = nil, true
		}
	}
	if scores == nil {
		scores, err = e.localReranker(p).Rerank(ctx, q, docs)
		if err != nil {
			for _, c := range cands {
				c.rerank = c.score
			}
			return false
		}
	}
	for i, c := range cands {
		c.rerank = scores[i]
		// An exact address resolution and a curated-memory reference are
		// relevant by rule (their scores are AddressScore and the memory
		// score), which a reranker reading only the text cannot know
		// ("What does John 3:16 say?" shares few words with the verse):
		// their rerank relevance never falls below that rule's score, so
		// the gate, which reads rerank relevance when a reranker ran, sees
		// them as the engine ranks them.
		if c.lanes&(laneAddress|laneMemory) != 0 {
			c.rerank = max(c.rerank, c.score)
		}
	}
	if e.remote == nil || remoteFailed {
		e.orderExpanded(ctx, p, q, docs, cands)
		e.fuse(p, cands)
	}
	return true
}

// orderExpanded sets c.order, the local reranker's score with the
// expanded lexical score in place of the question's own, when the
// expansion found anything (retrieve.expand_max): the expansion moves the
// pool's order, not the rerank score the gate reads.
func (e *Engine) orderExpanded(ctx context.Context, p *index.Partition, q string, docs []RerankDoc, cands []*cand) {
	var maxExp float64
	differs := false
	for _, c := range cands {
		maxExp = max(maxExp, c.lexExp)
		differs = differs || c.lexExp != c.lexical
	}
	if !differs || maxExp == 0 {
		return
	}
	for i, c := range cands {
		docs[i].Lexical = c.lexExp / maxExp
	}
	scores, err := e.localReranker(p).Rerank(ctx, q, docs)
	if err != nil {
		return
	}
	for i, c := range cands {
		c.order = scores[i]
		if c.lanes&(laneAddress|laneMemory) != 0 {
			c.order = max(c.order, c.score)
		}
	}
}

// fuse sets the order key of the local reranker's pool: the rerank
// score's logit plus rerank.dense_weight times the question's encoder
// cosine to the chunk as a z-score within the pool, scaled by the share
// of the chunk the encoder reads (encoderReach). The rerank score itself,
// a feature of the gate's models, stays the term-match reranker's. No-op
// without encoder cosines or with weight 0.
func (e *Engine) fuse(p *index.Partition, cands []*cand) {
	w := e.cfg.Rerank.DenseWeight
	mean, sd := poolMoments(cands)
	if w == 0 || sd == 0 {
		return
	}
	for _, c := range cands {
		if !c.hasCos {
			continue
		}
		r := c.rerank
		if c.order != 0 {
			r = c.order
		}
		r = min(max(r, 1e-9), 1-1e-9)
		z := (c.cos - mean) / sd * encoderReach(p.Chunk(c.slot))
		c.key = 1 / (1 + math.Exp(-(math.Log(r/(1-r)) + w*z)))
	}
}

// poolMoments returns the mean and standard deviation of the pool's
// dense cosines (0, 0 when fewer than two carry one; sd 0 when they are
// all equal, which the caller reads as no signal).
func poolMoments(cands []*cand) (mean, sd float64) {
	var n, sum, sq float64
	for _, c := range cands {
		if c.hasCos {
			n++
			sum += c.cos
			sq += c.cos * c.cos
		}
	}
	if n < 2 {
		return 0, 0
	}
	mean = sum / n
	if v := sq/n - mean*mean; v > 1e-12 {
		sd = math.Sqrt(v)
	}
	return mean, sd
}

// encoderReach is the share of a chunk's text the encoder reads (its
// vector embeds index.EncoderText, at most maxEncodedChars bytes): a long
// page's vector is its opening, and its cosine speaks for the page only
// that far.
func encoderReach(ch *index.Chunk) float64 {
	n := len(ch.Text)
	if ch.Title != "" {
		n += len(ch.Title) + 2
	}
	if n <= maxEncodedChars {
		return 1
	}
	return float64(maxEncodedChars) / float64(n)
}

// askedKinds returns the kinds the question asks for by name.
func (e *Engine) askedKinds(q string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		words[w] = true
	}
	out := map[string]bool{}
	for kind, ws := range e.cfg.KindWords {
		for _, w := range ws {
			if words[w] {
				out[kind] = true
			}
		}
	}
	return out
}

// order sorts the pool: exact address hits first, then the fused order
// key (or the rerank score) plus the kind boost.
func (e *Engine) order(q string, p *index.Partition, cands []*cand) []*cand {
	kinds := e.askedKinds(q)
	key := func(c *cand) float64 {
		k := c.rerank
		if c.order != 0 {
			k = c.order
		}
		if c.key != 0 {
			k = c.key
		}
		if kinds[p.Chunk(c.slot).Kind] {
			k += e.cfg.KindBoost
		}
		return k
	}
	slices.SortStableFunc(cands, func(a, b *cand) int {
		aa, ba := a.lanes&laneAddress != 0, b.lanes&laneAddress != 0
		if aa != ba {
			if aa {
				return -1
			}
			return 1
		}
		return cmpDesc(key(a), key(b), a.slot, b.slot)
	})
	return cands
}

// cut keeps the top k, then adds per-kind reserves from the rest of the
// ordered pool.
func (e *Engine) cut(ordered []*cand, p *index.Partition) ([]Candidate, []int, []float64) {
	n := min(e.cfg.TopK, len(ordered))
	out := make([]Candidate, 0, n+4)
	slots := make([]int, 0, n+4)
	var cos []float64 // the kept candidates' encoder cosines, nil unless every one has it
	if len(ordered) > 0 && ordered[0].hasCos {
		cos = make([]float64, 0, n+4)
	}
	keep := func(c *cand) {
		out = append(out, e.candidate(c, p))
		slots = append(slots, c.slot)
		if cos != nil {
			cos = append(cos, c.cos)
		}
	}
	have := map[string]int{}
	for _, c := range ordered[:n] {
		keep(c)
		have[p.Chunk(c.slot).Kind]++
	}
	for _, c := range ordered[n:] {
		kind := p.Chunk(c.slot).Kind
		if have[kind] < e.cfg.Reserves[kind] {
			keep(c)
			have[kind]++
		}
	}
	return out, slots, cos
}

func (e *Engine) candidate(c *cand, p *index.Partition) Candidate {
	ch := p.Chunk(c.slot)
	return Candidate{ID: ch.ID, DocID: ch.DocID, Title: ch.Title, Kind: ch.Kind, Address: ch.Address, URL: ch.URL, Text: ch.Text,
		Score: c.score, Rerank: c.rerank, Lanes: laneSets[c.lanes], Forced: c.forced}
}

// laneSets[m] names the lanes of mask m in laneNames' order (nil for none).
// Candidates share them: read-only, and clipped, so an append copies.
var laneSets = func() [][]string {
	t := make([][]string, 1<<len(laneNames))
	for m := range t {
		for i, name := range laneNames {
			if m&(1<<i) != 0 {
				t[m] = append(t[m], name)
			}
		}
		t[m] = slices.Clip(t[m])
	}
	return t
}()
