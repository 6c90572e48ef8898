//go:build linux

// Command evproxy is the event-loop floor of bench/anchor: a reverse proxy
// in Go that does what fastproxy does (keep-alive on both sides, a POST
// forwarded as it came, an event stream relayed read burst by read burst,
// each burst one chunk flushed at once) without Go's net package, its
// netpoller or a goroutine per connection. Each of -loops event loops owns
// one OS thread, one epoll instance and one SO_REUSEPORT listener; every
// socket is non-blocking and edge-triggered, a read shorter than the buffer
// is taken to have drained the socket (no read that only finds EAGAIN), and
// the bytes one readable burst of the upstream produced go to the client in
// one write. Idle upstream connections are pooled per loop and dropped when
// the upstream closes them; a request sent on a pooled connection that the
// upstream closed before answering is sent once more on a new one.
//
// With -front fasthttp a fasthttp server reads and parses the requests
// instead, and hands each client connection to a loop once its request is
// in (Hijack) and takes it back for the next one (ServeConn): the shape an
// event-loop relay would have inside the guard, whose request path is
// fasthttp's. -handoff says how: share (the loop polls the connection's
// own descriptor beside Go's netpoller, and the same net.Conn goes back)
// or dup (a duplicate descriptor, the connection closed, a new one made
// with net.FileConn to give back).
//
// It parses only what a proxy must: the request line, Content-Length,
// Content-Type and Connection of a request (no chunked request bodies), and
// the status, Content-Length, Transfer-Encoding, Content-Type and
// Connection of a response. It is a floor to measure against, not a
// product: no timeouts, no TLS, no logs, no metrics.
package main

import (
	"bytes"
	"errors"
	"flag"
	"log"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/answer-guard/guard/internal/evrelay"
	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18508", "listen address (loopback)")
	upstream := flag.String("upstream", "127.0.0.1:18501", "upstream host:port (loopback)")
	loops := flag.Int("loops", runtime.NumCPU(), "event loops, one OS thread and one listener each")
	flag.StringVar(&waitMode, "wait", "poll", "how a loop waits: block (epoll_wait as a Go system call), poll (a raw epoll_wait that does not block first, blocking only when it found nothing), raw (a raw blocking epoll_wait: the loop keeps its P)")
	flag.BoolVar(&rawIO, "raw-io", true, "reads and writes as raw system calls (they never block: the sockets are non-blocking)")
	flag.StringVar(&handoffMode, "handoff", "share", "with -front fasthttp, how a loop takes a connection: share (it polls the connection's own descriptor beside Go's netpoller and gives the same net.Conn back), dup (a duplicate descriptor; the connection is closed, and a new one made with net.FileConn to give back)")
	frontMode := flag.String("front", "loop", "who reads requests: loop (the event loops accept and parse), fasthttp (a fasthttp server parses each request, then hands the client connection to a loop (Hijack) and takes it back for keep-alive once the answer is relayed (ServeConn): the shape of an event-loop relay inside the guard)")
	flag.Parse()
	switch {
	case *frontMode != "loop" && *frontMode != "fasthttp":
		log.Fatal("-front: loop or fasthttp")
	case waitMode != "block" && waitMode != "poll" && waitMode != "raw":
		log.Fatal("-wait: block, poll or raw")
	case handoffMode != "share" && handoffMode != "dup":
		log.Fatal("-handoff: share or dup")
	case *loops < 1:
		log.Fatal("-loops: at least 1")
	}
	if *frontMode == "fasthttp" && waitMode == "raw" {
		log.Fatal("-front fasthttp needs -wait poll or block: a raw wait keeps the P the fasthttp server needs")
	}
	la, err1 := netip.ParseAddrPort(*addr)
	ua, err2 := netip.ParseAddrPort(*upstream)
	if err := errors.Join(err1, err2); err != nil {
		log.Fatal(err)
	}
	if !la.Addr().IsLoopback() || !ua.Addr().IsLoopback() || !la.Addr().Is4() || !ua.Addr().Is4() {
		log.Fatal("-addr and -upstream: IPv4 loopback only")
	}
	ls := make([]*loop, *loops)
	for i := range ls {
		l, err := newLoop(la, ua, *frontMode == "loop")
		if err != nil {
			log.Fatal(err)
		}
		ls[i] = l
	}
	if *frontMode == "fasthttp" {
		for _, l := range ls {
			go l.run()
		}
		serveFront(la.String(), ls, []byte(ua.String()))
		return
	}
	for _, l := range ls[1:] {
		go l.run()
	}
	ls[0].run()
}

