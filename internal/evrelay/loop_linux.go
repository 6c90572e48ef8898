//go:build linux

package evrelay

import (
	"bytes"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	kindClient = iota + 1
	kindUpstream
	kindWake // the loop's eventfd: streams started or cancelled, or Close
)

const maxHeader = 64 << 10 // upstream answer header bytes

var crlf2 = []byte("\r\n\r\n")

// conn is one socket of the loop: a client connection or an upstream
// connection.
type conn struct {
	fd   int
	gen  uint32 // matches the epoll event's Pad: an event for an fd closed and reused in one batch is dropped
	kind uint8

	peer *conn  // client <-> upstream while an answer is in flight
	in   []byte // client: bytes it sent during its answer; upstream: an incomplete answer header
	out  []byte // bytes accepted for this socket that it has not taken yet

	// client
	st         *Stream
	nc         net.Conn // the client connection (its descriptor is fd)
	idleAt     int64    // kept idle between requests since (unix ns); 0 while a stream runs
	closeAfter bool     // close once out is written (an error answer, no keep-alive)
	inflight   bool     // the answer is not complete yet
	headSent   bool     // the 200 header went out: an end is a chunk, not a response
	gone       bool     // the client closed or a write failed

	// upstream
	connecting bool // non-blocking connect under way
	reused     bool // taken from the pool: a close before any answer byte is retried once
	got        bool // an answer byte has come
	noReuse    bool // Connection: close, or bytes after the answer
	paused     bool // not read while the client has MaxPending bytes waiting
	hup        bool // the peer's end came with an event: read to EOF, not to a short read
	req        []byte
	hdrDone    bool
	relay      bool // a 200 event stream: the body goes through the Handler
	status     int
	ctype      []byte
	whole      []byte // the body of an answer that is not relayed
	body       Framing
	remain     int64     // bytes left of a Content-Length body
	dc         Dechunker // a chunked body's decoder
	poolIdx    int       // index in the pool while idle, -1 in use
	pooledAt   int64     // pooled since (unix ns)
}

// waiter is a client waiting for an upstream connection (Budget full).
type waiter struct {
	c   *conn
	gen uint32 // c's, so a waiter whose client went away is skipped
	at  int64  // gives up then (unix ns): 503 upstream_busy
}

type cancelReq struct {
	s   *Stream
	err error
}

// Loop is one event loop on its own OS thread. Its methods are safe for
// concurrent use.
type Loop struct {
	ep       int
	conns    []*conn // by fd
	free     []*conn
	pool     []*conn // idle upstream connections
	gen      uint32
	up       unix.Sockaddr
	rbuf     []byte
	data     []byte // the decoded body of this burst
	out      []byte // the Handler's bytes for this burst
	frame    []byte // what one write sends
	events   []unix.EpollEvent
	polled   bool
	giveBack func(net.Conn)
	idleFor  int64 // a kept idle connection is closed after this (ns)
	idle     int   // kept idle connections
	swept    int64 // the last sweep (unix ns)
	tick     int64 // sweep period (ns)
	cfg      Config
	waitq    []waiter
	nwait    atomic.Int64 // len(waitq), for the Budget's "slot freed"
	shedding atomic.Bool  // a Budget waiter asked for the idle pool to close

	wake    int
	mu      sync.Mutex // guards inbox, cancels, closing
	inbox   []*Stream
	cancels []cancelReq
	closing bool
	taken   []*Stream
	takenC  []cancelReq
	done    chan struct{}

	streams atomic.Int64      // running now
	pauses  atomic.Int64      // times an upstream was paused for a slow client
	onPause func(pending int) // tests: called on the loop thread when an upstream is paused
	onWait  func()            // tests: called on the loop thread when a stream starts waiting for a connection
}

