package operator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// The gap queue gathers, per tenant and KB, where the corpus is thin:
// questions the guard refused or answered from general knowledge
// (fallback), off-topic refusals apart (off_topic), and uncited factual claims the verifier classified `gap`.
// Near-duplicates (by word overlap) are one entry with a count and the
// first and last time seen. It is bounded per (tenant, KB) and in total,
// kept in memory, and written to state.dir/gaps.json (periodically and at
// shutdown) so a restart keeps it. GET /v1/guard/gaps lists it, most
// frequent first; `guard gaps` prints it.

// StateConfig is where the proxy keeps what it learns while serving.
type StateConfig struct {
	// Dir holds the proxy's state files (gaps.json). Empty = in memory only:
	// a restart forgets the gap queue. Read at start (a restart applies a
	// change).
	Dir string `yaml:"dir"`
	// RedisURL (redis://[user:pass@]host:port/db), when set, makes the turn
	// log and the gap queue shared by every replica that names the same
	// Redis (state.go). Empty (default): each replica keeps its own.
	// Read at start.
	RedisURL string `yaml:"redis_url"`
	// RedisTTL expires a partition's shared turns and gaps this long after
	// their last write. > 0, default 168h.
	RedisTTL time.Duration `yaml:"redis_ttl"`
	// RedisFlush is how often a replica copies its new turns and gap
	// observations to Redis. > 0, default 500ms.
	RedisFlush time.Duration `yaml:"redis_flush"`
}

func (c StateConfig) validate() error {
	var errs []error
	if c.RedisURL != "" {
		if _, err := redis.ParseURL(c.RedisURL); err != nil {
			errs = append(errs, fmt.Errorf("redis_url: %w", err))
		}
	}
	if c.RedisTTL <= 0 {
		errs = append(errs, fmt.Errorf("redis_ttl: must be > 0, got %s", c.RedisTTL))
	}
	if c.RedisFlush <= 0 {
		errs = append(errs, fmt.Errorf("redis_flush: must be > 0, got %s", c.RedisFlush))
	}
	return errors.Join(errs...)
}

// GapsConfig is the gap queue.
type GapsConfig struct {
	// Enabled gathers refusals, fallbacks and gap claims. Default true.
	Enabled bool `yaml:"enabled"`
	// Similarity: a question (or claim) whose word overlap (Jaccard, on
	// content words) with a queued one of the same tenant, KB and kind is at
	// least this is counted as that one. Default 0.7, in (0,1].
	Similarity float64 `yaml:"similarity"`
	// MaxPerKB bounds the entries of one (tenant, KB); when full, a
	// resolved or dismissed entry makes room first, then the least
	// frequent, least recently seen. Default 500, >= 1.
	MaxPerKB int `yaml:"max_per_kb"`
	// MaxEntries bounds all entries together. Default 20000, >= max_per_kb.
	MaxEntries int `yaml:"max_entries"`
	// FlushInterval is how often a changed queue is written to state.dir
	// (and at shutdown). Default 5s, > 0. Read at start.
	FlushInterval time.Duration `yaml:"flush_interval"`
	// ReaskLimit is how many open refused, fallback and off_topic entries are asked
	// again, most frequent first, after a reload puts a new snapshot or new
	// thresholds in force (retrieval and the gate only, no model call); an
	// entry that now grounds is marked resolved. 0 = never. Default 1000,
	// in [0, 100000].
	ReaskLimit int `yaml:"reask_limit"`
}

func defaultGaps() GapsConfig {
	return GapsConfig{Enabled: true, Similarity: 0.7, MaxPerKB: 500, MaxEntries: 20000, FlushInterval: 5 * time.Second, ReaskLimit: 1000}
}