const (
	kindListener = iota
	kindClient
	kindUpstream
	kindWake // the loop's eventfd: connections handed over by the fasthttp front
)

const (
	maxHeader  = 64 << 10  // request or response header bytes
	maxRequest = 1 << 20   // a whole request held while incomplete or pipelined
	maxPending = 256 << 10 // bytes waiting for a slow client before the upstream is no longer read
)

var (
	crlf2 = []byte("\r\n\r\n")
	hexd  = []byte("0123456789abcdef")
)

// conn is one socket of a loop: its listener, a client connection or an
// upstream connection.
type conn struct {
	fd   int
	gen  uint32 // matches the epoll event's Pad: an event for an fd closed and reused in one batch is dropped
	kind uint8

	peer *conn  // client <-> upstream while a request is in flight
	in   []byte // client: bytes of an incomplete or pipelined request; upstream: an incomplete response header
	out  []byte // bytes accepted for this socket that it has not taken yet

	// client
	front      bool     // handed over by the fasthttp front: handed back after the answer
	nc         net.Conn // -handoff share: the front's connection, whose descriptor fd is
	closeAfter bool     // Connection: close, or an error answer: close once out is written
	inflight   bool     // a request is being answered (peer may be nil only while failing)

	// upstream
	connecting bool   // non-blocking connect under way
	reused     bool   // taken from the pool: a close before any answer byte is retried once
	got        bool   // an answer byte has come
	noReuse    bool   // the upstream said Connection: close, or sent bytes after the answer
	paused     bool   // not read while the client has maxPending bytes waiting
	req        []byte // the request, kept until the first answer byte (for the retry)
	headReq    bool   // the request was a HEAD: no body follows the answer's header
	hdrDone    bool
	body       evrelay.Framing // as the upstream sent it (the client gets the same framing)
	remain     int64           // bytes left of a Content-Length body
	dc         evrelay.Dechunker
	poolIdx    int // index in the loop's pool while idle, -1 in use
}

// loop is one event loop: all its sockets are served by one goroutine
// locked to one OS thread.
type loop struct {
	ep     int
	conns  []*conn // by fd
	free   []*conn
	pool   []*conn // idle upstream connections
	gen    uint32
	up     unix.SockaddrInet4
	host   []byte
	rbuf   []byte // one read
	head   []byte // the response header going to the client in this burst
	data   []byte // the answer bytes of this burst, decoded
	frame  []byte // what one write sends
	ctype  []byte // the answer's Content-Type while its header is parsed
	events []unix.EpollEvent
	polled bool // the last wait found events

	wake  int        // eventfd: the front handed connections over
	mu    sync.Mutex // guards inbox
	inbox []handoff
	taken []handoff // the inbox being served
}

func newLoop(la, ua netip.AddrPort, listen bool) (*loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &loop{ep: ep, rbuf: make([]byte, 64<<10), events: make([]unix.EpollEvent, 256),
		up: unix.SockaddrInet4{Port: int(ua.Port()), Addr: ua.Addr().As4()}, host: []byte(ua.String())}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if _, err := l.add(wfd, kindWake); err != nil {
		return nil, err
	}
	l.wake = wfd
	if !listen {
		return l, nil
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	for _, o := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, o, 1); err != nil {
			return nil, err
		}
	}
	// Accepted sockets inherit TCP_NODELAY from the listener.
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return nil, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(la.Port()), Addr: la.Addr().As4()}); err != nil {
		return nil, err
	}
	if err := unix.Listen(fd, 4096); err != nil {
		return nil, err
	}
	if _, err := l.add(fd, kindListener); err != nil {
		return nil, err
	}
	return l, nil
}

