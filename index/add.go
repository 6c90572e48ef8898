package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/answer-guard/guard/index/internal/disk"
	"go.uber.org/zap"
)

// Add writes a new snapshot at out: the base snapshot plus the documents of
// sources and the memory entries of memory, without a full rebuild.
// Untouched partitions are copied; in a touched partition a document whose
// id already exists is replaced (its old chunks become tombstones), new
// chunks are embedded with the partition's frozen local model (and the
// remote embedder when configured), added to the copied HNSW graph (where
// tombstones stay nodes until they pass graphTombstones and the graph is
// rebuilt, see extendGraph) and Bleve index; address table and catalog
// are rewritten. A serving process
// picks the result up with Load and retrieve.Engine.Swap.
//
// HaluGate (cfg.HaluGate, WithVerifier) checks only what changed: new or
// changed derived entries, and derived entries of the base whose sources
// this add replaces; the base's other findings are carried over.
func Add(ctx context.Context, cfg Config, base string, sources, memory []string, out string, log *zap.Logger, opts ...Option) (Manifest, error) {
	log = log.Named("index")
	o := applyOptions(opts)
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("index config: %w", err)
	}
	man, err := readManifest(base)
	if err == nil {
		err = checkFormat(man)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("base snapshot %s: %w", base, err)
	}
	if canonicalEmbedder(man.Embedder) != canonicalEmbedder(cfg.Embedder) {
		return Manifest{}, fmt.Errorf("base snapshot %s: built with embedder %q, index.embedder is %q: rebuild the index instead", base, canonicalEmbedder(man.Embedder), canonicalEmbedder(cfg.Embedder))
	}
	man.Embedder = canonicalEmbedder(man.Embedder)
	var enc Encoder
	if man.Embedder == EmbedderUSE {
		if enc, err = defaultEncoder(); err != nil {
			return Manifest{}, err
		}
		if enc.Checksum() != man.EncoderChecksum {
			return Manifest{}, fmt.Errorf("base snapshot %s: built by encoder model %.12s, this binary embeds %.12s: rebuild the index instead", base, man.EncoderChecksum, enc.Checksum())
		}
	}
	docs, bad, err := readDocs(sources, cfg.Strict, o.part)
	if err != nil {
		return Manifest{}, err
	}
	inCorpus := make(map[[3]string]string, len(docs))
	for _, d := range docs {
		inCorpus[[3]string{d.Tenant, d.KB, d.ID}] = d.Origin
	}
	for _, r := range o.deletes {
		// Both a new version and a deletion of one id: which was meant is
		// not for Add to guess.
		if at, ok := inCorpus[[3]string{r.Tenant, r.KB, r.ID}]; ok {
			return Manifest{}, fmt.Errorf("--delete %s: the corpus also has document %q (%s): drop one of the two", r.ID, r.ID, at)
		}
		docs = append(docs, Doc{ID: r.ID, Tenant: r.Tenant, KB: r.KB, Deleted: true, Origin: "--delete"})
	}
	ch := o.changes
	if ch == nil {
		ch = &Changes{}
	}
	*ch = Changes{}
	mem, badMem, err := readMemory(memory, cfg.Strict, o.part)
	if err != nil {
		return Manifest{}, err
	}
	withDocs := map[[2]string]bool{}
	for _, pi := range man.Partitions {
		withDocs[[2]string{pi.Tenant, pi.KB}] = true
	}
	for _, d := range docs {
		withDocs[[2]string{d.Tenant, d.KB}] = withDocs[[2]string{d.Tenant, d.KB}] || !d.Deleted
	}
	mem, orphans, err := memoryWithoutDocs(mem, func(t, kb string) bool { return withDocs[[2]string{t, kb}] }, cfg.Strict)
	if err != nil {
		return Manifest{}, err
	}
	bad = append(bad, badMem...)
	bad = append(bad, orphans...)
	// Listed in the manifest (BadLines), for the caller to report once;
	// each at debug level here. Only this add's own: the base's were
	// reported (and skipped or refused) when it was made.
	man.BadLines = nil
	for _, le := range bad {
		log.Debug("skipped bad line", zap.String("at", le.Error()))
		man.BadLines = append(man.BadLines, le.Error())
	}
	warnDropped(log, docs)
	var remote *RemoteEmbedder
	if man.Embedder == EmbedderRemote {
		if remote, err = NewRemoteEmbedder(cfg.Remote, 0); err != nil {
			return Manifest{}, err
		}
	}
	tmp, err := prepareOut(out)
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(tmp)
	if err := disk.CopyTree(base, tmp); err != nil {
		return Manifest{}, fmt.Errorf("copy base snapshot: %w", err)
	}
	os.Remove(filepath.Join(tmp, disk.ManifestFile))

	byPart := map[[2]string][]Doc{}
	memByPart := map[[2]string][]MemoryEntry{}
	touched := map[[2]string]bool{}
	for _, d := range docs {
		k := [2]string{d.Tenant, d.KB}
		byPart[k] = append(byPart[k], d)
		touched[k] = true
	}
	for _, m := range mem {
		k := [2]string{m.Tenant, m.KB}
		memByPart[k] = append(memByPart[k], m)
		touched[k] = true
	}
	var hg *HaluGateSummary
	if cfg.HaluGate.Enabled {
		hg = &HaluGateSummary{}
	}
	infos := map[[2]string]PartitionInfo{}
	for _, pi := range man.Partitions {
		infos[[2]string{pi.Tenant, pi.KB}] = pi
	}
	var keys [][2]string
	for k := range touched {
		keys = append(keys, k)
	}
	prog := newProgress(o.progress, log, 0) // chunk count unknown until chunked
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		var info PartitionInfo
		var g *gate
		if hg != nil {
			g = &gate{cfg: cfg.HaluGate, v: o.verifier, sum: hg, log: log}
		}
		if _, ok := infos[k]; ok {
			info, err = extendPartition(ctx, cfg, remote, enc, prog, infos[k], tmp, k, byPart[k], memByPart[k], g, ch, log)
		} else {
			var dels []Doc
			byPart[k], dels = splitDeletions(byPart[k])
			for _, d := range dels {
				if !d.unpublished { // a draft that was never published: nothing to say
					ch.NotFound = append(ch.NotFound, DocRef{d.Tenant, d.KB, d.ID})
				}
			}
			for _, d := range byPart[k] {
				ch.Added = append(ch.Added, DocRef{d.Tenant, d.KB, d.ID})
			}
			if len(byPart[k]) == 0 && len(memByPart[k]) == 0 {
				continue
			}
			pd := &partData{tenant: k[0], kb: k[1], aliases: map[string]string{}}
			if g != nil {
				g.lookup = docSources(nil, nil, byPart[k])
			}
			err = ingestPartition(ctx, cfg, g, pd, byPart[k], memByPart[k])
			if err == nil {
				err = embedPartition(ctx, cfg, remote, pd)
			}
			if err == nil {
				err = encodePartition(ctx, cfg, enc, pd, 0, prog, nil)
			}
			if err == nil {
				info, err = writePartition(ctx, cfg, tmp, pd, nil, log)
			}
			if err == nil && g != nil {
				err = g.finish(filepath.Join(tmp, info.Dir), nil)
			}
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("partition %s/%s: %w", k[0], k[1], err)
		}
		infos[k] = info
	}
	if hg != nil {
		for _, info := range infos {
			es, err := readGateFile(filepath.Join(tmp, info.Dir))
			if err != nil {
				return Manifest{}, fmt.Errorf("partition %s/%s: %w", info.Tenant, info.KB, err)
			}
			hg.tally(es)
		}
	}
	man.HaluGate = hg
	man.Partitions = man.Partitions[:0]
	man.Docs, man.Chunks = 0, 0
	man.Memory += len(mem)
	for _, info := range infos {
		man.Partitions = append(man.Partitions, info)
		man.Docs += info.Docs
		man.Chunks += info.Chunks
	}
	sort.Slice(man.Partitions, func(i, j int) bool {
		a, b := man.Partitions[i], man.Partitions[j]
		return a.Tenant < b.Tenant || a.Tenant == b.Tenant && a.KB < b.KB
	})
	man.Base = base
	prog.finish()
	return finishSnapshot(tmp, out, man, start, log)
}

