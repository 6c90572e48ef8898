// Package logredact keeps request bytes out of the log: it classifies the
// errors fasthttp returns while reading a request by kind, and provides a
// fasthttp.Logger that logs a line's format, numbers, addresses and error
// kinds, never a string argument or an error's text.
package logredact

import (
	"errors"
	"net"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"
)

// The kinds of request-read error the log may name. fasthttp's own error
// text can quote the request it could not parse (a header line, the
// Authorization header with it, or body bytes), so it never reaches a log:
// Kind maps it to one of these.
var (
	ErrBodyTooLarge    = errors.New("request body too large")
	ErrHeadersTooLarge = errors.New("request headers too large")
	ErrTimeout         = errors.New("request read timeout")
	ErrVersion         = errors.New("unsupported HTTP version")
	ErrHeader          = errors.New("malformed request headers")
	ErrBody            = errors.New("malformed request body")
	ErrConn            = errors.New("connection error")
	ErrOther           = errors.New("request could not be read")
)

// Kind classifies an error fasthttp returned while reading a request. The
// result is one of the Err values above and holds no byte of the request.
func Kind(err error) error {
	if err == nil {
		return ErrOther
	}
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	msg := err.Error()
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return ErrBodyTooLarge
	case errors.As(err, &small), strings.Contains(msg, "small read buffer"):
		return ErrHeadersTooLarge
	case errors.As(err, &ne) && ne.Timeout(), strings.Contains(msg, "timeout"):
		return ErrTimeout
	case strings.Contains(msg, "unsupported HTTP version"):
		return ErrVersion
	case strings.Contains(msg, "reading request headers"), strings.Contains(msg, "header"):
		return ErrHeader
	case strings.Contains(msg, "body"), strings.Contains(msg, "chunk"), strings.Contains(msg, "Transfer-Encoding"):
		return ErrBody
	case strings.Contains(msg, "connection"), strings.Contains(msg, "broken pipe"), strings.Contains(msg, "EOF"):
		return ErrConn
	}
	return ErrOther
}

// Logger is a fasthttp.Logger over zap, at info level. fasthttp formats raw
// request bytes into some of its lines ("error when serving connection
// %q<->%q: %v", where the error may quote the request); Logger logs the
// format string, the Kind of any error argument, addresses and numbers,
// never a string or an error's text.
type Logger struct{ Log *zap.Logger }

var _ fasthttp.Logger = Logger{}

// Printf writes one "fasthttp" line holding the redacted fields.
func (l Logger) Printf(format string, args ...any) {
	ce := l.Log.Check(zap.InfoLevel, "fasthttp")
	if ce == nil {
		return
	}
	fields := []zap.Field{zap.String("format", format)}
	for _, a := range args {
		switch v := a.(type) {
		case error:
			fields = append(fields, zap.NamedError("error_kind", Kind(v)))
		case net.Addr:
			fields = append(fields, zap.String("addr", v.String()))
		case int, int64, uint64, float64:
			fields = append(fields, zap.Any("arg", v))
		}
	}
	ce.Write(fields...)
}
