package index

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coder/hnsw"

	"github.com/answer-guard/guard/index/internal/disk"
)

// TestGraphFileReadsInCoderHNSW: the graph file the index writes is
// coder/hnsw's Export format, checked against coder/hnsw v0.6.1 itself
// (the library that wrote the graphs of snapshots before 2026-11-28,
// and the reference for the format; the index no longer builds with it,
// see graphbuild.go). coder/hnsw imports the file with every node and
// its vector, and its own Export of what it imported reads back here as
// the same layers: the same nodes and the same neighbour sets.
func TestGraphFileReadsInCoderHNSW(t *testing.T) {
	const n, dims = 600, 12
	vecs := unitVectors(rand.New(rand.NewPCG(21, 22)), n, dims)
	b := newGraphBuilder(DefaultConfig(), vecs, dims)
	for i := range n {
		b.insert(uint32(i))
	}
	dir := t.TempDir()
	writeAndLoad(t, b, dir, graphEf)
	path := filepath.Join(dir, disk.GraphFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := hnsw.NewGraph[uint32]()
	if err := g.Import(bufio.NewReader(bytes.NewReader(raw))); err != nil {
		t.Fatalf("coder/hnsw cannot import the index's graph file: %v", err)
	}
	if g.Len() != n || g.Dims() != dims {
		t.Fatalf("coder/hnsw imported %d nodes of %d dims, want %d of %d", g.Len(), g.Dims(), n, dims)
	}
	for i := range n {
		v, ok := g.Lookup(uint32(i))
		if !ok || !slices.Equal(v, vecs[i*dims:(i+1)*dims]) {
			t.Fatalf("coder/hnsw's node %d: found %v, vector differs %v", i, ok, !slices.Equal(v, vecs[i*dims:(i+1)*dims]))
		}
	}
	var again bytes.Buffer
	if err := g.Export(&again); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(t.TempDir(), disk.GraphFile)
	if err := os.WriteFile(back, again.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := disk.ReadGraph(path, dims, n)
	if err != nil {
		t.Fatal(err)
	}
	got, err := disk.ReadGraph(back, dims, n)
	if err != nil {
		t.Fatalf("coder/hnsw's export of the imported graph: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("coder/hnsw's export has %d layers, want %d", len(got), len(want))
	}
	sorted := func(ks []uint32) []uint32 { return slices.Sorted(slices.Values(ks)) }
	for li := range want {
		if !slices.Equal(sorted(got[li].Nodes), sorted(want[li].Nodes)) {
			t.Fatalf("layer %d: coder/hnsw's export holds other nodes", li)
		}
		for _, k := range want[li].Nodes {
			if !slices.Equal(sorted(got[li].Neighbors(k)), sorted(want[li].Neighbors(k))) {
				t.Fatalf("layer %d node %d: neighbours %v after coder/hnsw's round trip, want %v", li, k, got[li].Neighbors(k), want[li].Neighbors(k))
			}
		}
	}
}
