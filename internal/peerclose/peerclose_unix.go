//go:build unix

// Package peerclose tells whether the client at the other end of a
// connection has gone, without reading from it.
package peerclose

import (
	"net"
	"syscall"
)

// Closed reports whether the client has closed (or reset) conn, without
// consuming any byte it may have sent: a non-blocking MSG_PEEK read that
// returns 0 bytes means end of stream. A probe that only writes notices a
// gone client one write late (the first write after the close succeeds and
// draws the reset); peeking notices it at the first tick.
func Closed(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false // not a socket: unknown, so no
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var buf [1]byte
	raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case n == 0 && err == nil:
			closed = true // orderly shutdown by the client
		case err == syscall.ECONNRESET:
			closed = true
		}
		return true // never wait for readiness: this is a poll
	})
	return closed
}