// extendPartition applies new documents and memory to a copied partition.
func extendPartition(ctx context.Context, cfg Config, remote *RemoteEmbedder, enc Encoder, prog *progress, base PartitionInfo, root string, k [2]string, docs []Doc, mem []MemoryEntry, g *gate, ch *Changes, log *zap.Logger) (PartitionInfo, error) {
	dir := filepath.Join(root, disk.PartDir(k[0], k[1]))
	pd := &partData{tenant: k[0], kb: k[1], model: &LocalModel{}}
	var cf chunkFile
	if err := disk.ReadGob(filepath.Join(dir, disk.ChunksFile), &cf); err != nil {
		return PartitionInfo{}, err
	}
	pd.chunks, pd.deleted, pd.docs = cf.Chunks, cf.Deleted, cf.Docs
	if err := disk.ReadGob(filepath.Join(dir, disk.LocalModelFile), pd.model); err != nil {
		return PartitionInfo{}, err
	}
	if err := disk.ReadTerms(filepath.Join(dir, disk.TermsFile), &pd.terms); err != nil {
		return PartitionInfo{}, err
	}
	var err error
	if pd.local, err = disk.ReadF32(filepath.Join(dir, disk.LocalVectorsFile)); err != nil {
		return PartitionInfo{}, err
	}
	if remote != nil {
		if pd.remote, err = disk.ReadF32(filepath.Join(dir, disk.RemoteVectorsFile)); err != nil {
			return PartitionInfo{}, err
		}
		if len(pd.chunks) > 0 {
			pd.remoteDims = len(pd.remote) / len(pd.chunks)
		}
	}
	if enc != nil {
		if pd.enc, err = disk.ReadF32(filepath.Join(dir, disk.EncoderVectorsFile)); err != nil {
			return PartitionInfo{}, err
		}
		if len(pd.enc) != len(pd.chunks)*enc.Dims() {
			return PartitionInfo{}, fmt.Errorf("encoder vectors: %d floats for %d chunks", len(pd.enc), len(pd.chunks))
		}
		// The dense calibration stays the one measured at build, as the
		// local model's IDF stays frozen.
		pd.encCalib, pd.encAnchors = base.DenseCalibration, base.DenseRawAnchors
	}
	af, _ := disk.ReadAddress(filepath.Join(dir, disk.AddressFile))
	pd.aliases = af.Aliases
	if pd.aliases == nil {
		pd.aliases = map[string]string{}
	}
	if mf, err := os.Open(filepath.Join(dir, disk.MemoryFile)); err == nil {
		_ = readLines(mf, func(n int, line []byte) error {
			if m, err := parseMemoryLine(line); err == nil {
				pd.mem = append(pd.mem, m)
			}
			return nil
		})
		mf.Close()
	}
	// Deletions first (HaluGate then sees their sources gone), and the
	// documents that are already there exactly as given are left alone.
	delta := &graphDelta{base: dir, bleve: filepath.Join(dir, disk.BleveDir), first: len(pd.chunks)}
	liveSlots := map[string][]int{}
	for i, c := range pd.chunks {
		if !pd.deleted[i] {
			liveSlots[c.DocID] = append(liveSlots[c.DocID], i)
		}
	}
	docs, dels := splitDeletions(docs)
	for _, d := range dels {
		ref := DocRef{d.Tenant, d.KB, d.ID}
		slots, ok := liveSlots[d.ID]
		if !ok {
			if !d.unpublished {
				ch.NotFound = append(ch.NotFound, ref)
			}
			continue
		}
		for _, i := range slots {
			pd.deleted[i] = true
			delta.removed = append(delta.removed, i)
		}
		delete(liveSlots, d.ID)
		pd.docs--
		ch.Removed = append(ch.Removed, ref)
	}
	changed := docs[:0]
	for _, d := range docs {
		ref := DocRef{d.Tenant, d.KB, d.ID}
		slots, ok := liveSlots[d.ID]
		switch {
		case !ok:
			ch.Added = append(ch.Added, ref)
		case len(d.Sources) == 0 && sameChunks(pd.chunks, slots, chunkDoc(d, cfg.ChunkChars, cfg.MinChunkChars)):
			ch.Unchanged = append(ch.Unchanged, ref)
			continue
		default:
			ch.Replaced = append(ch.Replaced, ref)
		}
		changed = append(changed, d)
	}
	docs = changed
	var keep []GateEntry
	excluded := map[string]bool{} // doc ids HaluGate keeps out of retrieval
	if g != nil {
		var err error
		if docs, mem, keep, err = g.extend(dir, pd, docs, mem); err != nil {
			return PartitionInfo{}, err
		}
		for _, d := range docs {
			if len(d.Sources) == 0 {
				continue
			}
			e, err := g.checkDoc(ctx, d)
			if err != nil {
				return PartitionInfo{}, fmt.Errorf("halugate %s: %w", d.ID, err)
			}
			excluded[d.ID] = g.record(e)
		}
		kept := mem[:0:0]
		for _, m := range mem {
			if len(m.Sources) > 0 {
				e, err := g.checkMemory(ctx, m)
				if err != nil {
					return PartitionInfo{}, fmt.Errorf("halugate %s: %w", memKey(m), err)
				}
				if g.record(e) {
					continue
				}
			}
			kept = append(kept, m)
		}
		mem = kept
	}
	pd.mem = append(pd.mem, mem...)

	// A document counts once however many chunks it has; one whose every
	// chunk is a tombstone (deleted by an earlier add, or kept out by
	// HaluGate) is counted again when it comes back.
	var newChunks []Chunk
	var newDeleted []bool
	for _, d := range docs {
		slots, known := liveSlots[d.ID]
		for _, i := range slots {
			pd.deleted[i] = true
			delta.removed = append(delta.removed, i)
		}
		if !known {
			pd.docs++
			liveSlots[d.ID] = nil
		}
		learnAliases(pd.aliases, d)
		cs := chunkDoc(d, cfg.ChunkChars, cfg.MinChunkChars)
		newChunks = append(newChunks, cs...)
		for range cs {
			newDeleted = append(newDeleted, excluded[d.ID])
		}
	}
	first := len(pd.chunks)
	dims := pd.model.Dims
	pd.chunks = append(pd.chunks, newChunks...)
	pd.deleted = append(pd.deleted, newDeleted...)
	pd.local = append(pd.local, make([]float32, len(newChunks)*dims)...)
	for j := range newChunks {
		i := first + j
		title, text := Tokenize(pd.chunks[i].Title), Tokenize(pd.chunks[i].Text)
		pd.model.appendTerms(&pd.terms, title, text) // frozen IDF; unseen terms get new ids
		pd.model.embedTokens(append(title, text...), pd.local[i*dims:(i+1)*dims])
	}
	if remote != nil && len(newChunks) > 0 {
		texts := make([]string, len(newChunks))
		for j, c := range newChunks {
			texts[j] = embedText(c)
		}
		vecs, err := remote.Embed(ctx, texts)
		if err != nil {
			return PartitionInfo{}, err
		}
		for _, v := range vecs {
			if pd.remoteDims != 0 && len(v) != pd.remoteDims {
				return PartitionInfo{}, fmt.Errorf("embedding dims %d != %d", len(v), pd.remoteDims)
			}
			pd.remoteDims = len(v)
			pd.remote = append(pd.remote, v...)
		}
	}
	if err := encodePartition(ctx, cfg, enc, pd, first, prog, nil); err != nil {
		return PartitionInfo{}, err
	}
	for j := range newChunks {
		if !newDeleted[j] {
			delta.added = append(delta.added, first+j)
		}
	}
	info, err := writePartition(ctx, cfg, root, pd, delta, log)
	if err == nil && g != nil {
		err = g.finish(dir, keep)
	}
	return info, err
}

