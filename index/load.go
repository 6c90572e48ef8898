package index

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/viterin/vek/vek32"

	"github.com/answer-guard/guard/index/internal/disk"
)

// Snapshot is a loaded, read-only index snapshot. It is immutable after
// Load and safe for concurrent readers; Close it once no reader is left.
type Snapshot struct {
	Dir      string
	Manifest Manifest
	parts    map[[2]string]*Partition

	closeOnce sync.Once
	closeErr  error
}

// Partition is the index of one (tenant, kb). Every method is read-only
// and safe for concurrent use. Chunks are addressed by slot: the Index of
// a Hit, the slots of Resolve and Address, the slots Chunks yields. A slot
// stays valid for the life of the snapshot; slots tombstoned by Add are
// never returned.
type Partition struct {
	Tenant, KB string

	chunks  []Chunk // every chunk slot
	deleted []bool  // slots tombstoned by Add or kept out by HaluGate
	local   *LocalModel
	memory  []MemoryEntry
	// memVecs[i] holds the exact local vectors of memory[i]: a pin's
	// question, or a note's text followed by each trigger.
	memVecs [][]Sparse

	terms       disk.Terms
	remote      bool
	localVecs   []float32 // mapped from local.f32 (see disk.MapF32)
	remoteVecs  []float32 // mapped from remote.f32
	vecMap      *disk.Mapping
	remoteDims  int
	remoteCalib Calibration
	enc         Encoder   // the dense lane's encoder (embedder "use"), else nil
	encVecs     []float32 // mapped from encoder.f32
	encMap      *disk.Mapping
	encCalib    Calibration
	coherence   *float64 // DenseCoherence, nil when the snapshot has none
	graph       *flatGraph
	live        int // slots not deleted
	lex         bleve.Index
	lexOnce     sync.Once
	lexR        *lexReader // lexical.go; nil when Bleve answers every query
	address     slotIndex
	aliases     map[string]string
	catalog     map[string]struct{}
	idPrefix    catalogPrefix // built from catalog on first use (catalogprefix.go)
	byID        slotIndex
	answerCal   *AnswerCalibration
	words       partitionWords // the vocabulary of surface words, on first use (vocab.go)
}

// Chunk returns the chunk in slot, which must be a slot the partition
// handed out. The chunk belongs to the snapshot: read it, never modify it.
func (p *Partition) Chunk(slot int) *Chunk { return &p.chunks[slot] }

// Chunks yields every live chunk and its slot, in slot order. The chunks
// belong to the snapshot: read them, never modify them.
func (p *Partition) Chunks() iter.Seq2[int, *Chunk] {
	return func(yield func(int, *Chunk) bool) {
		for i := range p.chunks {
			if !p.deleted[i] && !yield(i, &p.chunks[i]) {
				return
			}
		}
	}
}

// Local returns the partition's fitted local embedder. It is always
// present: it scores when the remote embedder is down and it matches
// curated memory.
func (p *Partition) Local() *LocalModel { return p.local }

// Memory yields the curated pins and notes of the partition with their
// positions (see MemoryVectors). The entries belong to the snapshot: read
// them, never modify them.
func (p *Partition) Memory() iter.Seq2[int, *MemoryEntry] {
	return func(yield func(int, *MemoryEntry) bool) {
		for i := range p.memory {
			if !yield(i, &p.memory[i]) {
				return
			}
		}
	}
}

// MemoryVectors returns the exact local vectors of memory entry i: a pin's
// question, or a note's text followed by each of its triggers.
func (p *Partition) MemoryVectors(i int) []Sparse { return p.memVecs[i] }

// graphEf is the beam width of the base-layer graph search (at least k).
var graphEf = 64

// Hit is one lane result: a chunk slot and a raw lane score.
type Hit struct {
	Index int
	Score float64
	// Base is LexicalExpanded's score for the question's own words (0
	// for a chunk only the extra words found); Score adds the extra
	// words' part. Other lanes leave it 0.
	Base float64
}

// ReadManifest reads the manifest of the snapshot at dir without opening
// its partitions (for a command that only checks what a snapshot holds).
func ReadManifest(dir string) (Manifest, error) {
	man, err := readManifest(dir)
	if err != nil {
		return man, fmt.Errorf("snapshot %s: %w", dir, err)
	}
	return man, nil
}

