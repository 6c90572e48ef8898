package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/answer-guard/guard/index/internal/disk"
	"github.com/viterin/vek/vek32"
)

// graphBuilder builds an HNSW graph over a partition's primary vectors
// (unit vectors, cosine distance) and writes it in the format
// disk.ReadGraph reads (coder/hnsw's Export format, encoding version 1).
//
// A build is deterministic: a node's level is a function of its slot
// (levelOf), nodes are inserted in the order the caller gives, ties in
// distance are broken by slot, and no map is iterated, so the same
// vectors inserted in the same order give a byte-identical file on the
// same kind of CPU (vek32.Dot sums in another order without AVX2, so a
// tie or a near-tie may resolve differently there).
//
// Insertion follows the HNSW paper: greedy descent through the layers
// above the new node's level, then on each of its layers an ef-bounded
// beam search (ef = hnsw.ef_search) whose results seed the next layer
// down; from each layer's results the neighbour-selection heuristic
// keeps up to m links (2m on the base layer), each kept neighbour links
// back, and a neighbour list that overflows is pruned again with the
// same heuristic.
type graphBuilder struct {
	m    int     // links per node on upper layers; 2m on the base layer
	ml   float64 // chance that a node reaches the next layer up
	ef   int     // beam width of the insertion search
	dims int
	vecs []float32 // slot-indexed, dims per slot

	links [][]adjacency // slot -> layer -> neighbours; nil: not a node
	entry uint32        // a node of the top layer
	top   int           // top layer; -1 while the graph is empty
	nodes []int         // nodes per layer

	s     searchScratch
	eps   []scored // entry points of the next layer's search
	cand  []scored // scratch of selectNeighbors
	skip  []scored
	prune []scored // scratch of linkBack
}

// graphSeed seeds levelOf; changing it changes every graph built.
const graphSeed = 0x9e3779b97f4a7c15

// maxGraphLevel caps a node's level (with ml 0.25, reaching it has
// probability 0.25^16, about 2e-10).
const maxGraphLevel = 16

// newGraphBuilder returns an empty graph over vecs (dims per slot) with
// cfg's hnsw settings.
func newGraphBuilder(cfg Config, vecs []float32, dims int) *graphBuilder {
	slots := len(vecs) / max(dims, 1)
	return &graphBuilder{
		m: cfg.HNSW.M, ml: cfg.HNSW.Ml, ef: max(cfg.HNSW.EfSearch, 1),
		dims: dims, vecs: vecs,
		links: make([][]adjacency, slots),
		top:   -1,
		s:     searchScratch{visited: make([]uint32, slots)},
	}
}

// levelOf is the top layer of the node for slot: the number of
// successive draws below ml from a generator seeded by the slot, so a
// slot has the same level in a build and in an add that extends the
// graph, whatever order the nodes come in.
func levelOf(slot uint32, ml float64) int {
	r := rand.New(rand.NewPCG(graphSeed, uint64(slot)))
	l := 0
	for l < maxGraphLevel && r.Float64() < ml {
		l++
	}
	return l
}

func (b *graphBuilder) vec(k uint32) []float32 {
	return b.vecs[int(k)*b.dims : (int(k)+1)*b.dims]
}

// capOf is the most links a node keeps on layer l.
func (b *graphBuilder) capOf(l int) int {
	if l == 0 {
		return 2 * b.m
	}
	return b.m
}

// nearer orders candidates by distance, then slot, so that equal distances
// resolve the same way in every build.
func nearer(a, b scored) bool {
	return a.dist < b.dist || a.dist == b.dist && a.key < b.key
}

// cmpScored is nearer as a comparison for slices.SortFunc.
func cmpScored(a, b scored) int {
	switch {
	case nearer(a, b):
		return -1
	case nearer(b, a):
		return 1
	}
	return 0
}

// insert adds the node for slot key, which must not be a node yet.
func (b *graphBuilder) insert(key uint32) {
	level := levelOf(key, b.ml)
	b.links[key] = make([]adjacency, level+1)
	for l := range b.links[key] {
		b.links[key][l].keys = make([]uint32, 0, b.capOf(l)+1)
	}
	for len(b.nodes) <= level {
		b.nodes = append(b.nodes, 0)
	}
	for l := 0; l <= level; l++ {
		b.nodes[l]++
	}
	if b.top < 0 {
		b.entry, b.top = key, level
		return
	}
	q := b.vec(key)
	dist := func(k uint32) float32 { return 1 - vek32.Dot(q, b.vec(k)) }
	ep := scored{b.entry, dist(b.entry)}
	for l := b.top; l > level; l-- {
		ep = greedy(ep, b.layer(l), dist)
	}
	b.eps = append(b.eps[:0], ep)
	for l := min(level, b.top); l >= 0; l-- {
		found := b.s.beam(b.eps, b.ef, b.layer(l), dist)
		a := &b.links[key][l]
		for _, nb := range b.selectNeighbors(found, b.capOf(l)) {
			a.keys = append(a.keys, nb.key)
		}
		// linkBack reuses select's scratch: walk the copy in links.
		for _, nb := range a.keys {
			b.linkBack(nb, key, l)
		}
		b.eps = append(b.eps[:0], found...)
	}
	if level > b.top {
		b.entry, b.top = key, level
	}
}