// add registers fd, edge-triggered for reading and writing.
func (l *loop) add(fd int, kind uint8) (*conn, error) {
	var c *conn
	if n := len(l.free); n > 0 {
		c, l.free = l.free[n-1], l.free[:n-1]
	} else {
		c = new(conn)
	}
	l.gen++
	in, out, req := c.in[:0], c.out[:0], c.req[:0]
	*c = conn{fd: fd, gen: l.gen, kind: kind, in: in, out: out, req: req, poolIdx: -1}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(fd), Pad: int32(c.gen)}
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		l.free = append(l.free, c)
		return nil, err
	}
	for fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*conn, len(l.conns)+1024)...)
	}
	l.conns[fd] = c
	return c, nil
}

// close closes c's socket (which leaves the epoll set) and frees c.
func (l *loop) close(c *conn) {
	if c.fd < 0 {
		return
	}
	if c.poolIdx >= 0 {
		l.unpool(c)
	}
	if c.nc != nil {
		c.nc.Close() // Go's poller lets go of it too; the close takes it out of the loop's epoll
		c.nc = nil
	} else {
		unix.Close(c.fd)
	}
	l.conns[c.fd] = nil
	c.fd = -1
	c.peer = nil
	if cap(c.in) > 4<<10 {
		c.in = nil
	}
	if cap(c.out) > 4<<10 {
		c.out = nil
	}
	l.free = append(l.free, c)
}

var (
	handoffMode string
	waitMode    string
	rawIO       bool
)

// wait waits for events. In "poll" mode a loop that just handled events
// first asks again without blocking, as a raw system call the Go runtime
// does not track, and blocks (a Go system call: the runtime may hand its P
// to other work) only when that found nothing.
func (l *loop) wait() (int, error) {
	if waitMode == "raw" {
		// Blocks holding the loop's P: the runtime's sysmon sees a
		// running goroutine, not one in a system call to retake the P
		// from; its preemption signal (every 10 ms, and for a GC)
		// interrupts the wait (EINTR).
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), ^uintptr(0), 0, 0)
		if e != 0 {
			return 0, e
		}
		return int(r), nil
	}
	if waitMode == "poll" && l.polled {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		if e != 0 {
			return 0, e
		}
		if r > 0 {
			return int(r), nil
		}
	}
	n, err := unix.EpollWait(l.ep, l.events, -1)
	l.polled = n > 0
	return n, err
}

