package operator

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// The turn log keeps, per tenant and knowledge base, a bounded ring of the
// most recent turns with what an operator needs to see why the guard
// decided as it did: the gate's exact inputs (every candidate's calibrated
// scores, kind, forced flag, lanes; whether a reranker ran; the planner's
// outline and the gate configuration in force), so that the what-if
// (whatif.go) can recompute a decision with the gate's own functions, and
// the turn's report (markers kept and dropped by reason, claim verdicts with
// their evidence, latencies).
//
// Logging a turn copies a bounded, fixed-shape record into a ring slot that
// is reused once the ring is full: it allocates only when a slot is filled
// for the first time (BenchmarkTurnLogRecord).

// TurnLogConfig configures the turn log (GET /v1/guard/turns,
// POST /v1/guard/whatif). Its settings take effect at start.
type TurnLogConfig struct {
	// Size is how many recent turns are kept per tenant and KB; 0 switches
	// the turn log off. Range [0, 100000], default 1000.
	Size int `yaml:"size"`
	// MaxPartitions caps the tenant/KB rings kept; the ring written least
	// recently is dropped to make room. Range [1, 10000], default 32.
	MaxPartitions int `yaml:"max_partitions"`
	// Questions is what is kept of the user's question and the answer's
	// claim sentences: "keep" (default), "hash" (a salted 64-bit hash of
	// the question, stable until restart, so repeats can be grouped; no
	// answer text) or "drop" (neither).
	Questions string `yaml:"questions"`
	// Persist optionally appends every logged turn as one JSON line to
	// Dir/turns.jsonl, rotated by size, and reads the newest back at
	// start.
	Persist TurnPersistConfig `yaml:"persist"`
}

// TurnPersistConfig configures the JSON-lines copy of the turn log.
type TurnPersistConfig struct {
	// Dir is the data directory; empty (default) keeps the turn log in
	// memory only.
	Dir string `yaml:"dir"`
	// MaxFileBytes rotates turns.jsonl to turns-<time>.jsonl once it
	// exceeds this size. >= 4096, default 64 MiB.
	MaxFileBytes int64 `yaml:"max_file_bytes"`
	// MaxFiles is how many rotated files are kept besides turns.jsonl
	// (the oldest are removed). >= 0, default 5.
	MaxFiles int `yaml:"max_files"`
}

// ConsoleConfig configures the operator console at /console.
type ConsoleConfig struct {
	// Enabled serves the console (default true). Even then it is served
	// only when auth is on or the listener is loopback; its data comes
	// from /v1/guard/turns and /v1/guard/whatif, which need an admin key
	// (or a tenant key, scoped to its tenant) when auth is on.
	Enabled bool `yaml:"enabled"`
}

// The question modes.
const (
	questionsKeep = "keep"
	questionsHash = "hash"
	questionsDrop = "drop"
)

func defaultTurnLog() TurnLogConfig {
	return TurnLogConfig{Size: 1000, MaxPartitions: 32, Questions: questionsKeep,
		Persist: TurnPersistConfig{MaxFileBytes: 64 << 20, MaxFiles: 5}}
}

func (c TurnLogConfig) validate() error {
	var errs []error
	if c.Size < 0 || c.Size > 100000 {
		errs = append(errs, fmt.Errorf("size: must be in [0,100000], got %d", c.Size))
	}
	if c.MaxPartitions < 1 || c.MaxPartitions > 10000 {
		errs = append(errs, fmt.Errorf("max_partitions: must be in [1,10000], got %d", c.MaxPartitions))
	}
	switch c.Questions {
	case questionsKeep, questionsHash, questionsDrop:
	default:
		errs = append(errs, fmt.Errorf("questions: must be keep, hash or drop, got %q", c.Questions))
	}
	if c.Persist.MaxFileBytes < 4096 {
		errs = append(errs, fmt.Errorf("persist.max_file_bytes: must be >= 4096, got %d", c.Persist.MaxFileBytes))
	}
	if c.Persist.MaxFiles < 0 {
		errs = append(errs, fmt.Errorf("persist.max_files: must be >= 0, got %d", c.Persist.MaxFiles))
	}
	return errors.Join(errs...)
}

// maxQuestionBytes bounds the question text kept per turn.
const maxQuestionBytes = 512

// candRec is one candidate as the gate saw it.
type candRec struct {
	id, title, kind, address string
	score, rerank, answer    float64
	relevance                float64 // the relevance model's score (gate.relevance: relevance)
	forced                   bool
	typeHit                  bool // holds the answer type asked for (gate.Candidate.TypeHit)
	lanes                    []string
	// sim is the sentence encoder's cosine with the question, meaningful
	// when semantic (gate.on_topic_sim reads it).
	sim      float64
	semantic bool
}

