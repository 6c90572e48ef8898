package retrieve

import (
	"context"
	"slices"

	"github.com/answer-guard/guard/index"
	"go.uber.org/zap"
)

type memOut struct {
	notes        []MemoryNote
	refs         map[int]float64 // slot -> calibrated score floor
	shortCircuit bool
}

// memoryLane matches the question against the partition's curated memory
// with the asymmetric thresholds of DESIGN.md: a pin is accepted at
// calibrated similarity >= pin_accept; in [pin_border, pin_accept) the
// reranker re-judges (question, curator phrasing) and accepts at >=
// pin_judge (rejected when rerank is off); a note matches at >= note_match
// and is returned as background; its refs (and an accepted pin's) join the
// pool at ref_score; a note at >= short_circuit with >= short_circuit_refs
// resolvable refs short-circuits the corpus sweep.
func (e *Engine) memoryLane(ctx context.Context, p *index.Partition, q string, qv index.Sparse) memOut {
	out := memOut{refs: map[int]float64{}}
	cfg := e.cfg.Memory
	addRefs := func(refs []string, score float64) int {
		n := 0
		for _, id := range refs {
			slots := p.Resolve(id)
			if len(slots) > 0 {
				n++
			}
			for _, s := range slots {
				out.refs[s] = max(out.refs[s], score)
			}
		}
		return n
	}
	for i, m := range p.Memory {
		var sim float64
		for _, v := range p.MemoryVecs[i] {
			sim = max(sim, p.Local.Calib.Apply(qv.Cosine(v)))
		}
		switch m.Type {
		case "pin":
			accept := sim >= cfg.PinAccept
			if !accept && sim >= cfg.PinBorder {
				accept = e.judgePin(ctx, p, q, m.Question, sim)
			}
			if accept {
				addRefs(m.Refs, max(cfg.RefScore, sim))
			}
		case "note":
			if sim < cfg.NoteMatch {
				continue
			}
			resolvable := addRefs(m.Refs, cfg.RefScore)
			out.notes = append(out.notes, MemoryNote{Text: m.Note, Refs: slices.Clone(m.Refs), Score: sim})
			if sim >= cfg.ShortCircuit && resolvable >= cfg.ShortCircuitRefs {
				out.shortCircuit = true
			}
		}
	}
	slices.SortFunc(out.notes, func(a, b MemoryNote) int { return cmpDesc(a.Score, b.Score, 0, 0) })
	if len(out.notes) > cfg.MaxNotes {
		out.notes = out.notes[:cfg.MaxNotes]
	}
	return out
}

// judgePin re-judges a border-zone pin with the reranker (remote first,
// local on failure); with rerank off there is no judge and the pin is
// rejected.
func (e *Engine) judgePin(ctx context.Context, p *index.Partition, q, phrasing string, sim float64) bool {
	if e.cfg.Rerank.Mode == "off" {
		return false
	}
	docs := []RerankDoc{{Text: phrasing, Dense: sim}}
	if e.remote != nil {
		rctx, cancel := context.WithTimeout(ctx, e.cfg.Rerank.Timeout)
		s, err := e.remote.Rerank(rctx, q, docs)
		cancel()
		if err == nil && len(s) == 1 {
			return s[0] >= e.cfg.Memory.PinJudge
		}
		e.log.Warn("remote pin judge failed; local reranker stands in", zap.Error(err))
	}
	s, err := e.localReranker(p).Rerank(ctx, q, docs)
	return err == nil && s[0] >= e.cfg.Memory.PinJudge
}