func sysRead(fd int, b []byte) (int, error) {
	if !rawIO {
		return unix.Read(fd, b)
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func sysWrite(fd int, b []byte) (int, error) {
	if !rawIO {
		return unix.Write(fd, b)
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func (l *loop) run() {
	runtime.LockOSThread()
	for {
		n, err := l.wait()
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			log.Fatal(err)
		}
		for i := range n {
			ev := &l.events[i]
			fd := int(ev.Fd)
			if fd >= len(l.conns) {
				continue
			}
			c := l.conns[fd]
			if c == nil || c.gen != uint32(ev.Pad) {
				continue
			}
			switch c.kind {
			case kindListener:
				l.accept(c)
			case kindClient:
				l.clientEvent(c, ev.Events)
			case kindUpstream:
				l.upstreamEvent(c, ev.Events)
			case kindWake:
				l.takeOver()
			}
		}
	}
}

func (l *loop) accept(lc *conn) {
	for {
		fd, _, err := unix.Accept4(lc.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			if err == unix.EINTR || err == unix.ECONNABORTED {
				continue
			}
			return // EAGAIN, or out of descriptors: the next connection retries
		}
		if _, err := l.add(fd, kindClient); err != nil {
			continue
		}
	}
}

const (
	evIn  = unix.EPOLLIN
	evOut = unix.EPOLLOUT
	evEnd = unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLERR
)

func (l *loop) clientEvent(c *conn, ev uint32) {
	if ev&evEnd != 0 {
		l.drop(c) // client gone: its upstream request is cancelled
		return
	}
	if ev&evOut != 0 && len(c.out) > 0 {
		if !l.flush(c) {
			return
		}
	}
	if ev&evIn != 0 {
		l.clientReadable(c)
	}
}

// drop closes client c and the upstream connection answering it.
func (l *loop) drop(c *conn) {
	if u := c.peer; u != nil {
		l.close(u)
	}
	l.close(c)
}

func (l *loop) clientReadable(c *conn) {
	for {
		n, err := sysRead(c.fd, l.rbuf)
		if n > 0 {
			if len(c.in)+n > maxRequest {
				l.drop(c)
				return
			}
			if !c.inflight && len(c.in) == 0 {
				rest := l.serve(c, l.rbuf[:n])
				if c.fd < 0 {
					return
				}
				c.in = append(c.in, rest...)
			} else {
				c.in = append(c.in, l.rbuf[:n]...)
				if !c.inflight {
					l.next(c)
					if c.fd < 0 {
						return
					}
				}
			}
			if n < len(l.rbuf) {
				return // a short read drained the socket
			}
			continue
		}
		if err == unix.EAGAIN {
			return
		}
		if err == unix.EINTR {
			continue
		}
		l.drop(c) // EOF or error
		return
	}
}

// next serves the request waiting in c.in, if it is whole.
func (l *loop) next(c *conn) {
	rest := l.serve(c, c.in)
	if c.fd < 0 {
		return
	}
	m := copy(c.in, rest)
	c.in = c.in[:m]
}

// serve starts the first request in b if b holds all of it, and returns
// the bytes it did not use.
func (l *loop) serve(c *conn, b []byte) []byte {
	r, ok, err := parseRequest(b)
	if err != nil {
		l.fail(c, "400 Bad Request")
		return nil
	}
	if !ok {
		return b
	}
	c.inflight = true
	c.closeAfter = r.close
	u := l.upstream()
	if u == nil {
		l.fail(c, "502 Bad Gateway")
		return nil
	}
	u.req = appendRequest(u.req[:0], &r, l.host)
	u.headReq = r.head
	c.peer, u.peer = u, c
	if !u.connecting {
		l.send(u, u.req)
	}
	return b[r.total:]
}

// upstream returns a pooled upstream connection or dials one; nil if the
// dial fails at once.
func (l *loop) upstream() *conn {
	if n := len(l.pool); n > 0 {
		u := l.pool[n-1]
		l.pool = l.pool[:n-1]
		u.poolIdx = -1
		u.reused = true
		return u
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		unix.Close(fd)
		return nil
	}
	err = unix.Connect(fd, &l.up)
	if err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		return nil
	}
	u, aerr := l.add(fd, kindUpstream)
	if aerr != nil {
		return nil
	}
	u.connecting = err != nil
	return u
}

func (l *loop) unpool(u *conn) {
	i, last := u.poolIdx, len(l.pool)-1
	l.pool[i] = l.pool[last]
	l.pool[i].poolIdx = i
	l.pool = l.pool[:last]
	u.poolIdx = -1
}

// fail answers c with an error status and closes it once written.
func (l *loop) fail(c *conn, status string) {
	if u := c.peer; u != nil {
		l.close(u)
		c.peer = nil
	}
	body := `{"error":{"message":"` + status + `"}}`
	msg := "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) +
		"\r\nConnection: close\r\n\r\n" + body
	c.closeAfter = true
	c.inflight = false
	c.in = c.in[:0]
	l.send(c, []byte(msg))
	if c.fd >= 0 && len(c.out) == 0 {
		l.close(c)
	}
}

// send writes b to c, keeping what the socket does not take in c.out (in
// order after anything already waiting there). It reports whether c is
// still open.
func (l *loop) send(c *conn, b []byte) bool {
	if len(c.out) > 0 {
		c.out = append(c.out, b...)
		return l.flush(c)
	}
	for len(b) > 0 {
		n, err := sysWrite(c.fd, b)
		if n > 0 {
			b = b[n:]
			continue
		}
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			c.out = append(c.out, b...)
			return true
		}
		l.broken(c)
		return false
	}
	return true
}

// flush writes what waits in c.out; once it is all out, a paused upstream
// is read again, a closing client is closed. It reports whether c is still
// open.
func (l *loop) flush(c *conn) bool {
	b := c.out
	for len(b) > 0 {
		n, err := sysWrite(c.fd, b)
		if n > 0 {
			b = b[n:]
			continue
		}
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			m := copy(c.out, b)
			c.out = c.out[:m]
			return true
		}
		l.broken(c)
		return false
	}
	c.out = c.out[:0]
	if c.kind == kindClient {
		if c.closeAfter && !c.inflight {
			l.close(c)
			return false
		}
		if c.front && !c.inflight {
			l.giveBack(c)
			return false
		}
		if u := c.peer; u != nil && u.paused {
			u.paused = false
			l.upstreamReadable(u)
		}
	}
	return c.fd >= 0
}

