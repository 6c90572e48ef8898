// Package operator implements the operator plane of answer-guard: what an
// operator reads about the turns the proxy served, beside the request path
// (the way Caddy's admin API sits beside its handlers). It owns the turn
// log and its JSON-lines persistence (turnlog.go, turnlog_persist.go), the
// gap queue (gaps.go), the Redis copy shared by replicas (state.go), the
// threshold what-if (whatif.go) and the console (console.go, console/),
// with their routes (GET /v1/guard/turns, POST /v1/guard/whatif,
// GET /v1/guard/gaps, /console), config sections (state, gaps, turnlog,
// console) and metrics.
//
// The proxy hands the plane one finished-turn record per chat turn
// (turnrec.Turn, through Plane.RecordTurn) and the requests for the paths
// the plane owns (Plane.ServeOperator). The plane never reads the proxy's
// internals: who may read what is decided by the proxy's one auth
// implementation, which the plane is handed as Host.OperatorAccess.
package operator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// Config is the operator plane's sections of the configuration file.
type Config struct {
	State   StateConfig   `yaml:"state"` // gaps.go, state.go
	Gaps    GapsConfig    `yaml:"gaps"`  // gaps.go
	TurnLog TurnLogConfig `yaml:"turnlog"`
	Console ConsoleConfig `yaml:"console"`
}

// DefaultConfig is the built-in configuration (the same values as
// configs/guard.yaml).
func DefaultConfig() Config {
	return Config{
		Gaps:    defaultGaps(),
		State:   StateConfig{RedisTTL: 168 * time.Hour, RedisFlush: 500 * time.Millisecond},
		TurnLog: defaultTurnLog(),
		Console: ConsoleConfig{Enabled: true},
	}
}

// Validate reports every problem of the sections at once, each with its
// key path.
func (c Config) Validate() error {
	var errs []error
	for _, sec := range []struct {
		name string
		err  error
	}{{"gaps", c.Gaps.validate()}, {"state", c.State.validate()}, {"turnlog", c.TurnLog.validate()}} {
		for _, e := range unjoin(sec.err) {
			errs = append(errs, fmt.Errorf("%s.%w", sec.name, e))
		}
	}
	return errors.Join(errs...)
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	return []error{err}
}

// Host is what the plane needs of the server it runs beside (the proxy
// implements it).
type Host interface {
	// OperatorAccess authorises a request to an operator route: the
	// tenant ("" = every tenant) and KBs (nil = every KB) it may read, or
	// the error the client gets. adminOnly admits only an admin key when
	// auth is on.
	OperatorAccess(ctx *fasthttp.RequestCtx, adminOnly bool) (tenant string, kbs []string, err error)
	// GateConfig is the gate configuration in force.
	GateConfig() gate.Config
	// PartitionKinds lists the kinds of a partition's chunks in the index
	// in force, sorted; nil for a partition it does not hold (or with the
	// pipeline off). The what-if applies the proxy's primary-kind rule
	// with them.
	PartitionKinds(tenant, kb string) []string
	// PipelineEnabled reports whether the guard pipeline is on.
	PipelineEnabled() bool
	// Protected reports whether auth is on or the listener is loopback
	// (the console is served only then).
	Protected() bool
	// Ask runs a question through the pipeline in force as far as its
	// decision (retrieval and the gate; no model call): the decision and
	// the best coverage the gate saw.
	Ask(ctx context.Context, tenant, kb, question string) (gate.Decision, float64, error)
}

// Plane is the operator plane. Its methods are safe for concurrent use.
type Plane struct {
	host    Host
	log     *zap.Logger
	started Config // the restart-only settings, as started
	cfg     atomic.Pointer[Config]
	m       *metrics
	gapQ    *gapQueue    // the gap queue, kept across reloads
	shared  *sharedState // the Redis copy of turns and gaps; nil without state.redis_url
	turns   *turnLog     // recent turns; nil when turnlog.size is 0
	turnW   *turnWriter  // the turn log's JSONL copy; nil without turnlog.persist.dir
	reask   reasker      // the re-ask of open gaps after a reload (reask.go)
}

// New starts the plane: it opens the gap queue and the turn log (reading
// back what state.dir and turnlog.persist.dir hold) and connects to Redis
// when state.redis_url is set. Close stops it.
func New(cfg Config, host Host, log *zap.Logger) (*Plane, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	p := &Plane{host: host, log: log.Named("operator"), started: cfg, m: newMetrics()}
	p.cfg.Store(&cfg)
	err := p.startGaps(cfg)
	if err == nil {
		p.turns = newTurnLog(cfg.TurnLog)
		if p.turns != nil && cfg.TurnLog.Persist.Dir != "" {
			n, bad := p.turns.restore(cfg.TurnLog.Persist.Dir)
			p.log.Info("turn log restored", zap.Int("turns", n), zap.Int("unreadable_lines", bad))
			p.turnW, err = startTurnWriter(p.turns, cfg.TurnLog.Persist, p.log.Named("turnlog"))
		}
	}
	if err == nil && cfg.State.RedisURL != "" {
		p.shared, err = startSharedState(cfg, p.turns, p.m, p.log.Named("state"))
		if err == nil && p.gapQ != nil {
			p.gapQ.share = p.shared.observeGap
		}
	}
	if err != nil {
		p.gapQ.close()
		if p.turnW != nil {
			p.turnW.Close()
		}
		return nil, err
	}
	return p, nil
}

