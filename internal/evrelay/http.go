package evrelay

import (
	"net"
	"net/http"
	"strconv"
	"time"
)

// FD returns the descriptor of c, a TCP connection (or a wrapper whose
// Unwrap returns one); ok is false for any other connection.
func FD(c net.Conn) (fd int, ok bool) {
	for {
		u, isWrap := c.(interface{ Unwrap() net.Conn })
		if !isWrap {
			break
		}
		c = u.Unwrap()
	}
	tc, isTCP := c.(*net.TCPConn)
	if !isTCP {
		return -1, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd = -1
	if err := rc.Control(func(d uintptr) { fd = int(d) }); err != nil || fd < 0 {
		return -1, false
	}
	return fd, true
}

// Pipelined reports whether the reader of h, a connection a fasthttp
// hijack handler was given, holds bytes the client sent past its request
// (a pipelined request, which the loop cannot hand back to fasthttp: such
// a connection must close after its answer). It reads h with a read
// deadline in the past: buffered bytes come back (one is consumed), and an
// empty buffer asks the socket, which fails at once without reading
// (Go's poller checks the deadline first), so what the kernel holds stays
// there for the loop. It relies on h's documented behaviour only (fasthttp
// hands the hijack handler a conn that reads the server's buffer first).
func Pipelined(h net.Conn) bool {
	if h.SetReadDeadline(time.Unix(1, 0)) != nil {
		return true // cannot tell: assume so (the connection closes after)
	}
	var b [1]byte
	n, _ := h.Read(b[:])
	return h.SetReadDeadline(time.Time{}) != nil || n > 0
}

// AppendRequest appends a POST of a JSON body to path on host, asking for
// an event stream, with key as its bearer token (none when empty).
func AppendRequest(dst []byte, host, path, key string, body []byte) []byte {
	dst = append(dst, "POST "...)
	dst = append(dst, path...)
	dst = append(dst, " HTTP/1.1\r\nHost: "...)
	dst = append(dst, host...)
	dst = append(dst, "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"...)
	if key != "" {
		dst = append(dst, "Authorization: Bearer "...)
		dst = append(dst, key...)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}

// AppendResponse appends a whole response with a JSON body and the
// header lines extra (each ending in CRLF), in the order fasthttp's server
// writes them; Connection: close unless keepAlive.
func AppendResponse(dst []byte, server string, status int, extra string, body []byte, keepAlive bool) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(status)...)
	dst = appendServerDate(dst, server)
	dst = append(dst, "Content-Type: application/json\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, extra...)
	if !keepAlive {
		dst = append(dst, "Connection: close\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, body...)
}

// AppendStreamHeader appends the header of a 200 chunked event stream.
func AppendStreamHeader(dst []byte, server string, keepAlive bool) []byte {
	dst = append(dst, "HTTP/1.1 200 OK"...)
	dst = appendServerDate(dst, server)
	dst = append(dst, "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n"...)
	if !keepAlive {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// appendServerDate ends the status line and appends the Server and Date
// lines.
func appendServerDate(dst []byte, server string) []byte {
	dst = append(dst, "\r\nServer: "...)
	dst = append(dst, server...)
	dst = append(dst, "\r\nDate: "...)
	dst = time.Now().UTC().AppendFormat(dst, http.TimeFormat)
	return append(dst, "\r\n"...)
}