// broken handles a failed write to c.
func (l *loop) broken(c *conn) {
	if c.kind == kindClient {
		l.drop(c)
		return
	}
	l.upstreamGone(c)
}

func (l *loop) upstreamEvent(u *conn, ev uint32) {
	if u.connecting {
		if ev&(evOut|evEnd) == 0 {
			return
		}
		if e, err := unix.GetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || e != 0 {
			l.upstreamGone(u)
			return
		}
		u.connecting = false
		if u.peer != nil && !l.send(u, u.req) {
			return
		}
	} else if ev&evOut != 0 && len(u.out) > 0 {
		if !l.flush(u) {
			return
		}
	}
	if ev&(evIn|evEnd) != 0 {
		l.upstreamReadable(u)
	}
}

// upstreamGone handles an upstream connection that closed or failed: an
// idle one leaves the pool; one closed before any answer byte after it was
// reused is retried once on a new connection; otherwise the client's
// answer is cut (or, before its header, a 502).
func (l *loop) upstreamGone(u *conn) {
	c := u.peer
	if c == nil {
		l.close(u)
		return
	}
	if u.reused && !u.got {
		nu := l.upstream()
		if nu != nil {
			nu.req = append(nu.req[:0], u.req...)
			nu.headReq = u.headReq
			nu.reused = false // one retry
			c.peer, nu.peer = nu, c
			l.close(u)
			if !nu.connecting {
				l.send(nu, nu.req)
			}
			return
		}
	}
	started := u.hdrDone
	l.close(u)
	c.peer = nil
	if !started {
		l.fail(c, "502 Bad Gateway")
		return
	}
	l.close(c)
}

// upstreamReadable reads the answer as far as the socket has it and sends
// the client what this burst produced in one write.
func (l *loop) upstreamReadable(u *conn) {
	c := u.peer
	if c == nil {
		l.close(u) // idle: the upstream closed it (or sent what it should not)
		return
	}
	l.head, l.data = l.head[:0], l.data[:0]
	done := false
	for !done {
		if len(c.out) >= maxPending {
			u.paused = true
			break
		}
		n, err := sysRead(u.fd, l.rbuf)
		if n > 0 {
			u.got = true
			var perr error
			done, perr = l.answer(u, l.rbuf[:n])
			if perr != nil {
				l.close(u)
				c.peer = nil
				l.fail(c, "502 Bad Gateway")
				return
			}
			if n < len(l.rbuf) {
				break
			}
			continue
		}
		if err == unix.EAGAIN {
			break
		}
		if err == unix.EINTR {
			continue
		}
		if len(l.head)+len(l.data) > 0 {
			l.write(c, u, false)
		}
		if c.fd >= 0 && c.peer == u {
			l.upstreamGone(u)
		}
		return
	}
	if !l.write(c, u, done) || !done {
		return
	}
	// The answer is complete: the upstream connection goes back to the
	// pool, the client to its next request.
	c.peer, c.inflight = nil, false
	u.peer = nil
	if u.noReuse || len(u.out) > 0 {
		l.close(u)
	} else {
		u.reused, u.got, u.hdrDone, u.paused = true, false, false, false
		u.poolIdx = len(l.pool)
		l.pool = append(l.pool, u)
	}
	if c.closeAfter {
		if len(c.out) == 0 {
			l.close(c)
		}
		return
	}
	if c.front {
		if len(c.out) == 0 {
			l.giveBack(c)
		}
		return
	}
	if len(c.in) > 0 {
		l.next(c)
	}
}