// Load opens the snapshot at dir read-only.
func Load(dir string) (*Snapshot, error) {
	man, err := readManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("load snapshot %s: %w", dir, err)
	}
	if err := checkFormat(man); err != nil {
		return nil, fmt.Errorf("load snapshot %s: %w", dir, err)
	}
	s := &Snapshot{Dir: dir, Manifest: man, parts: map[[2]string]*Partition{}}
	for _, pi := range s.Manifest.Partitions {
		p, err := loadPartition(filepath.Join(dir, pi.Dir), pi, s.Manifest)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("load snapshot %s: partition %s/%s: %w", dir, pi.Tenant, pi.KB, err)
		}
		s.parts[[2]string{pi.Tenant, pi.KB}] = p
	}
	cals, err := ReadAnswerCalibration(dir)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("load snapshot %s: %w", dir, err)
	}
	for i := range cals {
		if p := s.parts[[2]string{cals[i].Tenant, cals[i].KB}]; p != nil {
			p.answerCal = &cals[i]
		}
	}
	return s, nil
}

func loadPartition(dir string, pi PartitionInfo, man Manifest) (*Partition, error) {
	p := &Partition{Tenant: pi.Tenant, KB: pi.KB}
	if err := p.load(dir, pi, man); err != nil {
		p.vecMap.Close()
		p.encMap.Close()
		return nil, err
	}
	return p, nil
}

// load fills p from its partition directory; on an error the caller
// releases what was mapped.
func (p *Partition) load(dir string, pi PartitionInfo, man Manifest) error {
	var cf chunkFile
	if err := disk.ReadGob(filepath.Join(dir, disk.ChunksFile), &cf); err != nil {
		return err
	}
	p.chunks, p.deleted = cf.Chunks, cf.Deleted
	if len(p.deleted) != len(p.chunks) {
		return fmt.Errorf("chunks: %d tombstone flags for %d chunks", len(p.deleted), len(p.chunks))
	}
	p.local = &LocalModel{}
	if err := disk.ReadGob(filepath.Join(dir, disk.LocalModelFile), p.local); err != nil {
		return err
	}
	if err := disk.ReadTerms(filepath.Join(dir, disk.TermsFile), &p.terms); err != nil {
		return err
	}
	if len(p.terms.Norm) != len(p.chunks) {
		return fmt.Errorf("terms: %d entries for %d chunks", len(p.terms.Norm), len(p.chunks))
	}
	// The flat vectors of the primary space serve the exact scan and the
	// graph search (the graph file's own copies are skipped). Local vectors
	// of a remote-embedder snapshot are not needed at query time (local
	// scoring uses the stored terms).
	var err error
	remote := man.Embedder == "remote"
	if remote {
		p.remoteDims = man.Dims
		if man.Calibration != nil {
			p.remoteCalib = *man.Calibration
		}
		if p.remoteVecs, p.vecMap, err = disk.MapF32(filepath.Join(dir, disk.RemoteVectorsFile)); err != nil {
			return err
		}
		if len(p.remoteVecs) != len(p.chunks)*p.remoteDims {
			return fmt.Errorf("remote vectors: %d floats for %d chunks x %d dims", len(p.remoteVecs), len(p.chunks), p.remoteDims)
		}
	} else if canonicalEmbedder(man.Embedder) == EmbedderUSE {
		if err := p.loadEncoder(dir, pi, man); err != nil {
			return err
		}
	} else {
		if p.localVecs, p.vecMap, err = disk.MapF32(filepath.Join(dir, disk.LocalVectorsFile)); err != nil {
			return err
		}
		if len(p.localVecs) != len(p.chunks)*p.local.Dims {
			return fmt.Errorf("local vectors: %d floats for %d chunks x %d dims", len(p.localVecs), len(p.chunks), p.local.Dims)
		}
	}
	p.remote = remote
	if pi.Graph {
		g, err := loadFlatGraph(filepath.Join(dir, disk.GraphFile), p.PrimaryDims(), len(p.chunks), graphEf)
		if err != nil {
			return err
		}
		p.graph = g
	}
	if p.lex, err = bleve.OpenUsing(filepath.Join(dir, disk.BleveDir), map[string]any{"read_only": true}); err != nil {
		return fmt.Errorf("open bleve: %w", err)
	}
	af, err := disk.ReadAddress(filepath.Join(dir, disk.AddressFile))
	if err != nil {
		p.lex.Close()
		return fmt.Errorf("address table: %w", err)
	}
	p.address, p.aliases = newSlotIndex(len(af.Table)), af.Aliases
	// Keys are normalised again on load, so a snapshot built before a
	// change of normalizeAddress still resolves the forms it accepts now.
	for k, v := range af.Table {
		nk := normalizeAddress(k, af.Aliases)
		for _, slot := range v {
			p.address.add(nk, slot)
		}
	}
	ids, err := disk.ReadCatalog(filepath.Join(dir, disk.CatalogFile))
	if err != nil {
		p.lex.Close()
		return fmt.Errorf("catalog: %w", err)
	}
	p.catalog = make(map[string]struct{}, len(ids))
	for _, id := range ids {
		p.catalog[strings.ToLower(id)] = struct{}{}
	}
	p.byID = newSlotIndex(len(p.chunks))
	for i, c := range p.chunks {
		if p.deleted[i] {
			continue
		}
		p.live++
		p.byID.add(c.ID, int32(i))
		if c.DocID != c.ID {
			p.byID.add(c.DocID, int32(i))
		}
	}
	if mf, err := os.Open(filepath.Join(dir, disk.MemoryFile)); err == nil {
		err = readLines(mf, func(n int, line []byte) error {
			m, err := parseMemoryLine(line)
			if err != nil {
				return fmt.Errorf("memory.jsonl:%d: %w", n, err)
			}
			p.memory = append(p.memory, m)
			return nil
		})
		mf.Close()
		if err != nil {
			p.lex.Close()
			return err
		}
	}
	for _, m := range p.memory {
		var vs []Sparse
		if m.Type == "pin" {
			vs = append(vs, p.local.SparseText(m.Question))
		} else {
			vs = append(vs, p.local.SparseText(m.Note))
			for _, t := range m.Triggers {
				vs = append(vs, p.local.SparseText(t))
			}
		}
		p.memVecs = append(p.memVecs, vs)
	}
	return nil
}

