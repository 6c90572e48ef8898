package index

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/viterin/vek/vek32"
)

// flatGraph is a read-only HNSW graph decoded from coder/hnsw's Export
// format into flat adjacency arrays. coder/hnsw builds and exports the
// graph; this type searches it with a standard ef-bounded beam search,
// because coder/hnsw's own search stops at the first expansion that does
// not improve on the best hit and loses most of the recall. Vectors are
// not duplicated: keys are chunk slots into the partition's flat vectors.
type flatGraph struct {
	layers []flatLayer // 0 = base
	n      int         // slots covered by key space
	ef     int
	pool   sync.Pool // *searchScratch
}

type flatLayer struct {
	offsets map[uint32][2]uint32 // key -> [start, end) into adj (upper layers)
	base    [][2]uint32          // key -> [start, end) into adj (layer 0, slot-indexed)
	adj     []uint32
	entry   uint32
	size    int
}

func (l *flatLayer) neighbors(k uint32) []uint32 {
	if l.base != nil {
		if int(k) >= len(l.base) {
			return nil
		}
		r := l.base[k]
		return l.adj[r[0]:r[1]]
	}
	r, ok := l.offsets[k]
	if !ok {
		return nil
	}
	return l.adj[r[0]:r[1]]
}

type byteReader struct {
	*bufio.Reader
}

func readVarint(r *byteReader) (int, error) {
	v, err := binary.ReadVarint(r)
	return int(v), err
}

// loadFlatGraph decodes a coder/hnsw export (encoding version 1, uint32
// keys) and checks that its vectors have dims dimensions.
func loadFlatGraph(path string, dims, slots, ef int) (*flatGraph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open graph: %w", err)
	}
	defer f.Close()
	r := &byteReader{bufio.NewReaderSize(f, 1<<20)}
	version, err := readVarint(r)
	if err != nil || version != 1 {
		return nil, fmt.Errorf("graph: unsupported encoding version %d (%v)", version, err)
	}
	// M, then Ml (float64), EfSearch, distance name.
	if _, err := readVarint(r); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	var ml float64
	if err := binary.Read(r, binary.LittleEndian, &ml); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	if _, err := readVarint(r); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	nameLen, err := readVarint(r)
	if err != nil || nameLen < 0 || nameLen > 64 {
		return nil, fmt.Errorf("graph header: distance name length %d (%v)", nameLen, err)
	}
	if _, err := r.Discard(nameLen); err != nil {
		return nil, fmt.Errorf("graph header: %w", err)
	}
	nLayers, err := readVarint(r)
	if err != nil || nLayers < 0 || nLayers > 64 {
		return nil, fmt.Errorf("graph: %d layers (%v)", nLayers, err)
	}
	g := &flatGraph{layers: make([]flatLayer, nLayers), n: slots, ef: ef}
	var key uint32
	for li := 0; li < nLayers; li++ {
		nNodes, err := readVarint(r)
		if err != nil || nNodes < 0 || nNodes > slots {
			return nil, fmt.Errorf("graph layer %d: %d nodes (%v)", li, nNodes, err)
		}
		l := &g.layers[li]
		l.size = nNodes
		if li == 0 {
			l.base = make([][2]uint32, slots)
		} else {
			l.offsets = make(map[uint32][2]uint32, nNodes)
		}
		for j := 0; j < nNodes; j++ {
			if err := binary.Read(r, binary.LittleEndian, &key); err != nil {
				return nil, fmt.Errorf("graph node: %w", err)
			}
			vl, err := readVarint(r)
			if err != nil || vl != dims {
				return nil, fmt.Errorf("graph node %d: %d dims, want %d (%v)", key, vl, dims, err)
			}
			if _, err := r.Discard(4 * vl); err != nil {
				return nil, fmt.Errorf("graph node vector: %w", err)
			}
			nn, err := readVarint(r)
			if err != nil || nn < 0 || nn > 4096 {
				return nil, fmt.Errorf("graph node %d: %d neighbors (%v)", key, nn, err)
			}
			if int(key) >= slots {
				return nil, fmt.Errorf("graph node %d beyond %d slots", key, slots)
			}
			start := uint32(len(l.adj))
			for k := 0; k < nn; k++ {
				var nb uint32
				if err := binary.Read(r, binary.LittleEndian, &nb); err != nil {
					return nil, fmt.Errorf("graph neighbor: %w", err)
				}
				if int(nb) < slots {
					l.adj = append(l.adj, nb)
				}
			}
			span := [2]uint32{start, uint32(len(l.adj))}
			if li == 0 {
				l.base[key] = span
			} else {
				l.offsets[key] = span
			}
			if j == 0 {
				l.entry = key
			}
		}
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		return nil, errors.New("graph: trailing data")
	}
	return g, nil
}

type scored struct {
	key  uint32
	dist float32
}

// minHeap of candidates (closest first) and maxHeap of results (farthest first).
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].dist < h[j].dist }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any          { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }

type maxHeap struct{ minHeap }

func (h maxHeap) Less(i, j int) bool { return h.minHeap[i].dist > h.minHeap[j].dist }

type searchScratch struct {
	visited []uint32 // generation stamp per slot
	gen     uint32
	cand    minHeap
	res     maxHeap
}

// search returns up to k keys nearest to q (cosine distance on unit
// vectors), best first. vec returns a slot's vector.
func (g *flatGraph) search(q []float32, k int, vec func(uint32) []float32) []scored {
	if len(g.layers) == 0 || g.layers[len(g.layers)-1].size == 0 {
		return nil
	}
	dist := func(key uint32) float32 { return 1 - vek32.Dot(q, vec(key)) }
	s, _ := g.pool.Get().(*searchScratch)
	if s == nil || len(s.visited) != g.n {
		s = &searchScratch{visited: make([]uint32, g.n)}
	}
	defer g.pool.Put(s)
	// Greedy descent through the upper layers.
	top := len(g.layers) - 1
	ep := g.layers[top].entry
	epd := dist(ep)
	for li := top; li > 0; li-- {
		for changed := true; changed; {
			changed = false
			for _, nb := range g.layers[li].neighbors(ep) {
				if d := dist(nb); d < epd {
					ep, epd, changed = nb, d, true
				}
			}
		}
	}
	// Beam search on the base layer.
	ef := max(g.ef, k)
	s.gen++
	if s.gen == 0 {
		clear(s.visited)
		s.gen = 1
	}
	s.cand = s.cand[:0]
	s.res.minHeap = s.res.minHeap[:0]
	s.visited[ep] = s.gen
	heap.Push(&s.cand, scored{ep, epd})
	heap.Push(&s.res, scored{ep, epd})
	base := &g.layers[0]
	for s.cand.Len() > 0 {
		c := heap.Pop(&s.cand).(scored)
		if s.res.Len() >= ef && c.dist > s.res.minHeap[0].dist {
			break
		}
		for _, nb := range base.neighbors(c.key) {
			if s.visited[nb] == s.gen {
				continue
			}
			s.visited[nb] = s.gen
			d := dist(nb)
			if s.res.Len() < ef || d < s.res.minHeap[0].dist {
				heap.Push(&s.cand, scored{nb, d})
				heap.Push(&s.res, scored{nb, d})
				if s.res.Len() > ef {
					heap.Pop(&s.res)
				}
			}
		}
	}
	out := make([]scored, s.res.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&s.res).(scored)
	}
	if len(out) > k {
		out = out[:k]
	}
	return out
}
