package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"mime"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"github.com/tmaxmax/go-sse"
	"github.com/valyala/fasthttp"
)

// chat handles POST /v1/chat/completions.
// jsonContentType accepts application/json and application/*+json, with
// any parameters (charset).
func jsonContentType(ct []byte) bool {
	mt := ct
	if i := bytes.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	mt = bytes.TrimSpace(mt)
	return bytes.EqualFold(mt, []byte("application/json")) ||
		(len(mt) > len("application/") && bytes.EqualFold(mt[:len("application/")], []byte("application/")) && bytes.HasSuffix(bytes.ToLower(mt), []byte("+json")))
}

func (s *Server) chat(ctx *fasthttp.RequestCtx) {
	rt := s.rt.Load()
	l := &reqLog{id: s.reqSeq.Add(1), start: time.Now()}
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
	req, ae := parseChatRequest(body, rt.cfg.Server.MaxJSONDepth)
	if ae != nil {
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

	// The upstream context outlives this handler (the stream writer runs
	// after it returns); whoever ends the request cancels it.
	base, cancel := context.WithCancelCause(context.Background())
	upctx, cancelTimeout := context.WithTimeoutCause(base, rt.cfg.Upstream.RequestTimeout, errRequestTimeout)
	stop := func(err error) { cancel(err); cancelTimeout() }

	turn, err := rt.pipe.Begin(upctx, TurnRequest{Tenant: tenant, KB: kb, Model: req.model, Stream: req.stream, Query: req.query, Actions: req.actions})
	if err != nil {
		stop(err)
		s.fail(ctx, "chat", &APIError{Status: 500, Type: "server_error", Code: "pipeline_error", Message: "the guard pipeline failed", Err: err})
		return
	}
	plan := turn.Plan()
	if plan.Decision == "refuse" {
		s.direct(ctx, req, turn, plan, l, upctx, stop)
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
		s.streamChat(ctx, rt, req, turn, upBody, l, upctx, stop)
		return
	}
	defer stop(nil)
	s.wholeChat(ctx, rt, req, turn, upBody, l, upctx)
}

// wholeChat relays a non-stream completion.
func (s *Server) wholeChat(ctx *fasthttp.RequestCtx, rt *runtime, req *chatRequest, turn Turn, upBody []byte, l *reqLog, upctx context.Context) {
	t0 := time.Now()
	// A non-stream answer arrives whole, so only the whole-request limit
	// applies (first_byte_timeout would cut long answers short); upctx
	// carries it (request_timeout, set in chat).
	deadline, _ := upctx.Deadline()
	b, err := rt.up.postWhole("/chat/completions", upBody, deadline)
	l.upWait = time.Since(t0)
	if err != nil {
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	if !gjson.ValidBytes(b) || !gjson.GetBytes(b, "choices").IsArray() {
		s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response", Message: "the upstream answered with something that is not a chat completion"})
		return
	}
	var out []byte
	c := gjson.GetBytes(b, "choices.0.message.content")
	if c.Type == gjson.String {
		out = turn.Content(out, []byte(c.Str))
	}
	out, rep := turn.Finish(upctx, out)
	if (c.Type == gjson.String || len(out) > 0) && string(out) != c.Str {
		if b, err = sjson.SetBytes(b, "choices.0.message.content", string(out)); err != nil {
			s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response", Message: "the upstream completion could not be rewritten", Err: err})
			return
		}
	}
	b = attachReport(b, rep)
	l.report = rep
	l.status = 200
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
	s.summarize(l)
}

func attachReport(b []byte, rep *Report) []byte {
	if rep == nil {
		return b
	}
	urls := rep.URLs
	if urls == nil {
		urls = []string{}
	}
	cites, _ := json.Marshal(urls)
	guard := rep.json()
	// Common case: append both fields before the object's closing brace,
	// without re-parsing the body. If the upstream already sent either
	// field, replace it instead so no key appears twice.
	end := bytes.LastIndexByte(b, '}')
	if end < 0 || gjson.GetBytes(b, "citations").Exists() || gjson.GetBytes(b, "guard").Exists() {
		b, _ = sjson.SetRawBytes(b, "citations", cites)
		b, _ = sjson.SetRawBytes(b, "guard", guard)
		return b
	}
	out := make([]byte, 0, len(b)+len(cites)+len(guard)+24)
	out = append(out, b[:end]...)
	if start := bytes.IndexByte(b, '{'); start >= 0 && start < end && len(bytes.TrimSpace(b[start+1:end])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"citations":`...)
	out = append(out, cites...)
	out = append(out, `,"guard":`...)
	out = append(out, guard...)
	return append(out, b[end:]...)
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

// direct answers without an upstream call (refusal).
func (s *Server) direct(ctx *fasthttp.RequestCtx, req *chatRequest, turn Turn, plan Plan, l *reqLog, upctx context.Context, stop func(error)) {
	defer stop(nil)
	out, rep := turn.Finish(upctx, nil)
	text := plan.Answer + string(out)
	id := "chatcmpl-guard-" + strconv.FormatUint(l.id, 10)
	created := time.Now().Unix()
	l.report, l.status = rep, 200
	if !req.stream {
		b := fmt.Appendf(nil, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
			id, created, req.model, jsonString(text))
		ctx.SetContentType("application/json")
		ctx.SetBody(attachReport(b, rep))
		s.summarize(l)
		return
	}
	head := fmt.Sprintf(`{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q`, id, created, req.model)
	events := []string{
		head + `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
		head + `,"choices":[{"index":0,"delta":{"content":` + jsonString(text) + `},"logprobs":null,"finish_reason":null}]}`,
		string(attachReport([]byte(head+`,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`), rep)),
	}
	if req.includeUsage {
		events = append(events, head+`,"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`)
	}
	events = append(events, "[DONE]")
	setSSEHeaders(ctx)
	s.streams.Add(1)
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer s.streams.Done()
		for i, e := range events {
			if writeEvent(w, e) != nil {
				l.failure = errClientGone
				break
			}
			if i == 1 {
				l.ttft = time.Since(l.start)
			}
		}
		s.summarize(l)
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func setSSEHeaders(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.Header.Set("X-Accel-Buffering", "no")
}

// writeEvent writes one SSE data event and flushes it at once.
func writeEvent(w *bufio.Writer, data string) error {
	w.WriteString("data: ")
	w.WriteString(data)
	w.WriteString("\n\n")
	return w.Flush()
}

type sseNext func() (sse.Event, error, bool)

// streamChat opens the upstream stream and, once its first event arrived
// (so that a refusal or a timeout can still get a real status), hands the
// rest to the relay in the body stream writer.
func (s *Server) streamChat(ctx *fasthttp.RequestCtx, rt *runtime, req *chatRequest, turn Turn, upBody []byte, l *reqLog, upctx context.Context, stop func(error)) {
	t0 := time.Now()
	firstByte := time.AfterFunc(rt.cfg.Upstream.FirstByteTimeout, func() { stop(errFirstByteTimeout) })
	resp, err := rt.up.post(upctx, "/chat/completions", upBody, "text/event-stream")
	if err != nil {
		firstByte.Stop()
		l.upWait = time.Since(t0)
		err = cause(upctx, err)
		stop(err)
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		firstByte.Stop()
		resp.Body.Close()
		l.upWait = time.Since(t0)
		stop(nil)
		s.failChat(ctx, l, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
			Message: "the upstream did not answer with an event stream", Err: fmt.Errorf("content type %q", resp.Header.Get("Content-Type"))})
		return
	}
	next, stopIter := iter.Pull2(iter.Seq2[sse.Event, error](sse.Read(resp.Body, &sse.ReadConfig{MaxEventSize: rt.cfg.Upstream.MaxEventBytes})))
	release := func() { stopIter(); resp.Body.Close() }
	first, ferr, ok := next()
	firstByte.Stop()
	l.upWait = time.Since(t0)
	if ferr != nil || !ok {
		err := cause(upctx, ferr)
		if err == nil {
			err = errors.New("upstream closed the stream before any event")
		}
		release()
		stop(err)
		s.failChat(ctx, l, toAPIError(err))
		return
	}
	setSSEHeaders(ctx)
	r := &relay{s: s, rt: rt, req: req, turn: turn, l: l, upctx: upctx, stop: stop, next: next, conn: ctx.Conn()}
	s.streams.Add(1)
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		defer s.streams.Done()
		defer release()
		defer stop(nil)
		r.run(w, first)
	})
}

// relay moves one upstream stream to the client, event by event.
type relay struct {
	s     *Server
	rt    *runtime
	req   *chatRequest
	turn  Turn
	l     *reqLog
	upctx context.Context
	stop  func(error)
	next  sseNext
	conn  net.Conn // the client connection, only peeked at by the probe

	mu        sync.Mutex // guards w and lastWrite (the probe writes too)
	w         *bufio.Writer
	lastWrite time.Time
	wErr      error

	buf       []byte
	head      string // id/object/created/model of the upstream chunks, for chunks we add
	finished  bool
	done      bool
	sentDone  bool
	usageHeld string
}

// write sends one event; on failure the client is gone and the upstream
// request is cancelled.
func (r *relay) write(data string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wErr != nil {
		return false
	}
	if err := writeEvent(r.w, data); err != nil {
		r.wErr = err
		r.stop(errClientGone)
		return false
	}
	r.lastWrite = time.Now()
	return true
}

// probe writes an SSE comment while the stream is idle so that a client who
// went away is noticed (a failed flush is the only disconnect signal), and
// cancels the upstream request then.
func (r *relay) probe(every time.Duration, quit <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-t.C:
			r.mu.Lock()
			if r.wErr == nil && r.conn != nil && peerClosed(r.conn) {
				r.wErr = errClientGone
				r.stop(errClientGone)
			}
			if r.wErr == nil && time.Since(r.lastWrite) >= every {
				r.w.WriteString(": keep-alive\n\n")
				if err := r.w.Flush(); err != nil {
					r.wErr = err
					r.stop(errClientGone)
				}
				r.lastWrite = time.Now()
			}
			gone := r.wErr != nil
			r.mu.Unlock()
			if gone {
				return
			}
		}
	}
}