// turnEntry is one logged turn. Entries are reused when the ring wraps.
type turnEntry struct {
	seq               uint64
	at                int64 // unix nanoseconds, when the turn finished
	tenant, kb, model string
	stream            bool
	status            int
	q                 [maxQuestionBytes]byte
	qlen              int
	qcut              bool   // the question was longer than maxQuestionBytes
	qhash             uint64 // with questions: hash
	decision          gate.Decision
	offTopic          bool // a refusal as outside the corpus (the gate's off_topic check)
	cov               gate.Coverage
	traced            bool // the gate inputs below are set (not a pass-through turn)
	rerankActive      bool
	remote            bool
	cfg               *gate.Config
	ask               gate.Ask // what the question asks for (an input of gate.Decide)
	cands             []candRec
	coherence         float64 // the partition's coherence (gate.on_topic_coherence reads it), 0 when unknown
	outline           []int16 // indexes into cands of the outlined notes, in outline order
	total, ttft, wait time.Duration
	rep               turnrec.Report
}

// question returns the kept question text ("" unless questions: keep).
func (e *turnEntry) question() string { return string(e.q[:e.qlen]) }

// candidates rebuilds the gate's input from the record.
func (e *turnEntry) candidates() []gate.Candidate {
	out := make([]gate.Candidate, len(e.cands))
	for i, c := range e.cands {
		out[i] = gate.Candidate{ID: c.id, Title: c.title, Kind: c.kind, Address: c.address,
			Score: c.score, Rerank: c.rerank, Answer: c.answer, Relevance: c.relevance, Forced: c.forced, TypeHit: c.typeHit,
			Lanes: c.lanes, Sim: c.sim, Semantic: c.semantic}
		if c.semantic {
			out[i].Coherence = e.coherence
		}
	}
	return out
}

type partKey struct{ tenant, kb string }

// turnRing is one tenant/KB partition's ring.
type turnRing struct {
	mu      sync.Mutex
	key     partKey
	entries []*turnEntry // grows to size, then wraps
	next    int          // slot written next once full
	last    int64        // unix nanoseconds of the last write
	// persisted is the seq of the last entry written to the JSONL file.
	persisted uint64
	// shared is the seq of the last entry copied to Redis (state.go).
	shared uint64
}

// turnLog holds the rings. It is safe for concurrent use.
type turnLog struct {
	cfg   TurnLogConfig
	seed  maphash.Seed
	seq   atomic.Uint64
	mu    sync.RWMutex
	parts map[partKey]*turnRing
	// wake tells the persistence writer that turns were logged; nil
	// without persistence.
	wake chan struct{}
	// evicted counts rings dropped to stay under max_partitions.
	evicted atomic.Uint64
}

func newTurnLog(cfg TurnLogConfig) *turnLog {
	if cfg.Size <= 0 {
		return nil
	}
	return &turnLog{cfg: cfg, seed: maphash.MakeSeed(), parts: make(map[partKey]*turnRing)}
}

