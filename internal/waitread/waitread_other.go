//go:build !unix

// Package waitread reads from a socket and runs a hook right before the
// read has to wait for the network (unix only; elsewhere the hook runs
// before every read).
package waitread

import "net"

// Reader reads one connection.
type Reader struct{ conn net.Conn }

// New returns a Reader of conn.
func New(conn net.Conn) *Reader { return &Reader{conn: conn} }

// Read calls before (if not nil), then reads conn.
func (r *Reader) Read(p []byte, before func()) (int, error) {
	if before != nil {
		before()
	}
	return r.conn.Read(p)
}

// Close closes the connection.
func (r *Reader) Close() error { return r.conn.Close() }
