// Package proxy implements the OpenAI-compatible streaming proxy: the
// fasthttp server chat apps talk to, auth and tenancy, the upstream client,
// the SSE relay and the per-turn pipeline that calls the guard stages.
package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/clientconn"
	"github.com/answer-guard/guard/internal/evrelay"
	"github.com/answer-guard/guard/internal/logredact"
	"github.com/answer-guard/guard/internal/peerclose"
	"github.com/answer-guard/guard/internal/proctune"
	"github.com/answer-guard/guard/internal/turnrec"
)

// PipelineFactory builds the pipeline for a configuration (at start and on
// every reload).
type PipelineFactory func(cfg Config) (Pipeline, error)

// Server is the proxy. Its configuration can be replaced while it serves;
// requests in flight finish on the runtime they started with.
type Server struct {
	log     *zap.Logger
	factory PipelineFactory
	rt      atomic.Pointer[runtime]
	srv     *fasthttp.Server
	m       *metrics
	ready   atomic.Bool
	streams evrelay.Streams // in-flight stream writers
	reqSeq  atomic.Uint64
	bound   atomic.Pointer[string]      // the listener's address, set by Serve
	fast    *upstreamClient             // the upstream client (upstream.go), shared across reloads
	op      OperatorPlane               // the operator plane (attach.go); nil = none
	keyed   keyedStreams                // open streams begun with an API key (revoke.go)
	upState atomic.Pointer[probeResult] // the last upstream probe (probe.go); nil before the first
	probe   *prober                     // the probe loop, started by Serve; under lnMu
	// lns: the listeners Serve was given, closed by Shutdown; shut: a later Serve returns at once.
	lnMu  sync.Mutex
	lns   []net.Listener
	shut  bool
	evl   *evrelay.Loop     // server.event_loop (evloop.go), under lnMu
	evlAt netip.AddrPort    // the upstream evl relays to
	cw    peerclose.Watcher // a waiting request's client connection (handler.go)
}

// runtime is everything a request reads from the configuration, swapped as
// one immutable value on reload.
type runtime struct {
	cfg       Config
	up        *upstream
	pipe      Pipeline
	keys      []keyEntry
	adminKeys [][sha256.Size]byte
}

// New builds a server from cfg; cfg.Upstream.BaseURL must be set. factory
// may be nil for a pure pass-through proxy.
func New(cfg Config, log *zap.Logger, factory PipelineFactory) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	s := &Server{log: log.Named("proxy"), factory: factory, m: newMetrics(),
		fast: newFastClient(cfg.Upstream, nil)}
	s.m.registerUpstream(s.fast)
	rt, err := s.build(cfg)
	if err != nil {
		return nil, err
	}
	s.rt.Store(rt)
	s.applyGC(cfg.Server.GC)
	s.srv = &fasthttp.Server{
		Handler:               s.handle,
		ErrorHandler:          s.errorHandler,
		Name:                  "answer-guard",
		NoDefaultServerHeader: true,
		MaxRequestBodySize:    cfg.Server.MaxBodyBytes,
		ReadBufferSize:        cfg.Server.MaxHeaderBytes,
		// A stream's relay writes its chunks to the connection itself
		// (relay.Read): through this buffer go only the response header
		// and the end of the body, and it is held for the stream's whole
		// length, so it stays at 4 KiB (a whole answer above that leaves
		// in two writes).
		WriteBufferSize:               4 << 10,
		ReadTimeout:                   cfg.Server.ReadTimeout,
		IdleTimeout:                   cfg.Server.IdleTimeout,
		DisableHeaderNamesNormalizing: false,
		CloseOnShutdown:               true,
		KeepHijackedConns:             true, // the event loop gives them back (evloop.go)
		// fasthttp's parse errors quote the raw request (its headers,
		// Authorization included, and the start of the body) unless told
		// not to; its own log lines go through logredact.Logger, which keeps
		// only the format and the kind of error (logredact.go).
		SecureErrorLogMessage: true,
		Logger:                logredact.Logger{Log: s.log.Named("fasthttp")},
	}
	s.ready.Store(true)
	return s, nil
}

