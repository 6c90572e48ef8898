package index

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"

	"github.com/viterin/vek/vek32"

	"github.com/answer-guard/guard/index/internal/disk"
)

// unitVectors returns n random unit vectors of dims dimensions, flat.
func unitVectors(rng *rand.Rand, n, dims int) []float32 {
	vecs := make([]float32, n*dims)
	for i := 0; i < n; i++ {
		v := vecs[i*dims : (i+1)*dims]
		var norm float64
		for j := range v {
			v[j] = float32(rng.NormFloat64())
			norm += float64(v[j] * v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
	}
	return vecs
}

// exactTop is the k slots below n nearest to q by dot product.
func exactTop(vecs []float32, dims, n int, q []float32, k int) []uint32 {
	all := make([]scored, n)
	for i := range all {
		var dot float32
		for j, x := range vecs[i*dims : (i+1)*dims] {
			dot += x * q[j]
		}
		all[i] = scored{uint32(i), 1 - dot}
	}
	slices.SortFunc(all, cmpScored)
	out := make([]uint32, k)
	for i := range out {
		out[i] = all[i].key
	}
	return out
}

// writeAndLoad writes g to dir and loads it as the search reads it.
func writeAndLoad(t *testing.T, g *graphBuilder, dir string, ef int) *flatGraph {
	t.Helper()
	path := filepath.Join(dir, disk.GraphFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.writeTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fg, err := loadFlatGraph(path, g.dims, len(g.links), ef)
	if err != nil {
		t.Fatal(err)
	}
	return fg
}

// graphRecall is the share of the exact top 10 (over the first n slots)
// that a k 10 search of fg finds, over queries.
func graphRecall(fg *flatGraph, vecs []float32, dims, n int, queries []float32) float64 {
	vec := func(k uint32) []float32 { return vecs[int(k)*dims : (int(k)+1)*dims] }
	found, total := 0, 0
	for qi := 0; qi < len(queries)/dims; qi++ {
		q := queries[qi*dims : (qi+1)*dims]
		got := fg.search(q, 10, vec)
		for _, want := range exactTop(vecs, dims, n, q, 10) {
			total++
			if slices.ContainsFunc(got, func(s scored) bool { return s.key == want }) {
				found++
			}
		}
	}
	return float64(found) / float64(total)
}

// TestGraphBuildRecall: a graph built over 4,000 random unit vectors of
// 24 dimensions, written and read back as the search reads it, finds
// most of the exact top 10 of 200 random queries at the query beam
// (64). Measured 0.999. A quality floor, not a timing.
func TestGraphBuildRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, dims = 4000, 24
	vecs := unitVectors(rng, n, dims)
	g := newGraphBuilder(DefaultConfig(), vecs, dims)
	for i := range n {
		g.insert(uint32(i))
	}
	fg := writeAndLoad(t, g, t.TempDir(), graphEf)
	got := graphRecall(fg, vecs, dims, n, unitVectors(rng, 200, dims))
	t.Logf("graph recall@10 %.3f", got)
	if got < 0.95 {
		t.Errorf("graph recall@10 = %.3f, want >= 0.95", got)
	}
}

// TestGraphBuildDeterministic: two builds of the same documents write
// byte-identical graph files, and so do two adds onto one of them.
func TestGraphBuildDeterministic(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 9))
	docs := randomDocs(rng, "d", 1500)
	batch := append(randomDocs(rng, "n", 50), Doc{ID: "d7", Text: randomText(rng)})
	cfg := DefaultConfig()
	cfg.HNSW.ExactBelow = 100
	cfg.Embedder = EmbedderHashed // the graph is under test, not the encoder
	dir := t.TempDir()
	src := filepath.Join(dir, "add.jsonl")
	writeDocs(t, src, batch)
	graph := func(snap string) []byte {
		b, err := os.ReadFile(filepath.Join(snap, disk.PartDir(DefaultTenant, DefaultKB), disk.GraphFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var built, added [2][]byte
	for i := range 2 {
		snap := filepath.Join(dir, fmt.Sprint("s", i))
		if _, err := BuildDocs(ctx, cfg, docs, nil, snap, zap.NewNop()); err != nil {
			t.Fatal(err)
		}
		built[i] = graph(snap)
		next := filepath.Join(dir, fmt.Sprint("a", i))
		if _, err := Add(ctx, cfg, filepath.Join(dir, "s0"), []string{src}, nil, next, zap.NewNop()); err != nil {
			t.Fatal(err)
		}
		added[i] = graph(next)
	}
	if !bytes.Equal(built[0], built[1]) {
		t.Errorf("two builds wrote different graphs (%d and %d bytes)", len(built[0]), len(built[1]))
	}
	if !bytes.Equal(added[0], added[1]) {
		t.Errorf("two adds wrote different graphs (%d and %d bytes)", len(added[0]), len(added[1]))
	}
	if bytes.Equal(built[0], added[0]) {
		t.Error("the add did not change the graph")
	}
}

// TestGraphExtendsCoderExport: a graph file written by coder/hnsw v0.6.1
// (the builder of snapshots before 2026-11-28) still loads and extends.
// testdata/graph/coder-hnsw-v0.6.1.bin is its Export of 400 unit vectors
// of 8 dimensions drawn as unitVectors does from PCG(11, 12), with M 6,
// Ml 0.25, EfSearch 20 and math/rand seed 42. 100 new vectors are
// inserted; the written graph passes checkGraph, and every new vector
// finds itself first and most of its exact top 10 (measured 0.94: the
// old part keeps coder/hnsw's sparser links).
func TestGraphExtendsCoderExport(t *testing.T) {
	const old, n, dims = 400, 500, 8
	vecs := unitVectors(rand.New(rand.NewPCG(11, 12)), old, dims)
	vecs = append(vecs, unitVectors(rand.New(rand.NewPCG(13, 14)), n-old, dims)...)
	layers, err := disk.ReadGraph(filepath.Join("testdata", "graph", "coder-hnsw-v0.6.1.bin"), dims, n)
	if err != nil {
		t.Fatal(err)
	}
	deleted := make([]bool, n)
	if why := checkGraph(layers, deleted, old); why != "" {
		t.Fatalf("coder/hnsw graph: %s", why)
	}
	if layers[0].Size != old {
		t.Fatalf("coder/hnsw graph has %d base nodes, want %d", layers[0].Size, old)
	}
	cfg := DefaultConfig()
	g := newGraphBuilder(cfg, vecs, dims)
	g.load(layers)
	for i := old; i < n; i++ {
		g.insert(uint32(i))
	}
	dir := t.TempDir()
	fg := writeAndLoad(t, g, dir, graphEf)
	layers, err = disk.ReadGraph(filepath.Join(dir, disk.GraphFile), dims, n)
	if err != nil {
		t.Fatal(err)
	}
	if why := checkGraph(layers, deleted, n); why != "" {
		t.Fatalf("extended graph: %s", why)
	}
	vec := func(k uint32) []float32 { return vecs[int(k)*dims : (int(k)+1)*dims] }
	for i := old; i < n; i++ {
		if got := fg.search(vec(uint32(i)), 1, vec); len(got) != 1 || got[0].key != uint32(i) {
			t.Fatalf("slot %d's own vector finds %v, want itself", i, got)
		}
	}
	got := graphRecall(fg, vecs, dims, n, vecs[old*dims:])
	t.Logf("extended graph recall@10 %.3f", got)
	if got < 0.9 {
		t.Errorf("extended graph recall@10 = %.3f, want >= 0.90", got)
	}
}

// TestLinkBackMatchesHeuristic: linkBack's incremental upkeep of an
// overflowing neighbour list keeps, after every insertion, the same set
// as running selectNeighbors over the whole list again, for base-layer
// caps 8 and 32 and for a list longer than the good mask holds (m 40).
func TestLinkBackMatchesHeuristic(t *testing.T) {
	for _, m := range []int{4, 16, 40} {
		t.Run(fmt.Sprint("m", m), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(m), 5))
			const n, dims = 600, 12
			cfg := DefaultConfig()
			cfg.HNSW.M = m
			b := newGraphBuilder(cfg, unitVectors(rng, n, dims), dims)
			b.links[0] = make([]adjacency, 1)
			var ref []uint32
			for k := uint32(1); k < n; k++ {
				b.linkBack(0, k, 0)
				ref = append(ref, k)
				if len(ref) > b.capOf(0) {
					cand := make([]scored, len(ref))
					for i, x := range ref {
						cand[i] = scored{x, 1 - vek32.Dot(b.vec(0), b.vec(x))}
					}
					slices.SortFunc(cand, cmpScored)
					ref = ref[:0]
					for _, c := range b.selectNeighbors(cand, b.capOf(0)) {
						ref = append(ref, c.key)
					}
				}
				got := slices.Sorted(slices.Values(b.links[0][0].keys))
				if want := slices.Sorted(slices.Values(ref)); !slices.Equal(got, want) {
					t.Fatalf("after %d: list %v, want %v", k, got, want)
				}
			}
		})
	}
}
