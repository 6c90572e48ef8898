package mockllm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/clientconn"
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
		// A streamed answer is written by connBody (one write per burst);
		// fasthttp alone would send it in chunks of at most 4 KiB, each
		// flushed, which with its 4 KiB default went out as two writes
		// each. 8 KiB sends a whole answer and its header in one.
		WriteBufferSize: 8 << 10,
		// The proxy's request of a grounded turn is about 7 KB (its
		// notes): read in one read, not a 4 KiB one and the rest.
		ReadBufferSize: 16 << 10,
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
	go s.srv.Serve(clientconn.Listener{Listener: ln}) //nolint:errcheck // ends when Close shuts the listener
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
	return s.srv.Serve(clientconn.Listener{Listener: ln})
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
		// The OpenAI routes are served under /v1 only, as the base URL
		// (BaseURL) says; the message names them.
		ctx.SetStatusCode(404)
		ctx.SetContentType("application/json")
		msg := "no route " + string(ctx.Method()) + " " + path + " (the simulated upstream serves GET /v1/models, POST /v1/chat/completions and GET /mock/records)"
		b, _ := json.Marshal(msg)
		fmt.Fprintf(ctx, `{"error":{"message":%s,"type":"invalid_request_error","code":"not_found"}}`, b)
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
	seq := s.seq.Add(1)
	e := s.memo.get(ctx.PostBody())
	if e == nil {
		body := append([]byte(nil), ctx.PostBody()...)
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			s.lastBody.Store(&body)
			errorBody(ctx, 400, "invalid JSON: "+err.Error(), "invalid_request_error")
			return
		}
		if len(req.Messages) == 0 {
			s.lastBody.Store(&body)
			errorBody(ctx, 400, "messages: must be a non-empty array", "invalid_request_error")
			return
		}
		e = &memoEntry{body: body, req: req, a: s.gen.build(&req, body, "")}
		e.refused = s.gen.seedFor(append(body, 'r')).Float64() < s.cfg.Faults.Refuse
		e.a.rec.Refused = e.refused
		e.model = req.Model
		if e.model == "" {
			e.model = "mock-1"
		}
		if !req.Stream && e.a.toolName == "" {
			e.content, _ = json.Marshal(strings.Join(e.a.pieces, ""))
		}
		e.usage = usageJSON(e.a)
		if req.Stream {
			usage := "" // the usage event's object, when the client asked for one
			if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
				usage = e.usage
			}
			e.script = s.newScript(&e.a, e.model, usage)
		}
		s.memo.put(body, e)
	}
	s.lastBody.Store(&e.body) // the entry's copy: nothing changes it
	id := func() string { return idPrefix + strconv.FormatUint(seq, 10) }
	if s.log.max > 0 {
		rec := e.a.rec
		rec.ID = id()
		s.log.add(rec)
	}
	if e.refused {
		errorBody(ctx, 503, "simulated upstream overload", "server_error")
		return
	}
	created := time.Now().Unix()
	if !e.req.Stream {
		id := id()
		ctx.Response.Header.Set("X-Mock-Id", id)
		if e.a.slowFirst {
			time.Sleep(s.cfg.SlowFirstDelay)
		}
		s.whole(ctx, e, id, created)
		return
	}
	// The stream's body formats the id once, for the header and the
	// events.
	body := s.newEventBody(ctx.Conn(), e.script, seq, created)
	ctx.Response.Header.SetBytesV("X-Mock-Id", body.id)
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	if cw, ok := ctx.Conn().(*clientconn.Conn); ok {
		// connBody writes the stream itself: the header fasthttp
		// flushes before the first Read waits for the first burst.
		cw.HoldNext()
		ctx.Response.ImmediateHeaderFlush = true
		ctx.Response.SetBodyStream(connBody{body, cw}, -1)
		return
	}
	ctx.Response.SetBodyStream(body, -1)
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

func (s *Server) whole(ctx *fasthttp.RequestCtx, e *memoEntry, id string, created int64) {
	a, model := &e.a, e.model
	ctx.SetContentType("application/json")
	if a.toolName != "" {
		fmt.Fprintf(ctx, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"system_fingerprint":"mock-fp","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_mock_1","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":"tool_calls"}],"usage":%s,"x_mock_trace":%q}`,
			id, created, model, a.toolName, strconv.Quote(a.toolArgs), e.usage, id)
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
// so nothing changes it after put (the handler copies the record to set
// its id).
type memoEntry struct {
	body    []byte // the request body (LastBody)
	req     chatRequest
	a       answer
	model   string // the answer's model name
	refused bool
	content []byte  // a whole answer's content as a JSON string
	usage   string  // the answer's usage object (usageJSON), made once
	script  *script // a streamed answer, laid out for replay (stream.go)
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

// quiet drops fasthttp's per-connection error lines (a client going away
// mid-stream is normal for a simulator).
type quiet struct{}

func (quiet) Printf(string, ...any) {}