// New starts a loop as cfg says.
func New(cfg Config) (*Loop, error) {
	if cfg.Budget == nil {
		cfg.Budget = NewBudget(1 << 20)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	l := &Loop{ep: ep, rbuf: make([]byte, 64<<10), events: make([]unix.EpollEvent, 256), giveBack: cfg.GiveBack, idleFor: int64(cfg.IdleTimeout), cfg: cfg, done: make(chan struct{})}
	l.tick = int64(time.Second)
	for _, d := range []time.Duration{cfg.IdleTimeout, cfg.IdleConnTimeout, cfg.ConnWait} {
		if d > 0 {
			l.tick = max(min(l.tick, int64(d/4)), int64(time.Millisecond))
		}
	}
	if a := cfg.Addr.Addr().Unmap(); a.Is4() {
		l.up = &unix.SockaddrInet4{Port: int(cfg.Addr.Port()), Addr: a.As4()}
	} else {
		l.up = &unix.SockaddrInet6{Port: int(cfg.Addr.Port()), Addr: a.As16()}
	}
	wfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if _, err := l.add(wfd, kindWake); err != nil {
		unix.Close(ep)
		return nil, err
	}
	l.wake = wfd
	cfg.Budget.onFreed(func() {
		if l.nwait.Load() > 0 {
			l.poke()
		}
	})
	cfg.Budget.OnShed(func() {
		l.shedding.Store(true)
		l.poke()
	})
	go l.run()
	return l, nil
}

// Start hands s to the loop; from here the loop owns s.Conn until it
// calls s.Handler.Done.
func (l *Loop) Start(s *Stream) error {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return ErrClosed
	}
	s.started = true
	l.inbox = append(l.inbox, s)
	l.mu.Unlock()
	l.poke()
	return nil
}

// Cancel ends s with err (a no-op once s is done): before its header the
// client gets Refuse's response, after it End's last bytes; the upstream
// connection is closed. A Cancel before Start ends s as soon as it starts.
func (l *Loop) Cancel(s *Stream, err error) {
	l.mu.Lock()
	if !s.started {
		s.early = err
	}
	if l.closing || !s.started {
		l.mu.Unlock()
		return
	}
	l.cancels = append(l.cancels, cancelReq{s, err})
	l.mu.Unlock()
	l.poke()
}

// Close ends every stream (as Cancel with ErrClosed would, but the client
// connections are closed) and stops the loop; it returns once the loop's
// thread is done.
func (l *Loop) Close() {
	l.mu.Lock()
	already := l.closing
	l.closing = true
	l.mu.Unlock()
	if !already {
		l.poke()
	}
	<-l.done
}

// Streams is how many streams the loop runs now.
func (l *Loop) Streams() int64 { return l.streams.Load() }

// Pauses counts the times an upstream was not read for a slow client.
func (l *Loop) Pauses() int64 { return l.pauses.Load() }

func (l *Loop) poke() {
	one := [8]byte{1}
	unix.Write(l.wake, one[:]) //nolint:errcheck // the counter cannot overflow here
}

// add registers fd, edge-triggered for reading and writing.
func (l *Loop) add(fd int, kind uint8) (*conn, error) {
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
		l.free = append(l.free, c)
		return nil, err
	}
	for fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*conn, len(l.conns)+1024)...)
	}
	l.conns[fd] = c
	return c, nil
}

// release takes c out of the loop without closing its socket.
func (l *Loop) release(c *conn) {
	unix.EpollCtl(l.ep, unix.EPOLL_CTL_DEL, c.fd, nil) //nolint:errcheck // fd is registered
	l.conns[c.fd] = nil
	c.fd = -1
	c.peer = nil
	c.st, c.nc, c.idleAt = nil, nil, 0
	if cap(c.in) > 4<<10 {
		c.in = nil
	}
	if cap(c.out) > 4<<10 {
		c.out = nil
	}
	c.whole = nil
	l.free = append(l.free, c)
}