func (s *Server) build(cfg Config) (*runtime, error) {
	base := cfg.Upstream.BaseURL
	if base == "" {
		return nil, errors.New("upstream.base_url: empty: set the upstream's base URL")
	}
	key := ""
	if cfg.Upstream.APIKeyEnv != "" {
		key = os.Getenv(cfg.Upstream.APIKeyEnv)
	}
	var pipe Pipeline = passthrough{}
	if cfg.Pipeline.Enabled && s.factory != nil {
		p, err := s.factory(cfg)
		if err != nil {
			return nil, fmt.Errorf("build pipeline: %w", err)
		}
		pipe = p
	}
	keys, err := buildKeys(cfg.Auth)
	if err != nil {
		return nil, err
	}
	admin, err := buildAdminKeys(cfg.Auth)
	if err != nil {
		return nil, err
	}
	return &runtime{cfg: cfg, up: newUpstream(base, key, s.fast), pipe: pipe, keys: keys, adminKeys: admin}, nil
}

// Reload swaps in a new configuration. In-flight requests finish on the old
// one. A reload is all or nothing: one that changes a setting the running
// listener or upstream pool took at start (restartOnly), or that would switch
// auth off (on any listener: only a restart does that), is refused and the
// running configuration stays whole. Every outcome is counted in
// guard_config_reloads_total{result}.
func (s *Server) Reload(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return s.refuseReload("invalid", err)
	}
	old := s.rt.Load()
	if changed := restartOnly(old.cfg, cfg); len(changed) > 0 {
		return s.refuseReload("refused", fmt.Errorf("%s: changing these needs a restart", strings.Join(changed, ", ")))
	}
	if old.cfg.Auth.Enabled && !cfg.Auth.Enabled {
		// On every listener, loopback included: replicas on loopback
		// behind a reverse proxy would open every tenant to it.
		return s.refuseReload("refused", errors.New("auth.enabled: a reload may not switch auth off (an auth section left out does); restart guard serve to run without auth"))
	}
	if !cfg.Auth.Enabled {
		if addr := s.listenAddr(); !isLoopbackAddr(addr) {
			return s.refuseReload("refused", fmt.Errorf("auth.enabled: auth may be switched off only on a loopback listener, this one listens on %s", addr))
		}
	}
	rt, err := s.build(cfg)
	if err != nil {
		return s.refuseReload("invalid", err)
	}
	s.rt.Store(rt)
	s.revokeStreams(rt)
	s.applyGC(cfg.Server.GC)
	if old.pipe != rt.pipe {
		old.pipe.Retire()
	}
	s.m.reloads.WithLabelValues("ok").Inc()
	fields := []zap.Field{zap.Bool("pipeline", cfg.Pipeline.Enabled)}
	if sv, ok := rt.pipe.(interface{ Serving() (string, int) }); ok {
		dir, docs := sv.Serving()
		fields = append(fields, zap.String("snapshot", dir), zap.Int("docs", docs))
	}
	s.log.Info("configuration reloaded", fields...)
	if s.op != nil {
		s.op.Reloaded()
	}
	return nil
}

func (s *Server) applyGC(g proctune.GC) {
	percent, limit := g.Apply()
	s.log.Info("garbage collector", zap.Int("percent", percent), zap.Int64("memory_limit", limit),
		zap.Bool("gogc_env", os.Getenv("GOGC") != ""), zap.Bool("gomemlimit_env", os.Getenv("GOMEMLIMIT") != ""))
}

// ReloadFailed counts a reload whose file could not be read or decoded
// (the caller never got a Config to hand to Reload) and returns err.
func (s *Server) ReloadFailed(err error) error { return s.refuseReload("invalid", err) }

// ReloadRefused counts a reload refused outside the proxy (the operator
// plane's restart-only settings changed) and returns err.
func (s *Server) ReloadRefused(err error) error { return s.refuseReload("refused", err) }

