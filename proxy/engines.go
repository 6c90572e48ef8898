package proxy

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/remoteplan"
	"github.com/answer-guard/guard/internal/termcache"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
)

// The engines: one retrieval engine kept across reloads (the embedded demo
// snapshot or the configured one), and the factory that builds each
// configuration's pipeline around it.

// engineHolder keeps one retrieval engine across reloads: a reload that
// changes neither the index nor the retrieval settings keeps it; one that
// points at a new snapshot swaps the snapshot in atomically.
type engineHolder struct {
	mu      sync.Mutex
	log     *zap.Logger
	eng     *retrieve.Engine
	dir     string    // snapshot dir in use
	stamp   time.Time // manifest mtime of that snapshot
	docs    int       // documents in that snapshot (its manifest)
	ixCfg   index.Config
	rCfg    retrieve.Config
	demoDir string           // temp dir of the embedded demo snapshot, removed on Close
	terms   *termcache.Cache // passages' prepared terms, across turns and reloads (internal/termcache)
}

// NewPipeline returns the factory of the guard pipeline: retrieval over the
// configured snapshot (or the embedded demo corpus), the gate, the marker
// gauntlet and the citation verifier.
func NewPipeline(log *zap.Logger) PipelineFactory {
	if log == nil {
		log = zap.NewNop()
	}
	h := &engineHolder{log: log.Named("pipeline")}
	jm := &judge.Metrics{} // one set of verifier series across reloads
	return func(cfg Config) (Pipeline, error) {
		eng, terms, err := h.engine(cfg)
		if err != nil {
			return nil, err
		}
		spec, err := gauntlet.Compile(cfg.Stages.Gauntlet)
		if err != nil {
			return nil, fmt.Errorf("gauntlet: %w", err)
		}
		j, err := judge.New(cfg.Stages.Verify, log)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		j.UseMetrics(jm)
		gcfg := cfg.Stages.Gate
		gcfg.Scrub = spec.Scrub
		gp := &guardPipe{log: h.log, eng: eng, spec: spec, judge: j, gate: gcfg, answer: gate.DefaultAnswerModel(),
			relevance: gate.DefaultRelevanceModel(), holder: h, terms: terms}
		if gcfg.Planner.Mode == "remote" {
			pc, err := remoteplan.Resolve(gcfg.Planner, cfg.Upstream.BaseURL, cfg.Upstream.APIKeyEnv)
			if err != nil {
				return nil, err
			}
			gp.planner = remoteplan.New(pc)
		}
		return gp, nil
	}
}

// engine returns the engine for cfg and the passage-terms cache, made with
// the first pipeline (a server whose pipeline is off never starts one).
func (h *engineHolder) engine(cfg Config) (*retrieve.Engine, *termcache.Cache, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.terms == nil {
		h.terms = termcache.New()
	}
	eng, err := h.swapIn(cfg)
	return eng, h.terms, err
}

