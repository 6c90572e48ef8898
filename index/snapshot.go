package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/answer-guard/guard/index/internal/disk"
	"github.com/blevesearch/bleve/v2"
	blevemapping "github.com/blevesearch/bleve/v2/mapping"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"go.uber.org/zap"
)

// Manifest describes a snapshot directory (its manifest.json).
type Manifest struct {
	Format   int    `json:"format"`   // the snapshot format version
	Embedder string `json:"embedder"` // "use", "hashed" or "remote" ("local" before the encoder: hashed)
	Model    string `json:"model"`
	Dims     int    `json:"dims"`
	// EncoderChecksum is the sha256 of the embedded encoder model that
	// built the vectors (embedder "use"); a binary with another model
	// refuses the snapshot.
	EncoderChecksum string `json:"encoder_checksum,omitempty"`
	// Calibration of the remote model (local models carry one per partition).
	Calibration     *Calibration    `json:"calibration,omitempty"`
	ChunkChars      int             `json:"chunk_chars"`
	MinChunkChars   int             `json:"min_chunk_chars"`
	Docs            int             `json:"docs"`
	Chunks          int             `json:"chunks"`
	Memory          int             `json:"memory"`
	BadLines        []string        `json:"bad_lines,omitempty"`
	Partitions      []PartitionInfo `json:"partitions"`
	BuiltAt         time.Time       `json:"built_at"`
	BuildSeconds    float64         `json:"build_seconds"`
	ChunksPerSecond float64         `json:"chunks_per_second"`
	Base            string          `json:"base,omitempty"` // snapshot this one was derived from by Add
	// HaluGate summarises the checks of derived entries (nil when off).
	HaluGate *HaluGateSummary `json:"halugate,omitempty"`
}

// PartitionInfo describes one (tenant, kb) partition.
type PartitionInfo struct {
	Tenant      string      `json:"tenant"`
	KB          string      `json:"kb"`
	Dir         string      `json:"dir"`
	Docs        int         `json:"docs"`
	Chunks      int         `json:"chunks"` // live chunks
	Slots       int         `json:"slots"`  // chunk slots including tombstones left by Add
	Pins        int         `json:"pins"`
	Notes       int         `json:"notes"`
	Graph       bool        `json:"graph"`
	LocalModel  string      `json:"local_model"`
	Calibration Calibration `json:"calibration"`
	// RawAnchors are the measured raw cosines behind the local calibration.
	RawAnchors [3]float64 `json:"raw_anchors"`
	// DenseCalibration maps the encoder's raw cosine (embedder "use") onto
	// the same anchors, measured the same way on the partition's own
	// chunks; DenseRawAnchors are the cosines behind it.
	DenseCalibration *Calibration `json:"dense_calibration,omitempty"`
	DenseRawAnchors  [3]float64   `json:"dense_raw_anchors,omitzero"`
	// DenseCoherence is the mean cosine between two different live chunks
	// of the partition, their encoder vectors (embedder "use") taken
	// relative to the encoder's background mean (coherence.go): high when
	// the corpus keeps to one topic (a shop's FAQ), low when it is a mixed
	// archive. DenseCoherenceBasis names the background (the first 12 hex
	// digits of its file's sha256). Written at every build and add; absent
	// in snapshots built before it was kept, or without the encoder lane.
	DenseCoherence      *float64 `json:"dense_coherence,omitempty"`
	DenseCoherenceBasis string   `json:"dense_coherence_basis,omitempty"`
}

// readManifest reads the manifest of the snapshot at dir.
func readManifest(dir string) (Manifest, error) {
	var man Manifest
	b, err := os.ReadFile(filepath.Join(dir, disk.ManifestFile))
	if err != nil {
		return man, err
	}
	if err := json.Unmarshal(b, &man); err != nil {
		return man, fmt.Errorf("manifest: %w", err)
	}
	return man, nil
}

// checkFormat refuses a snapshot of another format version.
func checkFormat(man Manifest) error {
	if man.Format != disk.FormatVersion {
		return fmt.Errorf("format %d, want %d", man.Format, disk.FormatVersion)
	}
	return nil
}

// partData is a partition while it is being built or extended.
type partData struct {
	tenant, kb string
	chunks     []Chunk
	deleted    []bool
	model      *LocalModel
	terms      disk.Terms
	local      []float32
	remote     []float32
	remoteDims int
	enc        []float32 // encoder vectors (embedder "use"), slot-major
	encCalib   *Calibration
	encAnchors [3]float64
	aliases    map[string]string
	mem        []MemoryEntry
	docs       int
}

