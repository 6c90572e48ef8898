package proxy

import (
	"cmp"
	"context"
	"errors"
	"io"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// OperatorPlane is what the proxy needs of the operator plane (package
// operator: the turn log, the gap queue, shared state, the what-if and the
// console), the way Caddy's admin API sits beside its handlers: the proxy
// hands it one finished-turn record per chat turn, lets it serve the paths
// it owns, asks whether its state is reachable, appends its metrics and
// closes it at shutdown. The proxy knows nothing else of it.
type OperatorPlane interface {
	// RecordTurn takes one finished chat turn, once, after the client has
	// its answer. It must not block and must not keep t after it returns.
	RecordTurn(t *turnrec.Turn)
	// ServeOperator serves ctx when path is one of the plane's routes
	// (handled true): route names it in guard_requests_total and the log.
	// A non-nil error is the client's answer, written by the proxy.
	ServeOperator(ctx *fasthttp.RequestCtx, path string) (route string, handled bool, err error)
	// Degraded names the plane's unreachable piece ("" when all is well)
	// and what it means, for /readyz.
	Degraded() (piece, message string)
	// Reloaded is called after a reload put a new configuration (new
	// snapshot or thresholds) in force.
	Reloaded()
	// WriteMetrics appends the plane's series to /metrics.
	WriteMetrics(w io.Writer) error
	// Close stops the plane's writers and saves its state (at shutdown,
	// after the last turn was recorded).
	Close() error
}

// Attach hands the server its operator plane. Call it once, before Serve;
// without one the operator routes answer 404.
func (s *Server) Attach(op OperatorPlane) { s.op = op }

// record hands the finished turn to the operator plane. Its query is
// the one the guard read (guard.query: a follow-up joined to the message
// before it, a greeting trimmed), else the last user message, so a gap
// reads "what time do you open on saturday?\nand on sunday?", not "and
// on sunday?" alone.
func (s *Server) record(l *reqLog) {
	if s.op == nil || l.report == nil {
		return
	}
	rep := l.report
	l.rec = turnrec.Turn{Tenant: l.tenant, KB: l.kb, Model: l.model, Query: cmp.Or(rep.Query, l.query), Stream: l.stream, Status: l.status,
		Start: l.start, Finished: l.finished, TTFT: l.ttft, UpstreamWait: l.upWait, Gate: rep.trace,
		Report: turnrec.Report{Decision: rep.Decision, Citations: rep.Citations, Markers: rep.Markers, Claims: rep.Claims,
			Summary: rep.Summary, Degraded: rep.Degraded, LatencyMS: rep.LatencyMS}}
	s.op.RecordTurn(&l.rec)
	l.rec = turnrec.Turn{}
	if rep.trace != nil {
		// The trace points into the pipeline's turn: drop it once handed over.
		rep.trace = nil
	}
}

// OperatorAccess authorises a request to an operator route (the operator
// plane is handed this check; auth stays here, one implementation). With
// auth off (a loopback listener) every tenant is readable, and the
// X-Tenant-ID and X-KB-ID headers, when sent, narrow the read to that
// tenant and KB, the way they pick the partition of a chat request. With
// auth on an admin key reads every tenant, a tenant key its own tenant and
// KBs (unless adminOnly: then 403); no or an unknown key is 401. kbs nil
// means every KB; the error is the client's answer.
func (s *Server) OperatorAccess(ctx *fasthttp.RequestCtx, adminOnly bool) (tenant string, kbs []string, err error) {
	rt := s.rt.Load()
	if !rt.cfg.Auth.Enabled {
		return headerScope(ctx)
	}
	if adminOnly {
		if ae := rt.authorizeAdmin(ctx); ae != nil {
			return "", nil, ae
		}
		return "", nil, nil
	}
	tenant, kbs, ae := rt.authorizeOperator(ctx)
	if ae != nil {
		return "", nil, ae
	}
	return tenant, kbs, nil
}

// headerScope is the X-Tenant-ID / X-KB-ID filter of an operator read
// with auth off, the headers checked as a chat request's are.
func headerScope(ctx *fasthttp.RequestCtx) (tenant string, kbs []string, err error) {
	hTenant, hKB, ae := partitionHeaders(ctx)
	if ae != nil {
		return "", nil, ae
	}
	if hKB != "" {
		kbs = []string{hKB}
	}
	return hTenant, kbs, nil
}

// Ask runs question through the pipeline in force as far as its decision
// (retrieval and the gate, no upstream call) for the operator plane's
// re-ask after a reload: the decision and the best coverage the gate saw.
func (s *Server) Ask(ctx context.Context, tenant, kb, question string) (gate.Decision, float64, error) {
	turn, err := s.rt.Load().pipe.Begin(ctx, TurnRequest{Tenant: tenant, KB: kb, Query: question})
	if err != nil {
		return "", 0, err
	}
	defer turn.Abandon()
	p := turn.Plan()
	return p.Decision, p.Coverage, nil
}

// PartitionKinds lists the kinds of a partition's chunks in the index in
// force, sorted; nil with the pipeline off or for an unknown partition.
func (s *Server) PartitionKinds(tenant, kb string) []string {
	if k, ok := s.rt.Load().pipe.(kindLister); ok {
		return k.Kinds(tenant, kb)
	}
	return nil
}

// kindLister is a pipeline that knows its partitions' kinds (guardPipe).
type kindLister interface {
	Kinds(tenant, kb string) []string
}

// GateConfig is the gate configuration in force.
func (s *Server) GateConfig() gate.Config { return s.rt.Load().cfg.Stages.Gate }

// PipelineEnabled reports whether the guard pipeline is on.
func (s *Server) PipelineEnabled() bool { return s.rt.Load().cfg.Pipeline.Enabled }

// Protected reports whether auth is on or the listener is loopback: a page
// that shows every tenant's data may be served.
func (s *Server) Protected() bool {
	return s.rt.Load().cfg.Auth.Enabled || isLoopbackAddr(s.listenAddr())
}

// clientError is an error raised outside the proxy (by the operator plane)
// that says what the client may see; toAPIError maps it.
type clientError interface {
	error
	ClientError() (status int, typ, code, param, message, allow string)
}

func fromClientError(err error) (*APIError, bool) {
	var ce clientError
	if !errors.As(err, &ce) {
		return nil, false
	}
	st, typ, code, param, msg, allow := ce.ClientError()
	return &APIError{Status: st, Type: typ, Code: code, Param: param, Message: msg, Allow: allow, Err: errors.Unwrap(err)}, true
}
