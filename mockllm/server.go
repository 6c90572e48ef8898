package mockllm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tmaxmax/go-sse"
	"github.com/valyala/fasthttp"
)

// Server is a running simulated upstream.
type Server struct {
	cfg    Config
	gen    generator
	log    *Log
	memo   memo
	srv    *fasthttp.Server
	ln     net.Listener
	seq    atomic.Uint64
	closed chan string
	reqs   atomic.Int64
	// lastBody keeps the most recent chat request body (for passthrough tests).
	lastBody atomic.Pointer[[]byte]
}

// New returns a server for cfg; call Serve or Start.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mockllm config: %w", err)
	}
	s := &Server{cfg: cfg, gen: generator{cfg: cfg}, log: newLog(cfg.LogSize), closed: make(chan string, 1024)}
	s.srv = &fasthttp.Server{
		Handler:               s.handle,
		Name:                  "mockllm",
		NoDefaultServerHeader: true,
		MaxRequestBodySize:    64 << 20,
		ReadTimeout:           time.Minute,
		IdleTimeout:           cfg.IdleTimeout,
		Logger:                quiet{},
		// fasthttp sends a streamed answer in chunks of at most 4 KiB, each
		// flushed: with its 4 KiB default a chunk went out as two writes (the
		// last 8 bytes alone), and the header with the first chunk as two.
		// 8 KiB sends each in one, as a server with a ready burst would.
		WriteBufferSize: 8 << 10,
	}
	return s, nil
}

// Start listens on addr (e.g. 127.0.0.1:0) and serves in the background.
func Start(cfg Config, addr string) (*Server, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mockllm listen %s: %w", addr, err)
	}
	s.ln = ln
	go s.srv.Serve(ln) //nolint:errcheck // ends when Close shuts the listener
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// BaseURL is the OpenAI base URL of the server (http://addr/v1).
func (s *Server) BaseURL() string { return "http://" + s.Addr() + "/v1" }

// Log returns the record of injected faults.
func (s *Server) Log() *Log { return s.log }

// Requests counts chat requests received.
func (s *Server) Requests() int64 { return s.reqs.Load() }

// LastBody returns the last chat request body received.
func (s *Server) LastBody() []byte {
	if p := s.lastBody.Load(); p != nil {
		return *p
	}
	return nil
}

// WaitClosed returns the id of the next stream the client closed before its
// end, or ctx's error.
func (s *Server) WaitClosed(ctx context.Context) (string, error) {
	select {
	case id := <-s.closed:
		return id, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Close stops the server and its open connections.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.ShutdownWithContext(ctx)
}

// Serve serves on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	s.ln = ln
	return s.srv.Serve(ln)
}

func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch {
	case path == "/v1/models" && ctx.IsGet():
		ctx.SetContentType("application/json")
		fmt.Fprintf(ctx, `{"object":"list","data":[{"id":"mock-1","object":"model","created":1700000000,"owned_by":"mockllm"},{"id":"mock-1-large","object":"model","created":1700000000,"owned_by":"mockllm"}]}`)
	case path == "/v1/chat/completions" && ctx.IsPost():
		s.chat(ctx)
	case path == "/mock/records" && ctx.IsGet():
		ctx.SetContentType("application/json")
		if id := string(ctx.QueryArgs().Peek("id")); id != "" {
			rec, ok := s.log.Get(id)
			if !ok {
				ctx.SetStatusCode(404)
				return
			}
			json.NewEncoder(ctx).Encode(rec) //nolint:errcheck
			return
		}
		json.NewEncoder(ctx).Encode(s.log.Records()) //nolint:errcheck
	default:
		ctx.SetStatusCode(404)
		ctx.SetContentType("application/json")
		fmt.Fprintf(ctx, `{"error":{"message":"no route %s","type":"invalid_request_error","code":"not_found"}}`, strconv.Quote(path))
	}
}

func errorBody(ctx *fasthttp.RequestCtx, status int, msg, typ string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
	ctx.SetBody(b)
}