// Close releases every partition's lexical index and vector mapping; no
// vector obtained from the snapshot may be used after it. Closing again
// releases nothing and returns the first Close's error (bleve panics on a
// second close of its index).
func (s *Snapshot) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Snapshot) close() error {
	var errs []error
	for _, p := range s.parts {
		if p.lexR != nil {
			if err := p.lexR.close(); err != nil {
				errs = append(errs, err)
			}
		}
		if p.lex != nil {
			if err := p.lex.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		if err := p.vecMap.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := p.encMap.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Partition returns the (tenant, kb) partition, or nil.
func (s *Snapshot) Partition(tenant, kb string) *Partition {
	if s == nil {
		return nil
	}
	return s.parts[[2]string{tenant, kb}]
}

// KBs lists the KBs a tenant has, sorted.
func (s *Snapshot) KBs(tenant string) []string {
	var out []string
	for k := range s.parts {
		if k[0] == tenant {
			out = append(out, k[1])
		}
	}
	sort.Strings(out)
	return out
}

// Remote reports whether the dense lane searches remote-model vectors.
func (p *Partition) Remote() bool { return p.remote }

// PrimaryDims is the dimension of the vectors the dense lane searches.
func (p *Partition) PrimaryDims() int {
	if p.remote {
		return p.remoteDims
	}
	if p.enc != nil {
		return encoderDims
	}
	return p.local.Dims
}

// Contains reports whether id is a real citable id (chunk or document),
// ignoring case: the leaked-id filter asks it, and a model that writes
// "injdoc-alpha-001" for "injdoc-ALPHA-001" leaks the same id.
func (p *Partition) Contains(id string) bool {
	_, ok := p.catalog[strings.ToLower(id)]
	return ok
}

// Resolve returns the live chunk slots of a chunk or document id.
func (p *Partition) Resolve(id string) []int {
	slots := p.byID.get(id)
	out := make([]int, 0, len(slots))
	for _, i := range slots {
		out = append(out, int(i))
	}
	return out
}

// vec returns chunk i's vector in the primary space.
func (p *Partition) vec(i int) []float32 {
	if p.remote {
		return p.remoteVecs[i*p.remoteDims : (i+1)*p.remoteDims]
	}
	if p.enc != nil {
		return p.encVecs[i*encoderDims : (i+1)*encoderDims]
	}
	d := p.local.Dims
	return p.localVecs[i*d : (i+1)*d]
}

// Cosine is the raw cosine between q and chunk i in the primary space.
func (p *Partition) Cosine(q []float32, i int) float64 {
	v := p.vec(i)
	if len(q) != len(v) {
		return 0
	}
	return float64(vek32.Dot(q, v))
}

// Calibrate maps a raw cosine of the given space to calibrated relevance.
func (p *Partition) Calibrate(raw float64, primary bool) float64 {
	if primary && p.remote {
		return p.remoteCalib.Apply(raw)
	}
	if primary && p.enc != nil {
		return p.encCalib.Apply(raw)
	}
	return p.local.Calib.Apply(raw)
}

// Dense returns up to k live chunks nearest to q in the primary space,
// scored by exact raw cosine, best first. With a graph it over-fetches
// overfetch*k graph candidates (more in proportion to the graph's
// tombstoned nodes, which it drops) before the exact re-score; small
// partitions are scanned exactly. A q of the wrong dimension is an error,
// never a panic.
func (p *Partition) Dense(q []float32, k, overfetch int) ([]Hit, error) {
	if len(q) != p.PrimaryDims() {
		return nil, fmt.Errorf("query dims %d != index dims %d", len(q), p.PrimaryDims())
	}
	var hits []Hit
	if p.graph != nil {
		n := max(k*overfetch, k)
		if nodes := p.graph.layers[0].Size; nodes > p.live && p.live > 0 {
			// Slots tombstoned by Add stay graph nodes (see extendGraph)
			// and take places among the candidates: ask for more.
			n += (n*(nodes-p.live) + p.live - 1) / p.live
		}
		found := p.graph.search(q, n, func(key uint32) []float32 { return p.vec(int(key)) })
		hits = make([]Hit, 0, len(found))
		for _, f := range found {
			i := int(f.key)
			if !p.deleted[i] {
				hits = append(hits, Hit{Index: i, Score: 1 - float64(f.dist)})
			}
		}
	} else {
		hits = p.scanTopK(q, k)
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.Index - b.Index
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// Lexical runs a BM25 match query over chunk titles and texts: Bleve's
// match query on the body field, answered by the partition's lexReader
// where it can (the same hits and scores).
func (p *Partition) Lexical(ctx context.Context, text string, k int) ([]Hit, error) {
	p.lexOnce.Do(func() { p.lexR = newLexReader(p.lex, len(p.chunks)) })
	if p.lexR != nil {
		if hits, ok, err := p.lexR.search(ctx, text, k, p); ok {
			return hits, err
		}
	}
	return p.bleveLexical(ctx, text, k)
}

// bleveLexical runs text as a Bleve match query (lexReader's reference).
func (p *Partition) bleveLexical(ctx context.Context, text string, k int) ([]Hit, error) {
	q := bleve.NewMatchQuery(text)
	q.SetField(lexField)
	return p.lexical(ctx, q, k)
}

// LexicalExpanded is Lexical with extra words (a query expansion): they
// are matched in a second BM25 query, and a chunk's score is its score
// for text plus boost times its score for the extra words (a chunk in
// only one of the two top-k lists gets that list's part). Two queries
// and a sum, not one disjunction: Bleve's disjunction multiplies by the
// share of its clauses that match, which would double a chunk that
// matches both. With no extra words it is Lexical.
func (p *Partition) LexicalExpanded(ctx context.Context, text string, extra []string, boost float64, k int) ([]Hit, error) {
	hits, err := p.Lexical(ctx, text, k)
	if err != nil || len(extra) == 0 || boost <= 0 {
		return hits, err
	}
	more, err := p.Lexical(ctx, strings.Join(extra, " "), k)
	if err != nil {
		return nil, err
	}
	at := make(map[int]int, len(hits))
	for i, h := range hits {
		at[h.Index] = i
	}
	for _, h := range more {
		if i, ok := at[h.Index]; ok {
			hits[i].Score += boost * h.Score
		} else {
			hits = append(hits, Hit{Index: h.Index, Score: boost * h.Score})
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Index - b.Index
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

func (p *Partition) lexical(ctx context.Context, q blevequery.Query, k int) ([]Hit, error) {
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	res, err := p.lex.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil || i < 0 || i >= len(p.chunks) || p.deleted[i] {
			continue
		}
		hits = append(hits, Hit{Index: i, Score: h.Score, Base: h.Score})
	}
	return hits, nil
}

// Address resolves an address string (as found in a question) to chunk
// slots, deterministically through the address table.
func (p *Partition) Address(s string) []int {
	key := normalizeAddress(s, p.aliases)
	var out []int
	for _, i := range p.address.get(key) {
		if !p.deleted[i] {
			out = append(out, int(i))
		}
	}
	return out
}

// worse: a scores lower than b, or equal with a higher slot (Dense's
// order reversed).
func worse(a, b Hit) bool {
	return a.Score < b.Score || a.Score == b.Score && a.Index > b.Index
}

// worstFirst is a heap of hits with the worst at the root, for the exact
// scan's bounded top k. Only heap.Init and heap.Fix are used, which box
// nothing.
type worstFirst []Hit

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *worstFirst) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

// scanTopK is the exact scan: the k best live chunks for q, unordered,
// kept in a bounded heap (container/heap) instead of
// scoring into a slice of every chunk and sorting it, which took most of
// a KJV-sized scan's time.
func (p *Partition) scanTopK(q []float32, k int) []Hit {
	h := make(worstFirst, 0, min(k, p.live))
	if k <= 0 {
		return h
	}
	for i := range p.chunks {
		if p.deleted[i] {
			continue
		}
		c := Hit{Index: i, Score: p.Cosine(q, i)}
		switch {
		case len(h) < k:
			if h = append(h, c); len(h) == k {
				heap.Init(&h)
			}
		case worse(h[0], c):
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	return h
}
