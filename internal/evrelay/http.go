package evrelay

import (
	"bufio"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"unsafe"
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

// Hijacked returns the connection a fasthttp hijack handler was given
// (its UnsafeConn) and how many bytes fasthttp's reader still buffered
// past the request (pipelined): -1 when it cannot tell (another fasthttp
// layout; TestHijackedBuffered pins the one this reads).
func Hijacked(h net.Conn) (net.Conn, int) {
	u, ok := h.(interface{ UnsafeConn() net.Conn })
	if !ok {
		return h, -1
	}
	v := reflect.ValueOf(h)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return u.UnsafeConn(), -1
	}
	f := v.Elem().FieldByName("r")
	if !f.IsValid() || f.Kind() != reflect.Interface {
		return u.UnsafeConn(), -1
	}
	r := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	switch br := r.(type) {
	case *bufio.Reader:
		return u.UnsafeConn(), br.Buffered()
	case net.Conn:
		return u.UnsafeConn(), 0
	}
	return u.UnsafeConn(), -1
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

// AppendResponse appends a whole response with a JSON body, closing the
// connection.
func AppendResponse(dst []byte, server string, status int, body []byte) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(status)...)
	dst = append(dst, "\r\nServer: "...)
	dst = append(dst, server...)
	dst = append(dst, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\nConnection: close\r\n\r\n"...)
	return append(dst, body...)
}

// AppendStreamHeader appends the header of a 200 chunked event stream.
func AppendStreamHeader(dst []byte, server string, keepAlive bool) []byte {
	dst = append(dst, "HTTP/1.1 200 OK\r\nServer: "...)
	dst = append(dst, server...)
	dst = append(dst, "\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n"...)
	if !keepAlive {
		dst = append(dst, "Connection: close\r\n"...)
	}
	return append(dst, "\r\n"...)
}