// close closes c's socket; a client's stream is done.
func (l *Loop) close(c *conn) {
	if c.fd < 0 {
		return
	}
	if c.poolIdx >= 0 {
		l.unpool(c)
	}
	if c.kind == kindClient {
		st, nc, gone := c.st, c.nc, c.gone
		if c.idleAt != 0 {
			l.idle--
		}
		l.release(c)
		nc.Close() // Go's poller lets go of it too
		if st != nil {
			l.done1(st, gone)
		}
		return
	}
	fd := c.fd
	l.release(c)
	unix.Close(fd)
	l.cfg.Budget.Release()
}

// done1 ends stream st for its Handler.
func (l *Loop) done1(st *Stream, gone bool) {
	st.c = nil
	l.streams.Add(-1)
	st.Handler.Done(gone)
}

// wait waits for events: after a wait that found events, a raw
// non-blocking epoll_wait first (the runtime does not track it), and the
// blocking one (a Go system call: the runtime may hand the P to other
// work) only when that found nothing.
func (l *Loop) wait() (int, error) {
	if l.polled {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
		if e != 0 {
			return 0, e
		}
		if r > 0 {
			return int(r), nil
		}
	}
	ms := -1
	if l.idle > 0 || len(l.pool) > 0 || len(l.waitq) > 0 {
		ms = int(max(l.tick/int64(time.Millisecond), 1)) // the sweep
	}
	n, err := unix.EpollWait(l.ep, l.events, ms)
	l.polled = n > 0
	return n, err
}

// The sockets are non-blocking: reads and writes never block, and go as
// raw system calls.
func sysRead(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func sysWrite(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

const (
	evIn  = unix.EPOLLIN
	evOut = unix.EPOLLOUT
	evEnd = unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLERR
)

func (l *Loop) run() {
	runtime.LockOSThread()
	defer close(l.done)
	for {
		n, err := l.wait()
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			panic("evrelay: epoll_wait: " + err.Error())
		}
		if l.idle > 0 || len(l.pool) > 0 || len(l.waitq) > 0 {
			l.sweep()
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
			case kindClient:
				l.clientEvent(c, ev.Events)
			case kindUpstream:
				l.upstreamEvent(c, ev.Events)
			case kindWake:
				if l.takeOver() {
					l.shutdown()
					return
				}
			}
		}
		if len(l.waitq) > 0 {
			l.serveWaiters()
		}
	}
}

// sweep, at most once a tick, closes the kept idle client connections
// that stayed quiet for IdleTimeout and the pooled upstream connections
// idle for IdleConnTimeout, and answers 503 to the clients that waited
// ConnWait for an upstream connection in vain.
func (l *Loop) sweep() {
	now := time.Now().UnixNano()
	if now-l.swept < l.tick {
		return
	}
	l.swept = now
	if l.idle > 0 {
		for _, c := range l.conns {
			if c != nil && c.kind == kindClient && c.idleAt != 0 && now-c.idleAt >= l.idleFor {
				l.close(c)
			}
		}
	}
	for i := 0; i < len(l.pool); {
		if u := l.pool[i]; now-u.pooledAt >= int64(l.cfg.IdleConnTimeout) {
			l.close(u) // moves the last one to i
			continue
		}
		i++
	}
	for len(l.waitq) > 0 && now >= l.waitq[0].at {
		w := l.waitq[0]
		l.waitq = l.waitq[1:]
		if l.waiting(w) {
			l.cfg.Budget.Busy.Add(1)
			l.refuse(w.c, 0, ErrUpstreamBusy)
		}
	}
	l.nwait.Store(int64(len(l.waitq)))
}

// waiting reports whether w's client still waits for a connection.
func (l *Loop) waiting(w waiter) bool {
	c := w.c
	return c.fd >= 0 && c.gen == w.gen && c.inflight && c.peer == nil && !c.headSent
}

