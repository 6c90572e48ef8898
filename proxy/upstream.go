package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tidwall/gjson"
	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/internal/evrelay"
	"github.com/answer-guard/guard/internal/peerclose"
	"github.com/answer-guard/guard/internal/proctune"
	"github.com/answer-guard/guard/internal/sse"
	"github.com/answer-guard/guard/internal/waitread"
)

// upstream is the client for the OpenAI-compatible model server: one
// fasthttp client for every call (non-stream and streamed completions,
// /models).
//
// A streamed answer must stay cancellable while its body is read (client
// gone, idle timeout, first-byte timeout, request timeout), which
// fasthttp's client has no context for. Every upstream connection is dialed
// as a trackedConn, which fasthttp records on the Response as its local
// address; a stream finds its connection through it and, when its context
// ends, closes the connection, so the blocked read returns at once. A stream abandoned before its end closes the
// connection instead of pooling it (its unread rest would be the next
// request's answer). Before, streams went through net/http, whose
// per-connection read and write goroutines cost about a tenth of the
// guard's CPU per pass-through stream.
type upstream struct {
	base string
	key  string
	fast *upstreamClient
	// uris holds the parsed URI of each path the proxy calls, copied into
	// each request instead of parsing base+path again (2% of the guard's
	// CPU per pass-through request). Read-only after newUpstream.
	uris map[string]*fasthttp.URI
}

// upstreamClient is the client to upstreams, shared by every configuration
// the server runs, so a reload never strands connections. conns is the
// process's upstream connection budget (guard_upstream_*), which the event
// loop's connections (evloop.go) count against too.
type upstreamClient struct {
	*fasthttp.Client
	conns    *evrelay.Budget
	connWait time.Duration
	shed     sync.Once // CloseIdleConnections races fasthttp's lazy setup until a Do ran
}

// newFastClient is the client to upstreams. An idle connection is closed
// after u.IdleConnTimeout, which should be below the upstream's own
// keep-alive limit. At most u.MaxConns connections are open at once (0:
// derived from the process's file descriptor limit, evrelay.MaxFromFileLimit); every
// request in flight holds one, a stream for its whole length. A request
// that finds none free waits in fasthttp's queue up to u.ConnWaitTimeout
// for one, then fails with 503 upstream_busy (guard_upstream_busy_total);
// so does a dial that waits as long for a slot of the budget the event
// loop's connections share (evrelay.Budget). dial opens a connection (nil: TCP).
//
// A request whose connection fails before any byte of the answer came
// back (the write failed, or the upstream closed the connection without a
// response) is retried, POSTs included: the upstream processed nothing
// that it answered. Before a retry every idle pooled connection is closed,
// so the retry dials a fresh one: when an upstream closes idle connections,
// the other pooled ones are as stale as the one that failed. A second retry
// covers the rare case where a connection released to the pool between the
// close and the retry was itself closing (the upstream_closes_idle chaos
// scenario failed 1 of 36 once, under a full test run's CPU load). A partly
// read answer is never retried.
func newFastClient(u UpstreamConfig, dial fasthttp.DialFunc) *upstreamClient {
	if dial == nil {
		dial = upstreamDialer.Dial
	}
	uc := &upstreamClient{conns: evrelay.NewBudget(u.MaxConns), connWait: u.ConnWaitTimeout}
	if u.MaxConns == 0 {
		uc.conns.Max = evrelay.MaxFromFileLimit(proctune.OpenFileLimit())
	}
	c := &fasthttp.Client{
		Name:                          "answer-guard",
		NoDefaultUserAgentHeader:      true,
		MaxConnsPerHost:               uc.conns.Max,
		MaxConnWaitTimeout:            u.ConnWaitTimeout,
		MaxIdleConnDuration:           u.IdleConnTimeout,
		MaxIdemponentCallAttempts:     3,
		MaxResponseBodySize:           u.MaxResponseBytes,
		DisableHeaderNamesNormalizing: false,
		// The response header must fit (fasthttp reads it whole into this
		// buffer); a streamed body passes through it into the SSE reader's
		// own buffer, so a bigger one only costs memory per open stream.
		ReadBufferSize: upstreamReadBuffer,
		// The request (header and body) passes through this buffer, held only
		// while a request is written (16 KiB: eight 700-byte notes, one write).
		WriteBufferSize: 16 << 10,
	}
	c.Dial = uc.track(dial)
	c.RetryIfErr = func(_ *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
		if attempts > 2 || !connFailedBeforeAnswer(err) {
			return false, false
		}
		c.CloseIdleConnections()
		return false, true
	}
	uc.Client = c
	return uc
}