func (g GapsConfig) validate() error {
	var errs []error
	if g.Similarity <= 0 || g.Similarity > 1 {
		errs = append(errs, fmt.Errorf("similarity: must be in (0,1], got %g", g.Similarity))
	}
	if g.MaxPerKB < 1 {
		errs = append(errs, fmt.Errorf("max_per_kb: must be >= 1, got %d", g.MaxPerKB))
	}
	if g.MaxEntries < g.MaxPerKB {
		errs = append(errs, fmt.Errorf("max_entries: must be >= max_per_kb (%d), got %d", g.MaxPerKB, g.MaxEntries))
	}
	if g.FlushInterval <= 0 {
		errs = append(errs, fmt.Errorf("flush_interval: must be > 0, got %s", g.FlushInterval))
	}
	if g.ReaskLimit < 0 || g.ReaskLimit > 100000 {
		errs = append(errs, fmt.Errorf("reask_limit: must be in [0,100000], got %d", g.ReaskLimit))
	}
	return errors.Join(errs...)
}

// Gap kinds.
const (
	GapRefused  = "refused"
	GapFallback = "fallback"
	GapClaim    = "gap" // an uncited claim the verifier classified gap
	// GapOffTopic is a question refused as outside the corpus (the gate's
	// off_topic check, gate.off_topic: refuse): kept apart from refused,
	// the on-topic questions the corpus does not answer.
	GapOffTopic = "off_topic"
)

// Gap statuses.
const (
	GapOpen      = "open"
	GapResolved  = "resolved"  // answered now (a re-ask after a reload grounded it), or marked so by an operator
	GapDismissed = "dismissed" // an operator chose not to cover it; further sightings are counted, it stays dismissed
)

// maxGapText bounds the text kept per entry.
const maxGapText = 500