// DocRef names one document: its partition and id.
type DocRef struct {
	Tenant, KB, ID string
}

func (r DocRef) String() string {
	if r.Tenant == DefaultTenant && r.KB == DefaultKB {
		return r.ID
	}
	return r.Tenant + "/" + r.KB + ": " + r.ID
}

// Changes is what an Add did to the documents of its input, in input
// order per partition (partitions in name order). HaluGate may re-check
// and re-index derived entries of the base beyond these (its summary
// counts them).
type Changes struct {
	Added     []DocRef // ids the base did not have
	Replaced  []DocRef // ids the base had, with other content
	Unchanged []DocRef // ids the base had with exactly this content: left as they were
	Removed   []DocRef // deletions applied
	NotFound  []DocRef // deletions of ids the base does not have
}

// WithDelete removes documents in Add (as a {"id":..,"deleted":true}
// corpus line does); deleting an id the base lacks is reported in
// Changes.NotFound, not an error.
func WithDelete(refs ...DocRef) Option {
	return func(o *options) { o.deletes = append(o.deletes, refs...) }
}

// WithChanges has Add fill c with what it did to each input document.
func WithChanges(c *Changes) Option { return func(o *options) { o.changes = c } }

// splitDeletions separates deletion lines from documents.
func splitDeletions(docs []Doc) (keep, dels []Doc) {
	for _, d := range docs {
		if d.Deleted {
			dels = append(dels, d)
		} else {
			keep = append(keep, d)
		}
	}
	return keep, dels
}