// upstreamReadBuffer is the upstream connection's read buffer: the largest
// response header accepted (OpenAI's are under 2 KiB, proxies in front of
// model servers add a few hundred bytes each).
const upstreamReadBuffer = 8 << 10

// registerUpstream publishes the pool's numbers on the proxy's registry.
func (m *metrics) registerUpstream(c *upstreamClient) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guard_upstream_conns_max",
			Help: "Most upstream connections open at once (upstream.max_conns, or what it was derived from the file descriptor limit)."},
			func() float64 { return float64(c.conns.Max) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "guard_upstream_conns_open",
			Help: "Upstream connections open now, in use or idle in the pool; at guard_upstream_conns_max, requests wait (upstream.conn_wait_timeout)."},
			func() float64 { return float64(c.conns.Open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "guard_upstream_busy_total",
			Help: "Requests that waited upstream.conn_wait_timeout for an upstream connection in vain and got 503 upstream_busy."},
			func() float64 { return float64(c.conns.Busy.Load()) }))
}

// upstreamDialer dials every server's upstream connections: a TCPDialer
// starts a DNS-cache cleaner that lives as long as the process, so one is
// shared rather than one per Server (tests and bench start many).
var upstreamDialer = &fasthttp.TCPDialer{Concurrency: 0}

// connFailedBeforeAnswer reports errors that mean the request never got a
// response byte: the upstream had closed the (reused) connection, so the
// write broke, or the read met EOF or a reset at once.
func connFailedBeforeAnswer(err error) bool {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, fasthttp.ErrConnectionClosed),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return true
	}
	return false
}

// trackedConn is an upstream connection that a streamed response can find
// again: its LocalAddr, which fasthttp stores on the Response, points back
// to it.
type trackedConn struct {
	net.Conn
	peerclose.Owned // the request whose end closes it
	addr            trackedAddr
	stats           *evrelay.Budget // holds a slot until its first Close (nil: none)
	shut            atomic.Bool
	// beforeRead, when set, is called right before a read has to wait for
	// the network (internal/waitread: no byte has arrived). Only the
	// goroutine reading a stream sets and calls it.
	beforeRead func()
	wr         *waitread.Reader // reads and closes Conn
}

func (c *trackedConn) Read(p []byte) (int, error) { return c.wr.Read(p, c.beforeRead) }

type trackedAddr struct {
	net.Addr // the connection's own local address
	c        *trackedConn
}

func (a *trackedAddr) Network() string {
	if a.Addr == nil {
		return "tcp"
	}
	return a.Addr.Network()
}

func (a *trackedAddr) String() string {
	if a.Addr == nil {
		return ""
	}
	return a.Addr.String()
}

func (c *trackedConn) LocalAddr() net.Addr { return &c.addr }

// Close closes the connection; the watch and fasthttp may both close it.
func (c *trackedConn) Close() error {
	if c.shut.CompareAndSwap(false, true) && c.stats != nil {
		c.stats.Release()
	}
	return c.wr.Close() // also in beforeRead, which may end the stream
}