// write sends the client this burst's header and answer bytes, as one
// chunk when the answer is chunked, with the last chunk when done. It
// reports whether the client is still open.
func (l *loop) write(c, u *conn, done bool) bool {
	f := append(l.frame[:0], l.head...)
	if u.body == evrelay.BodyChunked {
		if len(l.data) > 0 {
			f = appendHex(f, len(l.data))
			f = append(f, '\r', '\n')
			f = append(f, l.data...)
			f = append(f, '\r', '\n')
		}
		if done {
			f = append(f, "0\r\n\r\n"...)
		}
	} else {
		f = append(f, l.data...)
	}
	l.frame = f
	if len(f) == 0 {
		return true
	}
	if !l.send(c, f) {
		return false
	}
	return c.fd >= 0
}

func appendHex(b []byte, n int) []byte {
	var t [16]byte
	i := len(t)
	for {
		i--
		t[i] = hexd[n&15]
		n >>= 4
		if n == 0 {
			break
		}
	}
	return append(b, t[i:]...)
}

// answer takes the bytes of one read of u's answer: the header (to
// l.head, rewritten for the client) and then the body (decoded, to
// l.data). It reports whether the answer is complete.
func (l *loop) answer(u *conn, b []byte) (bool, error) {
	if !u.hdrDone {
		if len(u.in) > 0 {
			u.in = append(u.in, b...)
			b = u.in
		}
		i := bytes.Index(b, crlf2)
		if i < 0 {
			if len(u.in) == 0 {
				u.in = append(u.in, b...)
			}
			if len(u.in) > maxHeader {
				return false, errors.New("answer header too large")
			}
			return false, nil
		}
		if err := l.answerHead(u, b[:i+4]); err != nil {
			return false, err
		}
		b = b[i+4:]
		u.hdrDone = true
		u.req = u.req[:0]
		defer func() { u.in = u.in[:0] }()
	}
	switch u.body {
	case evrelay.BodyNone:
		u.noReuse = u.noReuse || len(b) > 0
		return true, nil
	case evrelay.BodyLength:
		take := min(int64(len(b)), u.remain)
		l.data = append(l.data, b[:take]...)
		u.remain -= take
		u.noReuse = u.noReuse || int64(len(b)) > take
		return u.remain == 0, nil
	}
	return l.dechunk(u, b)
}

// answerHead parses the answer's header h and appends the client's.
func (l *loop) answerHead(u *conn, h []byte) error {
	u.dc = evrelay.Dechunker{}
	a, err := evrelay.ParseAnswerHead(h, u.headReq, l.ctype[:0])
	l.ctype = a.ContentType
	if err != nil {
		return err
	}
	u.body, u.remain, u.noReuse = a.Body, a.Length, a.Close
	h2 := append(l.head, "HTTP/1.1 "...)
	h2 = append(h2, a.StatusText...)
	h2 = append(h2, "\r\nServer: evproxy\r\n"...)
	if len(a.ContentType) > 0 {
		h2 = append(h2, "Content-Type: "...)
		h2 = append(h2, a.ContentType...)
		h2 = append(h2, '\r', '\n')
	}
	switch {
	case a.Body == evrelay.BodyChunked:
		h2 = append(h2, "Transfer-Encoding: chunked\r\n"...)
	case a.Length >= 0:
		h2 = append(h2, "Content-Length: "...)
		h2 = strconv.AppendInt(h2, a.Length, 10)
		h2 = append(h2, '\r', '\n')
	}
	l.head = append(h2, '\r', '\n')
	return nil
}

