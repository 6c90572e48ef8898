// Package sse reads an upstream's text/event-stream event by event without
// copying or allocating per event (Reader), and tells its caller when the
// next event is not buffered yet, so a relay can coalesce writes without
// delaying any event. FuzzSSEReader holds it to go-sse's reading.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Reader reads an upstream event stream (text/event-stream) event by
// event without copying or allocating per event, and tells its caller when
// the next event is not buffered yet, so that the relay can write every
// event that is already here in one write and flush just before it would
// wait (coalescing without delaying any event).
//
// It follows the WHATWG event-stream grammar the way go-sse's Read does
// (FuzzSSEReader checks it against go-sse): lines end in "\n", "\r" or
// "\r\n"; a leading UTF-8 BOM is dropped; ":" lines are comments; "data"
// lines are joined with "\n"; "event" sets the type; "id" makes an event
// dispatchable even without data; "retry" and unknown fields are ignored;
// a blank line dispatches; the end of input never dispatches a pending
// event. An event larger than max bytes (its raw lines) is an error.
type Reader struct {
	src     io.Reader
	max     int
	buf     []byte // buf[r:w] is read and not yet consumed
	r, w    int
	data    []byte  // scratch for multi-line data
	started bool    // past the BOM check
	err     error   // sticky read error (io.EOF at the end)
	pooled  *[]byte // buf's pool entry, put back by release
	// waited is the time spent in reads from src (waiting on the
	// upstream); reads counts the reads that returned bytes.
	waited time.Duration
	reads  uint64
	// blocks counts the complete event blocks read (a blank line ended
	// them), comment-only blocks included: the idle timer restarts on
	// these, not on any byte.
	blocks uint64
	// notifier is src when it can tell when a read would wait (the
	// upstream stream); nil for any other reader.
	notifier BlockNotifier
}

// BlockNotifier is a source that knows, better than the reader, when a
// read is about to wait on the network: it calls f right before that, and
// not while it still holds received bytes of its own.
type BlockNotifier interface {
	SetBeforeRead(f func())
}

// Event is one dispatched event; Data is valid until the next call to
// next.
type Event struct {
	Type string // "" for the default type; only "error" is kept, any other is "other"
	Data []byte
	// OneLine: Data came from a single line, so it has no line end.
	OneLine bool
}

// ErrPending is what a pushed source (Feed) returns when it holds no
// bytes now: Next returns it, not as the end, and may be called again once
// the source has more.
var ErrPending = errors.New("sse: no bytes yet")

// Feed is a source whose bytes are pushed to it (the event loop's decoded
// upstream body): Read returns what was pushed, then ErrPending.
type Feed struct{ b []byte }

// Push adds b (Feed keeps the slice until it is read: b must not change
// before Next returns ErrPending).
func (f *Feed) Push(b []byte) { f.b = b }

