// Package oaiclient implements the one HTTP client the guard's remote pieces
// share: OpenAI-compatible embeddings (index), chat completions (query
// rewrite, synthesis planner, LLM judge, pairwise judge) and plain JSON
// POSTs of other shapes (rerank). Timeouts, retries, error shapes and
// metrics live here, once.
//
// Timeouts: Config.Timeout bounds one attempt (connect, request, response
// and body); the caller's context bounds the whole call, retries included.
// A cancelled context ends the call at once, also while it waits to retry.
//
// Retries: every call this client makes is idempotent (it computes an
// embedding, a ranking or a completion and changes nothing on the server),
// so a failed attempt is retried, up to Config.Retries times, when it
// failed before a complete response arrived (connection refused or reset,
// the attempt's timeout, a body cut off) or when the server answered 408,
// 429 or 5xx. Other statuses and malformed 2xx bodies are final. The wait
// before the first retry is Config.Backoff, doubling after each; a
// Retry-After header (seconds) longer than that is honoured up to
// MaxBackoff. Retries default to 0: the online pieces (rerank, rewrite,
// planner, judge) degrade to their local stand-ins instead of waiting.
//
// Errors: every failure is an *Error (wrapped with the context's error
// when the context ended the call after a failed attempt): the client's name, the URL,
// the HTTP status (0 when no response came) and, when the server sent an
// error body, its type, code and message, read from the OpenAI shape
// {"error":{"message","type","code"}} or the shapes TEI, Cohere and
// FastAPI servers send. Err carries the cause, so errors.Is(err,
// context.DeadlineExceeded) and errors.Is(err, ErrBadResponse) work.
//
// Metrics: each attempt is counted in guard_remote_requests_total{client,
// result}, timed in guard_remote_request_seconds{client} and each retry
// counted in guard_remote_retries_total{client}; see Metrics.
//
// The client is hand-written over net/http and encoding/json rather than
// built on openai-go: the shapes are three small ones, the rerank shape is
// not OpenAI's, and the judge sits on the hot path of strict mode.
package oaiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults of Config's zero fields.
const (
	DefaultBackoff      = 100 * time.Millisecond
	MaxBackoff          = 10 * time.Second
	DefaultMaxIdleConns = 16
	DefaultMaxResponse  = 32 << 20
)

// Config configures a Client. Only Name and BaseURL are required.
type Config struct {
	// Name labels the client's metrics and starts its error messages, e.g.
	// "embeddings", "rerank", "rewrite", "planner", "judge", "pairwise".
	Name string
	// BaseURL is the API base, e.g. http://127.0.0.1:8000/v1. A call's
	// path ("/chat/completions") is appended to it; the path "" posts to
	// BaseURL itself (a full rerank URL).
	BaseURL string
	// APIKeyEnv names the environment variable holding the bearer key; it
	// is read once, by New. Empty or unset: no Authorization header.
	APIKeyEnv string
	// Timeout bounds one attempt, body included. 0: only the caller's
	// context bounds it.
	Timeout time.Duration
	// Retries is the number of retries after a retryable failure (see the
	// package doc). Default 0.
	Retries int
	// Backoff is the wait before the first retry; it doubles after each,
	// up to MaxBackoff. Default DefaultBackoff.
	Backoff time.Duration
	// MaxIdleConns is the number of idle connections kept to the server;
	// set it to the calls expected in flight. Default DefaultMaxIdleConns.
	MaxIdleConns int
	// MaxResponse caps a response body in bytes; a longer one is an error.
	// Default DefaultMaxResponse.
	MaxResponse int64
	// Metrics receives the client's series. Default DefaultMetrics.
	Metrics *Metrics
}

// Client posts JSON to one OpenAI-compatible server. It is safe for
// concurrent use.
type Client struct {
	cfg Config
	key string
	hc  *http.Client
	m   clientMetrics
}