func workers(cfg Config) int {
	if cfg.Workers > 0 {
		return cfg.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// parallel runs fn over [0,n) in contiguous ranges on w goroutines.
func parallel(n, w int, fn func(lo, hi int)) {
	if w < 1 {
		w = 1
	}
	if n < 256 || w == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + w - 1) / w
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

func embedText(c Chunk) string {
	if c.Title != "" {
		return c.Title + "\n" + c.Text
	}
	return c.Text
}

// Build ingests sources (JSONL or CSV files, Markdown, HTML or text files, or folders of them) and curated
// memory files and writes an immutable snapshot directory at out (which
// must not exist or be empty). Bad lines are logged with file:line and
// listed in the manifest, or fail the build when cfg.Strict.
//
// Entries that name their sources are checked by HaluGate (see
// WithVerifier) when cfg.HaluGate.Enabled.
func Build(ctx context.Context, cfg Config, sources []string, memory []string, out string, log *zap.Logger, opts ...Option) (Manifest, error) {
	if err := cfg.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("index config: %w", err)
	}
	part := applyOptions(opts).part
	docs, bad, err := readDocs(sources, cfg.Strict, part)
	if err != nil {
		return Manifest{}, err
	}
	docs, bad, drafts := dropDeletions(docs, bad)
	warnUnpublished(log, drafts)
	if cfg.Strict && len(bad) > 0 {
		return Manifest{}, bad[0]
	}
	mem, badMem, err := readMemory(memory, cfg.Strict, part)
	if err != nil {
		return Manifest{}, err
	}
	withDocs := map[[2]string]bool{}
	for _, d := range docs {
		withDocs[[2]string{d.Tenant, d.KB}] = true
	}
	mem, orphans, err := memoryWithoutDocs(mem, func(t, kb string) bool { return withDocs[[2]string{t, kb}] }, cfg.Strict)
	if err != nil {
		return Manifest{}, err
	}
	badMem = append(badMem, orphans...)
	return buildFrom(ctx, cfg, docs, mem, append(bad, badMem...), out, log, opts...)
}

// warnDropped logs each document whose url was dropped (not http or
// https): its id and the scheme, not the url.
func warnDropped(log *zap.Logger, docs []Doc) {
	for _, d := range docs {
		if d.droppedScheme != "" {
			log.Warn("url dropped: only http and https urls are kept for citations", zap.String("doc", d.ID), zap.String("scheme", d.droppedScheme), zap.String("at", d.Origin))
		}
	}
}

func buildFrom(ctx context.Context, cfg Config, docs []Doc, mem []MemoryEntry, bad []*LineError, out string, log *zap.Logger, opts ...Option) (Manifest, error) {
	o := applyOptions(opts)
	log = log.Named("index")
	start := time.Now()
	// Listed in the manifest (BadLines), for the caller to report once;
	// each at debug level here.
	for _, le := range bad {
		log.Debug("skipped bad line", zap.String("at", le.Error()))
	}
	warnDropped(log, docs)
	var remote *RemoteEmbedder
	var enc Encoder
	switch canonicalEmbedder(cfg.Embedder) {
	case EmbedderRemote:
		var err error
		if remote, err = NewRemoteEmbedder(cfg.Remote, 0); err != nil {
			return Manifest{}, err
		}
	case EmbedderUSE:
		var err error
		if enc, err = defaultEncoder(); err != nil {
			return Manifest{}, err
		}
		if o.encoder != nil {
			enc = o.encoder
		}
	}
	tmp, err := prepareOut(out)
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(tmp)

	groups := map[[2]string]*partData{}
	var keys [][2]string
	get := func(t, k string) *partData {
		key := [2]string{t, k}
		pd := groups[key]
		if pd == nil {
			pd = &partData{tenant: t, kb: k, aliases: map[string]string{}}
			groups[key] = pd
			keys = append(keys, key)
		}
		return pd
	}
	docsBy := map[[2]string][]Doc{}
	memBy := map[[2]string][]MemoryEntry{}
	for _, d := range docs {
		get(d.Tenant, d.KB)
		docsBy[[2]string{d.Tenant, d.KB}] = append(docsBy[[2]string{d.Tenant, d.KB}], d)
	}
	for _, m := range mem {
		get(m.Tenant, m.KB)
		memBy[[2]string{m.Tenant, m.KB}] = append(memBy[[2]string{m.Tenant, m.KB}], m)
	}
	var hg *HaluGateSummary
	if cfg.HaluGate.Enabled {
		hg = &HaluGateSummary{}
	}
	gates := map[[2]string]*gate{}
	for _, key := range keys {
		pd := groups[key]
		var g *gate
		if hg != nil {
			g = &gate{cfg: cfg.HaluGate, v: o.verifier, lookup: docSources(nil, nil, docsBy[key]), sum: hg, log: log}
			gates[key] = g
		}
		if err := ingestPartition(ctx, cfg, g, pd, docsBy[key], memBy[key]); err != nil {
			return Manifest{}, fmt.Errorf("partition %s/%s: %w", key[0], key[1], err)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	man := Manifest{Format: disk.FormatVersion, Embedder: canonicalEmbedder(cfg.Embedder), Model: fitLocal(cfg.Local, nil).Name(), Dims: cfg.Local.Dims,
		ChunkChars: cfg.ChunkChars, MinChunkChars: cfg.MinChunkChars, Memory: len(mem)}
	if enc != nil {
		man.Model, man.Dims, man.EncoderChecksum = encoderModelName, enc.Dims(), enc.Checksum()
	}
	prog := newProgress(o.progress, log, countChunks(groups))
	if remote != nil {
		man.Model = cfg.Remote.Model
		man.Dims = 0
		man.Calibration = &Calibration{Knots: cfg.Remote.Calibration}
	}
	for _, le := range bad {
		man.BadLines = append(man.BadLines, le.Error())
	}
	man.HaluGate = hg
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		pd := groups[key]
		if pd.deleted == nil {
			pd.deleted = make([]bool, len(pd.chunks))
		}
		if err := embedPartition(ctx, cfg, remote, pd); err != nil {
			return Manifest{}, fmt.Errorf("partition %s/%s: %w", key[0], key[1], err)
		}
		if err := encodePartition(ctx, cfg, enc, pd, 0, prog, o.encCache); err != nil {
			return Manifest{}, fmt.Errorf("partition %s/%s: %w", key[0], key[1], err)
		}
		if remote != nil {
			if man.Dims == 0 {
				man.Dims = pd.remoteDims
			} else if pd.remoteDims != 0 && pd.remoteDims != man.Dims {
				return Manifest{}, fmt.Errorf("partition %s/%s: embedding dims %d != %d", key[0], key[1], pd.remoteDims, man.Dims)
			}
		}
		info, err := writePartition(ctx, cfg, tmp, pd, nil, log)
		if err != nil {
			return Manifest{}, fmt.Errorf("partition %s/%s: %w", key[0], key[1], err)
		}
		if g := gates[key]; g != nil {
			if err := g.finish(filepath.Join(tmp, info.Dir), nil); err != nil {
				return Manifest{}, fmt.Errorf("partition %s/%s: %w", key[0], key[1], err)
			}
			hg.tally(g.entries)
		}
		man.Partitions = append(man.Partitions, info)
		man.Docs += info.Docs
		man.Chunks += info.Chunks
	}
	prog.finish()
	return finishSnapshot(tmp, out, man, start, log)
}

// ingestPartition chunks docs into a new partition and adds mem; g (nil
// when HaluGate is off) checks the derived entries, and those it keeps out
// of retrieval become tombstoned chunks (documents) or are left out
// (memory).
func ingestPartition(ctx context.Context, cfg Config, g *gate, pd *partData, docs []Doc, mem []MemoryEntry) error {
	for _, d := range docs {
		pd.docs++
		learnAliases(pd.aliases, d)
		excluded := false
		if g != nil && len(d.Sources) > 0 {
			e, err := g.checkDoc(ctx, d)
			if err != nil {
				return fmt.Errorf("halugate %s: %w", d.ID, err)
			}
			excluded = g.record(e)
		}
		for _, c := range chunkDoc(d, cfg.ChunkChars, cfg.MinChunkChars) {
			pd.chunks = append(pd.chunks, c)
			pd.deleted = append(pd.deleted, excluded)
		}
	}
	for _, m := range mem {
		if g != nil && len(m.Sources) > 0 {
			e, err := g.checkMemory(ctx, m)
			if err != nil {
				return fmt.Errorf("halugate %s: %w", memKey(m), err)
			}
			if g.record(e) {
				continue
			}
		}
		pd.mem = append(pd.mem, m)
	}
	return nil
}

func prepareOut(out string) (string, error) {
	if out == "" {
		return "", errors.New("snapshot output dir: empty path")
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
		return "", fmt.Errorf("snapshot output dir %s: exists and is not empty (snapshots are immutable)", out)
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("snapshot parent dir: %w", err)
	}
	removeStaleTemps(parent, filepath.Base(out))
	tmp, err := os.MkdirTemp(parent, fmt.Sprintf(".%s.tmp-pid%d-", filepath.Base(out), os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("snapshot temp dir: %w", err)
	}
	return tmp, nil
}

// removeStaleTemps deletes what an earlier build or add of the same output
// left behind when it was killed midway: ".OUT.tmp-pidPID-*" directories
// whose process is gone, and older unmarked ".OUT.tmp-*" ones more than a
// day old. A build still running (its process is alive) is left alone.
func removeStaleTemps(parent, base string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := "." + base + ".tmp-"
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := strings.TrimPrefix(name, prefix)
		stale := false
		if pidStr, ok := strings.CutPrefix(rest, "pid"); ok {
			pidStr, _, _ = strings.Cut(pidStr, "-")
			pid, err := strconv.Atoi(pidStr)
			stale = err == nil && !processAlive(pid)
		} else if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			stale = true
		}
		if stale {
			os.RemoveAll(filepath.Join(parent, name))
		}
	}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

func finishSnapshot(tmp, out string, man Manifest, start time.Time, log *zap.Logger) (Manifest, error) {
	man.BuiltAt = time.Now().UTC()
	man.BuildSeconds = time.Since(start).Seconds()
	if man.BuildSeconds > 0 {
		man.ChunksPerSecond = float64(man.Chunks) / man.BuildSeconds
	}
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return Manifest{}, fmt.Errorf("encode manifest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, disk.ManifestFile), b, 0o644); err != nil {
		return Manifest{}, fmt.Errorf("write manifest: %w", err)
	}
	os.Remove(out) // an empty dir may stand in the way of the rename
	if err := os.Rename(tmp, out); err != nil {
		return Manifest{}, fmt.Errorf("publish snapshot %s: %w", out, err)
	}
	log.Info("snapshot built", zap.String("dir", out), zap.Int("docs", man.Docs), zap.Int("chunks", man.Chunks),
		zap.Int("partitions", len(man.Partitions)), zap.Float64("seconds", man.BuildSeconds), zap.Float64("chunks_per_s", man.ChunksPerSecond))
	return man, nil
}

// learnAliases adds the book / book_abbr pairs that KJV-like corpora carry
// in their extra fields to the partition's address aliases.
func learnAliases(al map[string]string, d Doc) {
	book, _ := d.Meta["book"].(string)
	abbr, _ := d.Meta["book_abbr"].(string)
	if book == "" {
		return
	}
	canon := squash(book)
	if c, ok := bookAliases[canon]; ok {
		canon = c
	}
	al[squash(book)] = canon
	if abbr != "" {
		al[squash(abbr)] = canon
	}
}

// embedPartition tokenises, fits the local model, embeds every chunk
// locally (always: it is the fallback scorer) and remotely when configured.
func embedPartition(ctx context.Context, cfg Config, remote *RemoteEmbedder, pd *partData) error {
	n := len(pd.chunks)
	toks := make([][]string, n)
	titles := make([]int, n)
	w := workers(cfg)
	parallel(n, w, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			tt := Tokenize(pd.chunks[i].Title)
			titles[i] = len(tt)
			toks[i] = append(tt, Tokenize(pd.chunks[i].Text)...)
		}
	})
	pd.model = fitLocal(cfg.Local, toks)
	pd.model.fitVocab()
	pd.terms = disk.Terms{}
	for i, t := range toks {
		pd.model.appendTerms(&pd.terms, t[:titles[i]], t[titles[i]:])
	}
	dims := pd.model.Dims
	pd.local = make([]float32, n*dims)
	parallel(n, w, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pd.model.embedTokens(toks[i], pd.local[i*dims:(i+1)*dims])
		}
	})
	pd.model.calibrate(cfg.Local.Anchors, toks)
	if remote != nil && n > 0 {
		texts := make([]string, n)
		for i, c := range pd.chunks {
			texts[i] = embedText(c)
		}
		vecs, err := remote.Embed(ctx, texts)
		if err != nil {
			return err
		}
		pd.remoteDims = len(vecs[0])
		pd.remote = make([]float32, 0, n*pd.remoteDims)
		for _, v := range vecs {
			if len(v) != pd.remoteDims {
				return fmt.Errorf("embedding dims %d != %d", len(v), pd.remoteDims)
			}
			pd.remote = append(pd.remote, v...)
		}
	}
	return nil
}