func (s *Server) refuseReload(result string, err error) error {
	s.m.reloads.WithLabelValues(result).Inc()
	return fmt.Errorf("reload %s, running configuration kept: %w", result, err)
}

// restartOnly lists the settings that differ between the running and the
// new configuration and that only take effect at start: the listener and
// its limits, and the upstream connection pool.
func restartOnly(running, next Config) []string {
	var changed []string
	r, n := running.Server, next.Server
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"server.addr", r.Addr != n.Addr},
		{"server.max_body_bytes", r.MaxBodyBytes != n.MaxBodyBytes},
		{"server.max_header_bytes", r.MaxHeaderBytes != n.MaxHeaderBytes},
		{"server.read_timeout", r.ReadTimeout != n.ReadTimeout},
		{"server.idle_timeout", r.IdleTimeout != n.IdleTimeout},
		{"upstream.max_conns", running.Upstream.MaxConns != next.Upstream.MaxConns},
		{"upstream.conn_wait_timeout", running.Upstream.ConnWaitTimeout != next.Upstream.ConnWaitTimeout},
		{"upstream.max_response_bytes", running.Upstream.MaxResponseBytes != next.Upstream.MaxResponseBytes},
		{"upstream.idle_conn_timeout", running.Upstream.IdleConnTimeout != next.Upstream.IdleConnTimeout},
	} {
		if f.diff {
			changed = append(changed, f.name)
		}
	}
	return changed
}

// listenAddr is the address the server accepts on: the bound listener's
// once Serve runs, server.addr before that.
func (s *Server) listenAddr() string {
	if a := s.bound.Load(); a != nil {
		return *a
	}
	return s.rt.Load().cfg.Server.Addr
}

// Config returns the configuration in force.
func (s *Server) Config() Config { return s.rt.Load().cfg }

// Serve serves on ln until Shutdown (at once returns nil, closing ln, if
// Shutdown came first).
func (s *Server) Serve(ln net.Listener) error {
	s.lnMu.Lock()
	if s.shut {
		s.lnMu.Unlock()
		return ln.Close()
	}
	s.lns = append(s.lns, ln)
	s.lnMu.Unlock()
	a := ln.Addr().String()
	s.bound.Store(&a)
	s.startProbe()
	return s.srv.Serve(clientconn.Listener{Listener: ln})
}