// track makes dial's connections trackedConns, each holding a slot of
// c.conns (fasthttp.ErrNoFreeConns when none freed in c.connWait).
func (c *upstreamClient) track(dial fasthttp.DialFunc) fasthttp.DialFunc {
	return func(addr string) (net.Conn, error) {
		if !c.conns.Acquire(c.connWait) {
			return nil, fasthttp.ErrNoFreeConns
		}
		conn, err := dial(addr)
		if err != nil {
			c.conns.Release()
			return nil, err
		}
		c.shed.Do(func() { c.conns.OnShed(c.CloseIdleConnections) })
		tc := &trackedConn{Conn: conn, stats: c.conns, wr: waitread.New(conn)}
		tc.addr = trackedAddr{Addr: conn.LocalAddr(), c: tc}
		return tc, nil
	}
}

func newUpstream(base, key string, fast *upstreamClient) *upstream {
	u := &upstream{base: strings.TrimRight(base, "/"), key: key, fast: fast, uris: map[string]*fasthttp.URI{}}
	for _, path := range []string{"/chat/completions", "/models"} {
		uri := &fasthttp.URI{}
		if err := uri.Parse(nil, []byte(u.base+path)); err == nil {
			u.uris[path] = uri
		}
	}
	return u
}

// request is a pooled request to path with the headers every call sends.
func (u *upstream) request(method, path, accept string) *fasthttp.Request {
	req := fasthttp.AcquireRequest()
	if uri := u.uris[path]; uri != nil {
		req.SetURI(uri)
	} else {
		req.SetRequestURI(u.base + path)
	}
	req.Header.SetMethod(method)
	if method == fasthttp.MethodPost {
		req.Header.SetContentType("application/json")
	}
	req.Header.Set("Accept", accept)
	if u.key != "" {
		req.Header.Set("Authorization", "Bearer "+u.key)
	}
	return req
}

// do sends req and maps fasthttp's errors to the proxy's.
func (u *upstream) do(req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time, timeout error) error {
	err := u.fast.DoDeadline(req, resp, deadline)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fasthttp.ErrTimeout):
		return timeout
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		u.fast.conns.Busy.Add(1)
		return busyError(err)
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
			Message: "the upstream response exceeds the configured size limit", Err: err}
	}
	return err
}

// send sends req with the body b, retrying as RetryIfErr would (a body
// stream turns fasthttp's own retries off), and on a connection another
// request's end closed (peerclose.Owned) unless ended says it was its own.
// A request that ended already (its client left while it was planned) is
// not sent: no connection is taken or dialed for it.
func (u *upstream) send(req *fasthttp.Request, resp *fasthttp.Response, b *peerclose.Body, deadline time.Time, timeout error, ended func() bool) (err error) {
	for n := 1; n == 1 || n <= 3 && (connFailedBeforeAnswer(err) || errors.Is(err, net.ErrClosed) && !ended()); n++ {
		if ended() {
			return errNotSent
		}
		if n > 1 {
			u.fast.CloseIdleConnections()
		}
		req.SetBodyStream(b.Rewind(), len(b.B))
		err = u.do(req, resp, deadline, timeout)
	}
	return err
}

func busyError(err error) *APIError {
	return &APIError{Status: 503, Type: "upstream_error", Code: "upstream_busy",
		Message: "every upstream connection (upstream.max_conns) is in use; retry later", Err: err}
}

// postWhole sends a non-stream request and returns the pooled response,
// its whole body read under deadline: the caller reads resp.Body() in
// place and releases resp (fasthttp.ReleaseResponse) when done with it.
// Until it returns, l.End closes the connection the request is on.
func (u *upstream) postWhole(path string, body []byte, deadline time.Time, l *peerclose.Link) (*fasthttp.Response, error) {
	req, resp := u.request(fasthttp.MethodPost, path, "application/json"), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer l.Done()
	b := &peerclose.Body{B: body, OnSend: func() {
		if tc, ok := resp.LocalAddr().(*trackedAddr); ok {
			l.Use(&tc.c.Owned, tc.c)
		}
	}}
	if err := u.send(req, resp, b, deadline, errRequestTimeout, l.Ended); err != nil {
		fasthttp.ReleaseResponse(resp)
		return nil, err
	}
	if sc := resp.StatusCode(); sc/100 != 2 {
		err := upstreamStatusError(sc, resp.Body()) // copies what it keeps
		fasthttp.ReleaseResponse(resp)
		return nil, err
	}
	return resp, nil
}

