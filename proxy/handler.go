package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/clientconn"
	"github.com/answer-guard/guard/internal/evrelay"
	"github.com/answer-guard/guard/internal/jsonscan"
	"github.com/answer-guard/guard/internal/peerclose"
	"github.com/answer-guard/guard/internal/sidetext"
	"github.com/answer-guard/guard/internal/sse"
)

// mediaType is the media type of the Content-Type value ct: what comes
// before any parameters, trimmed.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.TrimSpace(ct)
}

// jsonContentType accepts application/json and application/*+json, with
// any parameters (charset).
func jsonContentType(ct []byte) bool {
	mt := mediaType(b2s(ct))
	const app, suffix = "application/", "+json"
	return strings.EqualFold(mt, "application/json") ||
		(len(mt) > len(app) && strings.EqualFold(mt[:len(app)], app) &&
			len(mt) >= len(suffix) && strings.EqualFold(mt[len(mt)-len(suffix):], suffix))
}

// CutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// chat handles POST /v1/chat/completions.
func (s *Server) chat(ctx *fasthttp.RequestCtx) {
	rt := s.rt.Load()
	// The request's log, its parsed body and its exchange in one
	// allocation.
	st := &struct {
		log  reqLog
		req  chatRequest
		x    exchange
		link peerclose.Link // a whole answer's tie to its upstream connection
	}{log: reqLog{id: s.reqSeq.Add(1), start: time.Now()}}
	l := &st.log
	tenant, kb, ae := rt.authorize(ctx)
	if ae != nil {
		s.fail(ctx, "chat", ae)
		return
	}
	l.tenant, l.kb = tenant, kb
	if ct := ctx.Request.Header.ContentType(); len(ct) > 0 && !jsonContentType(ct) {
		s.fail(ctx, "chat", &APIError{Status: 415, Type: "invalid_request_error", Code: "unsupported_media_type",
			Message: "the request body must be JSON: send Content-Type: application/json"})
		return
	}
	// Copy the body: fasthttp reuses it after the handler returns, and the
	// stream writer runs after that.
	body := append([]byte(nil), ctx.PostBody()...)
	req := &st.req
	if ae := req.parse(body, rt.cfg.Server.MaxJSONDepth); ae != nil {
		s.fail(ctx, "chat", ae)
		return
	}
	l.model, l.stream = req.model, req.stream
	l.query = req.query
	model, ae := rt.resolveModel(req.model)
	if ae != nil {
		s.fail(ctx, "chat", ae)
		return
	}

	// The upstream context outlives this handler (the relay runs after it
	// returns); whoever ends the request cancels it, a stream with the
	// cause (client gone, idle timeout...). A non-stream request only ever
	// ends with its handler, so one context with the deadline does, and
	// none in pass-through.
	var upctx context.Context
	var stop func(error)
	var watch *streamWatch
	now := l.start
	deadline := now.Add(rt.cfg.Upstream.RequestTimeout)
	_, pass := rt.pipe.(passthrough)
	switch {
	case req.stream:
		// One context and one timer for all of a stream's timeouts
		// (streamWatch).
		upctx, watch = newStreamWatch(rt.cfg.Upstream, now)
		stop = watch.stop
	case pass:
		// Nothing a pass-through whole answer runs reads a context: the
		// upstream call carries the deadline itself.
		upctx, stop = context.Background(), func(error) {}
	default:
		c, cancel := context.WithDeadlineCause(context.Background(), deadline, errRequestTimeout)
		upctx, stop = c, func(error) { cancel() }
	}

	// From here until the answer's first event (a stream's relay probes
	// on its own after it) or its end, a client gone ends the request:
	// planning under upctx stops and no upstream request is sent (a dial
	// closed at once cost the upstream a connection).
	var gone func()
	if watch != nil {
		gone = watch.clientGone
	} else {
		gone = func() { st.link.End(); stop(errClientGone) }
	}
	probe := s.cw.Start(ctx.Conn(), rt.cfg.Server.DisconnectProbe, gone)
	defer probe.Stop()

	query := req.query
	if len(query) > rt.cfg.Pipeline.MaxQueryChars {
		// Retrieval's cost grows with the question; the upstream still
		// gets the whole conversation.
		query = CutUTF8(query, rt.cfg.Pipeline.MaxQueryChars)
		s.m.queryCut.Inc()
	}
	prev, before := CutUTF8(req.prev, rt.cfg.Pipeline.MaxQueryChars), CutUTF8(req.before, rt.cfg.Pipeline.MaxQueryChars)
	turn, err := rt.pipe.Begin(upctx, TurnRequest{Tenant: tenant, KB: kb, Model: req.model, Stream: req.stream, Query: query, Actions: req.actions, Previous: prev, Before: before})
	if err != nil {
		stop(err)
		if probe.Stop() { // planning stopped because the client left
			s.fail(ctx, "chat", toAPIError(errClientGone))
			return
		}
		s.fail(ctx, "chat", &APIError{Status: 500, Type: "server_error", Code: "pipeline_error", Message: "the guard pipeline failed", Err: err})
		return
	}
	plan := turn.Plan()
	x := &st.x
	*x = exchange{s: s, rt: rt, req: req, turn: turn, log: l, stop: stop, watch: watch, deadline: deadline}
	if plan.Decision == gate.Refuse {
		s.direct(ctx, upctx, x, plan.Answer)
		return
	}
	if plan.Fallback && rt.cfg.Models.Fallback != "" {
		model = rt.cfg.Models.Fallback
	}
	upBody, err := req.upstreamBody(model, plan.System)
	if err != nil {
		stop(err)
		s.fail(ctx, "chat", &APIError{Status: 500, Type: "server_error", Code: "internal_error", Message: "the request could not be forwarded", Err: err})
		return
	}
	if req.stream {
		s.streamChat(ctx, upctx, x, upBody)
		return
	}
	defer stop(nil)
	s.wholeChat(ctx, upctx, x, upBody, &st.link)
}