func (f *Feed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, ErrPending
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

var ErrEventTooLarge = errors.New("upstream event exceeds upstream.max_event_bytes")

// sseBufSize is the reader's buffer: an event larger than it grows it (up
// to upstream.max_event_bytes). It is held for a stream's whole length, and
// LLM events are a few hundred bytes.
const sseBufSize = 4 << 10

var sseBufPool = sync.Pool{New: func() any { b := make([]byte, sseBufSize); return &b }}

func NewReader(src io.Reader, max int) *Reader {
	bp := sseBufPool.Get().(*[]byte)
	bn, _ := src.(BlockNotifier)
	return &Reader{src: src, max: max, buf: *bp, pooled: bp, notifier: bn}
}

// Release gives the buffer back; the reader and any event it returned must
// not be used after.
func (s *Reader) Release() {
	if s.pooled != nil && cap(s.buf) == sseBufSize {
		*s.pooled = s.buf[:sseBufSize]
		sseBufPool.Put(s.pooled)
	}
	s.buf, s.pooled = nil, nil
}

// Next returns the next event. When no complete event is buffered it calls
// idle (if not nil) before it blocks on the upstream, then reads; a source
// that is a BlockNotifier calls idle itself, only when its read would
// really wait. ok is false at the end of the stream; err is a read error
// or an oversized event (the end of input is not an error).
func (s *Reader) Next(idle func()) (ev Event, ok bool, err error) {
	if s.notifier != nil {
		s.notifier.SetBeforeRead(idle)
		idle = nil
	}
	for {
		if ev, n, found := s.parse(); found {
			s.r += n
			s.blocks++
			if ev.Data != nil || ev.Type != "" {
				return ev, true, nil
			}
			continue // a block of comments or ignored fields
		} else if n > 0 {
			s.r += n // blank lines
			continue
		}
		if s.err != nil {
			if s.err == ErrPending {
				s.err = nil
				return Event{}, false, ErrPending
			}
			if s.err == io.EOF {
				return Event{}, false, nil
			}
			return Event{}, false, s.err
		}
		if s.w-s.r > s.max {
			s.err = ErrEventTooLarge
			continue
		}
		if idle != nil {
			idle()
		}
		s.fill()
	}
}

// fill reads once from src into buf, making room first.
func (s *Reader) fill() {
	if s.r > 0 && (s.w == len(s.buf) || s.r == s.w) {
		s.w = copy(s.buf, s.buf[s.r:s.w])
		s.r = 0
	}
	if s.w == len(s.buf) {
		// A pending event fills the buffer: grow it, up to the event
		// limit plus room for its line ends.
		limit := s.max + 8
		if len(s.buf) >= limit {
			s.err = ErrEventTooLarge
			return
		}
		nb := make([]byte, min(2*len(s.buf), limit))
		copy(nb, s.buf[:s.w])
		s.Release()
		s.buf = nb
	}
	t0 := time.Now()
	n, err := s.src.Read(s.buf[s.w:])
	s.waited += time.Since(t0)
	s.w += n
	if n > 0 {
		s.reads++
	}
	if err != nil {
		s.err = err
	} else if n == 0 {
		// A reader that returns 0, nil: try again (io.Reader allows it),
		// but not forever.
		n, err = s.src.Read(s.buf[s.w:])
		s.w += n
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		s.err = err
	}
}

// parse looks for a complete event block at buf[r:w]. found reports a
// block ending in a blank line (n bytes, its event in ev, whose Data is nil
// when it has no data field). With found false, n > 0 means n bytes of blank
// lines can be skipped.
func (s *Reader) parse() (ev Event, n int, found bool) {
	b := s.buf[s.r:s.w]
	if !s.started {
		if len(b) < 3 && bytes.HasPrefix([]byte("\xEF\xBB\xBF"), b) && s.err == nil {
			return ev, 0, false // maybe a BOM: wait for more
		}
		s.started = true
		if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
			s.r += 3
			b = b[3:]
		}
	}
	// Blank lines before an event are skipped. A "\r" at the very end may
	// be the start of a "\r\n": either way it is a blank line.
	i := 0
	for i < len(b) && (b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i > 0 {
		return ev, i, false
	}
	// The common block, one "data:" line ended by "\n\n", is read in two
	// scans of the line (its end, and no "\r" in it) instead of four.
	if len(b) > 5 && string(b[:5]) == "data:" {
		if k := bytes.IndexByte(b, '\n'); k >= 0 && k+1 < len(b) && b[k+1] == '\n' && bytes.IndexByte(b[:k], '\r') < 0 {
			v := b[5:k]
			if len(v) > 0 && v[0] == ' ' {
				v = v[1:]
			}
			ev.Data = v[:len(v):len(v)]
			if ev.Data == nil {
				ev.Data = []byte{}
			}
			ev.OneLine = true
			return ev, k + 2, true
		}
	}
	// Find the block's end: a line end followed by another line end.
	end, term := -1, 0
	for j := 0; j < len(b); {
		k := indexNewline(b[j:])
		if k < 0 {
			break
		}
		j += k
		nl := 1
		if b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n' {
			nl = 2
		}
		if j+nl < len(b) && (b[j+nl] == '\n' || b[j+nl] == '\r') {
			end = j + nl
			term = 1
			if b[end] == '\r' && end+1 < len(b) && b[end+1] == '\n' {
				term = 2
			}
			break
		}
		j += nl
	}
	if end < 0 {
		return ev, 0, false
	}
	// Fields of the block b[:end] (every line of it ends in a newline).
	dirty, lines := false, 0
	var single []byte
	s.data = s.data[:0]
	for line := b[:end]; len(line) > 0; {
		k := indexNewline(line)
		l := line[:k]
		nl := 1
		if line[k] == '\r' && k+1 < len(line) && line[k+1] == '\n' {
			nl = 2
		}
		line = line[k+nl:]
		name, value := l, []byte(nil)
		if c := bytes.IndexByte(l, ':'); c >= 0 {
			name, value = l[:c], l[c+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if lines == 0 {
				single = value
			} else {
				if lines == 1 {
					s.data = append(s.data, single...)
				}
				s.data = append(s.data, '\n')
				s.data = append(s.data, value...)
			}
			lines++
			dirty = true
		case "event":
			switch string(value) {
			case "":
				ev.Type = ""
			case "error":
				ev.Type = "error"
			default:
				ev.Type = "other"
			}
			dirty = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				dirty = true
			}
		}
	}
	switch {
	case lines == 1:
		ev.OneLine = true
		ev.Data = single[:len(single):len(single)]
		if ev.Data == nil {
			ev.Data = []byte{}
		}
	case lines > 1:
		ev.Data = s.data
	case dirty:
		ev.Data = []byte{}
	}
	if !dirty {
		ev = Event{}
	}
	return ev, end + term, true
}

// indexNewline returns the index of the first '\n' or '\r' in b, or -1.
func indexNewline(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	lim := b
	if i >= 0 {
		lim = b[:i]
	}
	if j := bytes.IndexByte(lim, '\r'); j >= 0 {
		return j
	}
	return i
}

func (e Event) String() string { return fmt.Sprintf("%s:%q", e.Type, e.Data) }

// Waited is the time spent in reads from the source (waiting on the
// upstream) since the reader was made or ResetWaited.
func (s *Reader) Waited() time.Duration { return s.waited }

// ResetWaited starts the Waited count again.
func (s *Reader) ResetWaited() { s.waited = 0 }

// Blocks counts the complete event blocks read (a blank line ended them),
// comment-only blocks included: an idle timer restarts on these, not on
// any byte.
func (s *Reader) Blocks() uint64 { return s.blocks }