func (u *upstream) close() { u.fast.CloseIdleConnections() }

// upStream is a streamed upstream answer: its body is read as it arrives,
// and Close must be called once it is no longer read (a second Close does
// nothing). Only one goroutine at a time uses it.
type upStream struct {
	req         *fasthttp.Request
	resp        *fasthttp.Response
	body        io.Reader
	eventStream bool // the answer's Content-Type is text/event-stream
	conn        *trackedConn
	watch       *streamWatch // closes conn when the request ends
	eof         bool
	failed      bool // a read failed: the body cannot be read to its end
	closed      bool
	drainBuf    [512]byte // drain's: a local array would escape to the heap
}

// contentType is the answer's Content-Type (until Close).
func (s *upStream) contentType() string { return string(s.resp.Header.ContentType()) }

func (s *upStream) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	switch {
	case err == io.EOF:
		s.eof = true
	case err != nil:
		s.failed = true
	}
	return n, err
}

// drainWait bounds how long Close waits for the end of a body the relay
// stopped reading at [DONE]: the chunked terminator normally came in the
// same packet, so the wait is rarely more than a buffer read.
const drainWait = 20 * time.Millisecond

// Close ends the stream: a connection read to its end goes back to the
// pool, any other is closed. The relay stops reading at [DONE], before the
// body's own end, which Close then reads (briefly) so the connection can
// be reused.
func (s *upStream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	reusable := s.watch.link.Done() // false: the request ended and the watch closed the connection
	if reusable && !s.eof && !s.failed {
		// The reader's hook (sse.Reader's BlockNotifier) still runs before
		// a read that would wait: the relay sends what it holds first.
		s.drain()
	}
	s.conn.beforeRead = nil
	releaseStream(s.req, s.resp, reusable && s.eof)
	return nil
}

// releaseStream gives a streamed request and its response back to
// fasthttp's pools; the connection goes back to the client's pool only
// when pool is true, else it is closed.
func releaseStream(req *fasthttp.Request, resp *fasthttp.Response, pool bool) {
	if !pool {
		resp.SetConnectionClose()
	}
	resp.CloseBodyStream() //nolint:errcheck // closing only releases
	fasthttp.ReleaseResponse(resp)
	fasthttp.ReleaseRequest(req)
}

// SetBeforeRead makes f run right before the stream reads from the
// network, i.e. once everything already received has been read: fasthttp's
// chunked body reader returns one chunk per Read, so only the connection
// knows when a read would wait (sse.Reader's BlockNotifier).
func (s *upStream) SetBeforeRead(f func()) { s.conn.beforeRead = f }

var _ sse.BlockNotifier = (*upStream)(nil)

// drain reads what is left of the body, up to 64 KiB and for at most
// drainWait; s.eof tells whether its end came.
func (s *upStream) drain() {
	s.conn.SetReadDeadline(time.Now().Add(drainWait)) //nolint:errcheck // a failed set shows as a read error
	for left := 64 << 10; left > 0 && !s.eof; {
		n, err := s.Read(s.drainBuf[:])
		left -= n
		if err != nil {
			return
		}
	}
}

