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
	judgeFailed  bool // the remote judge failed and the local one stood in
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
	calib := p.Local().Calib
	for i, m := range p.Memory() {
		var sim float64
		for _, v := range p.MemoryVectors(i) {
			sim = max(sim, calib.Apply(qv.Cosine(v)))
		}
		switch m.Type {
		case "pin":
			judge := func() (float64, bool) {
				s, ok, remoteFailed := e.judgePin(ctx, p, q, m.Question, sim)
				out.judgeFailed = out.judgeFailed || remoteFailed
				return s, ok
			}
			if cfg.acceptPin(sim, judge) {
				addRefs(m.Refs, max(cfg.RefScore, sim))
			}
		case "note":
			if !cfg.matchNote(sim) {
				continue
			}
			resolvable := addRefs(m.Refs, cfg.RefScore)
			out.notes = append(out.notes, MemoryNote{Text: m.Note, Refs: slices.Clone(m.Refs), Score: sim})
			if cfg.shortCircuits(sim, resolvable) {
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

// acceptPin: accepted at sim >= pin_accept; in [pin_border, pin_accept)
// accepted when the judge scores >= pin_judge; rejected without a judge.
func (c MemoryConfig) acceptPin(sim float64, judge func() (float64, bool)) bool {
	if sim >= c.PinAccept {
		return true
	}
	if sim < c.PinBorder {
		return false
	}
	s, ok := judge()
	return ok && s >= c.PinJudge
}

// matchNote: a note is background at sim >= note_match.
func (c MemoryConfig) matchNote(sim float64) bool { return sim >= c.NoteMatch }

// shortCircuits: a note at sim >= short_circuit with >= short_circuit_refs
// resolvable refs skips the corpus sweep.
func (c MemoryConfig) shortCircuits(sim float64, resolvable int) bool {
	return sim >= c.ShortCircuit && resolvable >= c.ShortCircuitRefs
}

// judgePin re-judges a border-zone pin with the reranker on (question,
// curator phrasing): remote first, local on failure. ok is false when
// there is no judge (rerank off); remoteFailed reports a local stand-in.
func (e *Engine) judgePin(ctx context.Context, p *index.Partition, q, phrasing string, sim float64) (score float64, ok, remoteFailed bool) {
	if e.cfg.Rerank.Mode == "off" {
		return 0, false, false
	}
	docs := []RerankDoc{{Text: phrasing, Dense: sim}}
	if e.remote != nil {
		rctx, cancel := context.WithTimeout(ctx, e.cfg.Rerank.Timeout)
		s, err := e.remote.Rerank(rctx, q, docs)
		cancel()
		if err == nil && len(s) == 1 {
			return s[0], true, false
		}
		e.log.Warn("remote pin judge failed; local reranker stands in", zap.Error(err))
		remoteFailed = true
	}
	s, err := e.localReranker(p).Rerank(ctx, q, docs)
	if err != nil {
		return 0, false, remoteFailed
	}
	return s[0], true, remoteFailed
}