// sameChunks reports whether the live chunks at slots are exactly next.
func sameChunks(chunks []Chunk, slots []int, next []Chunk) bool {
	if len(slots) != len(next) {
		return false
	}
	for j, i := range slots {
		if chunks[i] != next[j] {
			return false
		}
	}
	return true
}

// graphTombstones is how many tombstoned nodes, as a share of the live
// chunks, the graph of a partition may hold before Add rebuilds it.
const graphTombstones = 0.2

// extendGraph reads the base partition's graph from path (its slots are
// those below first) and inserts the slots of added into it with the
// same insertion a build uses (graphBuilder), so an extended graph is as
// good as a built one.
//
// Slots tombstoned by this or an earlier add stay in the graph as nodes:
// unlinking a node would leave its neighbours' lists short and could
// empty an upper layer. A tombstone node still routes searches;
// Partition.Dense drops deleted slots from what the graph returns and
// asks the graph for more candidates in proportion to its tombstones.
//
// extendGraph returns a nil graph and the reason when the graph must be
// built from scratch instead: the base partition has no usable graph,
// the graph breaks an invariant insertion relies on (checkGraph; a graph
// an add wrote before 2026-11-24 may hold dangling links), or its
// tombstones would exceed graphTombstones of live. The error is ctx's.
func extendGraph(ctx context.Context, cfg Config, path string, pd *partData, first int, added []int, live int) (*graphBuilder, string, error) {
	vecs, dims := pd.primary()
	layers, err := disk.ReadGraph(path, dims, len(pd.chunks))
	if err != nil {
		return nil, err.Error(), nil
	}
	if why := checkGraph(layers, pd.deleted, first); why != "" {
		return nil, why, nil
	}
	if tomb := layers[0].Size + len(added) - live; float64(tomb) > graphTombstones*float64(live) {
		return nil, fmt.Sprintf("%d tombstoned nodes for %d live chunks", tomb, live), nil
	}
	g := newGraphBuilder(cfg, vecs, dims)
	g.load(layers)
	for j, i := range added {
		if j%1024 == 0 && ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		g.insert(uint32(i))
	}
	return g, "", nil
}