// Shutdown stops accepting, waits for in-flight streams up to ctx, then
// releases the pipeline and the operator state.
func (s *Server) Shutdown(ctx context.Context) error {
	s.ready.Store(false)
	s.lnMu.Lock()
	s.shut = true
	lns := s.lns
	s.lnMu.Unlock()
	s.stopProbe()
	err := s.srv.ShutdownWithContext(ctx)
	// fasthttp closes the listeners whose Serve loop had started; one
	// given to Serve just before would otherwise accept forever.
	for _, ln := range lns {
		ln.Close() //nolint:errcheck // most are closed already
	}
	done := make(chan struct{})
	go func() { s.streams.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		err = errors.Join(err, ctx.Err())
	}
	if s.cw.Close(); s.evl != nil { // shut is set: evl no longer changes
		s.evl.Close() // ends its streams
	}
	// The operator plane first: it has every finished turn now, and its
	// re-ask (after a reload) may still be asking the pipeline.
	if s.op != nil {
		if oerr := s.op.Close(); oerr != nil {
			err = errors.Join(err, oerr)
		}
	}
	rt := s.rt.Load()
	rt.up.close()
	s.fast.CloseIdleConnections()
	rt.pipe.Close()
	return err
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	defer s.recoverRequest(ctx)
	if p := ctx.Request.Header.Protocol(); string(p) != "HTTP/1.1" && string(p) != "HTTP/1.0" {
		// fasthttp parses any HTTP/d.d request line as 1.1 would be:
		// RFC 9110 15.6.6, a version the server does not speak is 505.
		ctx.SetConnectionClose()
		s.fail(ctx, "other", &APIError{Status: 505, Type: "invalid_request_error", Code: "http_version_not_supported",
			Message: "only HTTP/1.0 and HTTP/1.1 are served"})
		return
	}
	if countHeader(ctx.Request.Header.RawHeaders(), "host:") > 1 {
		// RFC 9112 3.2: a request with more than one Host field is 400
		// (fasthttp keeps the last, a proxy in front may route on the first).
		ctx.SetConnectionClose()
		s.fail(ctx, "other", &APIError{Status: 400, Type: "invalid_request_error", Code: "bad_request",
			Message: "a request may carry only one Host header"})
		return
	}
	if spaceBeforeColon(ctx.Request.Header.RawHeaders()) {
		// RFC 9112 5.1: whitespace between a field name and its colon
		// must be rejected with 400 ("Transfer-Encoding : chunked" is a
		// classic smuggling shape: proxies disagree on what it means).
		ctx.SetConnectionClose()
		s.fail(ctx, "other", &APIError{Status: 400, Type: "invalid_request_error", Code: "bad_request",
			Message: "a header field name is followed by whitespace before its colon"})
		return
	}
	if raw := ctx.Request.Header.RawHeaders(); containsFold(raw, "transfer-encoding:") {
		// A chunked body. With a Content-Length as well it is a smuggling
		// attempt (RFC 9112 6.1): refuse it. Either way, serve nothing else
		// on this connection, so bytes after the body cannot become a
		// request of their own.
		ctx.SetConnectionClose()
		if containsFold(raw, "content-length:") {
			s.fail(ctx, "other", &APIError{Status: 400, Type: "invalid_request_error", Code: "bad_request",
				Message: "a request may not carry both Transfer-Encoding and Content-Length"})
			return
		}
	}
	switch string(ctx.Path()) { // no copy: only compared
	case "/v1/chat/completions", "/chat/completions":
		if !ctx.IsPost() {
			s.fail(ctx, "chat", methodNotAllowed("POST"))
			return
		}
		s.chat(ctx)
	case "/v1/models", "/models":
		if !ctx.IsGet() && !ctx.IsHead() {
			s.fail(ctx, "models", methodNotAllowed("GET, HEAD"))
			return
		}
		s.models(ctx)
	case "/healthz":
		ctx.SetContentType("application/json")
		ctx.SetBodyString(`{"status":"ok"}`)
		s.m.requests.WithLabelValues("healthz", "200").Inc()
	case "/readyz":
		ctx.SetContentType("application/json")
		if !s.ready.Load() {
			ctx.SetStatusCode(503)
			ctx.SetBodyString(`{"status":"not ready"}`)
			return
		}
		if up := s.upState.Load(); up != nil && up.down {
			// Every chat answer needs the upstream: send chats elsewhere.
			ctx.SetStatusCode(503)
			b, _ := json.Marshal(map[string]any{"status": "not ready", "degraded": []string{"upstream"}, "message": up.reason})
			ctx.SetBody(b)
			return
		}
		if s.op != nil {
			if piece, msg := s.op.Degraded(); piece != "" {
				// Chat is unaffected; only the operator plane is.
				b, _ := json.Marshal(struct {
					Status   string   `json:"status"`
					Degraded []string `json:"degraded"`
					Message  string   `json:"message"`
				}{"degraded", []string{piece}, msg})
				ctx.SetBody(b)
				return
			}
		}
		ctx.SetBodyString(`{"status":"ready"}`)
	case "/metrics":
		if ae := s.rt.Load().authorizeAdmin(ctx); ae != nil {
			s.fail(ctx, "metrics", ae)
			return
		}
		s.m.handler(ctx)
		// The verifier keeps its own series (ChainPoll votes, verify
		// latency, degraded calls); they follow in the same text format.
		if ctx.Response.StatusCode() == 200 {
			s.rt.Load().pipe.WriteMetrics(ctx)
			if s.op != nil {
				s.op.WriteMetrics(ctx) //nolint:errcheck // the body buffer
			}
		}
	default:
		path := string(ctx.Path())
		if s.op != nil {
			if route, ok, err := s.op.ServeOperator(ctx, path); ok {
				if err != nil {
					s.fail(ctx, route, toAPIError(err))
				} else {
					s.m.requests.WithLabelValues(route, strconv.Itoa(ctx.Response.StatusCode())).Inc()
				}
				return
			}
		}
		s.fail(ctx, "other", &APIError{Status: 404, Type: "invalid_request_error", Code: "not_found", Message: "unknown path " + quote(path)})
	}
}

