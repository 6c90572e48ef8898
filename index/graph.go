package index

import (
	"container/heap"
	"sync"

	"github.com/answer-guard/guard/index/internal/disk"
	"github.com/viterin/vek/vek32"
)

// flatGraph is a read-only HNSW graph decoded from coder/hnsw's Export
// format into flat adjacency arrays. coder/hnsw builds and exports the
// graph; this type searches it with a standard ef-bounded beam search,
// because coder/hnsw's own search stops at the first expansion that does
// not improve on the best hit and loses most of the recall. Vectors are
// not duplicated: keys are chunk slots into the partition's flat vectors.
type flatGraph struct {
	layers []disk.GraphLayer // 0 = base
	n      int               // slots covered by key space
	ef     int
	pool   sync.Pool // *searchScratch
}

// loadFlatGraph reads the graph file at path (see disk.ReadGraph).
func loadFlatGraph(path string, dims, slots, ef int) (*flatGraph, error) {
	layers, err := disk.ReadGraph(path, dims, slots)
	if err != nil {
		return nil, err
	}
	for i := range layers {
		layers[i].Nodes = nil // search does not need them
	}
	return &flatGraph{layers: layers, n: slots, ef: ef}, nil
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
	if len(g.layers) == 0 || g.layers[len(g.layers)-1].Size == 0 {
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
	ep := g.layers[top].Entry
	epd := dist(ep)
	for li := top; li > 0; li-- {
		for changed := true; changed; {
			changed = false
			for _, nb := range g.layers[li].Neighbors(ep) {
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
		for _, nb := range base.Neighbors(c.key) {
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