// postStream sends a streamed request and returns once the response
// headers arrived, within firstByte (and the context's deadline). Its body
// is then read under the context: when the request ends (w closes the
// connection as ctx ends), a blocked read returns an error and the caller
// reads the cause from ctx. A non-2xx status becomes an *APIError carrying
// the upstream's message.
func (u *upstream) postStream(ctx context.Context, w *streamWatch, path string, body []byte, firstByte, requestDeadline time.Time) (*upStream, error) {
	deadline, timeout := firstByte, errFirstByteTimeout
	if requestDeadline.Before(deadline) {
		deadline, timeout = requestDeadline, errRequestTimeout
	}
	req, resp := u.request(fasthttp.MethodPost, path, "text/event-stream"), fasthttp.AcquireResponse()
	resp.StreamBody = true
	fail := func(err error) (*upStream, error) {
		releaseStream(req, resp, false)
		return nil, err
	}
	// The connection is the request's from its writing on: a request that
	// ends while it waits for the header (or for a connection) closes it.
	b := &peerclose.Body{B: body, OnSend: func() {
		if tc, ok := resp.LocalAddr().(*trackedAddr); ok {
			w.link.Use(&tc.c.Owned, tc.c)
		}
	}}
	if err := u.send(req, resp, b, deadline, timeout, w.over); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(context.Cause(ctx))
	}
	tc, ok := resp.LocalAddr().(*trackedAddr)
	if !ok {
		return fail(errors.New("upstream connection not tracked"))
	}
	conn := tc.c
	// The header wait had the first-byte deadline; the body is bounded by
	// request_timeout (and the context: whoever cancels it).
	conn.SetReadDeadline(requestDeadline) //nolint:errcheck // a failed set shows as a read error
	rd := resp.BodyStream()
	if rd == nil {
		rd = bytes.NewReader(resp.Body())
	}
	st := &upStream{req: req, resp: resp, body: rd, conn: conn, eventStream: isEventStream(b2s(resp.Header.ContentType())), watch: w}
	if sc := resp.StatusCode(); sc/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(st, 64<<10))
		st.Close()
		return nil, upstreamStatusError(sc, b)
	}
	return st, nil
}

// get fetches path (for /models) under deadline.
func (u *upstream) get(path string, limit int, deadline time.Time) ([]byte, error) {
	req, resp := u.request(fasthttp.MethodGet, path, "application/json"), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	if err := u.do(req, resp, deadline, errFirstByteTimeout); err != nil {
		return nil, err
	}
	b := resp.Body()
	if len(b) > limit {
		return nil, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
			Message: "the upstream model list exceeds its size limit"}
	}
	b = append([]byte(nil), b...)
	if sc := resp.StatusCode(); sc/100 != 2 {
		return nil, upstreamStatusError(sc, b)
	}
	return b, nil
}

// upstreamStatusError maps an upstream error status to what the client sees:
// a client error the upstream judged (400, 404, 422, 429) keeps its status and
// message; anything else (auth to the upstream, 5xx) is a 502.
func upstreamStatusError(status int, body []byte) *APIError {
	msg := gjson.GetBytes(body, "error.message").Str
	if msg == "" {
		msg = http.StatusText(status)
	}
	switch status {
	case 400, 404, 422, 429:
		typ := gjson.GetBytes(body, "error.type").Str
		if typ == "" {
			typ = "invalid_request_error"
		}
		code := gjson.GetBytes(body, "error.code").Str
		if code == "" {
			code = "upstream_rejected"
		}
		return &APIError{Status: status, Type: typ, Code: code, Message: "upstream: " + msg,
			Err: fmt.Errorf("upstream status %d", status)}
	}
	return &APIError{Status: 502, Type: "upstream_error", Code: "upstream_error",
		Message: fmt.Sprintf("the upstream model answered with status %d", status),
		Err:     fmt.Errorf("upstream status %d: %s", status, msg)}
}

// cause returns the reason a context ended, preferring our own causes.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	if te, ok := errors.AsType[interface {
		error
		Timeout() bool
	}](err); ok && te.Timeout() {
		// The only read deadline on a stream's body is request_timeout's,
		// and it may pass before the context's own timer ends it.
		return errRequestTimeout
	}
	return err
}