// dechunk decodes chunked body bytes b into l.data, reporting whether the
// last chunk (and its trailer) has come.
func (l *loop) dechunk(u *conn, b []byte) (bool, error) {
	var done, extra bool
	var err error
	l.data, done, extra, err = u.dc.Decode(l.data, b)
	u.noReuse = u.noReuse || extra
	return done, err
}

// request is what evproxy keeps of a client's request; its slices point
// into the bytes it was parsed from.
type request struct {
	method, path, ctype, body []byte
	total                     int // bytes of the whole request
	close, head               bool
}

// parseRequest parses the first request in b; ok is false while b does
// not hold all of it.
func parseRequest(b []byte) (r request, ok bool, err error) {
	i := bytes.Index(b, crlf2)
	if i < 0 {
		if len(b) > maxHeader {
			return r, false, errors.New("request header too large")
		}
		return r, false, nil
	}
	line, rest, _ := bytes.Cut(b[:i+2], []byte("\r\n"))
	m, p, ok1 := bytes.Cut(line, []byte(" "))
	p, proto, ok2 := bytes.Cut(p, []byte(" "))
	if !ok1 || !ok2 || len(m) == 0 || len(p) == 0 || !bytes.HasPrefix(proto, []byte("HTTP/1.")) {
		return r, false, errors.New("bad request line")
	}
	r.method, r.path, r.head = m, p, string(m) == "HEAD"
	r.close = proto[len(proto)-1] == '0'
	length := 0
	for len(rest) > 0 {
		var hl []byte
		hl, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, val, ok := bytes.Cut(hl, []byte(":"))
		if !ok {
			return r, false, errors.New("bad header line")
		}
		val = bytes.TrimSpace(val)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(val))
			if err != nil || n < 0 || n > maxRequest {
				return r, false, errors.New("bad Content-Length")
			}
			length = n
		case bytes.EqualFold(name, []byte("Content-Type")):
			r.ctype = val
		case bytes.EqualFold(name, []byte("Connection")):
			r.close = bytes.EqualFold(val, []byte("close"))
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return r, false, errors.New("chunked requests are not supported")
		}
	}
	r.total = i + 4 + length
	if len(b) < r.total {
		return r, false, nil
	}
	r.body = b[i+4 : r.total]
	return r, true, nil
}