// exchange is one chat request past planning: what the handler, the relay
// and the summary log need of it. It carries no context: the upstream
// request's context is passed along beside it.
type exchange struct {
	s    *Server
	rt   *runtime // the configuration the request started with
	req  *chatRequest
	turn Turn
	log  *reqLog
	// stop ends the upstream request (cancels its context with the cause);
	// whoever ends the request calls it.
	stop func(error)
	// watch times a stream's upstream (nil for a whole answer, and in
	// tests that run a relay alone).
	watch *streamWatch
	// deadline is when request_timeout ends the request.
	deadline time.Time
}

// wholeChat relays a non-stream completion. Until it returns, a client
// gone ends link (chat's probe): the upstream request, and the guard's work.
func (s *Server) wholeChat(ctx *fasthttp.RequestCtx, upctx context.Context, x *exchange, upBody []byte, link *peerclose.Link) {
	rt, turn, l := x.rt, x.turn, x.log
	defer releaseTurn(turn) // the answer is out or failed, and summarized
	t0 := time.Now()
	// A non-stream answer arrives whole, so only the whole-request limit
	// applies (first_byte_timeout would cut long answers short).
	resp, err := rt.up.postWhole("/chat/completions", upBody, x.deadline, link)
	l.upWait = time.Since(t0)
	if err != nil {
		if link.Ended() {
			err = errClientGone
		}
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	defer fasthttp.ReleaseResponse(resp)
	// Read in place: whatever goes out to the client is a copy (the
	// response's own body buffer, attachReportTo, sjson, SetBody).
	b := resp.Body()
	// One pass validates the answer (as gjson.Valid would) and reads its
	// top-level members.
	f, valid := jsonscan.ScanChunk(b2s(b))
	if !valid || !strings.HasPrefix(f.Choices, "[") {
		s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response", Message: "the upstream answered with something that is not a chat completion"})
		return
	}
	if _, pass := turn.(passTurn); pass {
		// Pass-through: the completion goes out as the upstream wrote it,
		// with the report attached; its content is not decoded.
		_, rep := turn.Finish(upctx, nil)
		l.report, l.status = rep, 200
		ctx.SetContentType("application/json")
		// Written straight into the response's pooled body buffer (taken
		// out with SwapBody and put back): no allocation, no second copy.
		ctx.Response.SwapBody(appendReport(ctx.Response.SwapBody(nil)[:0], b, rep, f.Report))
		s.summarize(l)
		return
	}
	var out []byte
	c := gjson.GetBytes(b, "choices.0.message.content")
	if c.Type == gjson.String {
		out = turn.Content(upctx, out, []byte(c.Str))
	}
	out, rep := turn.Finish(upctx, out)
	if (c.Type == gjson.String || len(out) > 0) && string(out) != c.Str {
		if b, err = sjson.SetBytes(b, "choices.0.message.content", string(out)); err != nil {
			s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response", Message: "the upstream completion could not be rewritten", Err: err})
			return
		}
	}
	if sf, ok := turn.(sidetext.Filter); ok && sidetext.Has(b, gjson.GetBytes(b, "choices").Raw) {
		// Other choices, reasoning_content, refusal: no id or marker
		// gets through there either (side.go, internal/sidetext).
		if b, err = sidetext.Rewrite(sf, b, "message", true); err != nil {
			s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response", Message: "the upstream completion could not be rewritten", Err: err})
			return
		}
	}
	b = attachReportTo(b, rep, f.Report) // the rewrite set no report member
	l.report = rep
	l.status = 200
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
	s.summarize(l)
}

func (s *Server) failChat(ctx *fasthttp.RequestCtx, l *reqLog, ae *APIError) {
	l.status = ae.Status
	l.failure = ae
	resetResponse(ctx)
	ctx.SetStatusCode(ae.Status)
	ctx.SetContentType("application/json")
	ctx.SetBody(ae.body())
	s.summarize(l)
}

// direct answers without an upstream call (refusal) with answer.
func (s *Server) direct(ctx *fasthttp.RequestCtx, upctx context.Context, x *exchange, answer string) {
	req, l := x.req, x.log
	defer x.stop(nil)
	defer releaseTurn(x.turn)
	out, rep := x.turn.Finish(upctx, nil)
	text := answer + string(out)
	id := "chatcmpl-guard-" + strconv.FormatUint(l.id, 10)
	created := time.Now().Unix()
	l.report, l.status = rep, 200
	if !req.stream {
		b := fmt.Appendf(nil, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
			id, created, req.model, jsonString(text))
		ctx.SetContentType("application/json")
		ctx.SetBody(attachReportTo(b, rep, false)) // the guard's own JSON: no report members
		s.summarize(l)
		return
	}
	head := fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q`, id, created, req.model)
	events := []string{
		head + `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
		head + `,"choices":[{"index":0,"delta":{"content":` + jsonString(text) + `},"logprobs":null,"finish_reason":null}]}`,
		string(attachReportTo([]byte(head+`,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`), rep, false)),
	}
	if req.includeUsage {
		events = append(events, head+`,"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`)
	}
	events = append(events, "[DONE]")
	setSSEHeaders(ctx)
	// The whole answer is known: it goes out as one body, with the header,
	// in one write.
	var body []byte
	for _, e := range events {
		body = append(body, "data: "...)
		body = append(body, e...)
		body = append(body, "\n\n"...)
	}
	ctx.SetBody(body)
	l.ttft = time.Since(l.start)
	s.summarize(l)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// isEventStream reports whether the content type ct is text/event-stream
// (any case, any parameters), without mime.ParseMediaType's map.
func isEventStream(ct string) bool { return strings.EqualFold(mediaType(ct), "text/event-stream") }

func setSSEHeaders(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/event-stream")
	// Canonical already: fasthttp need not normalize the names each time.
	ctx.Response.Header.SetCanonical(hCacheControl, hNoCache)
	ctx.Response.Header.SetCanonical(hAccelBuffering, hNo)
}

var hCacheControl, hNoCache, hAccelBuffering, hNo = []byte("Cache-Control"), []byte("no-cache"), []byte("X-Accel-Buffering"), []byte("no")

// watchKey registers a stream begun with an API key: a reload that
// revokes the key ends it (revoke.go).
func (s *Server) watchKey(ctx *fasthttp.RequestCtx, x *exchange, r *relay) {
	if x.rt.cfg.Auth.Enabled {
		if sum, ae := bearerSum(ctx); ae == nil {
			r.keyed = true
			s.keyed.add(x.watch, streamKey{sum: sum, tenant: x.log.tenant, kb: x.log.kb})
			if !s.rt.Load().admits(streamKey{sum: sum, tenant: x.log.tenant, kb: x.log.kb}) {
				// A reload between authorize and here: revoke.go missed it.
				s.keyed.remove(x.watch)
				x.watch.stop(errKeyRevoked)
			}
		}
	}
}

// streamChat opens the upstream stream and, once its first event arrived
// (so that a refusal or a timeout can still get a real status), hands the
// rest to the relay, which fasthttp reads as the response body.
func (s *Server) streamChat(ctx *fasthttp.RequestCtx, upctx context.Context, x *exchange, upBody []byte) {
	rt, l, stop := x.rt, x.log, x.stop
	if x.watch.over() { // ended while it was planned (client gone, request_timeout): send nothing
		s.failChat(ctx, l, toAPIError(cause(upctx, errNotSent)))
		return
	}
	if el := rt.cfg.Server.EventLoop; (el == "on" || el == "auto" && max(int64(s.srv.GetOpenConnectionsCount()), s.streams.Open()) > evrelay.AutoStreams) && s.loopStream(ctx, upctx, x, upBody) {
		return
	}
	// Until the first event (the relay's probe after), a client gone ends
	// the upstream request (chat's probe).
	t0 := time.Now()
	firstBy := x.watch.firstByte(rt.cfg.Upstream.FirstByteTimeout)
	resp, err := rt.up.postStream(upctx, x.watch, "/chat/completions", upBody, firstBy, x.deadline)
	if err != nil {
		l.upWait = time.Since(t0)
		err = cause(upctx, err)
		stop(err)
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	if !resp.eventStream {
		ct := resp.contentType()
		resp.Close()
		l.upWait = time.Since(t0)
		stop(nil)
		s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
			Message: "the upstream did not answer with an event stream", Err: fmt.Errorf("content type %q", ct)})
		return
	}
	src := sse.NewReader(resp, rt.cfg.Upstream.MaxEventBytes)
	first, ok, ferr := src.Next(nil)
	x.watch.relaying()
	l.upWait = time.Since(t0)
	src.ResetWaited()
	if ferr != nil || !ok {
		err := cause(upctx, ferr)
		if err == nil {
			err = errors.New("upstream closed the stream before any event")
		}
		resp.Close()
		src.Release()
		stop(err)
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	setSSEHeaders(ctx)
	r := newRelay(x, src)
	r.up, r.ctx, r.first = resp, upctx, first
	// The relay writes the chunks itself (relay.Read) to the connection,
	// which Serve accepted as a clientconn.Conn: the header goes out before the
	// first Read, held back to leave with the first chunk.
	r.cw = ctx.Conn().(*clientconn.Conn)
	s.watchKey(ctx, x, r)
	s.streams.Add(1)
	r.cw.HoldNext()
	r.owed = true
	ctx.Response.ImmediateHeaderFlush = true
	ctx.Response.SetBodyStream(r, -1)
}