func (r *relay) run(w *bufio.Writer, first sse.Event) {
	r.w, r.lastWrite = w, time.Now()
	quit, probed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(probed)
		r.probe(r.rt.cfg.Server.DisconnectProbe, quit)
	}()
	// The probe must be gone before fasthttp's final flush of w.
	defer func() { close(quit); <-probed }()

	idle := time.AfterFunc(r.rt.cfg.Upstream.IdleTimeout, func() { r.stop(errIdleTimeout) })
	defer idle.Stop()
	ok := r.event(first)
	for ok && !r.done {
		t := time.Now()
		ev, err, more := r.next()
		r.l.upWait += time.Since(t)
		idle.Reset(r.rt.cfg.Upstream.IdleTimeout)
		if err != nil {
			r.failMidStream(cause(r.upctx, err))
			break
		}
		if !more {
			break
		}
		ok = r.event(ev)
	}
	if !r.finished && !r.sentDone {
		// [DONE] or the end of the body came before any finish_reason.
		r.failMidStream(cause(r.upctx, errors.New("upstream ended the stream before the answer finished")))
	}
	if r.finished && !r.sentDone && r.wOK() {
		if r.usageHeld != "" {
			r.write(r.usageHeld)
		}
		if r.write("[DONE]") {
			r.l.status = 200
		}
	}
	if !r.wOK() {
		r.l.failure = errClientGone
		if r.l.status == 0 {
			r.l.status = 499
		}
	}
	r.l.finished = time.Now()
	r.s.summarize(r.l)
}