func (s *Server) chat(ctx *fasthttp.RequestCtx) {
	s.reqs.Add(1)
	body := append([]byte(nil), ctx.PostBody()...)
	s.lastBody.Store(&body)
	id := "chatcmpl-mock-" + strconv.FormatUint(s.seq.Add(1), 10)
	e := s.memo.get(body)
	if e == nil {
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			errorBody(ctx, 400, "invalid JSON: "+err.Error(), "invalid_request_error")
			return
		}
		if len(req.Messages) == 0 {
			errorBody(ctx, 400, "messages: must be a non-empty array", "invalid_request_error")
			return
		}
		e = &memoEntry{req: req, a: s.gen.build(&req, body, id)}
		e.refused = s.gen.seedFor(append(body, 'r')).Float64() < s.cfg.Faults.Refuse
		e.a.rec.Refused = e.refused
		if !req.Stream && e.a.toolName == "" {
			e.content, _ = json.Marshal(strings.Join(e.a.pieces, ""))
		}
		e.usage = usageJSON(e.a)
		s.memo.put(body, e)
	}
	req, a := &e.req, e.a
	a.rec.ID = id
	s.log.add(a.rec)
	if e.refused {
		errorBody(ctx, 503, "simulated upstream overload", "server_error")
		return
	}
	ctx.Response.Header.Set("X-Mock-Id", id)
	model := req.Model
	if model == "" {
		model = "mock-1"
	}
	created := time.Now().Unix()
	if !req.Stream {
		if a.slowFirst {
			time.Sleep(s.cfg.SlowFirstDelay)
		}
		s.whole(ctx, e, a, id, model, created)
		return
	}
	usage := "" // the usage event's object, when the client asked for one
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		usage = e.usage
	}
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	ctx.Response.SetBodyStream(&eventBody{s: s, conn: ctx.Conn(), id: id, plan: s.steps(a, id, model, created, usage)}, -1)
}

func usageJSON(a answer) string {
	out := 0
	for _, p := range a.pieces {
		for range strings.FieldsSeq(p) { // strings.Fields without the slice
			out++
		}
	}
	return fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, 42, out+1, 43+out)
}

func (s *Server) whole(ctx *fasthttp.RequestCtx, e *memoEntry, a answer, id, model string, created int64) {
	ctx.SetContentType("application/json")
	if a.toolName != "" {
		fmt.Fprintf(ctx, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"system_fingerprint":"mock-fp","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_mock_1","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":"tool_calls"}],"usage":%s,"x_mock_trace":%q}`,
			id, created, model, a.toolName, strconv.Quote(a.toolArgs), usageJSON(a), id)
		return
	}
	fmt.Fprintf(ctx, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"system_fingerprint":"mock-fp","choices":[{"index":0,"message":{"role":"assistant","content":%s},"logprobs":null,"finish_reason":"stop"}],"usage":%s,"x_mock_trace":%q}`,
		id, created, model, e.content, e.usage, id)
}

// memo keeps the simulated answers of recent request bodies. An answer is
// a function of the seed and the body alone (its id aside), and a load run
// repeats a handful of prompts: a repeated body is neither parsed nor
// generated again, so the simulated upstream costs its neighbours on a
// shared machine (the proxy and the load generator of 'guard bench load
// --self') what a real upstream would, next to nothing.
type memo struct {
	mu sync.Mutex
	m  map[string]*memoEntry
}

// memoEntry is one body's answer; shared by every request with that body,
// so nothing changes it after put (the handler copies a and sets its id).
type memoEntry struct {
	req     chatRequest
	a       answer
	refused bool
	content []byte // a whole answer's content as a JSON string
	usage   string // the answer's usage object (usageJSON), made once
}

// The memo keeps at most memoEntries bodies of at most memoBodyMax bytes:
// when full it starts over.
const (
	memoEntries = 256
	memoBodyMax = 16 << 10
)

func (m *memo) get(body []byte) *memoEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[string(body)]
}