// ring returns the partition's ring, creating it (and dropping the least
// recently written one when at max_partitions).
func (tl *turnLog) ring(tenant, kb string) *turnRing {
	k := partKey{tenant, kb}
	tl.mu.RLock()
	r := tl.parts[k]
	tl.mu.RUnlock()
	if r != nil {
		return r
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if r = tl.parts[k]; r != nil {
		return r
	}
	if len(tl.parts) >= tl.cfg.MaxPartitions {
		var oldest *turnRing
		for _, p := range tl.parts {
			p.mu.Lock()
			if oldest == nil || p.last < oldest.last {
				oldest = p
			}
			p.mu.Unlock()
		}
		delete(tl.parts, oldest.key)
		tl.evicted.Add(1)
	}
	r = &turnRing{key: k, entries: make([]*turnEntry, 0, min(tl.cfg.Size, 64))}
	tl.parts[k] = r
	return r
}

// record logs one finished chat turn. It copies the gate inputs into the
// ring slot (reusing its buffers) and keeps the report's (immutable)
// contents by reference.
func (tl *turnLog) record(t *turnrec.Turn) {
	if tl == nil {
		return
	}
	now := t.Finished
	if now.IsZero() {
		now = time.Now()
	}
	r := tl.ring(t.Tenant, t.KB)
	r.mu.Lock()
	var e *turnEntry
	if len(r.entries) < tl.cfg.Size {
		e = &turnEntry{cands: make([]candRec, 0, 32), outline: make([]int16, 0, 8)}
		r.entries = append(r.entries, e)
	} else {
		e = r.entries[r.next]
		r.next = (r.next + 1) % len(r.entries)
	}
	tl.fill(e, t, now)
	r.last = e.at
	r.mu.Unlock()
	if tl.wake != nil {
		select {
		case tl.wake <- struct{}{}:
		default:
		}
	}
}

func (tl *turnLog) fill(e *turnEntry, t *turnrec.Turn, now time.Time) {
	e.seq = tl.seq.Add(1)
	e.at = now.UnixNano()
	e.tenant, e.kb, e.model, e.stream, e.status = t.Tenant, t.KB, t.Model, t.Stream, t.Status
	e.total, e.ttft, e.wait = now.Sub(t.Start), t.TTFT, t.UpstreamWait
	e.decision, e.rep = t.Report.Decision, t.Report
	e.qlen, e.qcut, e.qhash = 0, false, 0
	e.cands, e.outline = e.cands[:0], e.outline[:0]
	e.traced, e.rerankActive, e.remote, e.cfg, e.cov, e.ask, e.offTopic = false, false, false, nil, gate.Coverage{}, gate.Ask{}, false
	tr := t.Gate
	if tr == nil {
		return
	}
	switch tl.cfg.Questions {
	case questionsKeep:
		q := tr.Question
		if len(q) > maxQuestionBytes {
			cut := maxQuestionBytes
			for cut > 0 && !utf8.RuneStart(q[cut]) {
				cut--
			}
			q, e.qcut = q[:cut], true
		}
		e.qlen = copy(e.q[:], q)
	case questionsHash:
		e.qhash = maphash.String(tl.seed, tr.Question)
	}
	e.traced, e.rerankActive, e.remote, e.cfg, e.ask = true, tr.RerankActive, tr.Remote, tr.Config, tr.Ask
	if tr.Outcome != nil {
		e.cov, e.offTopic = tr.Outcome.Coverage, tr.Outcome.Checks["off_topic"]
	}
	e.coherence = 0
	for _, c := range tr.Cands {
		if c.Semantic && e.coherence == 0 {
			e.coherence = c.Coherence
		}
		e.cands = append(e.cands, candRec{id: c.ID, title: c.Title, kind: c.Kind, address: c.Address,
			score: c.Score, rerank: c.Rerank, answer: c.Answer, relevance: c.Relevance, forced: c.Forced, typeHit: c.TypeHit,
			lanes: c.Lanes, sim: c.Sim, semantic: c.Semantic})
	}
	if tr.Outcome != nil {
		for _, s := range tr.Outcome.Survivors {
			for j := range tr.Cands {
				if tr.Cands[j].ID == s.ID {
					e.outline = append(e.outline, int16(j))
					break
				}
			}
		}
	}
}

// turnFilter selects logged turns.
type turnFilter struct {
	tenant   string        // "" = any
	kbs      []string      // nil = any
	decision gate.Decision // "" = any
	since    int64         // unix nanoseconds; 0 = no bound
	until    int64
	id       uint64 // 0 = any
}

func (f *turnFilter) match(e *turnEntry) bool {
	return (f.tenant == "" || e.tenant == f.tenant) &&
		(f.kbs == nil || slices.Contains(f.kbs, e.kb)) &&
		(f.decision == "" || e.decision == f.decision) &&
		(f.since == 0 || e.at >= f.since) &&
		(f.until == 0 || e.at <= f.until) &&
		(f.id == 0 || e.seq == f.id)
}

// snapshot copies the matching entries out of the rings, newest first. The
// copies share the reports (immutable once logged) but own their candidate
// and outline slices.
func (tl *turnLog) snapshot(f turnFilter) []turnEntry {
	if tl == nil {
		return nil
	}
	rings := tl.rings()
	var out []turnEntry
	for _, r := range rings {
		r.mu.Lock()
		for _, e := range r.entries {
			if f.match(e) {
				c := *e
				c.cands = slices.Clone(e.cands)
				c.outline = slices.Clone(e.outline)
				out = append(out, c)
			}
		}
		r.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b turnEntry) int {
		switch {
		case a.seq > b.seq:
			return -1
		case a.seq < b.seq:
			return 1
		}
		return 0
	})
	return out
}

// partitions lists the rings (for the console's tenant filter).
func (tl *turnLog) partitions(f turnFilter) []partitionInfo {
	if tl == nil {
		return []partitionInfo{}
	}
	tl.mu.RLock()
	defer tl.mu.RUnlock()
	out := make([]partitionInfo, 0, len(tl.parts))
	for k, r := range tl.parts {
		if (f.tenant != "" && k.tenant != f.tenant) || (f.kbs != nil && !slices.Contains(f.kbs, k.kb)) {
			continue
		}
		r.mu.Lock()
		out = append(out, partitionInfo{Tenant: k.tenant, KB: k.kb, Turns: len(r.entries), Size: tl.cfg.Size})
		r.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b partitionInfo) int {
		if a.Tenant != b.Tenant {
			if a.Tenant < b.Tenant {
				return -1
			}
			return 1
		}
		if a.KB < b.KB {
			return -1
		}
		if a.KB > b.KB {
			return 1
		}
		return 0
	})
	return out
}

type partitionInfo struct {
	Tenant string `json:"tenant"`
	KB     string `json:"kb"`
	Turns  int    `json:"turns"`
	Size   int    `json:"size"`
	// Kinds are the kinds of the partition's chunks in the index in force
	// (the what-if's primary_kind choices); empty when it holds none.
	Kinds []string `json:"kinds"`
}

// rings lists the partitions' rings (each locked on its own while read).
func (tl *turnLog) rings() []*turnRing {
	tl.mu.RLock()
	defer tl.mu.RUnlock()
	rings := make([]*turnRing, 0, len(tl.parts))
	for _, r := range tl.parts {
		rings = append(rings, r)
	}
	return rings
}
