//go:build unix

// Package waitread reads from a socket and runs a hook right before the
// read has to wait for the network, not before every read: a relay that
// writes what it queued when its source runs dry then writes once per
// burst that has arrived, however many reads the burst takes.
package waitread

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
)

// Reader reads one socket. It is not safe for concurrent reads (a
// connection has one reader at a time); Close may be called from any
// goroutine, the hook's included.
type Reader struct {
	conn net.Conn
	raw  syscall.RawConn
	try  func(fd uintptr) bool // r.read as a value, made once
	// hook is idle, inHook while before runs (the read holds the
	// connection then, and net's Close waits for it: a Close in the hook
	// would never return), or closing once a Close came during the hook.
	hook atomic.Int32

	// The read in progress, for try.
	p      []byte
	n      int
	err    error
	before func()
}

const (
	idle int32 = iota
	inHook
	closing
)

// New returns a Reader of conn. When conn is not a socket (a TLS
// connection, a pipe) it cannot tell whether bytes have arrived, and calls
// the hook before every read.
func New(conn net.Conn) *Reader {
	r := &Reader{conn: conn}
	if sc, ok := conn.(syscall.Conn); ok {
		r.raw, _ = sc.SyscallConn() // nil on error: as not a socket
	}
	r.try = r.read
	return r
}

// Read reads into p as conn.Read does (the same errors: *net.OpError with
// Op "read", io.EOF at the end, os.ErrDeadlineExceeded under a deadline).
// When no byte is ready it calls before (if not nil) once, then waits.
func (r *Reader) Read(p []byte, before func()) (int, error) {
	if r.raw == nil {
		if before != nil {
			before()
		}
		return r.conn.Read(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err, r.before = p, 0, nil, before
	err := r.raw.Read(r.try)
	n, rerr := r.n, r.err
	r.p, r.before = nil, nil
	if rerr == net.ErrClosed {
		// Closed during the hook: close it now, and read as a closed
		// connection reads.
		r.conn.Close() //nolint:errcheck // the read reports the close
		return r.conn.Read(p)
	}
	if err != nil {
		// Closed, or the deadline: the poller's error, as conn.Read
		// reports it.
		if oe, ok := err.(*net.OpError); ok && oe.Op == "raw-read" {
			oe.Op = "read"
		}
		return 0, err
	}
	if rerr != nil {
		return 0, &net.OpError{Op: "read", Net: r.conn.LocalAddr().Network(), Source: r.conn.LocalAddr(),
			Addr: r.conn.RemoteAddr(), Err: os.NewSyscallError("read", rerr)}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// read is the raw read: true when done (bytes, the end, an error), false
// to wait for the socket to become readable.
func (r *Reader) read(fd uintptr) bool {
	for {
		n, err := syscall.Read(int(fd), r.p)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if r.before != nil {
				f := r.before
				r.before = nil // once per Read: the wait may wake without bytes
				r.hook.Store(inHook)
				f()
				if !r.hook.CompareAndSwap(inHook, idle) {
					r.hook.Store(idle)
					r.err = net.ErrClosed
					return true
				}
			}
			return false
		case nil:
			r.n = n
		default:
			r.err = err
		}
		return true
	}
}

// Close closes the connection. Called while the hook runs (by it, or by
// another goroutine), it returns at once and the read in progress closes
// the connection once the hook returned.
func (r *Reader) Close() error {
	for {
		switch r.hook.Load() {
		case inHook:
			if r.hook.CompareAndSwap(inHook, closing) {
				return nil
			}
		case closing:
			return nil
		default:
			return r.conn.Close()
		}
	}
}
