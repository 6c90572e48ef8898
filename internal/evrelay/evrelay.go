// Package evrelay implements the guard's event-loop relay: one OS thread
// running an epoll loop relays pass-through event streams from a plain-HTTP
// upstream to clients whose connections the fasthttp server hijacked, with
// no goroutine per stream and one write per upstream burst.
//
// The loop polls the client connection's own descriptor beside Go's
// netpoller (which stays quiet meanwhile: a client socket raises an event
// only when the client sends, or after a write found its buffer full), and
// gives the same net.Conn back (GiveBack) once the answer is complete. Its
// small HTTP/1.1 client dials the upstream, sends the request as the
// caller built it, parses the answer's header (status, Content-Type,
// Content-Length, Transfer-Encoding, Connection), decodes a chunked body
// and pools idle connections. A 200 event stream is passed to the
// stream's Handler burst by burst and what it returns goes to the client
// as one chunk per burst; any other answer is read whole (up to
// maxWhole bytes) and the Handler turns it into the client's response.
//
// The loop stops reading the upstream while more than MaxPending bytes
// wait for a slow client, closes the upstream connection when the client
// goes away, and ends a stream the caller cancels (a timeout, a revoked
// key, server shutdown). It is Linux only (New fails elsewhere).
//
// The answer-header parser (ParseAnswerHead) and the chunk decoder
// (Dechunker) are exported for bench/anchor/evproxy, the event-loop floor
// this package was built from, so the two loops share one copy of them.
package evrelay

import (
	"errors"
	"net"
	"net/netip"
	"time"
)

// Handler turns one stream's upstream answer into what its client gets.
// The loop calls it on its own thread, one call at a time; a Handler must
// not block.
type Handler interface {
	// Body takes decoded body bytes of a 200 event-stream answer (any
	// split: events may span calls) and appends to dst the bytes the
	// client gets for them (the loop frames them as one chunk).
	Body(dst, p []byte) []byte
	// End is the end of the relayed answer: err is nil when the upstream
	// completed it, else why it stopped (ErrUpstreamClosed, a cancel's
	// cause). It appends the last bytes for the client.
	End(dst []byte, err error) []byte
	// Refuse is an answer that is not a 200 event stream (status, its
	// Content-Type and body, the body cut at maxWhole), or err when there
	// was no answer. It appends a whole HTTP/1.1 response for the client;
	// the connection is given back after it as after a stream (Stream's
	// KeepAlive, which the loop clears when it closes the connection).
	Refuse(dst []byte, status int, ctype, body []byte, err error) []byte
	// Done is the stream's end: the loop no longer uses the handler or
	// the connection. clientGone reports that a write to the client
	// failed or the client closed first.
	Done(clientGone bool)
}

// Config is a loop's setting.
type Config struct {
	Addr netip.AddrPort // the plain-HTTP upstream
	// GiveBack takes a client connection back for its next request (the
	// fasthttp server's ServeConn, on a new goroutine): after a complete
	// answer with keep-alive the loop keeps the connection, with no
	// goroutine, until the client sends again (then GiveBack), closes it,
	// or stays quiet for IdleTimeout (closed). Nil: closed after the answer.
	GiveBack    func(net.Conn)
	IdleTimeout time.Duration
	// IdleConnTimeout: a pooled upstream connection is closed after this
	// long unused.
	IdleConnTimeout time.Duration
	// Budget counts the loop's upstream connections with the process's
	// others (nil: a budget of its own, 1<<20); a stream that finds none
	// free waits up to ConnWait, then is refused with ErrUpstreamBusy
	// (counted in Budget.Busy).
	Budget   *Budget
	ConnWait time.Duration
}

// Stream is one relayed request. Its fields are set by the caller before
// Start and not touched after.
type Stream struct {
	Conn    net.Conn // the hijacked client connection (a *net.TCPConn underneath)
	FD      int      // Conn's descriptor
	Request []byte   // the whole upstream request (header and body)
	Header  []byte   // the client's response header for a 200 event stream (chunked)
	Handler Handler
	// KeepAlive: give Conn back (Loop's giveBack) after a complete answer;
	// false closes it.
	KeepAlive bool

	c       *conn // the loop's client state while the stream runs (loop thread only)
	started bool  // Start ran (under the loop's mu)
	early   error // a Cancel that came before Start (under the loop's mu)
}

// MaxPending is how many bytes may wait for a slow client before the loop
// stops reading the stream's upstream.
const MaxPending = 256 << 10

// maxWhole bounds the body of an answer that is not an event stream.
const maxWhole = 64 << 10

var (
	// ErrUpstreamClosed: the upstream closed or failed mid-answer.
	ErrUpstreamClosed = errors.New("upstream closed the stream")
	// ErrUpstreamDial: no connection to the upstream.
	ErrUpstreamDial = errors.New("upstream connection failed")
	// ErrBadAnswer: the upstream's answer is not valid HTTP/1.1.
	ErrBadAnswer = errors.New("upstream sent an invalid HTTP answer")
	// ErrUpstreamBusy: every upstream connection the Budget allows was in
	// use for Config.ConnWait.
	ErrUpstreamBusy = errors.New("every upstream connection is in use")
	// ErrClosed: the loop was closed.
	ErrClosed = errors.New("event loop closed")
)
