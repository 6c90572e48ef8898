package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// APIError is an error a client may see: an HTTP status and the OpenAI error
// body. Message must hold no internals and no secrets; the wrapped Err is
// what gets logged.
type APIError struct {
	Status  int
	Type    string // invalid_request_error | authentication_error | permission_error | not_found_error | rate_limit_error | server_error | upstream_error
	Code    string
	Param   string
	Message string
	Allow   string // with 405: the methods the path takes (the Allow header)
	Err     error  // cause, for the log only
}

func (e *APIError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *APIError) Unwrap() error { return e.Err }

func badRequest(code, param, format string, args ...any) *APIError {
	return &APIError{Status: 400, Type: "invalid_request_error", Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// Errors the relay and upstream client produce.
var (
	errFirstByteTimeout = errors.New("upstream first byte timeout")
	errIdleTimeout      = errors.New("upstream idle timeout")
	errClientGone       = errors.New("client disconnected")
	errRequestTimeout   = errors.New("request timeout")
	// errNotSent: the request ended (its cause is the context's or the
	// link's) before it was sent upstream.
	errNotSent = errors.New("the request ended before it was sent upstream")
)

// toAPIError is the one place that maps any error to what the client sees.
func toAPIError(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	if ae, ok := fromClientError(err); ok {
		return ae
	}
	switch {
	case errors.Is(err, errFirstByteTimeout):
		return &APIError{Status: 504, Type: "upstream_error", Code: "upstream_timeout", Message: "the upstream model did not start answering in time", Err: err}
	case errors.Is(err, errIdleTimeout):
		return &APIError{Status: 504, Type: "upstream_error", Code: "upstream_timeout", Message: "the upstream model stalled between events", Err: err}
	case errors.Is(err, errClientGone): // logged; the client is not there to read it
		return &APIError{Status: 499, Type: "client_error", Code: "client_closed", Message: "the client closed the connection", Err: err}
	case errors.Is(err, errKeyRevoked):
		return &APIError{Status: 401, Type: "authentication_error", Code: "invalid_api_key", Message: "the API key was revoked", Err: err}
	case errors.Is(err, errRequestTimeout), errors.Is(err, context.DeadlineExceeded):
		return &APIError{Status: 504, Type: "upstream_error", Code: "upstream_timeout", Message: "the request took longer than the configured limit", Err: err}
	}
	return &APIError{Status: 502, Type: "upstream_error", Code: "upstream_unavailable", Message: "the upstream model could not be reached", Err: err}
}

// body renders the OpenAI error body.
func (e *APIError) body() []byte {
	type inner struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	in := inner{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		in.Param = &e.Param
	}
	if e.Code != "" {
		in.Code = &e.Code
	}
	b, _ := json.Marshal(struct {
		Error inner `json:"error"`
	}{in})
	return b
}

// methodNotAllowed is the 405 for a route that takes only the methods in
// allow (the Allow header's value, e.g. "GET, HEAD").
func methodNotAllowed(allow string) *APIError {
	method, _, _ := strings.Cut(allow, ",")
	return &APIError{Status: 405, Type: "invalid_request_error", Code: "method_not_allowed", Message: "use " + method, Allow: allow}
}
