// Package clientconn implements a server's connection that can hold writes
// back and send them with a later one (Conn), the listener that hands the
// server its connections as Conns (Listener), and the size line of an HTTP
// chunk written in place (SizeLine). The proxy serves its clients through
// it, and the simulated upstream (mockllm) its streams.
package clientconn

import (
	"errors"
	"net"
	"sync"
	"syscall"
)

// Listener hands the server its connections as Conns.
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c}, nil
}

// Conn is a client connection that can hold writes back and send
// them with a later one, so that pieces fasthttp flushes on their own go
// out in one write.
//
// A stream's relay writes its chunks to the connection itself (relay.Read
// runs the whole stream inside fasthttp's body read, while fasthttp is not
// writing). Two of fasthttp's own flushes would each cost a write syscall
// with a few bytes: the response header before the first chunk, and the
// end of the body ("0\r\n", then "\r\n" after the trailer) after the last.
// The relay holds the first (HoldNext before the header is flushed; its
// first chunk takes the header along) and the last (HoldWrite of its last
// chunk, which holds fasthttp's "0\r\n" too; the "\r\n" that follows
// sends all). Holding only ever delays bytes until the next write or
// Close, never reorders them.
type Conn struct {
	net.Conn
	mu     sync.Mutex
	absorb bool    // hold the next write back
	held   *[]byte // held bytes, nil when none (from heldPool)
}

var heldPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.absorb {
		c.absorb = false
		c.hold(p)
		return len(p), nil
	}
	if c.held == nil {
		return c.Conn.Write(p)
	}
	c.hold(p)
	if err := c.releaseLocked(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// HoldNext makes the next write wait for the one after it.
func (c *Conn) HoldNext() {
	c.mu.Lock()
	c.absorb = true
	c.mu.Unlock()
}

// HoldWrite holds p and the next write, both written with the one after.
func (c *Conn) HoldWrite(p []byte) {
	c.mu.Lock()
	c.hold(p)
	c.absorb = true
	c.mu.Unlock()
}

// Release writes what is held now.
func (c *Conn) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.releaseLocked()
}

func (c *Conn) hold(p []byte) {
	if c.held == nil {
		c.held = heldPool.Get().(*[]byte)
	}
	*c.held = append(*c.held, p...)
}

func (c *Conn) releaseLocked() error {
	if c.held == nil {
		return nil
	}
	_, err := c.Conn.Write(*c.held)
	if cap(*c.held) <= 64<<10 { // don't pool what one huge burst grew
		*c.held = (*c.held)[:0]
		heldPool.Put(c.held)
	}
	c.held = nil
	return err
}

// Close sends what is held, then closes.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.absorb = false
	c.releaseLocked() //nolint:errcheck // closing anyway
	c.mu.Unlock()
	return c.Conn.Close()
}

// SyscallConn gives peerclose.Closed the socket underneath.
func (c *Conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errNoSyscallConn
	}
	return sc.SyscallConn()
}

var errNoSyscallConn = errors.New("connection has no socket")

// ChunkRoom is the room a writer keeps before its data for SizeLine, so
// that an HTTP chunk goes out in one write without a copy.
const ChunkRoom = 10

// SizeLine writes the size line of an HTTP chunk of n bytes ("<hex>\r\n")
// at the end of room and returns where it starts; room must hold it
// (ChunkRoom bytes hold any int of 32 bits).
func SizeLine(room []byte, n int) int {
	i := len(room) - 2
	room[i], room[i+1] = '\r', '\n'
	for {
		i--
		room[i] = hexDigits[n&0xF]
		if n >>= 4; n == 0 {
			return i
		}
	}
}

const hexDigits = "0123456789abcdef"
