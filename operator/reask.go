package operator

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
)

// After a reload puts a new snapshot or new thresholds in force, the open
// refused, fallback and off_topic entries of the gap queue are asked again through
// the host (retrieval and the gate, no model call), most frequent first,
// up to gaps.reask_limit; one that now grounds is marked resolved, with the
// coverage it reached. The pass runs off the reload's path on one
// goroutine the plane owns: a newer reload cancels it and starts another,
// Close cancels it. Gap claims (uncited sentences) are not re-asked: a
// question that grounds does not make the claim covered; an operator
// resolves those.

type reasker struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{} // closed when the current pass ends; nil before the first
}

// startReask cancels a running pass and starts one against the
// configuration now in force.
func (p *Plane) startReask() {
	limit := p.cfg.Load().Gaps.ReaskLimit
	r := &p.reask
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
		<-r.done
	}
	if limit == 0 || p.gapQ == nil {
		r.cancel, r.done = nil, nil
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r.cancel, r.done = cancel, done
	go func() {
		defer close(done)
		resolved, asked := p.reaskOpen(ctx, limit)
		p.log.Info("gap queue re-asked after reload", zap.Int("asked", asked), zap.Int("resolved", resolved))
		if resolved > 0 {
			p.gapQ.save()
		}
	}()
}

// waitReask waits for the current pass (tests).
func (p *Plane) waitReask() {
	p.reask.mu.Lock()
	done := p.reask.done
	p.reask.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (p *Plane) stopReask() {
	r := &p.reask
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
		<-r.done
		r.cancel = nil
	}
}

// reaskOpen asks up to limit open refused, fallback and off_topic entries
// again and resolves those that ground; it returns how many it resolved and asked.
func (p *Plane) reaskOpen(ctx context.Context, limit int) (resolved, asked int) {
	open := p.gapQ.list(gapFilter{kinds: []string{GapRefused, GapFallback, GapOffTopic}, status: GapOpen})
	if len(open) > limit {
		open = open[:limit]
	}
	for _, g := range open {
		if ctx.Err() != nil {
			break
		}
		d, cov, err := p.askGap(ctx, g)
		asked++
		if err != nil || d != gate.Ground {
			continue
		}
		why := fmt.Sprintf("answered after a reload (coverage %.2f)", cov)
		if _, err := p.changeGap(g.ID, GapResolved, why, cov, gapFilter{}); err == nil {
			resolved++
		}
	}
	return resolved, asked
}

// askGap asks a gap's question again; a panic in a stage it runs (a bug:
// retrieve, the gate) is logged and skips this question, as a request's
// fails that request alone (proxy), where it would end the server.
func (p *Plane) askGap(ctx context.Context, g *Gap) (d gate.Decision, cov float64, err error) {
	defer func() {
		if v := recover(); v != nil {
			p.log.Error("panic caught in the gap re-ask; the question is skipped", zap.String("gap", g.ID), zap.Any("panic", v), zap.Stack("stack"))
			err = fmt.Errorf("re-ask panicked: %v", v)
		}
	}()
	return p.host.Ask(ctx, g.Tenant, g.KB, g.Text)
}