func (m *memo) put(body []byte, e *memoEntry) {
	if len(body) > memoBodyMax {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= memoEntries {
		m.m = make(map[string]*memoEntry, memoEntries)
	}
	m.m[string(body)] = e
}

// step is one piece of a simulated stream: wait, then send one event (the
// frame buf[from:to] of the answer's plan), or (cut) drop the connection.
type step struct {
	wait     time.Duration
	from, to int
	cut      bool
}

// plan lays out the events of one streamed answer as frames in one buffer
// ("data: ...\n\n" each, framed by go-sse), with their pacing, before the
// first is sent: a paced stream's events then cost a copy each.
type plan struct {
	buf   []byte
	steps []step
	wait  time.Duration // before the next event
	at    int           // start of the frame being written
	head  []byte        // the chunk fields every event starts with
	data  []byte        // the event data close frames (scratch)
}

// plans are laid-out answers whose streams have ended, for reuse: a
// plan's buffer is a few tens of kilobytes per answer.
var plans sync.Pool

// acquirePlan returns an empty plan with room for size bytes of frames.
func acquirePlan(size int) *plan {
	p, _ := plans.Get().(*plan)
	if p == nil {
		p = &plan{}
	}
	if cap(p.buf) < size {
		p.buf = make([]byte, 0, size)
	}
	*p = plan{buf: p.buf[:0], steps: p.steps[:0], head: p.head[:0], data: p.data[:0]}
	return p
}

// releasePlan returns p for reuse; nothing may read it after.
func releasePlan(p *plan) {
	if cap(p.buf) > planKeepMax {
		return
	}
	plans.Put(p)
}

// planKeepMax is the largest plan buffer kept for reuse.
const planKeepMax = 1 << 20

// open starts an event: its data is appended to buf from here, after the
// "data: " its frame starts with.
func (p *plan) open() {
	p.at = len(p.buf)
	p.buf = append(p.buf, dataField...)
}

const dataField = "data: "

// close frames the data appended since open as one event, as go-sse's
// Message frames it: a "data: " line per line of it, then the blank line.
// Data of one line (every JSON event) is framed in place; empty data and
// data with line breaks go through go-sse (TestFrameAsGoSSE).
func (p *plan) close() {
	data := p.buf[p.at+len(dataField):]
	if len(data) > 0 && bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		p.buf = append(p.buf, "\n\n"...)
	} else {
		p.data = append(p.data[:0], data...)
		p.buf = frameGoSSE(p.buf[:p.at], p.data)
	}
	p.steps = append(p.steps, step{wait: p.wait, from: p.at, to: len(p.buf)})
	p.wait = 0
}

// frameGoSSE appends data framed by go-sse's Message to dst.
func frameGoSSE(dst, data []byte) []byte {
	var m sse.Message
	m.AppendData(unsafe.String(unsafe.SliceData(data), len(data)))
	m.WriteTo((*appender)(&dst)) //nolint:errcheck // appending cannot fail
	return dst
}

// appender is an io.Writer that appends to the slice.
type appender []byte

func (a *appender) Write(b []byte) (int, error) {
	*a = append(*a, b...)
	return len(b), nil
}

