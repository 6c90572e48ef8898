package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/index/internal/disk"
	"go.uber.org/zap"
)

// HaluGate checks derived content at index time. A corpus line or memory
// entry that names its sources (`"sources": [ids]`) was written from other
// entries of its partition (an FAQ from the handbook, a curated note, a
// summary page): its factual claims are verified against those sources
// before it is indexed, each entry gets a risk level, and high-risk entries
// are kept out of retrieval unless the configuration says otherwise. The
// findings are stored in each partition's halugate.json and read back by
// `guard index audit` (ReadAudit).
//
// The verifier is handed in (WithVerifier): index does not know how claims
// are judged; cmd/guard adapts the judge's verifier to Verifier.

// Verifier is what HaluGate needs of a claim verifier. Implementations must
// be safe for concurrent use and honour ctx.
type Verifier interface {
	// Claims splits an entry's text into its checkable factual claims.
	Claims(text string) []string
	// Verify checks one claim against the entry's named sources.
	Verify(ctx context.Context, claim string, sources []SourcePassage) (ClaimVerdict, error)
}

// SourcePassage is one named source of a derived entry.
type SourcePassage struct {
	ID, Title, Text string
}

// ClaimVerdict is the verifier's answer on one claim.
type ClaimVerdict struct {
	Label      string  // entailment | contradiction | neutral
	Confidence float64 // in [0,1]
	Evidence   string  // best-matching source span ("" when none)
	Method     string  // local | llm | ...
	Reason     string
}

// Risk levels of a derived entry.
const (
	RiskLow       = "low"
	RiskMedium    = "medium"
	RiskHigh      = "high"
	RiskUnchecked = "unchecked" // no verifier was configured
)

// HaluGateConfig is the index.halugate section.
type HaluGateConfig struct {
	// Enabled checks every entry with sources at build and add. Default true.
	Enabled bool `yaml:"enabled"`
	// Verifier is "local" (the judge's heuristic NLI, no network) or "llm"
	// (the verify.llm judge). Default local.
	Verifier string `yaml:"verifier"`
	// HighUnsupported: an entry is high risk when any claim is contradicted
	// by its sources or at least this share of its claims is not supported.
	// Default 0.5, in (0,1].
	HighUnsupported float64 `yaml:"high_unsupported"`
	// MediumUnsupported: an entry is medium risk when more than this share
	// of its claims is not supported (0 = any unsupported claim). Default 0,
	// in [0, high_unsupported).
	MediumUnsupported float64 `yaml:"medium_unsupported"`
	// ServeHigh keeps high-risk entries retrievable. Default false: they are
	// indexed as tombstones (kept for the audit, never retrieved or cited).
	ServeHigh bool `yaml:"serve_high"`
	// Concurrency bounds concurrent claim checks. Default 4, in [1,64].
	Concurrency int `yaml:"concurrency"`
}

func defaultHaluGate() HaluGateConfig {
	return HaluGateConfig{Enabled: true, Verifier: "local", HighUnsupported: 0.5, MediumUnsupported: 0, Concurrency: 4}
}

func (c HaluGateConfig) validate() []error {
	var errs []error
	switch c.Verifier {
	case "local", "llm":
	default:
		errs = append(errs, fmt.Errorf("halugate.verifier: must be local or llm, got %q", c.Verifier))
	}
	if c.HighUnsupported <= 0 || c.HighUnsupported > 1 {
		errs = append(errs, fmt.Errorf("halugate.high_unsupported: must be in (0,1], got %g", c.HighUnsupported))
	}
	if c.MediumUnsupported < 0 || c.MediumUnsupported >= c.HighUnsupported {
		errs = append(errs, fmt.Errorf("halugate.medium_unsupported: must be in [0,high_unsupported), got %g", c.MediumUnsupported))
	}
	if c.Concurrency < 1 || c.Concurrency > 64 {
		errs = append(errs, fmt.Errorf("halugate.concurrency: must be in [1,64], got %d", c.Concurrency))
	}
	return errs
}

// Option adjusts Build and Add.
type Option func(*options)

type options struct {
	verifier Verifier
	deletes  []DocRef  // Add: documents to remove (WithDelete)
	changes  *Changes  // Add: where to report what changed (WithChanges)
	progress io.Writer // encoder progress lines (WithProgress)
	encCache *vecCache // encoder vectors by text (BuildDemo)
	encoder  Encoder   // replaces the embedded encoder (tests)
	part     DocRef    // partition of documents and memory entries naming none (WithPartition)
}

// WithVerifier hands HaluGate its claim verifier. Without one, derived
// entries are indexed unchecked (risk "unchecked") and the build says so.
func WithVerifier(v Verifier) Option { return func(o *options) { o.verifier = v } }

func applyOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// GateEntry is HaluGate's record of one derived entry.
type GateEntry struct {
	Kind    string      `json:"kind"` // doc | memory
	ID      string      `json:"id"`
	Tenant  string      `json:"tenant"`
	KB      string      `json:"kb"`
	Origin  string      `json:"origin,omitempty"` // file:line of the input line
	Title   string      `json:"title,omitempty"`
	Sources []string    `json:"sources"`
	Missing []string    `json:"missing_sources,omitempty"` // named sources not in the partition
	Claims  []GateClaim `json:"claims"`
	Risk    string      `json:"risk"`
	// Excluded: kept out of retrieval (high risk, serve_high off).
	Excluded bool `json:"excluded"`
	// Hash and SourceHashes decide whether Add must check it again.
	Hash         string            `json:"hash"`
	SourceHashes map[string]string `json:"source_hashes"`
	// Doc or Memory is the entry itself, so that Add can check it again when
	// one of its sources changes.
	Doc    *Doc         `json:"doc,omitempty"`
	Memory *MemoryEntry `json:"memory,omitempty"`
}

// GateClaim is the verdict on one claim of a derived entry.
type GateClaim struct {
	Text       string  `json:"text"`
	Verdict    string  `json:"verdict"` // entailment | contradiction | neutral | error
	Confidence float64 `json:"confidence"`
	Method     string  `json:"method,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	// SourceID and Evidence name the source passage the verdict rests on:
	// the best-matching span, or the opening of the first source when the
	// verifier found none.
	SourceID string `json:"source_id,omitempty"`
	Evidence string `json:"evidence,omitempty"`
}

// Flagged reports whether the claim is not supported by its sources.
func (c GateClaim) Flagged() bool { return c.Verdict != "entailment" }

// HaluGateSummary is the build's account of HaluGate (in the manifest).
type HaluGateSummary struct {
	Derived   int `json:"derived"`   // entries with sources in the snapshot
	Checked   int `json:"checked"`   // verified by this build or add
	Reused    int `json:"reused"`    // unchanged since the base snapshot: findings carried over
	Claims    int `json:"claims"`    // claims of all derived entries
	Flagged   int `json:"flagged"`   // claims not supported
	High      int `json:"high"`      // entries by risk
	Medium    int `json:"medium"`    //
	Low       int `json:"low"`       //
	Unchecked int `json:"unchecked"` // no verifier
	Excluded  int `json:"excluded"`  // kept out of retrieval
}

const gateFile = disk.HaluGateFile

type gateFileData struct {
	Entries []GateEntry `json:"entries"`
}

func hashStr(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func docHash(d Doc) string {
	return hashStr(append([]string{"doc", d.ID, d.Title, d.Text}, d.Sources...)...)
}

func memHash(m MemoryEntry) string {
	return hashStr(append([]string{"memory", m.ID, m.Type, m.Question, m.Answer, m.Note}, m.Sources...)...)
}

// memKey names a memory entry in HaluGate's records: its id, or its hash.
func memKey(m MemoryEntry) string {
	if m.ID != "" {
		return m.ID
	}
	return "memory:" + memHash(m)
}

// memText is the text of a memory entry whose claims are checked.
func memText(m MemoryEntry) string {
	parts := []string{}
	for _, s := range []string{m.Answer, m.Note} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// sourceLookup returns the current text of a source id in a partition.
type sourceLookup func(id string) (SourcePassage, bool)

// gate is one partition's HaluGate run.
type gate struct {
	cfg     HaluGateConfig
	v       Verifier
	lookup  sourceLookup
	prev    map[string]GateEntry // kind+"\x00"+id -> record from the base snapshot
	sum     *HaluGateSummary
	log     *zap.Logger
	entries []GateEntry
}

func gateKey(kind, id string) string { return kind + "\x00" + id }

// current reports whether a record from the base snapshot still holds: same
// entry, same source texts.
func (g *gate) current(prev GateEntry, hash string, sources []string) bool {
	if prev.Hash != hash || prev.Risk == RiskUnchecked && g.v != nil {
		return false
	}
	for _, id := range sources {
		p, ok := g.lookup(id)
		h := ""
		if ok {
			h = hashStr(p.Text)
		}
		if prev.SourceHashes[id] != h {
			return false
		}
	}
	return true
}

// checkDoc decides a derived document's record (reusing the base
// snapshot's when nothing changed).
func (g *gate) checkDoc(ctx context.Context, d Doc) (GateEntry, error) {
	h := docHash(d)
	if prev, ok := g.prev[gateKey("doc", d.ID)]; ok && g.current(prev, h, d.Sources) {
		g.sum.Reused++
		prev.Origin = d.Origin
		return prev, nil
	}
	dc := d
	dc.Origin = ""
	e := GateEntry{Kind: "doc", ID: d.ID, Tenant: d.Tenant, KB: d.KB, Origin: d.Origin, Title: d.Title, Sources: d.Sources, Hash: h, Doc: &dc}
	return e, g.check(ctx, &e, d.Text)
}

// checkMemory decides a derived memory entry's record.
func (g *gate) checkMemory(ctx context.Context, m MemoryEntry) (GateEntry, error) {
	h := memHash(m)
	key := memKey(m)
	if prev, ok := g.prev[gateKey("memory", key)]; ok && g.current(prev, h, m.Sources) {
		g.sum.Reused++
		return prev, nil
	}
	mc := m
	e := GateEntry{Kind: "memory", ID: key, Tenant: m.Tenant, KB: m.KB, Title: m.Question, Sources: m.Sources, Hash: h, Memory: &mc}
	return e, g.check(ctx, &e, memText(m))
}

// check verifies the claims of text against e's sources and sets the risk.
func (g *gate) check(ctx context.Context, e *GateEntry, text string) error {
	e.SourceHashes = map[string]string{}
	var srcs []SourcePassage
	for _, id := range e.Sources {
		p, ok := g.lookup(id)
		if !ok {
			e.Missing = append(e.Missing, id)
			e.SourceHashes[id] = ""
			continue
		}
		e.SourceHashes[id] = hashStr(p.Text)
		srcs = append(srcs, p)
	}
	if g.v == nil {
		e.Risk = RiskUnchecked
		e.Claims = []GateClaim{}
		g.sum.Unchecked++
		return nil
	}
	g.sum.Checked++
	claims := g.v.Claims(text)
	e.Claims = make([]GateClaim, len(claims))
	sem := make(chan struct{}, g.cfg.Concurrency)
	errs := make([]error, len(claims))
	done := make(chan struct{})
	for i, c := range claims {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; done <- struct{}{} }()
			gc := GateClaim{Text: c}
			if len(srcs) == 0 {
				gc.Verdict, gc.Reason = "neutral", "no named source is in the partition"
				e.Claims[i] = gc
				return
			}
			v, err := g.v.Verify(ctx, c, srcs)
			if err != nil {
				errs[i] = err
				gc.Verdict, gc.Reason = "error", err.Error()
				e.Claims[i] = gc
				return
			}
			gc.Verdict, gc.Confidence, gc.Method, gc.Reason = v.Label, v.Confidence, v.Method, v.Reason
			gc.SourceID, gc.Evidence = evidenceSource(v.Evidence, srcs)
			e.Claims[i] = gc
		}()
	}
	for range claims {
		<-done
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		g.log.Warn("halugate: claim checks failed", zap.String("entry", e.ID), zap.Error(err))
	}
	e.Risk = g.risk(e.Claims)
	return nil
}

// evidenceSource names the source passage a verdict's evidence comes from;
// with no evidence span, the opening of the first source stands in.
func evidenceSource(ev string, srcs []SourcePassage) (string, string) {
	first := srcs[0]
	if ev != "" {
		for _, s := range srcs {
			if strings.TrimSpace(ev) == strings.TrimSpace(s.Title) {
				// A title alone shows nothing: show the passage.
				first, ev = s, ""
				break
			}
			if strings.Contains(s.Text, ev) {
				return s.ID, ev
			}
		}
		// A list item's span is its negating lead, a space, then the item
		// (judge/lists.go), so it is no substring of the source: look for
		// the item after the lead's colon.
		if _, item, ok := strings.Cut(ev, ": "); ok && len(item) >= 12 {
			for _, s := range srcs {
				if strings.Contains(s.Text, item) {
					return s.ID, ev
				}
			}
		}
		if ev != "" {
			return first.ID, ev
		}
	}
	t := strings.TrimSpace(first.Text)
	if len(t) > 240 {
		cut := strings.LastIndexByte(t[:240], ' ')
		if cut < 120 {
			cut = 240
		}
		t = t[:cut] + " …"
	}
	return first.ID, t
}

// risk is high when a claim is contradicted or at least HighUnsupported of
// the claims are not supported, medium when more than MediumUnsupported
// are, low otherwise (an entry without checkable claims is low).
func (g *gate) risk(claims []GateClaim) string {
	if len(claims) == 0 {
		return RiskLow
	}
	bad := 0
	for _, c := range claims {
		if c.Verdict == "contradiction" {
			return RiskHigh
		}
		if c.Flagged() {
			bad++
		}
	}
	share := float64(bad) / float64(len(claims))
	switch {
	case share >= g.cfg.HighUnsupported:
		return RiskHigh
	case share > g.cfg.MediumUnsupported:
		return RiskMedium
	}
	return RiskLow
}

// record files e and reports whether its entry is kept out of retrieval.
func (g *gate) record(e GateEntry) bool {
	e.Excluded = e.Risk == RiskHigh && !g.cfg.ServeHigh
	g.entries = append(g.entries, e)
	return e.Excluded
}

// finish writes the partition's halugate.json: the base snapshot's records
// that still hold (keep) and this run's.
func (g *gate) finish(dir string, keep []GateEntry) error {
	all := append(keep, g.entries...)
	sort.Slice(all, func(i, j int) bool {
		if all[i].Kind != all[j].Kind {
			return all[i].Kind < all[j].Kind
		}
		return all[i].ID < all[j].ID
	})
	path := filepath.Join(dir, gateFile)
	if len(all) == 0 {
		os.Remove(path)
		return nil
	}
	b, err := json.MarshalIndent(gateFileData{Entries: all}, "", " ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", gateFile, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", gateFile, err)
	}
	return nil
}

// tally adds a partition's records to the snapshot's totals.
func (sum *HaluGateSummary) tally(all []GateEntry) {
	for _, e := range all {
		sum.Derived++
		sum.Claims += len(e.Claims)
		for _, c := range e.Claims {
			if c.Flagged() {
				sum.Flagged++
			}
		}
		switch e.Risk {
		case RiskHigh:
			sum.High++
		case RiskMedium:
			sum.Medium++
		case RiskLow:
			sum.Low++
		}
		if e.Excluded {
			sum.Excluded++
		}
	}
}

func readGateFile(dir string) ([]GateEntry, error) {
	b, err := os.ReadFile(filepath.Join(dir, gateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f gateFileData
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", gateFile, err)
	}
	return f.Entries, nil
}

// ReadAudit returns HaluGate's records of every partition of the snapshot
// at dir, partition by partition.
func ReadAudit(dir string) ([]GateEntry, error) {
	man, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	var out []GateEntry
	for _, pi := range man.Partitions {
		es, err := readGateFile(filepath.Join(dir, pi.Dir))
		if err != nil {
			return nil, fmt.Errorf("audit %s: partition %s/%s: %w", dir, pi.Tenant, pi.KB, err)
		}
		out = append(out, es...)
	}
	return out, nil
}

// docSources builds a lookup over whole documents (their chunks joined in
// order): the live chunks of a partition, overridden by docs.
func docSources(chunks []Chunk, deleted []bool, docs []Doc) sourceLookup {
	byDoc := map[string]*SourcePassage{}
	var order []string
	for i, c := range chunks {
		if deleted != nil && deleted[i] {
			continue
		}
		p := byDoc[c.DocID]
		if p == nil {
			p = &SourcePassage{ID: c.DocID, Title: c.Title}
			byDoc[c.DocID] = p
			order = append(order, c.DocID)
		}
		if p.Text != "" {
			p.Text += "\n\n"
		}
		p.Text += c.Text
	}
	for _, d := range docs {
		byDoc[d.ID] = &SourcePassage{ID: d.ID, Title: d.Title, Text: d.Text}
	}
	return func(id string) (SourcePassage, bool) {
		p, ok := byDoc[id]
		if !ok {
			return SourcePassage{}, false
		}
		return *p, true
	}
}

// extend prepares an Add to a partition of the base snapshot (dir, pd as
// read from it): it loads the base's records, and returns the documents
// and memory entries to index now (the input plus every derived entry of
// the base whose sources this add changes, to be checked again) and the
// base records that still hold.
func (g *gate) extend(dir string, pd *partData, docs []Doc, mem []MemoryEntry) ([]Doc, []MemoryEntry, []GateEntry, error) {
	prev, err := readGateFile(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	g.prev = make(map[string]GateEntry, len(prev))
	for _, e := range prev {
		g.prev[gateKey(e.Kind, e.ID)] = e
	}
	g.lookup = docSources(pd.chunks, pd.deleted, docs)
	input := map[string]bool{}
	for _, d := range docs {
		input[gateKey("doc", d.ID)] = true
	}
	for _, m := range mem {
		input[gateKey("memory", memKey(m))] = true
	}
	var keep []GateEntry
	recheckMem := map[string]bool{}
	for _, e := range prev {
		switch {
		case input[gateKey(e.Kind, e.ID)]:
			// replaced by this add's entry (checkDoc reuses e if unchanged)
		case g.current(e, e.Hash, e.Sources):
			keep = append(keep, e)
		case e.Kind == "doc" && e.Doc != nil:
			d := *e.Doc
			d.Origin = e.Origin
			docs = append(docs, d)
		case e.Kind == "memory" && e.Memory != nil:
			recheckMem[e.ID] = true
			mem = append(mem, *e.Memory)
		default:
			keep = append(keep, e)
		}
	}
	if len(recheckMem) > 0 {
		kept := pd.mem[:0]
		for _, m := range pd.mem {
			if !recheckMem[memKey(m)] {
				kept = append(kept, m)
			}
		}
		pd.mem = kept
	}
	return docs, mem, keep, nil
}
