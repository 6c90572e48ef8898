package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/clientconn"
	"github.com/answer-guard/guard/internal/evrelay"
	"github.com/answer-guard/guard/internal/sse"
)

// loopStream relays a pass-through stream on the event loop (server.event_loop; internal/evrelay)
// when it can: Linux, an upstream at http://IP:port, an HTTP/1.1 client over TCP. It reports
// false, having done nothing, when it cannot (the caller goes on).
func (s *Server) loopStream(ctx *fasthttp.RequestCtx, upctx context.Context, x *exchange, upBody []byte) bool {
	rt := x.rt
	_, pass := x.turn.(passTurn)
	hostPath, plain := strings.CutPrefix(rt.up.base, "http://")
	cc, isCC := ctx.Conn().(*clientconn.Conn)
	if !pass || !plain || !isCC || !ctx.Request.Header.IsHTTP11() {
		return false
	}
	host, path, _ := strings.Cut(hostPath, "/")
	ap, err := netip.ParseAddrPort(host)
	fd, isTCP := evrelay.FD(cc.Conn)
	l := s.eventLoop(ap, err == nil && isTCP)
	if l == nil {
		return false
	}
	e := &loopStream{ctx: upctx, st: evrelay.Stream{Conn: cc, FD: fd, KeepAlive: !ctx.Request.Header.ConnectionClose(),
		Request: evrelay.AppendRequest(nil, host, strings.TrimSuffix("/"+path, "/")+"/chat/completions", rt.up.key, upBody)}}
	e.st.Handler = e
	e.r = newRelay(x, sse.NewReader(&e.feed, rt.cfg.Upstream.MaxEventBytes))
	e.r.ran, e.r.ctx = true, upctx
	x.watch.firstByte(rt.cfg.Upstream.FirstByteTimeout)
	s.watchKey(ctx, x, e.r)
	s.streams.Add(1)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(h net.Conn) {
		// Bytes fasthttp read past the request (a pipelined one) cannot go
		// back to it: such a connection closes after the stream.
		e.st.KeepAlive = e.st.KeepAlive && !evrelay.Pipelined(h)
		e.st.Header = evrelay.AppendStreamHeader(nil, "answer-guard", e.st.KeepAlive)
		e.unhook = context.AfterFunc(upctx, func() { l.Cancel(&e.st, context.Cause(upctx)) })
		if l.Start(&e.st) != nil {
			cc.Close()
			e.Done(true)
		}
	})
	return true
}

// eventLoop returns the server's event loop relaying to ap, started on
// first use; nil when ok is false or the loop relays to another upstream
// (a reload changed it: a restart moves the loop).
func (s *Server) eventLoop(ap netip.AddrPort, ok bool) *evrelay.Loop {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.evl == nil && ok && !s.shut {
		// The upstream settings are the fasthttp client's (fixed at start).
		s.evl, _ = evrelay.New(evrelay.Config{Addr: ap, GiveBack: func(c net.Conn) { go s.srv.ServeConn(c) }, IdleTimeout: s.srv.IdleTimeout, //nolint:errcheck // fasthttp logs
			IdleConnTimeout: s.fast.MaxIdleConnDuration, Budget: s.fast.conns, ConnWait: s.fast.connWait})
		s.evlAt = ap
	}
	if !ok || s.evlAt != ap {
		return nil
	}
	return s.evl
}

// loopStream is one stream on the event loop: the relay's per-event logic
// (relay.event) over the upstream body the loop decodes.
type loopStream struct {
	st     evrelay.Stream
	r      *relay
	feed   sse.Feed
	ctx    context.Context
	unhook func() bool
}

func (e *loopStream) Body(dst, p []byte) []byte {
	r := e.r
	e.feed.Push(p)
	for !r.done && !r.gone {
		ev, _, err := r.src.Next(nil)
		if err != nil && err != sse.ErrPending {
			r.failMidStream(e.ctx, err) // an oversized event
		}
		if err != nil || !r.event(e.ctx, ev) {
			break
		}
	}
	if r.watch != nil && r.src.Blocks() != r.seenBlocks {
		r.seenBlocks = r.src.Blocks()
		r.watch.relaying() // idle_timeout runs from the last complete event
	}
	return e.take(dst)
}

func (e *loopStream) End(dst []byte, err error) []byte {
	if err != nil {
		e.r.failMidStream(e.ctx, cause(e.ctx, err))
	}
	e.r.closeStream(e.ctx)
	return e.take(dst)
}

func (e *loopStream) take(dst []byte) []byte {
	dst = append(dst, e.r.out[chunkRoom:]...)
	e.r.out = e.r.out[:chunkRoom]
	return dst
}

func (e *loopStream) Refuse(dst []byte, status int, ctype, body []byte, err error) []byte {
	var ae *APIError
	switch {
	case errors.Is(err, evrelay.ErrUpstreamBusy):
		ae = busyError(err)
	case err != nil:
		ae = toAPIError(cause(e.ctx, err))
	case status/100 == 2:
		ae = &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
			Message: "the upstream did not answer with an event stream", Err: fmt.Errorf("content type %q", ctype)}
	default:
		ae = upstreamStatusError(status, body)
	}
	e.r.log.status, e.r.log.failure = ae.Status, ae
	return evrelay.AppendResponse(dst, "answer-guard", ae.Status, map[bool]string{true: "WWW-Authenticate: Bearer realm=\"answer-guard\"\r\n"}[ae.Status == 401], ae.body(), e.st.KeepAlive)
}

func (e *loopStream) Done(clientGone bool) {
	r := e.r
	if e.unhook != nil {
		e.unhook()
	}
	if clientGone {
		r.ps.mu.Lock()
		r.wErr = errClientGone
		r.ps.mu.Unlock()
		r.stop(errClientGone)
	}
	if r.watch != nil {
		r.watch.ended()
	}
	r.summarizeOnce()
	r.Close()
}