// primary returns the vectors the dense lane searches and their dims.
func (pd *partData) primary() ([]float32, int) {
	if pd.remote != nil {
		return pd.remote, pd.remoteDims
	}
	if pd.enc != nil {
		return pd.enc, encoderDims
	}
	return pd.local, pd.model.Dims
}

// graphDelta, when non-nil, extends an existing graph and Bleve index
// (Add) instead of building new ones.
type graphDelta struct {
	base    string // directory holding the old partition
	first   int    // slots of the old partition
	added   []int  // new live slots
	removed []int  // slots tombstoned by this add (kept in the graph, see extendGraph)
	bleve   string // already-copied bleve dir to update
}

// writePartition writes every file of a partition below root.
func writePartition(ctx context.Context, cfg Config, root string, pd *partData, delta *graphDelta, log *zap.Logger) (PartitionInfo, error) {
	rel := disk.PartDir(pd.tenant, pd.kb)
	dir := filepath.Join(root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return PartitionInfo{}, fmt.Errorf("mkdir: %w", err)
	}
	live := 0
	for _, d := range pd.deleted {
		if !d {
			live++
		}
	}
	info := PartitionInfo{Tenant: pd.tenant, KB: pd.kb, Dir: rel, Docs: pd.docs, Chunks: live, Slots: len(pd.chunks),
		LocalModel: pd.model.Name(), Calibration: pd.model.Calib,
		RawAnchors:       [3]float64{pd.model.Stats.RandomMedian, pd.model.Stats.RandomP99, pd.model.Stats.SameDoc},
		DenseCalibration: pd.encCalib, DenseRawAnchors: pd.encAnchors, DenseCoherence: coherence(pd)}
	if info.DenseCoherence != nil {
		info.DenseCoherenceBasis = coherenceBasis()
	}
	for _, m := range pd.mem {
		if m.Type == "pin" {
			info.Pins++
		} else {
			info.Notes++
		}
	}
	if err := disk.WriteGob(filepath.Join(dir, disk.ChunksFile), chunkFile{Chunks: pd.chunks, Deleted: pd.deleted, Docs: pd.docs}); err != nil {
		return info, err
	}
	if err := disk.WriteGob(filepath.Join(dir, disk.LocalModelFile), pd.model); err != nil {
		return info, err
	}
	if err := disk.WriteTerms(filepath.Join(dir, disk.TermsFile), &pd.terms); err != nil {
		return info, err
	}
	if err := disk.WriteF32(filepath.Join(dir, disk.LocalVectorsFile), pd.local); err != nil {
		return info, err
	}
	if pd.remote != nil {
		if err := disk.WriteF32(filepath.Join(dir, disk.RemoteVectorsFile), pd.remote); err != nil {
			return info, err
		}
	}
	if pd.enc != nil {
		if err := disk.WriteF32(filepath.Join(dir, disk.EncoderVectorsFile), pd.enc); err != nil {
			return info, err
		}
	}
	// Dense graph over the primary vectors (small partitions are scanned exactly).
	vecs, dims := pd.primary()
	if live >= cfg.HNSW.ExactBelow && live > 0 {
		var g *graphBuilder
		if delta != nil {
			var why string
			var err error
			g, why, err = extendGraph(ctx, cfg, filepath.Join(delta.base, disk.GraphFile), pd, delta.first, delta.added, live)
			if err != nil {
				return info, err
			}
			if g == nil {
				log.Info("graph rebuilt", zap.String("tenant", pd.tenant), zap.String("kb", pd.kb), zap.String("why", why))
			}
		}
		if g == nil {
			g = newGraphBuilder(cfg, vecs, dims)
			for i := range pd.chunks {
				if i%1024 == 0 && ctx.Err() != nil {
					return info, ctx.Err()
				}
				if !pd.deleted[i] {
					g.insert(uint32(i))
				}
			}
		}
		f, err := os.Create(filepath.Join(dir, disk.GraphFile))
		if err != nil {
			return info, fmt.Errorf("create graph: %w", err)
		}
		err = g.writeTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return info, fmt.Errorf("export graph: %w", err)
		}
		info.Graph = true
	} else if err := os.Remove(filepath.Join(dir, disk.GraphFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		// Add copied the base partition: its graph would go stale here
		// and be extended by a later add.
		return info, fmt.Errorf("remove stale graph: %w", err)
	}
	// Lexical index.
	if err := writeBleve(filepath.Join(dir, disk.BleveDir), pd, delta); err != nil {
		return info, err
	}
	// Address table and catalog.
	addr := map[string][]int32{}
	var catalog []string
	seen := map[string]bool{}
	for i, c := range pd.chunks {
		if pd.deleted[i] {
			continue
		}
		keys := map[string]bool{}
		if c.Address != "" {
			keys[normalizeAddress(c.Address, pd.aliases)] = true
		}
		keys[normalizeAddress(c.DocID, pd.aliases)] = true
		for k := range keys {
			addr[k] = append(addr[k], int32(i))
		}
		for _, id := range []string{c.ID, c.DocID} {
			if !seen[id] {
				seen[id] = true
				catalog = append(catalog, id)
			}
		}
	}
	if err := disk.WriteAddress(filepath.Join(dir, disk.AddressFile), disk.Address{Aliases: pd.aliases, Table: addr}); err != nil {
		return info, err
	}
	if err := disk.WriteCatalog(filepath.Join(dir, disk.CatalogFile), catalog); err != nil {
		return info, err
	}
	var mb strings.Builder
	for _, m := range pd.mem {
		b, _ := json.Marshal(m)
		mb.Write(b)
		mb.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, disk.MemoryFile), []byte(mb.String()), 0o644); err != nil {
		return info, fmt.Errorf("write memory: %w", err)
	}
	log.Debug("partition written", zap.String("tenant", pd.tenant), zap.String("kb", pd.kb), zap.Int("chunks", live))
	return info, nil
}

