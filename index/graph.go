package index

import (
	"slices"
	"sync"

	"github.com/answer-guard/guard/index/internal/disk"
	"github.com/viterin/vek/vek32"
)

// flatGraph is a read-only HNSW graph decoded from its file (coder/hnsw's
// Export format, written by graphBuilder) into flat adjacency arrays,
// searched with greedy descent through the upper layers and an
// ef-bounded beam search on the base layer (the beam graphBuilder's
// insertion uses too). Vectors are not duplicated: keys are chunk slots
// into the partition's flat vectors.
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

// distHeap is a binary heap of candidates: nearest on top, or farthest
// on top when far is set. It is typed (not container/heap) so that a
// push does not box its value.
type distHeap struct {
	s   []scored
	far bool
}

func (h *distHeap) before(i, j int) bool {
	if h.far {
		return nearer(h.s[j], h.s[i])
	}
	return nearer(h.s[i], h.s[j])
}

func (h *distHeap) push(x scored) {
	h.s = append(h.s, x)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.before(i, p) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

func (h *distHeap) pop() scored {
	top := h.s[0]
	n := len(h.s) - 1
	h.s[0] = h.s[n]
	h.s = h.s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.before(c+1, c) {
			c++
		}
		if !h.before(c, i) {
			break
		}
		h.s[i], h.s[c] = h.s[c], h.s[i]
		i = c
	}
	return top
}

type searchScratch struct {
	visited []uint32 // generation stamp per slot
	gen     uint32
	cand    distHeap // to expand, nearest first
	res     distHeap // best found, farthest first
	out     []scored
}

// greedy walks from ep to ever nearer neighbours on one layer until no
// neighbour is nearer (the descent through the upper layers).
func greedy(ep scored, neighbors func(uint32) []uint32, dist func(uint32) float32) scored {
	for changed := true; changed; {
		changed = false
		for _, nb := range neighbors(ep.key) {
			if x := (scored{nb, dist(nb)}); nearer(x, ep) {
				ep, changed = x, true
			}
		}
	}
	return ep
}

// beam is the ef-bounded beam search of one layer from the entry points
// eps (their dist set): it expands the nearest unexpanded candidate
// until that is farther than the farthest of the ef best found. It
// returns the ef best, nearest first (ties by slot); the slice is reused
// by the next call. s.visited must cover every key.
func (s *searchScratch) beam(eps []scored, ef int, neighbors func(uint32) []uint32, dist func(uint32) float32) []scored {
	s.gen++
	if s.gen == 0 {
		clear(s.visited)
		s.gen = 1
	}
	s.cand.s, s.cand.far = s.cand.s[:0], false
	s.res.s, s.res.far = s.res.s[:0], true
	for _, ep := range eps {
		if s.visited[ep.key] == s.gen {
			continue
		}
		s.visited[ep.key] = s.gen
		s.cand.push(ep)
		s.res.push(ep)
		if len(s.res.s) > ef {
			s.res.pop()
		}
	}
	for len(s.cand.s) > 0 {
		c := s.cand.pop()
		if len(s.res.s) >= ef && nearer(s.res.s[0], c) {
			break
		}
		for _, nb := range neighbors(c.key) {
			if s.visited[nb] == s.gen {
				continue
			}
			s.visited[nb] = s.gen
			x := scored{nb, dist(nb)}
			if len(s.res.s) < ef || nearer(x, s.res.s[0]) {
				s.cand.push(x)
				s.res.push(x)
				if len(s.res.s) > ef {
					s.res.pop()
				}
			}
		}
	}
	s.out = s.out[:0]
	for len(s.res.s) > 0 {
		s.out = append(s.out, s.res.pop())
	}
	slices.Reverse(s.out)
	return s.out
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
	ep := scored{g.layers[top].Entry, dist(g.layers[top].Entry)}
	for li := top; li > 0; li-- {
		ep = greedy(ep, g.layers[li].Neighbors, dist)
	}
	// Beam search on the base layer.
	found := s.beam([]scored{ep}, max(g.ef, k), g.layers[0].Neighbors, dist)
	return slices.Clone(found[:min(k, len(found))])
}