// checkGraph says what is wrong with a base graph that Add would extend,
// or "" when nothing is: every layer has a node, every neighbour is a
// node of its layer, every node of an upper layer is one of the layer
// below, every live slot below first is a node and no node is first or
// beyond.
func checkGraph(layers []disk.GraphLayer, deleted []bool, first int) string {
	if len(layers) == 0 {
		return "graph has no layers"
	}
	in := make([][]bool, len(layers))
	for li, l := range layers {
		if l.Size == 0 {
			return fmt.Sprintf("graph layer %d is empty", li)
		}
		in[li] = make([]bool, len(deleted))
		for _, k := range l.Nodes {
			if int(k) >= first {
				return fmt.Sprintf("graph node %d is a new slot", k)
			}
			in[li][k] = true
		}
	}
	for li := range layers {
		for _, k := range layers[li].Nodes {
			if li > 0 && !in[li-1][k] {
				return fmt.Sprintf("graph node %d is in layer %d, not in layer %d", k, li, li-1)
			}
			for _, nb := range layers[li].Neighbors(k) {
				if !in[li][nb] {
					return fmt.Sprintf("graph node %d links to %d, not a node of layer %d", k, nb, li)
				}
			}
		}
	}
	for i := 0; i < first; i++ {
		if !deleted[i] && !in[0][i] {
			return fmt.Sprintf("live slot %d is not in the graph", i)
		}
	}
	return ""
}