// swapIn returns the engine for cfg, reusing or updating the current one
// when it can; h.mu is held.
func (h *engineHolder) swapIn(cfg Config) (*retrieve.Engine, error) {
	dir := cfg.Pipeline.Index
	if dir == "" {
		if h.demoDir == "" || !reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) {
			tmp, err := os.MkdirTemp("", "answer-guard-demo-*")
			if err != nil {
				return nil, fmt.Errorf("demo index: %w", err)
			}
			t0 := time.Now()
			if _, err := index.BuildDemo(context.Background(), cfg.Stages.Index, tmp, h.log); err != nil {
				os.RemoveAll(tmp)
				return nil, fmt.Errorf("index the embedded demo corpus: %w", err)
			}
			h.log.Info("indexed the embedded demo corpus", zap.Duration("took", time.Since(t0)))
			if h.demoDir != "" {
				defer os.RemoveAll(h.demoDir) // after the swap below; open files stay readable
			}
			h.demoDir = tmp
		}
		dir = h.demoDir
	}
	st, err := os.Stat(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	same := h.eng != nil && h.dir == dir && st.ModTime().Equal(h.stamp) &&
		reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) && reflect.DeepEqual(h.rCfg, cfg.Stages.Retrieve)
	if same {
		return h.eng, nil
	}
	snap, err := index.Load(dir)
	if err != nil {
		return nil, err
	}
	if err := snap.CheckEmbedder(cfg.Stages.Index); err != nil {
		snap.Close()
		return nil, err
	}
	if h.eng != nil && reflect.DeepEqual(h.ixCfg, cfg.Stages.Index) && reflect.DeepEqual(h.rCfg, cfg.Stages.Retrieve) {
		h.eng.Swap(snap) // in-flight queries finish on the old snapshot
	} else {
		eng, err := retrieve.New(cfg.Stages.Retrieve, cfg.Stages.Index, snap, h.log)
		if err != nil {
			snap.Close()
			return nil, fmt.Errorf("retrieval engine: %w", err)
		}
		// The old engine stays open: the configuration in force still
		// serves with it until the new one is stored, and if this build
		// fails it goes on doing so. Its pipeline closes it on Retire.
		h.eng = eng
	}
	h.dir, h.stamp, h.ixCfg, h.rCfg, h.docs = dir, st.ModTime(), cfg.Stages.Index, cfg.Stages.Retrieve, snap.Manifest.Docs
	h.log.Info("serving index", zap.String("dir", dir), zap.Int("docs", h.docs))
	return h.eng, nil
}

// retire closes eng when it is no longer the engine in use: the pipeline
// that held it was replaced by a reload. In-flight queries finish on its
// snapshot (Engine.Close retires it once they end).
func (h *engineHolder) retire(eng *retrieve.Engine) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if eng != nil && eng != h.eng {
		eng.Close()
	}
}

func (h *engineHolder) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.eng != nil {
		h.eng.Close()
	}
	if h.demoDir != "" {
		os.RemoveAll(h.demoDir)
		h.demoDir = ""
	}
	if h.terms != nil {
		h.terms.Close() // a turn still running finds it closed: Get misses, Set is dropped
	}
}

// guardPipe is the pipeline of one configuration.
type guardPipe struct {
	log    *zap.Logger
	eng    *retrieve.Engine
	spec   *gauntlet.Spec
	judge  *judge.Judge
	gate   gate.Config
	answer gate.AnswerModel
	// relevance is the relevance model the coverage gate's thresholds
	// compare (gate.relevance: relevance).
	relevance gate.AnswerModel
	holder    *engineHolder
	// planner is the remote synthesis planner; nil unless
	// gate.planner.mode is remote.
	planner *remoteplan.Planner
	// terms is the holder's passage-terms cache, shared across reloads; read
	// without the holder's lock, which a reload holds while it indexes.
	terms *termcache.Cache
}

// Serving names the snapshot the pipeline's engine serves ("embedded demo
// corpus" for the demo) and its document count, for the reload log line.
func (p *guardPipe) Serving() (snapshot string, docs int) {
	h := p.holder
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dir == h.demoDir {
		return "embedded demo corpus", h.docs
	}
	return h.dir, h.docs
}

// WriteMetrics appends the verifier's series to /metrics.
func (p *guardPipe) WriteMetrics(w io.Writer) error { return p.judge.WriteMetrics(w) }

// Close releases the engine and the demo snapshot (at server shutdown).
func (p *guardPipe) Close() {
	p.closeClients()
	p.holder.close()
}

// closeClients closes the idle connections of the pipeline's own remote
// clients (verifier, planner); turns still running keep working.
func (p *guardPipe) closeClients() {
	p.judge.Close()
	if p.planner != nil {
		p.planner.Close()
	}
}

// Retire is called once a reload has replaced p: it closes p's retrieval
// engine unless the new configuration still uses it.
func (p *guardPipe) Retire() {
	p.closeClients()
	p.holder.retire(p.eng)
}