func (r *relay) wOK() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wErr == nil
}

// event handles one upstream event; false ends the relay.
func (r *relay) event(ev sse.Event) bool {
	data := ev.Data
	if data == "[DONE]" {
		r.done = true
		return true
	}
	if !gjson.Valid(data) {
		r.failMidStream(errors.New("upstream sent an event that is not JSON"))
		return false
	}
	if strings.IndexByte(data, '\n') >= 0 || strings.IndexByte(data, '\r') >= 0 {
		// A multi-line data field: re-emit it on one line so each event
		// stays one "data:" line for the client.
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(data)); err != nil {
			r.failMidStream(err)
			return false
		}
		data = b.String()
	}
	f := chunkFields(data)
	if f.err.Exists() || ev.Type == "error" {
		// An upstream error event: flush what is held, pass the error on.
		r.flushTail()
		r.l.failure = fmt.Errorf("upstream error event: %s", f.err.Get("message").Str)
		r.l.status = 502
		r.write(data)
		r.write("[DONE]")
		r.done, r.sentDone = true, true
		return false
	}
	if r.head == "" {
		r.head = fmt.Sprintf(`{"id":%s,"object":"chat.completion.chunk","created":%s,"model":%s`,
			orNull(f.id.Raw), orNull(f.created.Raw), orNull(f.model.Raw))
	}
	if f.choices.IsArray() && !f.hasChoice {
		// The usage chunk: forced upstream, forwarded only if asked for.
		if r.req.includeUsage && f.usage.Exists() {
			r.usageHeld = data
		}
		return true
	}
	var err error
	if !r.req.includeUsage && f.usage.Exists() {
		data, _ = sjson.Delete(data, "usage")
	}
	c := f.content
	if c.Type == gjson.String {
		r.buf = r.turn.Content(r.buf[:0], []byte(c.Str))
		if string(r.buf) == c.Str {
			// unchanged (pass-through, or text with no marker): no rewrite
		} else if data, err = sjson.Set(data, "choices.0.delta.content", string(r.buf)); err != nil {
			r.failMidStream(err)
			return false
		}
		if len(r.buf) > 0 && r.l.ttft == 0 {
			r.l.ttft = time.Since(r.l.start)
		}
	}
	if f.finish.Type == gjson.String {
		tail, rep := r.turn.Finish(r.upctx, r.buf[:0])
		r.buf = tail
		if len(tail) > 0 {
			prev := gjson.Get(data, "choices.0.delta.content").Str
			data, _ = sjson.Set(data, "choices.0.delta.content", prev+string(tail))
		}
		data = string(attachReport([]byte(data), rep))
		r.l.report = rep
		r.finished = true
	}
	return r.write(data)
}

