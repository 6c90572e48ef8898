package proxy

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
// readErrorKind maps it to one of these.
var (
	errKindBodyTooLarge    = errors.New("request body too large")
	errKindHeadersTooLarge = errors.New("request headers too large")
	errKindTimeout         = errors.New("request read timeout")
	errKindVersion         = errors.New("unsupported HTTP version")
	errKindHeader          = errors.New("malformed request headers")
	errKindBody            = errors.New("malformed request body")
	errKindConn            = errors.New("connection error")
	errKindOther           = errors.New("request could not be read")
)

// readErrorKind classifies an error fasthttp returned while reading a
// request. The result holds no byte of the request.
func readErrorKind(err error) error {
	if err == nil {
		return errKindOther
	}
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	msg := err.Error()
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		return errKindBodyTooLarge
	case errors.As(err, &small), strings.Contains(msg, "small read buffer"):
		return errKindHeadersTooLarge
	case errors.As(err, &ne) && ne.Timeout(), strings.Contains(msg, "timeout"):
		return errKindTimeout
	case strings.Contains(msg, "unsupported HTTP version"):
		return errKindVersion
	case strings.Contains(msg, "reading request headers"), strings.Contains(msg, "header"):
		return errKindHeader
	case strings.Contains(msg, "body"), strings.Contains(msg, "chunk"), strings.Contains(msg, "Transfer-Encoding"):
		return errKindBody
	case strings.Contains(msg, "connection"), strings.Contains(msg, "broken pipe"), strings.Contains(msg, "EOF"):
		return errKindConn
	}
	return errKindOther
}

// redactLog is fasthttp's Logger. fasthttp formats raw request bytes into
// some of its lines ("error when serving connection %q<->%q: %v", where
// the error may quote the request); redactLog logs the format string, the
// kind of any error argument and the numbers, never a string or an error's
// text.
type redactLog struct{ log *zap.Logger }

var _ fasthttp.Logger = redactLog{}

func (l redactLog) Printf(format string, args ...any) {
	ce := l.log.Check(zap.InfoLevel, "fasthttp")
	if ce == nil {
		return
	}
	fields := []zap.Field{zap.String("format", format)}
	for _, a := range args {
		switch v := a.(type) {
		case error:
			fields = append(fields, zap.NamedError("error_kind", readErrorKind(v)))
		case net.Addr:
			fields = append(fields, zap.String("addr", v.String()))
		case int, int64, uint64, float64:
			fields = append(fields, zap.Any("arg", v))
		}
	}
	ce.Write(fields...)
}