// Gap is one entry of the queue.
type Gap struct {
	// ID names the entry: a hash of its tenant, KB, kind and text as first
	// seen, so every replica and every restart gives it the same one.
	ID     string `json:"id,omitempty"` // "" only in a list from the turn log (turnLogGaps)
	Tenant string `json:"tenant"`
	KB     string `json:"kb"`
	Kind   string `json:"kind"` // refused | fallback | gap | off_topic
	// Text is the question (refused, fallback, off_topic) or the claim (gap), as
	// first seen.
	Text string `json:"text"`
	// Question is the question a gap claim answered.
	Question  string    `json:"question,omitempty"`
	Count     int       `json:"count"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// CoverageMax is the best coverage (the gate's calibrated relevance)
	// any sighting or re-ask of it reached.
	CoverageMax float64 `json:"coverage_max"`
	Status      string  `json:"status"` // open | resolved | dismissed
	// ResolvedAt and Resolution say when and how it left the open queue.
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	Resolution string     `json:"resolution,omitempty"`

	words []string // content words, sorted, for the similarity test
}

// gapID is the stable id of an entry.
func gapID(tenant, kb, kind, text string) string {
	h := sha256.Sum256([]byte(tenant + "\x00" + kb + "\x00" + kind + "\x00" + strings.ToLower(strings.TrimSpace(text))))
	return hex.EncodeToString(h[:8])
}

// gapQueue is the queue; safe for concurrent use.
type gapQueue struct {
	mu      sync.Mutex
	entries map[[2]string][]*Gap // (tenant, kb) -> entries
	total   int
	dirty   bool
	path    string // state file; "" = memory only
	log     *zap.Logger
	now     func() time.Time
	saveErr onceLog // a failing write is logged once per outage

	stop chan struct{}
	done chan struct{}
	// share, when set, also hands each observation and status change to
	// the shared state store (state.go).
	share func(gapObservation)
}

func newGapQueue(dir string, log *zap.Logger) (*gapQueue, error) {
	q := &gapQueue{entries: map[[2]string][]*Gap{}, log: log, now: time.Now, saveErr: onceLog{log: log, what: "gap queue not saved"}}
	if dir == "" {
		return q, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state.dir: %w", err)
	}
	q.path = filepath.Join(dir, "gaps.json")
	gaps, err := loadGapFile(q.path, log)
	if err != nil {
		return nil, fmt.Errorf("state.dir: %w", err)
	}
	for _, g := range gaps {
		q.put(g)
	}
	return q, nil
}

// put files a loaded entry (ids and statuses filled in for a file written
// before they existed).
func (q *gapQueue) put(g *Gap) {
	g.words = contentWords(g.Text)
	if g.ID == "" {
		g.ID = gapID(g.Tenant, g.KB, g.Kind, g.Text)
	}
	if g.Status == "" {
		g.Status = GapOpen
	}
	k := [2]string{g.Tenant, g.KB}
	q.entries[k] = append(q.entries[k], g)
	q.total++
}

type gapFile struct {
	Version int    `json:"version"`
	Gaps    []*Gap `json:"gaps"`
}

// run writes the queue to its file every interval while it changes, until
// close. Only started with a state file.
func (q *gapQueue) run(interval time.Duration) {
	q.stop, q.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(q.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-q.stop:
				return
			case <-t.C:
				q.save()
			}
		}
	}()
}

// save flushes, logging a failure once per outage (the queue stays in
// memory, bounded, and the next flush tries again).
func (q *gapQueue) save() bool {
	err := q.flush()
	q.saveErr.report(err)
	return err == nil
}

// close stops the writer and writes what changed. A write that fails
// (a full disk) is logged, not returned: the queue is lost only with the
// process, and shutdown goes on.
func (q *gapQueue) close() {
	if q == nil {
		return
	}
	if q.stop != nil {
		close(q.stop)
		<-q.done
		q.stop = nil
	}
	q.save()
}

// flush writes the queue when it changed (atomically and durably: temp
// file, fsync, rename, fsync of the directory).
func (q *gapQueue) flush() error {
	if q.path == "" {
		return nil
	}
	q.mu.Lock()
	if !q.dirty {
		q.mu.Unlock()
		return nil
	}
	f := gapFile{Version: 1, Gaps: make([]*Gap, 0, q.total)}
	for _, es := range q.entries {
		for _, g := range es {
			c := *g
			f.Gaps = append(f.Gaps, &c)
		}
	}
	q.dirty = false
	q.mu.Unlock()
	sortGaps(f.Gaps)
	b, err := json.Marshal(f)
	if err == nil {
		err = writeFileDurable(q.path, b)
	}
	if err != nil {
		q.mu.Lock()
		q.dirty = true
		q.mu.Unlock()
		return fmt.Errorf("write %s: %w", q.path, err)
	}
	return nil
}

// add counts one observation; cov is the coverage the turn's gate saw.
func (q *gapQueue) add(cfg GapsConfig, tenant, kb, kind, text, question string, cov float64) {
	text = clipRunes(strings.TrimSpace(text), maxGapText)
	if text == "" {
		return
	}
	words := contentWords(text)
	now := q.now().UTC()
	if q.share != nil {
		q.share(gapObservation{Tenant: tenant, KB: kb, Kind: kind, Text: text, Question: question, Coverage: cov, At: now})
	}
	k := [2]string{tenant, kb}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dirty = true
	for _, g := range q.entries[k] {
		if g.Kind == kind && similar(g, words, text, cfg.Similarity) {
			g.Count++
			g.LastSeen = now
			g.CoverageMax = max(g.CoverageMax, cov)
			if g.Status == GapResolved {
				// Resolved, yet refused (or fallen back) again: open again.
				g.Status, g.ResolvedAt, g.Resolution = GapOpen, nil, ""
			}
			return
		}
	}
	if len(q.entries[k]) >= cfg.MaxPerKB {
		q.evict(k)
	}
	for q.total >= cfg.MaxEntries {
		q.evict(q.fullest())
	}
	g := &Gap{ID: gapID(tenant, kb, kind, text), Tenant: tenant, KB: kb, Kind: kind, Text: text, Question: clipRunes(question, maxGapText), Count: 1,
		FirstSeen: now, LastSeen: now, CoverageMax: cov, Status: GapOpen, words: words}
	q.entries[k] = append(q.entries[k], g)
	q.total++
}

// setStatus moves the entry id to status (resolved or dismissed, or open
// again), saying why; it returns a copy of the entry, or nil when there is
// none. cov, when > 0, is a re-ask's coverage.
func (q *gapQueue) setStatus(id, status, why string, at time.Time, cov float64) *Gap {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, es := range q.entries {
		for _, g := range es {
			if g.ID != id {
				continue
			}
			g.Status, g.Resolution, g.ResolvedAt = status, why, nil
			if status != GapOpen {
				at := at.UTC()
				g.ResolvedAt = &at
			}
			g.CoverageMax = max(g.CoverageMax, cov)
			q.dirty = true
			c := *g
			return &c
		}
	}
	return nil
}

// find returns a copy of the entry id, or nil.
func (q *gapQueue) find(id string) *Gap {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, es := range q.entries {
		for _, g := range es {
			if g.ID == id {
				c := *g
				return &c
			}
		}
	}
	return nil
}

// evict drops the entry of k that matters least: a resolved or dismissed
// one first, then the least frequent, least recently seen.
func (q *gapQueue) evict(k [2]string) {
	es := q.entries[k]
	if len(es) == 0 {
		return
	}
	worst := 0
	for i, g := range es {
		w := es[worst]
		gOpen, wOpen := g.Status == GapOpen, w.Status == GapOpen
		switch {
		case gOpen != wOpen:
			if !gOpen {
				worst = i
			}
		case g.Count < w.Count || g.Count == w.Count && g.LastSeen.Before(w.LastSeen):
			worst = i
		}
	}
	es[worst] = es[len(es)-1]
	es = es[:len(es)-1]
	if len(es) == 0 {
		delete(q.entries, k)
	} else {
		q.entries[k] = es
	}
	q.total--
}

// fullest is the (tenant, KB) with the most entries.
func (q *gapQueue) fullest() [2]string {
	var best [2]string
	n := -1
	for k, es := range q.entries {
		if len(es) > n || len(es) == n && (k[0] < best[0] || k[0] == best[0] && k[1] < best[1]) {
			best, n = k, len(es)
		}
	}
	return best
}

// gapFilter selects entries ("" = any; kbs and kinds nil = any).
type gapFilter struct {
	tenant string
	kbs    []string
	kinds  []string
	status string
}

// list returns copies of the entries matching f, most frequent first.
func (q *gapQueue) list(f gapFilter) []*Gap {
	q.mu.Lock()
	var out []*Gap
	for k, es := range q.entries {
		if f.tenant != "" && k[0] != f.tenant || f.kbs != nil && !slices.Contains(f.kbs, k[1]) {
			continue
		}
		for _, g := range es {
			if (f.kinds == nil || slices.Contains(f.kinds, g.Kind)) && (f.status == "" || g.Status == f.status) {
				c := *g
				out = append(out, &c)
			}
		}
	}
	q.mu.Unlock()
	sortGaps(out)
	return out
}

func sortGaps(gs []*Gap) {
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if !a.LastSeen.Equal(b.LastSeen) {
			return a.LastSeen.After(b.LastSeen)
		}
		if a.Tenant != b.Tenant || a.KB != b.KB {
			return a.Tenant+"/"+a.KB < b.Tenant+"/"+b.KB
		}
		return a.Kind+a.Text < b.Kind+b.Text
	})
}

// observe files a finished turn's gaps: the question of a refused or
// fallback turn (an off-topic refusal as kind off_topic), and each uncited claim of a grounded answer that the
// verifier classified gap (once per turn).
func (q *gapQueue) observe(cfg GapsConfig, t *turnrec.Turn) {
	if q == nil || !cfg.Enabled || t.Query == "" {
		return
	}
	cov := 0.0
	if t.Gate != nil && t.Gate.Outcome != nil {
		cov = t.Gate.Outcome.Coverage.Max
	}
	switch t.Report.Decision {
	case gate.Refuse:
		kind := GapRefused
		if t.Gate != nil && t.Gate.Outcome != nil && t.Gate.Outcome.Checks["off_topic"] {
			kind = GapOffTopic
		}
		q.add(cfg, t.Tenant, t.KB, kind, t.Query, "", cov)
	case gate.Fallback:
		q.add(cfg, t.Tenant, t.KB, GapFallback, t.Query, "", cov)
	case gate.Ground:
		claims := t.Report.Claims
		var seen map[string]bool // a claim repeated in one answer counts once
		for _, c := range claims {
			if c.Uncited != "gap" {
				continue
			}
			k := strings.ToLower(c.Text)
			if seen[k] {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[k] = true
			q.add(cfg, t.Tenant, t.KB, GapClaim, c.Text, t.Query, cov)
		}
	}
}

// turnLogGaps groups the refusals and fallbacks of logged turns (es) by
// tenant, KB, kind and question as observe files them in the queue (a
// refusal as outside the corpus is kind off_topic), most frequent first:
// what GET /v1/guard/gaps?source=turnlog lists when the queue is off. A
// group has no id (there is no entry to resolve) and is open; a question
// the log did not keep is its hash ("#1f2e...") or "(question not kept)".
func turnLogGaps(es []turnEntry) []*Gap {
	groups := map[[4]string]*Gap{}
	var out []*Gap
	for i := range es {
		e := &es[i]
		kind := GapFallback
		switch {
		case e.decision == gate.Refuse && e.offTopic:
			kind = GapOffTopic
		case e.decision == gate.Refuse:
			kind = GapRefused
		case e.decision != gate.Fallback:
			continue
		}
		text := e.question()
		switch {
		case text == "" && e.qhash != 0:
			text = "#" + strconv.FormatUint(e.qhash, 16)
		case text == "":
			text = "(question not kept)"
		}
		at := time.Unix(0, e.at).UTC()
		k := [4]string{e.tenant, e.kb, kind, text}
		g := groups[k]
		if g == nil {
			g = &Gap{Tenant: e.tenant, KB: e.kb, Kind: kind, Text: text, Status: GapOpen, FirstSeen: at, LastSeen: at}
			groups[k] = g
			out = append(out, g)
		}
		g.Count++
		g.CoverageMax = max(g.CoverageMax, e.cov.Max)
		if at.Before(g.FirstSeen) {
			g.FirstSeen = at
		}
		if at.After(g.LastSeen) {
			g.LastSeen = at
		}
	}
	sortGaps(out)
	return out
}

// startGaps opens the gap queue of cfg.State.Dir and, with a state file,
// starts its writer; gapQueue.close (at shutdown) stops it and saves the
// queue.
func (p *Plane) startGaps(cfg Config) error {
	q, err := newGapQueue(cfg.State.Dir, p.log.Named("gaps"))
	if err != nil {
		return err
	}
	if q.path != "" {
		q.run(cfg.Gaps.FlushInterval)
	}
	p.gapQ = q
	return nil
}

var gapStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for from by with about as into is are was were be been being
		do does did done have has had can could would should will shall may might must i me my we our you your he she it its they them their
		what which who whom whose when where why how this that these those there here s t d ll re ve m not no please tell explain`) {
		gapStopwords[w] = true
	}
}

// contentWords returns the sorted distinct content words of s (lower
// case, a plural s stripped).
func contentWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if gapStopwords[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// similar compares by the Jaccard overlap of content words; texts without
// content words compare equal only when equal ignoring case.
func similar(g *Gap, words []string, text string, min float64) bool {
	if len(words) == 0 || len(g.words) == 0 {
		return len(words) == len(g.words) && strings.EqualFold(strings.TrimSpace(g.Text), text)
	}
	inter, i, j := 0, 0, 0
	for i < len(words) && j < len(g.words) {
		switch {
		case words[i] == g.words[j]:
			inter++
			i++
			j++
		case words[i] < g.words[j]:
			i++
		default:
			j++
		}
	}
	union := len(words) + len(g.words) - inter
	return float64(inter) >= min*float64(union)
}

func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