// New returns a client for cfg, with its own connection pool.
func New(cfg Config) *Client {
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxIdleConns <= 0 {
		cfg.MaxIdleConns = DefaultMaxIdleConns
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	if cfg.Metrics == nil {
		cfg.Metrics = DefaultMetrics
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.MaxIdleConns
	c := &Client{cfg: cfg, hc: &http.Client{Transport: tr}, m: cfg.Metrics.client(cfg.Name)}
	if cfg.APIKeyEnv != "" {
		c.key = os.Getenv(cfg.APIKeyEnv)
	}
	return c
}

// Close closes the client's idle connections. Calls made after Close
// still work (on new connections).
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// ErrBadResponse is wrapped by the errors of 2xx responses whose body is
// not what the call expects.
var ErrBadResponse = errors.New("bad response")

// Error is a failed call.
type Error struct {
	// Client is the Config.Name of the client that made the call.
	Client string
	// URL is the address posted to.
	URL string
	// Status is the HTTP status of the last attempt; 0 when no response
	// came (transport failure, timeout, cancellation).
	Status int
	// Type, Code and Message are read from the server's error body when it
	// sent one; Message is the start of the raw body when the body has no
	// known shape.
	Type, Code, Message string
	// Err is the cause when there is no status to tell it: a transport or
	// context error, or a wrapped ErrBadResponse.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Client)
	b.WriteByte(' ')
	b.WriteString(e.URL)
	b.WriteString(": ")
	if e.Status != 0 && (e.Status < 200 || e.Status > 299) {
		fmt.Fprintf(&b, "status %d", e.Status)
		if e.Code != "" {
			fmt.Fprintf(&b, " (%s)", e.Code)
		} else if e.Type != "" {
			fmt.Fprintf(&b, " (%s)", e.Type)
		}
		if e.Message != "" {
			b.WriteString(": ")
			b.WriteString(e.Message)
		}
		if e.Err != nil {
			b.WriteString(": ")
			b.WriteString(e.Err.Error())
		}
		return b.String()
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// retryable reports whether an attempt that failed with e may be retried.
func (e *Error) retryable() bool {
	switch {
	case e.Status == 0:
		return true
	case e.Status == http.StatusRequestTimeout, e.Status == http.StatusTooManyRequests, e.Status >= 500:
		return true
	}
	return false
}

// PostJSON posts req, encoded as JSON, to BaseURL+path and decodes the 2xx
// response into resp (a *json.RawMessage keeps it as is).
func (c *Client) PostJSON(ctx context.Context, path string, req, resp any) error {
	if err := c.call(ctx, path, req, resp); err != nil {
		return err
	}
	c.m.result("ok")
	return nil
}

// call is PostJSON without counting a usable response: the caller checks
// the decoded body and counts it ok or bad_response.
func (c *Client) call(ctx context.Context, path string, req, resp any) error {
	u := c.url(path)
	body, err := json.Marshal(req)
	if err != nil {
		return &Error{Client: c.cfg.Name, URL: u, Err: fmt.Errorf("encode request: %w", err)}
	}
	raw, err := c.post(ctx, u, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, resp); err != nil {
		c.m.result("bad_response")
		return &Error{Client: c.cfg.Name, URL: u, Status: http.StatusOK, Err: fmt.Errorf("%w: %w", ErrBadResponse, err)}
	}
	return nil
}

// url is BaseURL itself for the path "", else BaseURL without its
// trailing slashes followed by path.
func (c *Client) url(path string) string {
	if path == "" {
		return c.cfg.BaseURL
	}
	return strings.TrimRight(c.cfg.BaseURL, "/") + path
}

// badResponse counts and returns the error of a 2xx body that decoded but
// is not what the call expects.
func (c *Client) badResponse(path, format string, a ...any) error {
	c.m.result("bad_response")
	return &Error{Client: c.cfg.Name, URL: c.url(path), Status: http.StatusOK, Err: fmt.Errorf("%w: %s", ErrBadResponse, fmt.Sprintf(format, a...))}
}

// post runs the attempts of one call and returns the 2xx body.
func (c *Client) post(ctx context.Context, u string, body []byte) ([]byte, error) {
	backoff := c.cfg.Backoff
	for attempt := 0; ; attempt++ {
		raw, retryAfter, err := c.attempt(ctx, u, body)
		if err == nil {
			return raw, nil
		}
		if ctx.Err() != nil {
			return nil, withCause(err, ctx.Err())
		}
		if attempt >= c.cfg.Retries || !err.retryable() {
			return nil, err
		}
		wait := min(max(backoff, retryAfter), MaxBackoff)
		backoff *= 2
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, withCause(err, ctx.Err())
		case <-t.C:
		}
		c.m.retries.Inc()
	}
}

// withCause returns err, and says it ended because of ctxErr when it does
// not already.
func withCause(err *Error, ctxErr error) error {
	if errors.Is(err, ctxErr) {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ctxErr)
}

// attempt sends one request, within Timeout, and reads the whole response.
// On a non-2xx status it returns the parsed error and the Retry-After wait
// the server asked for.
func (c *Client) attempt(ctx context.Context, u string, body []byte) ([]byte, time.Duration, *Error) {
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	start := time.Now()
	raw, status, hdr, err := c.roundTrip(ctx, u, body)
	c.m.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			c.m.result("timeout")
		case errors.Is(err, context.Canceled):
			c.m.result("canceled")
		default:
			c.m.result("transport")
		}
		return nil, 0, &Error{Client: c.cfg.Name, URL: u, Err: err}
	}
	if status < 200 || status > 299 {
		switch {
		case status == http.StatusTooManyRequests:
			c.m.result("http_429")
		case status >= 500:
			c.m.result("http_5xx")
		default:
			c.m.result("http_4xx")
		}
		e := &Error{Client: c.cfg.Name, URL: u, Status: status}
		e.Type, e.Code, e.Message = parseErrorBody(raw)
		return nil, retryAfter(hdr), e
	}
	return raw, 0, nil // counted ok or bad_response once decoded
}

func (c *Client) roundTrip(ctx context.Context, u string, body []byte) ([]byte, int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = fmt.Errorf("%s: %w", strings.ToLower(ue.Op), ue.Err)
		}
		return nil, 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponse+1))
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read response: %w", err)
	}
	if int64(len(raw)) > c.cfg.MaxResponse {
		return nil, 0, nil, fmt.Errorf("response larger than %d bytes", c.cfg.MaxResponse)
	}
	return raw, resp.StatusCode, resp.Header, nil
}