// appendRequest appends the upstream request for r.
func appendRequest(b []byte, r *request, host []byte) []byte {
	b = append(b, r.method...)
	b = append(b, ' ')
	b = append(b, r.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	if len(r.ctype) > 0 {
		b = append(b, "Content-Type: "...)
		b = append(b, r.ctype...)
		b = append(b, "\r\n"...)
	}
	if len(r.body) > 0 || string(r.method) == "POST" || string(r.method) == "PUT" {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(r.body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	return append(b, r.body...)
}

// handoff is a client connection the fasthttp front hands to a loop, with
// the upstream request to send for it.
type handoff struct {
	fd         int
	req        []byte
	head       bool
	closeAfter bool
	nc         net.Conn // -handoff share: the connection itself (fd is its descriptor)
}

// front is the fasthttp server of -front fasthttp.
var front *fasthttp.Server

// serveFront serves addr with a fasthttp server that parses each request,
// builds its upstream request and hands the client connection to a loop.
func serveFront(addr string, ls []*loop, host []byte) {
	var next atomic.Uint32
	front = &fasthttp.Server{Name: "evproxy", NoDefaultServerHeader: true, ReadBufferSize: 16 << 10, WriteBufferSize: 8 << 10,
		KeepHijackedConns: true}
	front.Handler = func(ctx *fasthttp.RequestCtx) {
		r := request{method: ctx.Method(), path: ctx.RequestURI(), ctype: ctx.Request.Header.ContentType(), body: ctx.PostBody(), head: ctx.IsHead()}
		h := handoff{req: appendRequest(nil, &r, host), head: r.head, closeAfter: ctx.Request.Header.ConnectionClose()}
		l := ls[next.Add(1)%uint32(len(ls))]
		ctx.HijackSetNoResponse(true)
		ctx.Hijack(func(c net.Conn) { l.handOver(c, h) })
	}
	log.Fatal(front.ListenAndServe(addr))
}

// handOver runs on the front's hijack goroutine: it takes a duplicate of
// the connection's descriptor, closes the connection (which leaves Go's
// netpoller) and queues the duplicate for the loop.
func (l *loop) handOver(c net.Conn, h handoff) {
	if u, ok := c.(interface{ UnsafeConn() net.Conn }); ok {
		c = u.UnsafeConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		c.Close()
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return
	}
	h.fd = -1
	if handoffMode == "share" {
		// The loop polls the connection's own descriptor beside Go's
		// netpoller: while the loop relays, nothing in Go reads or
		// writes it, and a client socket is quiet during a stream (it
		// wakes a poller only when the client sends, or after a write
		// found its buffer full).
		rc.Control(func(fd uintptr) { h.fd = int(fd) }) //nolint:errcheck // a closed conn leaves h.fd at -1
		h.nc = c
		if h.fd < 0 {
			c.Close()
			return
		}
	} else {
		rc.Control(func(fd uintptr) { h.fd, err = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }) //nolint:errcheck // err is set inside
		c.Close()
		if err != nil || h.fd < 0 {
			return
		}
	}
	l.mu.Lock()
	l.inbox = append(l.inbox, h)
	first := len(l.inbox) == 1
	l.mu.Unlock()
	if first {
		one := [8]byte{1}          // any count but 0 wakes the loop
		unix.Write(l.wake, one[:]) //nolint:errcheck // the counter cannot overflow here
	}
}

// takeOver serves the connections the front handed over.
func (l *loop) takeOver() {
	var b [8]byte
	unix.Read(l.wake, b[:]) //nolint:errcheck // EAGAIN: nothing to reset
	l.mu.Lock()
	l.taken, l.inbox = l.inbox, l.taken[:0]
	l.mu.Unlock()
	for _, h := range l.taken {
		c, err := l.add(h.fd, kindClient)
		if err != nil {
			if h.nc != nil {
				h.nc.Close()
			}
			continue
		}
		c.front, c.inflight, c.closeAfter, c.nc = true, true, h.closeAfter, h.nc
		u := l.upstream()
		if u == nil {
			l.fail(c, "502 Bad Gateway")
			continue
		}
		u.req = append(u.req[:0], h.req...)
		u.headReq = h.head
		c.peer, u.peer = u, c
		if !u.connecting {
			l.send(u, u.req)
		}
	}
	clear(l.taken)
}

// giveBack hands client c back to the front for its next request: c
// leaves the loop, and the front serves a new net.Conn over its socket.
func (l *loop) giveBack(c *conn) {
	if len(c.in) > 0 {
		l.close(c) // the client sent more while its answer ran: the front cannot be given those bytes
		return
	}
	fd, nc := c.fd, c.nc
	unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, fd, nil) //nolint:errcheck // fd is registered
	l.conns[fd] = nil
	c.fd, c.nc = -1, nil
	l.free = append(l.free, c)
	if nc != nil {
		go front.ServeConn(nc) //nolint:errcheck // the front logs nothing
		return
	}
	f := os.NewFile(uintptr(fd), "client")
	nc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return
	}
	go front.ServeConn(nc) //nolint:errcheck // the front logs nothing
}