// serveWaiters gives the waiting clients connections while the pool or
// the Budget has them.
func (l *Loop) serveWaiters() {
	for len(l.waitq) > 0 {
		w := l.waitq[0]
		if !l.waiting(w) {
			l.waitq = l.waitq[1:]
			continue
		}
		u, err := l.upstream()
		if err == ErrUpstreamBusy {
			break
		}
		l.waitq = l.waitq[1:]
		l.attach(w.c, u, err)
	}
	if len(l.waitq) == 0 {
		l.waitq = l.waitq[:0:0]
	}
	l.nwait.Store(int64(len(l.waitq)))
}

// takeOver starts the streams handed over and serves the cancels; it
// reports whether the loop is closing.
func (l *Loop) takeOver() bool {
	var b [8]byte
	unix.Read(l.wake, b[:]) //nolint:errcheck // EAGAIN: nothing to reset
	l.mu.Lock()
	l.taken, l.inbox = l.inbox, l.taken[:0]
	l.takenC, l.cancels = l.cancels, l.takenC[:0]
	closing := l.closing
	l.mu.Unlock()
	if l.shedding.Swap(false) {
		for len(l.pool) > 0 {
			l.close(l.pool[len(l.pool)-1])
		}
	}
	for _, s := range l.taken {
		l.begin(s)
	}
	clear(l.taken)
	for _, r := range l.takenC {
		if c := r.s.c; c != nil && c.st == r.s {
			l.cancel(c, r.err)
		}
	}
	clear(l.takenC)
	return closing
}

// shutdown ends every stream and closes every socket.
func (l *Loop) shutdown() {
	for _, c := range l.conns {
		if c != nil && c.kind == kindClient {
			c.closeAfter = true
			l.cancel(c, ErrClosed)
			l.close(c)
		}
	}
	for _, c := range l.conns {
		if c != nil {
			l.close(c)
		}
	}
	unix.Close(l.ep)
}

func (l *Loop) begin(s *Stream) {
	l.streams.Add(1)
	c, err := l.add(s.FD, kindClient)
	if err != nil {
		s.Conn.Close()
		l.done1(s, false)
		return
	}
	c.st, c.nc, c.inflight, c.closeAfter = s, s.Conn, true, !s.KeepAlive
	s.c = c
	l.mu.Lock()
	early := s.early
	l.mu.Unlock()
	if early != nil {
		l.refuse(c, 0, early)
		return
	}
	if len(l.waitq) == 0 {
		u, err := l.upstream()
		if err != ErrUpstreamBusy {
			l.attach(c, u, err)
			return
		}
	}
	l.waitq = append(l.waitq, waiter{c: c, gen: c.gen, at: time.Now().UnixNano() + int64(l.cfg.ConnWait)})
	l.nwait.Store(int64(len(l.waitq)))
	if len(l.waitq) == 1 {
		l.cfg.Budget.askShed()
	}
	if l.onWait != nil {
		l.onWait()
	}
}

// attach sends client c's request on u, or refuses c with err (no
// connection).
func (l *Loop) attach(c *conn, u *conn, err error) {
	if err != nil {
		l.refuse(c, 0, err)
		return
	}
	u.req = append(u.req[:0], c.st.Request...)
	c.peer, u.peer = u, c
	if !u.connecting {
		l.send(u, u.req)
	}
}

// cancel ends client c's answer with err.
func (l *Loop) cancel(c *conn, err error) {
	if !c.inflight {
		return
	}
	if u := c.peer; u != nil {
		l.close(u)
		c.peer = nil
	}
	if !c.headSent {
		l.refuse(c, 0, err)
		return
	}
	c.closeAfter = true
	l.out = c.st.Handler.End(l.out[:0], err)
	l.writeChunk(c, nil, true)
}