// chunkView is what the relay reads of one chunk, found in one pass over
// the top level and one over the first choice (instead of a gjson path
// lookup per field, each of which re-scans the chunk).
type chunkView struct {
	id, created, model, err, choices, usage gjson.Result
	hasChoice                               bool
	content, finish                         gjson.Result
}

func chunkFields(data string) chunkView {
	var v chunkView
	gjson.Parse(data).ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "id":
			v.id = val
		case "created":
			v.created = val
		case "model":
			v.model = val
		case "error":
			v.err = val
		case "choices":
			v.choices = val
		case "usage":
			v.usage = val
		}
		return true
	})
	if !v.choices.IsArray() {
		return v
	}
	v.choices.ForEach(func(_, choice gjson.Result) bool {
		v.hasChoice = true
		choice.ForEach(func(k, val gjson.Result) bool {
			switch k.Str {
			case "delta":
				v.content = val.Get("content")
			case "finish_reason":
				v.finish = val
			}
			return true
		})
		return false // the first choice only (n = 1)
	})
	return v
}

func orNull(raw string) string {
	if raw == "" {
		return "null"
	}
	return raw
}

// flushTail emits held-back text (if any) as a content chunk of its own.
func (r *relay) flushTail() {
	if r.finished {
		return
	}
	tail, rep := r.turn.Finish(r.upctx, r.buf[:0])
	r.l.report = rep
	r.finished = true // no finish chunk will follow
	if len(tail) > 0 && r.head != "" {
		r.write(r.head + `,"choices":[{"index":0,"delta":{"content":` + jsonString(string(tail)) + `},"logprobs":null,"finish_reason":null}]}`)
	}
}

// failMidStream ends a stream whose upstream failed after it began: the held
// text, one error event, then the end of the stream.
func (r *relay) failMidStream(err error) {
	if !r.wOK() {
		return
	}
	r.flushTail()
	ae := toAPIError(err)
	if ae.Code == "upstream_unavailable" {
		ae = &APIError{Status: 502, Type: "upstream_error", Code: "upstream_stream_failed",
			Message: "the upstream stream failed before the answer finished", Err: err}
	}
	r.l.failure, r.l.status = ae, ae.Status
	r.write(string(ae.body()))
	r.write("[DONE]")
	r.done, r.sentDone = true, true
}