// retryAfter reads a Retry-After header given in seconds; 0 when absent or
// given as a date.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s <= 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// maxMessage caps an error message taken from a response body.
const maxMessage = 300

// parseErrorBody reads an error body: OpenAI's {"error":{"message","type",
// "code"}} (code a string, a number or null), TEI's {"error":"...",
// "error_type":"..."}, Cohere's {"message":"..."} or FastAPI's
// {"detail":"..."}; anything else becomes the message, clipped.
func parseErrorBody(b []byte) (typ, code, msg string) {
	var env struct {
		Error     json.RawMessage `json:"error"`
		ErrorType string          `json:"error_type"`
		Message   string          `json:"message"`
		Detail    json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &env) == nil {
		var obj struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		var s string
		switch {
		case len(env.Error) > 0 && json.Unmarshal(env.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
			return obj.Type, rawCode(obj.Code), clip(obj.Message)
		case len(env.Error) > 0 && json.Unmarshal(env.Error, &s) == nil:
			return env.ErrorType, "", clip(s)
		case env.Message != "":
			return "", "", clip(env.Message)
		case len(env.Detail) > 0 && json.Unmarshal(env.Detail, &s) == nil:
			return "", "", clip(s)
		}
	}
	return "", "", clip(string(b))
}

func rawCode(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	if t := string(bytes.TrimSpace(r)); t != "null" {
		return t
	}
	return ""
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "..."
}