// choice opens a chunk event up to its first choice's delta, which the
// caller appends; endChoice closes it with the finish reason ("" = null).
func (p *plan) choice() {
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"choices":[{"index":0,"delta":`...)
}

func (p *plan) endChoice(finish string) {
	p.buf = append(p.buf, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		p.buf = append(p.buf, "null"...)
	} else {
		p.buf = gjson.AppendJSONString(p.buf, finish)
	}
	p.buf = append(p.buf, "}]}"...)
	p.close()
}

func (p *plan) usage(usage string) {
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"choices":[],"usage":`...)
	p.buf = append(p.buf, usage...)
	p.buf = append(p.buf, '}')
	p.close()
}

// steps lays out the events of one streamed answer, with its pacing and
// its faults, and a usage event with usage when it is not "".
func (s *Server) steps(a answer, id, model string, created int64, usage string) *plan {
	p := acquirePlan(256 * (len(a.pieces) + 4))
	p.head = append(p.head, `{"id":`...)
	p.head = gjson.AppendJSONString(p.head, id)
	p.head = append(p.head, `,"object":"chat.completion.chunk","created":`...)
	p.head = strconv.AppendInt(p.head, created, 10)
	p.head = append(p.head, `,"model":`...)
	p.head = gjson.AppendJSONString(p.head, model)
	p.head = append(p.head, `,"system_fingerprint":"mock-fp"`...)
	if a.slowFirst {
		p.wait = s.cfg.SlowFirstDelay
	}
	done := func() *plan {
		if usage != "" {
			p.usage(usage)
		}
		p.open()
		p.buf = append(p.buf, "[DONE]"...)
		p.close()
		return p
	}
	if a.toolName != "" {
		p.choice()
		p.buf = append(p.buf, `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_mock_1","type":"function","function":{"name":`...)
		p.buf = gjson.AppendJSONString(p.buf, a.toolName)
		p.buf = append(p.buf, `,"arguments":""}}]}`...)
		p.endChoice("")
		half := len(a.toolArgs) / 2
		for _, part := range []string{a.toolArgs[:half], a.toolArgs[half:]} {
			p.choice()
			p.buf = append(p.buf, `{"tool_calls":[{"index":0,"function":{"arguments":`...)
			p.buf = gjson.AppendJSONString(p.buf, part)
			p.buf = append(p.buf, `}}]}`...)
			p.endChoice("")
		}
		p.choice()
		p.buf = append(p.buf, `{}`...)
		p.endChoice("tool_calls")
		return done()
	}
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"x_mock_trace":`...)
	p.buf = gjson.AppendJSONString(p.buf, id)
	p.buf = append(p.buf, `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`...)
	p.close()
	for i, piece := range a.pieces {
		if i == a.cutAt {
			// simulated crash: the stream ends without its terminator
			p.steps = append(p.steps, step{wait: p.wait, cut: true})
			return p
		}
		if i == a.stallAt {
			p.wait += s.cfg.StallDelay
		}
		// the answer-level faults drawn at piece i (build draws them
		// among the pieces the stream reaches)
		if i == a.badAt {
			p.open()
			p.buf = append(p.buf, `{"id":`...)
			p.buf = gjson.AppendJSONString(p.buf, id)
			p.buf = append(p.buf, `,"choices":[{"index":0,"delta":{"content":"oops`...)
			p.close()
		}
		if i == a.hugeAt {
			p.choice()
			p.buf = append(p.buf, `{"content":`...)
			p.buf = gjson.AppendJSONString(p.buf, strings.Repeat("x", s.cfg.HugeEventBytes))
			p.buf = append(p.buf, '}')
			p.endChoice("")
		}
		p.choice()
		p.buf = append(p.buf, `{"content":`...)
		p.buf = gjson.AppendJSONString(p.buf, piece)
		p.buf = append(p.buf, '}')
		p.endChoice("")
		p.wait = s.cfg.Pace
	}
	p.choice()
	p.buf = append(p.buf, `{}`...)
	p.endChoice("stop")
	return done()
}

// eventBody is a streamed answer as fasthttp reads it (SetBodyStream); it
// runs on the serving goroutine, with no pipe and no second goroutine per
// stream. fasthttp sends what one Read returns as one chunk and flushes it:
// a Read returns one event after its wait (pacing, a stall), and with it
// the events that follow without a wait, as many as fit, as a model server
// that is not paced sends whatever it has ready.
type eventBody struct {
	s     *Server
	conn  net.Conn
	id    string
	plan  *plan
	next  int    // the next step
	rest  []byte // the part of an event a short Read left
	ended bool   // every step was sent or the connection was cut
}

func (b *eventBody) Read(p []byte) (int, error) {
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	steps := b.plan.steps
	for len(b.rest) == 0 && b.next < len(steps) {
		st := steps[b.next]
		if n > 0 && (st.wait > 0 || st.cut) {
			break // send what is ready before waiting
		}
		b.next++
		if st.wait > 0 {
			time.Sleep(st.wait)
		}
		if st.cut {
			b.ended = true
			b.conn.Close()
			return 0, errCut
		}
		ev := b.plan.buf[st.from:st.to]
		m := copy(p[n:], ev)
		n += m
		b.rest = ev[m:]
	}
	if n == 0 && b.next == len(steps) {
		b.ended = true
		return 0, io.EOF
	}
	return n, nil
}

var errCut = errors.New("simulated crash: connection cut mid-stream")

// Close is called once fasthttp is done with the body: before its end, the
// client went away.
func (b *eventBody) Close() error {
	if b.plan != nil {
		releasePlan(b.plan)
		b.plan, b.rest = nil, nil
	}
	if !b.ended {
		b.s.log.update(b.id, func(r *Record) { r.Closed = true })
		select {
		case b.s.closed <- b.id:
		default:
		}
	}
	return nil
}

// quiet drops fasthttp's per-connection error lines (a client going away
// mid-stream is normal for a simulator).
type quiet struct{}

func (quiet) Printf(string, ...any) {}