// layer returns the neighbour lookup of layer l.
func (b *graphBuilder) layer(l int) func(uint32) []uint32 {
	return func(k uint32) []uint32 { return b.links[k][l].keys }
}

// adjacency is a node's neighbour list on one layer. Once a list has
// overflowed it is kept sorted (distance to the node, then slot) with
// each neighbour's distance and, as a bit, whether the selection
// heuristic keeps it on its own merit (good) or only fills up (see
// linkBack).
type adjacency struct {
	keys   []uint32
	dist   []float32 // when sorted
	good   uint64    // bit i: keys[i] is good; when sorted
	sorted bool
}

// linkBack adds key to nb's neighbours on layer l; when that overflows
// nb's list, it keeps what the selection heuristic (selectNeighbors)
// keeps of the list with key.
//
// It does so without running the heuristic over the whole list again.
// Over a list sorted by distance, whether an entry is good depends only
// on the entries before it, and the heuristic with fill-up, given one
// entry more than it may keep, drops exactly one: the farthest that is
// not good, or the farthest if all are good. So an overflowing list is
// classified once (classify), and each later insertion decides the new
// entry against the good entries before it and, when it is good,
// re-decides only the entries after it: a good one stays good unless it
// is nearer the new entry than the node, and one that was not good is
// looked at again only if an entry before it stopped being good.
func (b *graphBuilder) linkBack(nb, key uint32, l int) {
	a := &b.links[nb][l]
	if !a.sorted {
		a.keys = append(a.keys, key)
		switch {
		case len(a.keys) <= b.capOf(l):
		case len(a.keys) > 64:
			// Too long for the good mask (m over 31, or a list read
			// from a graph built with a larger m): select afresh.
			b.pruneFull(nb, a, b.capOf(l))
		default:
			b.classify(nb, a)
			for len(a.keys) > b.capOf(l) {
				a.drop()
			}
		}
		return
	}
	// Insert key at its place.
	d := 1 - vek32.Dot(b.vec(nb), b.vec(key))
	p := 0
	for p < len(a.keys) && nearer(scored{a.keys[p], a.dist[p]}, scored{key, d}) {
		p++
	}
	a.keys = slices.Insert(a.keys, p, key)
	a.dist = slices.Insert(a.dist, p, d)
	low := a.good & (1<<p - 1)
	a.good = low | (a.good&^(1<<p-1))<<1
	v := b.vec(key)
	if b.goodAt(a, p, v, d) {
		a.good |= 1 << p
		demoted := false
		for i := p + 1; i < len(a.keys); i++ {
			e := b.vec(a.keys[i])
			switch {
			case a.good&(1<<i) != 0:
				if 1-vek32.Dot(e, v) < a.dist[i] {
					a.good &^= 1 << i
					demoted = true
				}
			case demoted && b.goodAt(a, i, e, a.dist[i]):
				a.good |= 1 << i
			}
		}
	}
	if len(a.keys) > b.capOf(l) {
		a.drop()
	}
}

// pruneFull keeps what selectNeighbors keeps of node k's list a.
func (b *graphBuilder) pruneFull(k uint32, a *adjacency, n int) {
	cand := b.byDistance(k, a.keys)
	a.keys = a.keys[:0]
	for _, c := range b.selectNeighbors(cand, n) {
		a.keys = append(a.keys, c.key)
	}
}

// byDistance is keys scored by their distance to node k, nearest first,
// in the builder's scratch (valid until the next call).
func (b *graphBuilder) byDistance(k uint32, keys []uint32) []scored {
	v := b.vec(k)
	cand := b.prune[:0]
	for _, x := range keys {
		cand = append(cand, scored{x, 1 - vek32.Dot(v, b.vec(x))})
	}
	slices.SortFunc(cand, cmpScored)
	b.prune = cand
	return cand
}

// goodAt reports whether the entry at i of a sorted list (vector v,
// distance d to the list's node) is closer to the node than to every
// good entry before it.
func (b *graphBuilder) goodAt(a *adjacency, i int, v []float32, d float32) bool {
	for j := 0; j < i; j++ {
		if a.good&(1<<j) != 0 && 1-vek32.Dot(v, b.vec(a.keys[j])) < d {
			return false
		}
	}
	return true
}

