// Package netmsg says what went wrong with a network call in words a
// client of the proxy may read: no addresses, no internals.
package netmsg

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Plain says what err, from a call bounded by timeout, means.
func Plain(err error, timeout time.Duration) string {
	var ne net.Error
	switch {
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, fasthttp.ErrDialTimeout), errors.As(err, &ne) && ne.Timeout():
		return "no answer within " + timeout.String()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, fasthttp.ErrConnectionClosed):
		return "connection closed"
	case strings.Contains(err.Error(), "no such host"):
		return "host name not found"
	}
	return "unreachable"
}