// containsFold reports whether s contains lower (lower-case ASCII) in any
// case, without lowering a copy of s.
func containsFold(s []byte, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && bytes.EqualFold(s[i:i+len(lower)], []byte(lower)) {
			return true
		}
	}
	return false
}

// countHeader counts the header lines of raw whose name is lower (lower-case
// ASCII, with its colon), in any case.
func countHeader(raw []byte, lower string) int {
	n := 0
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) >= len(lower) && bytes.EqualFold(line[:len(lower)], []byte(lower)) {
			n++
		}
	}
	return n
}

// spaceBeforeColon reports a header line whose field name ends in
// whitespace before the colon.
func spaceBeforeColon(raw []byte) bool {
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		if i := bytes.IndexByte(line, ':'); i > 0 && (line[i-1] == ' ' || line[i-1] == '\t') {
			return true
		}
	}
	return false
}

// errorHandler answers requests fasthttp could not read (too large, bad
// headers) with an OpenAI-shaped error. fasthttp's error text may quote the
// raw request (a header line, Authorization included, or body bytes): only
// its kind (logredact.Kind) is logged.
func (s *Server) errorHandler(ctx *fasthttp.RequestCtx, err error) {
	kind := logredact.Kind(err)
	ae := &APIError{Status: 400, Type: "invalid_request_error", Code: "bad_request", Message: "the request could not be read", Err: kind}
	switch kind {
	case logredact.ErrBodyTooLarge:
		ae = &APIError{Status: 413, Type: "invalid_request_error", Code: "request_too_large",
			Message: fmt.Sprintf("request body exceeds %d bytes", s.rt.Load().cfg.Server.MaxBodyBytes), Err: kind}
	case logredact.ErrHeadersTooLarge:
		ae = &APIError{Status: 431, Type: "invalid_request_error", Code: "headers_too_large", Message: "request headers are too large", Err: kind}
	case logredact.ErrTimeout:
		ae = &APIError{Status: 408, Type: "invalid_request_error", Code: "request_timeout", Message: "the request was not received in time", Err: kind}
	case logredact.ErrVersion:
		ae = &APIError{Status: 505, Type: "invalid_request_error", Code: "http_version_not_supported", Message: "only HTTP/1.0 and HTTP/1.1 are served", Err: kind}
	}
	ctx.SetConnectionClose()
	s.fail(ctx, "error", ae)
}