func (l *Loop) clientEvent(c *conn, ev uint32) {
	if c.idleAt != 0 {
		// A kept idle connection: the client's next request goes to the
		// server; a close or an error closes it.
		if ev&evEnd != 0 {
			l.close(c)
		} else if ev&evIn != 0 {
			nc := c.nc
			l.idle--
			l.release(c)
			l.giveBack(nc)
		}
		return
	}
	if ev&evEnd != 0 {
		l.drop(c)
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

// drop closes client c, gone, and the upstream connection answering it
// (the upstream sees the cancel).
func (l *Loop) drop(c *conn) {
	if u := c.peer; u != nil {
		l.close(u)
	}
	c.gone = c.gone || c.inflight || len(c.out) > 0
	l.close(c)
}

// clientReadable keeps what the client sends during its answer: the
// connection is then closed at the end instead of given back.
func (l *Loop) clientReadable(c *conn) {
	for {
		n, err := sysRead(c.fd, l.rbuf)
		if n > 0 {
			if len(c.in)+n > maxHeader {
				l.drop(c)
				return
			}
			c.in = append(c.in, l.rbuf[:n]...)
			if n < len(l.rbuf) {
				return
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

// upstream returns a pooled upstream connection or dials one, holding a
// slot of the Budget: ErrUpstreamBusy when it has none free,
// ErrUpstreamDial when the dial fails at once.
func (l *Loop) upstream() (*conn, error) {
	if n := len(l.pool); n > 0 {
		u := l.pool[n-1]
		l.pool = l.pool[:n-1]
		u.poolIdx = -1
		u.reused = true
		return u, nil
	}
	if !l.cfg.Budget.TryAcquire() {
		return nil, ErrUpstreamBusy
	}
	family := unix.AF_INET
	if _, ok := l.up.(*unix.SockaddrInet6); ok {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		if err == nil {
			err = unix.Connect(fd, l.up)
		}
		if err != nil && err != unix.EINPROGRESS {
			unix.Close(fd)
		}
	}
	if err != nil && err != unix.EINPROGRESS {
		l.cfg.Budget.Release()
		return nil, ErrUpstreamDial
	}
	u, aerr := l.add(fd, kindUpstream)
	if aerr != nil {
		unix.Close(fd)
		l.cfg.Budget.Release()
		return nil, ErrUpstreamDial
	}
	u.connecting = err != nil
	return u, nil
}

func (l *Loop) unpool(u *conn) {
	i, last := u.poolIdx, len(l.pool)-1
	l.pool[i] = l.pool[last]
	l.pool[i].poolIdx = i
	l.pool = l.pool[:last]
	u.poolIdx = -1
}

// refuse answers c with the Handler's whole response; once it is
// written, c is given back (keep-alive) or closed.
func (l *Loop) refuse(c *conn, status int, err error) {
	var ctype, body []byte
	if u := c.peer; u != nil {
		ctype, body = u.ctype, u.whole
		l.close(u)
		c.peer = nil
	}
	c.inflight = false
	c.closeAfter = c.closeAfter || l.giveBack == nil
	c.st.KeepAlive = !c.closeAfter
	l.frame = c.st.Handler.Refuse(l.frame[:0], status, ctype, body, err)
	if !l.send(c, l.frame) {
		return
	}
	if len(c.out) == 0 {
		l.finish(c)
	}
}

// send writes b to c, keeping what the socket does not take in c.out. It
// reports whether c is still open.
func (l *Loop) send(c *conn, b []byte) bool {
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

// flush writes what waits in c.out; once it is all out, a finished client
// is given back or closed, a paused upstream is read again. It reports
// whether c is still open (in the loop).
func (l *Loop) flush(c *conn) bool {
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
		if !c.inflight {
			l.finish(c)
			return false
		}
		if u := c.peer; u != nil && u.paused {
			u.paused = false
			l.upstreamReadable(u)
		}
	}
	return c.fd >= 0
}

// finish ends client c whose answer is complete and written: back to the
// server for its next request, or closed.
func (l *Loop) finish(c *conn) {
	st := c.st
	if c.closeAfter || len(c.in) > 0 || l.giveBack == nil {
		l.close(c)
		return
	}
	c.st, c.idleAt = nil, time.Now().UnixNano()
	l.idle++
	l.done1(st, false)
}

// broken handles a failed write to c.
func (l *Loop) broken(c *conn) {
	if c.kind == kindClient {
		c.gone = true
		l.drop(c)
		return
	}
	l.upstreamGone(c)
}

func (l *Loop) upstreamEvent(u *conn, ev uint32) {
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
		// Edge-triggered: an end reported with the last bytes comes only
		// once, so the reads go on to EOF after a short one.
		u.hup = u.hup || ev&evEnd != 0
		l.upstreamReadable(u)
	}
}

// upstreamGone handles an upstream connection that closed or failed: an
// idle one leaves the pool; one closed before any answer byte after it was
// reused is retried once on a new connection; otherwise the client's
// answer ends with ErrUpstreamClosed.
func (l *Loop) upstreamGone(u *conn) {
	c := u.peer
	if c == nil {
		l.close(u)
		return
	}
	if u.reused && !u.got {
		// No answer byte came (so nothing was relayed): retry once on a new
		// connection, which takes u's slot.
		req := u.req
		u.req, c.peer = nil, nil
		l.close(u)
		nu, err := l.upstream()
		if err != nil {
			l.refuse(c, 0, ErrUpstreamClosed)
			return
		}
		nu.req, nu.reused = req, false // one retry
		c.peer, nu.peer = nu, c
		if !nu.connecting {
			l.send(nu, nu.req)
		}
		return
	}
	if !u.relay {
		c.peer = nil
		l.close(u)
		l.refuse(c, 0, ErrUpstreamClosed)
		return
	}
	l.cancel(c, ErrUpstreamClosed)
}

// upstreamReadable reads the answer as far as the socket has it and sends
// the client what this burst produced in one write.
func (l *Loop) upstreamReadable(u *conn) {
	for l.upstreamBurst(u) {
	}
}

// upstreamBurst reads one burst, until the client would have MaxPending
// bytes waiting (one read more at most), and relays it; it reports
// whether it stopped at that cap with the socket not drained.
func (l *Loop) upstreamBurst(u *conn) bool {
	c := u.peer
	if c == nil {
		l.close(u) // idle: the upstream closed it (or sent what it should not)
		return false
	}
	l.data = l.data[:0]
	startHead := !c.headSent
	done, capped := false, false
	for !done {
		if len(c.out) >= MaxPending {
			u.paused = true
			l.pauses.Add(1)
			if l.onPause != nil {
				l.onPause(len(c.out))
			}
			break
		}
		if len(c.out)+len(l.data) >= MaxPending {
			capped = true
			break
		}
		n, err := sysRead(u.fd, l.rbuf)
		if n > 0 {
			u.got = true
			var perr error
			done, perr = l.answer(u, l.rbuf[:n])
			if perr != nil {
				if !u.relay {
					c.peer = nil
					l.close(u)
					l.refuse(c, 0, perr)
					return false
				}
				l.cancel(c, perr)
				return false
			}
			if n < len(l.rbuf) && !u.hup {
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
		if len(l.data) > 0 && u.relay {
			if !l.relayBurst(c, u, startHead, false) {
				return false
			}
		}
		if c.fd >= 0 && c.peer == u {
			l.upstreamGone(u)
		}
		return false
	}
	if !u.hdrDone {
		return false
	}
	if !u.relay {
		if len(u.whole)+len(l.data) > maxWhole {
			l.data = l.data[:maxWhole-len(u.whole)]
		}
		u.whole = append(u.whole, l.data...)
		if done {
			l.refuse(c, u.status, nil)
		}
		return capped && !done
	}
	if !l.relayBurst(c, u, startHead, done) {
		return false
	}
	if !done {
		return capped
	}
	// The answer is complete: the upstream connection goes back to the
	// pool.
	c.peer, c.inflight = nil, false
	u.peer = nil
	if u.noReuse || u.hup || len(u.out) > 0 {
		l.close(u)
	} else {
		u.reused, u.got, u.hdrDone, u.paused, u.relay = true, false, false, false, false
		u.poolIdx, u.pooledAt = len(l.pool), time.Now().UnixNano()
		l.pool = append(l.pool, u)
	}
	if len(c.out) == 0 {
		l.finish(c)
	}
	return false
}

// relayBurst passes this burst's body through the Handler and writes the
// client one chunk (the header first when it has not gone out, the last
// chunk when done). It reports whether c is still open.
func (l *Loop) relayBurst(c, u *conn, startHead, done bool) bool {
	l.out = l.out[:0]
	if len(l.data) > 0 {
		l.out = c.st.Handler.Body(l.out, l.data)
	}
	if done {
		l.out = c.st.Handler.End(l.out, nil)
	}
	var head []byte
	if startHead {
		head = c.st.Header
	}
	return l.writeChunk(c, head, done)
}

// writeChunk writes head, then l.out as one chunk, then the last chunk
// when last, in one write. It reports whether c is still open.
func (l *Loop) writeChunk(c *conn, head []byte, last bool) bool {
	f := append(l.frame[:0], head...)
	c.headSent = true
	if len(l.out) > 0 {
		f = strconv.AppendUint(f, uint64(len(l.out)), 16)
		f = append(f, '\r', '\n')
		f = append(f, l.out...)
		f = append(f, '\r', '\n')
	}
	if last {
		f = append(f, "0\r\n\r\n"...)
		c.inflight = false
	}
	l.frame = f
	if len(f) == 0 {
		return true
	}
	if !l.send(c, f) {
		return false
	}
	if last && len(c.out) == 0 && c.peer == nil {
		l.finish(c)
		return false
	}
	return c.fd >= 0
}

// answer takes the bytes of one read of u's answer: the header, then the
// body (decoded, to l.data). It reports whether the answer is complete.
func (l *Loop) answer(u *conn, b []byte) (bool, error) {
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
				return false, ErrBadAnswer
			}
			return false, nil
		}
		if err := l.answerHead(u, b[:i+4]); err != nil {
			return false, err
		}
		b = b[i+4:]
		u.hdrDone = true
		defer func() { u.in = u.in[:0] }()
	}
	switch u.body {
	case BodyNone:
		u.noReuse = u.noReuse || len(b) > 0
		return true, nil
	case BodyLength:
		take := min(int64(len(b)), u.remain)
		l.data = append(l.data, b[:take]...)
		u.remain -= take
		u.noReuse = u.noReuse || int64(len(b)) > take
		return u.remain == 0, nil
	}
	return l.dechunk(u, b)
}

// answerHead parses the answer's header h.
func (l *Loop) answerHead(u *conn, h []byte) error {
	u.whole = u.whole[:0]
	u.dc = Dechunker{}
	a, err := ParseAnswerHead(h, false, u.ctype[:0])
	u.status, u.ctype = a.Status, a.ContentType
	if err != nil {
		return err
	}
	u.body, u.remain, u.noReuse = a.Body, a.Length, a.Close
	mt, _, _ := bytes.Cut(u.ctype, []byte(";"))
	u.relay = a.Status == 200 && bytes.EqualFold(bytes.TrimSpace(mt), []byte("text/event-stream"))
	return nil
}

// dechunk decodes chunked body bytes b into l.data, reporting whether the
// last chunk (and its trailer) has come.
func (l *Loop) dechunk(u *conn, b []byte) (bool, error) {
	var done, extra bool
	var err error
	l.data, done, extra, err = u.dc.Decode(l.data, b)
	u.noReuse = u.noReuse || extra
	return done, err
}