// RecordTurn files one finished turn in the turn log and the gap queue.
func (p *Plane) RecordTurn(t *turnrec.Turn) {
	p.gapQ.observe(p.cfg.Load().Gaps, t)
	p.turns.record(t)
}

// ServeOperator serves the plane's routes; handled is false for any other
// path. route names the route for the server's request counter.
func (p *Plane) ServeOperator(ctx *fasthttp.RequestCtx, path string) (route string, handled bool, err error) {
	switch path {
	case "/v1/guard/gaps":
		return "gaps", true, p.serveGaps(ctx)
	case "/v1/guard/turns":
		return "turns", true, p.guardTurns(ctx)
	case "/v1/guard/whatif":
		return "whatif", true, p.guardWhatIf(ctx)
	}
	if rest, ok := strings.CutPrefix(path, "/v1/guard/gaps/"); ok {
		return "gaps", true, p.serveGapAction(ctx, rest)
	}
	if strings.HasPrefix(path, "/console") {
		if ok, err := p.console(ctx, path); ok {
			return "console", true, err
		}
	}
	return "", false, nil
}

// Degraded names the shared state store when it is configured and
// unreachable.
func (p *Plane) Degraded() (piece, message string) {
	if p.shared.Healthy() {
		return "", ""
	}
	return "state", "the shared state store (state.redis_url) is unreachable: turns and gaps are dropped and counted"
}

// Reloaded is the server's reload hook: a new configuration (snapshot or
// thresholds) is in force, so the open gaps are asked again (reask.go).
func (p *Plane) Reloaded() { p.startReask() }

// CheckReload reports whether next may replace the running sections
// without a restart: state.* and turnlog are read at start only.
func (p *Plane) CheckReload(next Config) error {
	if err := next.Validate(); err != nil {
		return err
	}
	r := p.started
	var changed []string
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"state.dir", r.State.Dir != next.State.Dir},
		{"state.redis_url", r.State.RedisURL != next.State.RedisURL},
		{"state.redis_flush", r.State.RedisFlush != next.State.RedisFlush},
		{"state.redis_ttl", r.State.RedisTTL != next.State.RedisTTL},
		{"turnlog", r.TurnLog != next.TurnLog},
	} {
		if f.diff {
			changed = append(changed, f.name)
		}
	}
	if len(changed) > 0 {
		return fmt.Errorf("%s: changing these needs a restart", strings.Join(changed, ", "))
	}
	return nil
}

// Reload puts next in force (gaps and console settings); call CheckReload
// first.
func (p *Plane) Reload(next Config) { p.cfg.Store(&next) }

// Config is the configuration in force.
func (p *Plane) Config() Config { return *p.cfg.Load() }

// WriteMetrics appends the plane's series in the Prometheus text format.
func (p *Plane) WriteMetrics(w io.Writer) error { return p.m.write(w) }

// Close stops the re-ask and the writers and saves the gap queue and the
// turn log. A save that fails (a full disk) is logged, not returned:
// shutdown goes on and the process exits 0. It may be called more than
// once.
func (p *Plane) Close() error {
	p.stopReask()
	p.gapQ.close()
	if p.turnW != nil {
		p.turnW.Close()
	}
	p.shared.Close()
	return nil
}

// Error is an error an operator route's client may see: the status and
// the OpenAI error body's fields. Message holds no internals.
type Error struct {
	Status  int
	Type    string
	Code    string
	Param   string
	Message string
	Allow   string // with 405: the methods the path takes
	Err     error  // cause, for the log only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// ClientError is what the server writes for it.
func (e *Error) ClientError() (status int, typ, code, param, message, allow string) {
	return e.Status, e.Type, e.Code, e.Param, e.Message, e.Allow
}

func badParam(param, msg string) *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_value", Param: param, Message: msg}
}

// methodNotAllowed is the 405 for a route that takes only the methods in
// allow (the Allow header's value, e.g. "GET, HEAD").
func methodNotAllowed(allow string) *Error {
	method, _, _ := strings.Cut(allow, ",")
	return &Error{Status: 405, Type: "invalid_request_error", Code: "method_not_allowed", Message: "use " + method, Allow: allow}
}

func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}