// fail writes an error response and logs it once.
func (s *Server) fail(ctx *fasthttp.RequestCtx, route string, ae *APIError) {
	resetResponse(ctx)
	ctx.SetStatusCode(ae.Status)
	ctx.SetContentType("application/json")
	if ae.Status == 401 {
		ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="answer-guard"`)
	}
	if ae.Allow != "" {
		ctx.Response.Header.Set("Allow", ae.Allow)
	}
	ctx.SetBody(ae.body())
	s.m.requests.WithLabelValues(route, strconv.Itoa(ae.Status)).Inc()
	if ce := s.log.Check(zap.InfoLevel, "request rejected"); ce != nil {
		fields := []zap.Field{zap.String("route", route), zap.Int("status", ae.Status), zap.String("code", ae.Code)}
		if ae.Err != nil {
			fields = append(fields, zap.Error(ae.Err))
		}
		ce.Write(fields...)
	}
}

func (s *Server) models(ctx *fasthttp.RequestCtx) {
	rt := s.rt.Load()
	if _, _, ae := rt.authorize(ctx); ae != nil {
		s.fail(ctx, "models", ae)
		return
	}
	if list := rt.listModels(); list != nil {
		ctx.SetContentType("application/json")
		ctx.SetBody(list)
		s.m.requests.WithLabelValues("models", "200").Inc()
		return
	}
	b, err := rt.up.get("/models", 1<<20, time.Now().Add(rt.cfg.Upstream.FirstByteTimeout))
	if err != nil {
		s.fail(ctx, "models", toAPIError(err))
		return
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
	s.m.requests.WithLabelValues("models", "200").Inc()
}

func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// reqLog collects the per-request summary log line's fields.
type reqLog struct {
	id       uint64
	start    time.Time
	tenant   string
	kb       string
	model    string
	query    string // the last user message, for the gap queue
	stream   bool
	status   int
	upWait   time.Duration
	ttft     time.Duration
	report   *Report
	failure  error
	finished time.Time
	rec      turnrec.Turn // the finished-turn record, filled for the operator plane and cleared
}

func (s *Server) summarize(l *reqLog) {
	if l.finished.IsZero() {
		l.finished = time.Now()
	}
	total := l.finished.Sub(l.start)
	overhead := max(total-l.upWait, 0)
	st := 0
	if l.stream {
		st = 1
		s.m.streamDuration.Observe(total.Seconds())
	}
	s.m.overheadBy[st].Observe(overhead.Seconds())
	s.m.upWaitBy[st].Observe(l.upWait.Seconds())
	if l.ttft > 0 {
		s.m.ttft.Observe(l.ttft.Seconds())
	}
	s.m.chatRequests(l.status).Inc()
	s.m.observeReport(l.report)
	s.record(l) // the operator plane (attach.go)
	ce := s.log.Check(zap.InfoLevel, "request")
	if ce == nil {
		return
	}
	fields := []zap.Field{zap.Uint64("req", l.id), zap.String("tenant", l.tenant), zap.String("kb", l.kb),
		zap.String("model", l.model), zap.Bool("stream", l.stream), zap.Int("status", l.status),
		zap.Duration("total", total), zap.Duration("upstream_wait", l.upWait), zap.Duration("overhead", overhead)}
	if l.ttft > 0 {
		fields = append(fields, zap.Duration("ttft", l.ttft))
	}
	if r := l.report; r == passReport {
		fields = append(fields, zap.String("decision", string(r.Decision)))
	} else if r != nil {
		fields = append(fields, zap.String("decision", string(r.Decision)), zap.Any("coverage", r.Coverage),
			zap.Any("markers_dropped", r.droppedByReason()), zap.Any("verdicts", r.verdictCounts()),
			zap.Strings("degraded", r.Degraded), zap.Any("latency_ms", r.LatencyMS))
	}
	if l.failure != nil {
		fields = append(fields, zap.NamedError("failure", l.failure))
	}
	ce.Write(fields...)
}

// resetResponse clears a response but keeps a decision to close the
// connection after it.
// recoverRequest turns a panic while serving one request (a bug, say a
// verifier rule meeting text nobody foresaw) into a logged 500 for that
// request and a closed connection, where it would end the process and
// every stream on it. A stream's relay has its own (relay.Read).
func (s *Server) recoverRequest(ctx *fasthttp.RequestCtx) {
	if v := recover(); v != nil {
		s.caught("request", v, zap.ByteString("path", ctx.Path()))
		ctx.SetConnectionClose()
		s.fail(ctx, "other", &APIError{Status: 500, Type: "server_error", Code: "internal_error",
			Message: "the proxy failed serving this request (a bug; it is logged)"})
	}
}

// caught logs a recovered panic with its stack and counts it.
func (s *Server) caught(where string, v any, fields ...zap.Field) {
	s.m.panics.WithLabelValues(where).Inc()
	s.log.Error("panic caught", append(fields, zap.String("where", where), zap.Any("panic", v), zap.StackSkip("stack", 2))...)
}

func resetResponse(ctx *fasthttp.RequestCtx) {
	closeConn := ctx.Response.ConnectionClose()
	ctx.Response.Reset()
	if closeConn {
		ctx.SetConnectionClose()
	}
}