// chunkFile is chunks.gob. Its gob stream names this type and
// "[]index.Chunk", so both stay here, under these names.
type chunkFile struct {
	Chunks  []Chunk
	Deleted []bool
	Docs    int
}

func bleveMapping() *blevemapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.ScoringModel = bleveindex.BM25Scoring
	doc := bleve.NewDocumentStaticMapping()
	body := bleve.NewTextFieldMapping()
	body.Analyzer = "en"
	body.Store = false
	body.IncludeInAll = false
	body.IncludeTermVectors = false
	doc.AddFieldMappingsAt("body", body)
	m.DefaultMapping = doc
	m.DefaultAnalyzer = "en"
	return m
}

func writeBleve(path string, pd *partData, delta *graphDelta) error {
	var idx bleve.Index
	var err error
	if delta != nil && delta.bleve != "" {
		idx, err = bleve.Open(path)
	} else {
		idx, err = bleve.New(path, bleveMapping())
	}
	if err != nil {
		return fmt.Errorf("bleve %s: %w", path, err)
	}
	b := idx.NewBatch()
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		if err := idx.Batch(b); err != nil {
			return fmt.Errorf("bleve batch: %w", err)
		}
		// A fresh batch, not b.Reset(): scorch's analysis goroutine may
		// still be ranging over the old batch's ops after Batch returns
		// (a data race go test -race found with a delete-only tail).
		b = idx.NewBatch()
		return nil
	}
	put := func(i int) error {
		if err := b.Index(strconv.Itoa(i), map[string]any{"body": embedText(pd.chunks[i])}); err != nil {
			return fmt.Errorf("bleve index %s: %w", pd.chunks[i].ID, err)
		}
		if b.Size() >= 2000 {
			return flush()
		}
		return nil
	}
	if delta != nil && delta.bleve != "" {
		for _, i := range delta.removed {
			b.Delete(strconv.Itoa(i))
		}
		for _, i := range delta.added {
			if err := put(i); err != nil {
				idx.Close()
				return err
			}
		}
	} else {
		for i := range pd.chunks {
			if pd.deleted[i] {
				continue
			}
			if err := put(i); err != nil {
				idx.Close()
				return err
			}
		}
	}
	if err := flush(); err != nil {
		idx.Close()
		return err
	}
	if err := idx.Close(); err != nil {
		return fmt.Errorf("bleve close: %w", err)
	}
	return nil
}
