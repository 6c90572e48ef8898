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
	"syscall"
	"time"

	"github.com/tidwall/gjson"
	"github.com/valyala/fasthttp"
)

// upstream is the client for the OpenAI-compatible model server.
//
// It uses net/http rather than the fasthttp client. The upstream leg must be
// cancellable while a streamed body is being read (client gone, idle timeout,
// first-byte timeout); net/http ties the connection to a context and closes it
// on cancellation, whereas fasthttp's client has no context, closing its
// BodyStream does not stop the request, and its pooled Response must not be
// released while sse.Read still reads from it. The server side stays fasthttp.
//
// Non-stream completions and /models, which are read whole under one
// deadline and need no mid-body cancellation, go through fasthttp's client,
// which costs less CPU per request.
type upstream struct {
	base   string
	key    string
	client *http.Client
	fast   *fasthttp.Client
}

// newTransport is the connection pool to upstreams, shared by every
// configuration the server runs, so a reload never strands connections.
// An idle connection is closed after idle, which should be below the
// upstream's own keep-alive limit, so the proxy never writes a request onto
// a connection the upstream is closing.
func newTransport(maxConns int, idle time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:               nil, // never route loopback upstreams through an env proxy
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        maxConns,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     idle,
		ForceAttemptHTTP2:   true,
	}
}

// newFastClient is the fasthttp client for whole (non-stream) requests,
// shared across reloads like the transport.
//
// A request whose connection fails before any byte of the answer came
// back (the write failed, or the upstream closed the connection without a
// response) is retried, POSTs included: the upstream processed nothing
// that it answered. Before a retry every idle pooled connection is closed,
// so the retry dials a fresh one: when an upstream closes idle connections,
// the other pooled ones are as stale as the one that failed. A second retry
// covers the rare case where a connection released to the pool between the
// close and the retry was itself closing (the upstream_closes_idle chaos
// scenario failed 1 of 36 once, under a full test run's CPU load). A partly read answer is never retried.
func newFastClient(maxConns, maxBody int, idle time.Duration) *fasthttp.Client {
	c := &fasthttp.Client{
		Name:                          "answer-guard",
		NoDefaultUserAgentHeader:      true,
		MaxConnsPerHost:               maxConns,
		MaxIdleConnDuration:           idle,
		MaxIdemponentCallAttempts:     3,
		MaxResponseBodySize:           maxBody,
		DisableHeaderNamesNormalizing: false,
		ReadBufferSize:                16 << 10,
		Dial:                          (&fasthttp.TCPDialer{Concurrency: 0}).Dial,
	}
	c.RetryIfErr = func(_ *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
		if attempts > 2 || !connFailedBeforeAnswer(err) {
			return false, false
		}
		c.CloseIdleConnections()
		return false, true
	}
	return c
}

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

func newUpstream(base, key string, tr *http.Transport, fast *fasthttp.Client) *upstream {
	return &upstream{base: strings.TrimRight(base, "/"), key: key, client: &http.Client{Transport: tr}, fast: fast}
}

// postWhole sends a non-stream request and returns the whole body, reading
// it under deadline. The body is copied out of fasthttp's pooled response.
func (u *upstream) postWhole(path string, body []byte, deadline time.Time) ([]byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(u.base + path)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.Header.Set("Accept", "application/json")
	if u.key != "" {
		req.Header.Set("Authorization", "Bearer "+u.key)
	}
	req.SetBodyRaw(body)
	if err := u.fast.DoDeadline(req, resp, deadline); err != nil {
		if errors.Is(err, fasthttp.ErrTimeout) {
			return nil, errRequestTimeout
		}
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			return nil, &APIError{Status: 502, Type: "upstream_error", Code: "upstream_invalid_response",
				Message: "the upstream response exceeds the configured size limit", Err: err}
		}
		return nil, err
	}
	b := append([]byte(nil), resp.Body()...)
	if sc := resp.StatusCode(); sc/100 != 2 {
		return nil, upstreamStatusError(sc, b)
	}
	return b, nil
}

func (u *upstream) close() { u.client.CloseIdleConnections() }

// post sends body to path and returns the response once its headers arrived.
// A non-2xx status becomes an *APIError carrying the upstream's message.
//
// A request whose pooled connection the upstream had closed is retried on a
// fresh one, at most twice, as newFastClient does for whole requests:
// net/http replays it by itself only when nothing was written, and a
// connection closed while the body was being written fails with a broken
// pipe after the headers went out (the upstream_closes_idle chaos scenario
// failed 1 to 3 in 25 runs under -race that way).
func (u *upstream) post(ctx context.Context, path string, body []byte, accept string) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.base+path, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("build upstream request: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		// Replayable: net/http then retries a POST that met a closed pooled
		// connection before any response byte (it retries only idempotent
		// requests otherwise). A nil value marks it without sending the header.
		req.Header["X-Idempotency-Key"] = nil
		if u.key != "" {
			req.Header.Set("Authorization", "Bearer "+u.key)
		}
		resp, err := u.client.Do(req)
		if err != nil {
			if attempt < 2 && ctx.Err() == nil && connFailedBeforeAnswer(err) {
				u.client.CloseIdleConnections() // the others are as stale as this one
				continue
			}
			return nil, err
		}
		if resp.StatusCode/100 != 2 {
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			return nil, upstreamStatusError(resp.StatusCode, b)
		}
		return resp, nil
	}
}

// get fetches path (for /models).
func (u *upstream) get(ctx context.Context, path string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.base+path, nil)
	if err != nil {
		return nil, err
	}
	if u.key != "" {
		req.Header.Set("Authorization", "Bearer "+u.key)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, upstreamStatusError(resp.StatusCode, b)
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
	if c := context.Cause(ctx); errors.Is(c, errClientGone) {
		return c
	}
	return err
}