// classify sorts node k's list a by distance and marks its good entries.
func (b *graphBuilder) classify(k uint32, a *adjacency) {
	cand := b.byDistance(k, a.keys)
	a.dist = make([]float32, len(cand), cap(a.keys))
	a.good = 0
	for i, c := range cand {
		a.keys[i], a.dist[i] = c.key, c.dist
	}
	for i := range a.keys {
		if b.goodAt(a, i, b.vec(a.keys[i]), a.dist[i]) {
			a.good |= 1 << i
		}
	}
	a.sorted = true
}

// drop removes the entry the heuristic would not keep from a sorted
// list one entry over its cap: the farthest entry that is not good, or
// the farthest.
func (a *adjacency) drop() {
	i := len(a.keys) - 1
	for j := i; j >= 0; j-- {
		if a.good&(1<<j) == 0 {
			i = j
			break
		}
	}
	a.keys = slices.Delete(a.keys, i, i+1)
	a.dist = slices.Delete(a.dist, i, i+1)
	a.good = a.good&(1<<i-1) | (a.good>>(i+1))<<i
}

// selectNeighbors is the HNSW neighbour-selection heuristic over cand
// (sorted by distance to the base node, nearest first): a candidate is
// kept when it is closer to the base node than to every neighbour kept
// so far, so links spread in different directions instead of all
// pointing into the nearest cluster; the list is then filled up to n
// with the nearest candidates skipped. The result aliases b's scratch.
func (b *graphBuilder) selectNeighbors(cand []scored, n int) []scored {
	kept, skip := b.cand[:0], b.skip[:0]
	for _, c := range cand {
		if len(kept) >= n {
			break
		}
		v := b.vec(c.key)
		good := true
		for _, r := range kept {
			if 1-vek32.Dot(v, b.vec(r.key)) < c.dist {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		} else {
			skip = append(skip, c)
		}
	}
	for _, c := range skip {
		if len(kept) >= n {
			break
		}
		kept = append(kept, c)
	}
	b.cand, b.skip = kept, skip
	return kept
}

// load makes the graph that disk.ReadGraph decoded into layers the
// builder's state, so that insert extends it. Each layer's nodes must
// be nodes of the layer below and link only to nodes of their layer
// (checkGraph).
func (b *graphBuilder) load(layers []disk.GraphLayer) {
	b.top = len(layers) - 1
	b.nodes = make([]int, len(layers))
	for li := b.top; li >= 0; li-- {
		b.nodes[li] = layers[li].Size
		for _, k := range layers[li].Nodes {
			if b.links[k] == nil {
				b.links[k] = make([]adjacency, li+1)
			}
			nbs := layers[li].Neighbors(k)
			b.links[k][li].keys = append(make([]uint32, 0, max(len(nbs), b.capOf(li))+1), nbs...)
		}
	}
	if b.top >= 0 {
		b.entry = layers[b.top].Entry
	}
}

// graphDistance is the distance name the format records; coder/hnsw's
// Import maps "cosine" to its cosine distance, which on unit vectors is
// the 1 - dot product that the builder and flatGraph use.
const graphDistance = "cosine"

// writeTo writes the graph in coder/hnsw's Export format, encoding
// version 1: a header (version, M, Ml, EfSearch, distance name), then
// per layer from the base up its node count and, per node, the key, the
// vector and the neighbour keys. Each layer lists the entry node first
// (disk.ReadGraph takes a layer's first node as its entry) and the other
// nodes by slot.
func (b *graphBuilder) writeTo(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf [binary.MaxVarintLen64]byte
	varint := func(v int) { bw.Write(buf[:binary.PutVarint(buf[:], int64(v))]) }
	u32 := func(v uint32) { bw.Write(binary.LittleEndian.AppendUint32(buf[:0], v)) }
	varint(1)
	varint(b.m)
	bw.Write(binary.LittleEndian.AppendUint64(buf[:0], math.Float64bits(b.ml)))
	varint(b.ef)
	varint(len(graphDistance))
	bw.WriteString(graphDistance)
	varint(b.top + 1)
	node := func(k uint32, l int) {
		u32(k)
		varint(b.dims)
		for _, x := range b.vec(k) {
			u32(math.Float32bits(x))
		}
		nbs := b.links[k][l].keys
		varint(len(nbs))
		for _, nb := range nbs {
			u32(nb)
		}
	}
	for l := 0; l <= b.top; l++ {
		varint(b.nodes[l])
		node(b.entry, l)
		for k, ls := range b.links {
			if len(ls) > l && uint32(k) != b.entry {
				node(uint32(k), l)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write graph: %w", err)
	}
	return nil
}
