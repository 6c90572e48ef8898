package mockllm

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tmaxmax/go-sse"

	"github.com/answer-guard/guard/internal/clientconn"
)

// A streamed answer is laid out once per distinct answer, as a script: the
// bytes of its events, framed, with the two values that differ from one
// request to the next (the completion id and the creation time) left out
// as holes, and its pacing and faults as steps. A request replays the
// script: Read copies its bytes and puts the request's values into the
// holes, so a repeated answer costs the simulated upstream a copy per
// byte, as a model server's ready burst would, and sends the bytes a
// rendering per request sent (TestReplayAsRendered).

// step is one piece of a simulated stream: wait, then send one event (the
// frame lit[from:to] of the script, its holes filled in), or (cut) drop the
// connection.
type step struct {
	wait     time.Duration
	from, to int
	cut      bool
}

// holeKind is what goes into a hole.
type holeKind uint8

const (
	holeID      holeKind = iota // the completion id (unquoted; the script has its quotes)
	holeCreated                 // the creation time, Unix seconds
	holeFill                    // n bytes of 'x' (the huge_event fault's content)
)

// hole is a value that goes into the stream before lit[at].
type hole struct {
	at   int
	kind holeKind
	n    int // holeFill: its length
}

// script is one streamed answer laid out for replay; nothing changes it
// once made, and any number of streams replay it at once.
type script struct {
	lit   []byte // the frames, less the holes' values
	holes []hole // by at; each strictly inside one step's frame
	steps []step
}

// scriptBuilder lays a script out.
type scriptBuilder struct {
	sc     script
	wait   time.Duration // before the next event
	at     int           // start of the frame being written
	atHole int           // holes of the frame being written start here
	head   []byte        // the chunk fields every event starts with (holes in head below)
	headH  []hole        // head's holes, at offsets in head
	data   []byte        // scratch for close
}

// dataField starts every frame.
const dataField = "data: "

// open starts an event: its data is appended to lit from here, after the
// "data: " its frame starts with.
func (b *scriptBuilder) open() {
	b.at = len(b.sc.lit)
	b.atHole = len(b.sc.holes)
	b.sc.lit = append(b.sc.lit, dataField...)
}

// hole marks a value of kind here.
func (b *scriptBuilder) hole(kind holeKind, n int) {
	b.sc.holes = append(b.sc.holes, hole{at: len(b.sc.lit), kind: kind, n: n})
}

// id appends the completion id as a JSON string.
func (b *scriptBuilder) id() {
	b.sc.lit = append(b.sc.lit, '"')
	b.hole(holeID, 0)
	b.sc.lit = append(b.sc.lit, '"')
}

// close frames the data appended since open as one event, as go-sse's
// Message frames it: a "data: " line per line of it, then the blank line.
// Data of one line (every JSON event, and every event with a hole: the
// holes' values have no line breaks) is framed in place; empty data and
// data with line breaks go through go-sse (TestFrameAsGoSSE).
func (b *scriptBuilder) close() {
	data := b.sc.lit[b.at+len(dataField):]
	holes := len(b.sc.holes) > b.atHole
	if holes || len(data) > 0 && bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		b.sc.lit = append(b.sc.lit, "\n\n"...)
	} else {
		b.data = append(b.data[:0], data...)
		b.sc.lit = frameGoSSE(b.sc.lit[:b.at], b.data)
	}
	b.sc.steps = append(b.sc.steps, step{wait: b.wait, from: b.at, to: len(b.sc.lit)})
	b.wait = 0
}

// frameGoSSE appends data framed by go-sse's Message to dst.
func frameGoSSE(dst, data []byte) []byte {
	var m sse.Message
	m.AppendData(unsafe.String(unsafe.SliceData(data), len(data)))
	m.WriteTo((*appender)(&dst)) //nolint:errcheck // appending cannot fail
	return dst
}

// appender is an io.Writer that appends to the slice.
type appender []byte

func (a *appender) Write(b []byte) (int, error) {
	*a = append(*a, b...)
	return len(b), nil
}

// putHead appends the chunk fields every event starts with.
func (b *scriptBuilder) putHead() {
	base := len(b.sc.lit)
	b.sc.lit = append(b.sc.lit, b.head...)
	for _, h := range b.headH {
		h.at += base
		b.sc.holes = append(b.sc.holes, h)
	}
}

// choice opens a chunk event up to its first choice's delta, which the
// caller appends; endChoice closes it with the finish reason ("" = null).
func (b *scriptBuilder) choice() {
	b.open()
	b.putHead()
	b.sc.lit = append(b.sc.lit, `,"choices":[{"index":0,"delta":`...)
}

func (b *scriptBuilder) endChoice(finish string) {
	b.sc.lit = append(b.sc.lit, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		b.sc.lit = append(b.sc.lit, "null"...)
	} else {
		b.sc.lit = gjson.AppendJSONString(b.sc.lit, finish)
	}
	b.sc.lit = append(b.sc.lit, "}]}"...)
	b.close()
}

func (b *scriptBuilder) usage(usage string) {
	b.open()
	b.putHead()
	b.sc.lit = append(b.sc.lit, `,"choices":[],"usage":`...)
	b.sc.lit = append(b.sc.lit, usage...)
	b.sc.lit = append(b.sc.lit, '}')
	b.close()
}

// newScript lays out the events of one streamed answer, with its pacing and
// its faults, and a usage event with usage when it is not "".
func (s *Server) newScript(a *answer, model, usage string) *script {
	b := &scriptBuilder{}
	b.sc.lit = make([]byte, 0, 200*(len(a.pieces)+4))
	b.sc.holes = make([]hole, 0, 2*(len(a.pieces)+4))
	b.sc.steps = make([]step, 0, len(a.pieces)+4)
	b.head = append(b.head, `{"id":"`...)
	b.headH = append(b.headH, hole{at: len(b.head), kind: holeID})
	b.head = append(b.head, `","object":"chat.completion.chunk","created":`...)
	b.headH = append(b.headH, hole{at: len(b.head), kind: holeCreated})
	b.head = append(b.head, `,"model":`...)
	b.head = gjson.AppendJSONString(b.head, model)
	b.head = append(b.head, `,"system_fingerprint":"mock-fp"`...)
	if a.slowFirst {
		b.wait = s.cfg.SlowFirstDelay
	}
	done := func() *script {
		if usage != "" {
			b.usage(usage)
		}
		b.open()
		b.sc.lit = append(b.sc.lit, "[DONE]"...)
		b.close()
		return &b.sc
	}
	if a.toolName != "" {
		b.choice()
		b.sc.lit = append(b.sc.lit, `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_mock_1","type":"function","function":{"name":`...)
		b.sc.lit = gjson.AppendJSONString(b.sc.lit, a.toolName)
		b.sc.lit = append(b.sc.lit, `,"arguments":""}}]}`...)
		b.endChoice("")
		half := len(a.toolArgs) / 2
		for _, part := range []string{a.toolArgs[:half], a.toolArgs[half:]} {
			b.choice()
			b.sc.lit = append(b.sc.lit, `{"tool_calls":[{"index":0,"function":{"arguments":`...)
			b.sc.lit = gjson.AppendJSONString(b.sc.lit, part)
			b.sc.lit = append(b.sc.lit, `}}]}`...)
			b.endChoice("")
		}
		b.choice()
		b.sc.lit = append(b.sc.lit, `{}`...)
		b.endChoice("tool_calls")
		return done()
	}
	b.open()
	b.putHead()
	b.sc.lit = append(b.sc.lit, `,"x_mock_trace":`...)
	b.id()
	b.sc.lit = append(b.sc.lit, `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`...)
	b.close()
	for i, piece := range a.pieces {
		if i == a.cutAt {
			// simulated crash: the stream ends without its terminator
			b.sc.steps = append(b.sc.steps, step{wait: b.wait, cut: true, from: len(b.sc.lit), to: len(b.sc.lit)})
			return &b.sc
		}
		if i == a.stallAt {
			b.wait += s.cfg.StallDelay
		}
		// the answer-level faults drawn at piece i (build draws them
		// among the pieces the stream reaches)
		if i == a.badAt {
			b.open()
			b.sc.lit = append(b.sc.lit, `{"id":`...)
			b.id()
			b.sc.lit = append(b.sc.lit, `,"choices":[{"index":0,"delta":{"content":"oops`...)
			b.close()
		}
		if i == a.hugeAt {
			b.choice()
			b.sc.lit = append(b.sc.lit, `{"content":"`...)
			b.hole(holeFill, s.cfg.HugeEventBytes)
			b.sc.lit = append(b.sc.lit, `"}`...)
			b.endChoice("")
		}
		b.choice()
		b.sc.lit = append(b.sc.lit, `{"content":`...)
		b.sc.lit = gjson.AppendJSONString(b.sc.lit, piece)
		b.sc.lit = append(b.sc.lit, '}')
		b.endChoice("")
		b.wait = s.cfg.Pace
	}
	b.choice()
	b.sc.lit = append(b.sc.lit, `{}`...)
	b.endChoice("stop")
	return done()
}

// eventBody is one request's replay of a script as fasthttp reads it
// (SetBodyStream); it runs on the serving goroutine, with no pipe and no
// second goroutine per stream. fasthttp sends what one Read returns as one
// chunk and flushes it: a Read returns one event after its wait (pacing, a
// stall), and with it the events that follow without a wait, as many as
// fit, as a model server that is not paced sends whatever it has ready.
type eventBody struct {
	s    *Server
	conn net.Conn
	sc   *script
	// id and created are this request's values of the holes.
	idBuf      [40]byte
	id         []byte // idBuf[:n]
	createdBuf [20]byte
	created    []byte
	next       int  // the next step
	inStep     bool // a step's frame is being sent: pos, h and hoff say where
	pos, to    int  // the next byte of lit; the frame's end
	h          int  // the next hole
	hoff       int  // bytes of holes[h] already sent
	ended      bool // every step was sent or the connection was cut
	sleep      func(time.Duration)
}

var eventBodies = sync.Pool{New: func() any { return new(eventBody) }}

// newEventBody returns a replay of sc for the request with completion id
// "chatcmpl-mock-<seq>" created at created.
func (s *Server) newEventBody(conn net.Conn, sc *script, seq uint64, created int64) *eventBody {
	b := eventBodies.Get().(*eventBody)
	*b = eventBody{s: s, conn: conn, sc: sc, sleep: time.Sleep}
	b.id = strconv.AppendUint(append(b.idBuf[:0], idPrefix...), seq, 10)
	b.created = strconv.AppendInt(b.createdBuf[:0], created, 10)
	return b
}

// idPrefix starts every completion id.
const idPrefix = "chatcmpl-mock-"

// xs is the huge_event fault's content, copied a block at a time.
var xs = []byte(strings.Repeat("x", 4096))

func (b *eventBody) Read(p []byte) (int, error) {
	n := 0
	steps := b.sc.steps
	for {
		if b.inStep {
			n += b.emit(p[n:])
			if b.inStep {
				return n, nil // p is full
			}
		}
		if b.next == len(steps) {
			if n == 0 {
				b.ended = true
				return 0, io.EOF
			}
			return n, nil
		}
		st := steps[b.next]
		if n > 0 && (st.wait > 0 || st.cut) {
			return n, nil // send what is ready before waiting
		}
		b.next++
		if st.wait > 0 {
			b.sleep(st.wait)
		}
		if st.cut {
			b.ended = true
			b.conn.Close()
			return 0, errCut
		}
		b.inStep, b.pos, b.to, b.hoff = true, st.from, st.to, 0
	}
}

// emit copies the current step's frame from where it stands into p, with
// the holes filled in, and reports how much; the step is done when inStep
// is false.
func (b *eventBody) emit(p []byte) int {
	sc := b.sc
	n := 0
	for {
		// The literal up to the next hole or the frame's end (holes are
		// strictly inside frames).
		end := b.to
		if b.h < len(sc.holes) && sc.holes[b.h].at < end {
			end = sc.holes[b.h].at
		}
		if b.pos < end {
			m := copy(p[n:], sc.lit[b.pos:end])
			n += m
			b.pos += m
			if b.pos < end {
				return n // p is full
			}
		}
		if end == b.to {
			b.inStep = false
			return n
		}
		hl := &sc.holes[b.h]
		var v []byte
		switch hl.kind {
		case holeID:
			v = b.id[b.hoff:]
		case holeCreated:
			v = b.created[b.hoff:]
		default:
			v = xs[:min(hl.n-b.hoff, len(xs))]
		}
		m := copy(p[n:], v)
		n += m
		b.hoff += m
		if m < len(v) {
			return n // p is full
		}
		if hl.kind != holeFill || b.hoff == hl.n {
			b.h++
			b.hoff = 0
		}
	}
}

var errCut = errors.New("simulated crash: connection cut mid-stream")

// Close is called once fasthttp is done with the body: before its end, the
// client went away. The body is not used after.
func (b *eventBody) Close() error {
	if !b.ended {
		id := string(b.id)
		b.s.log.update(id, func(r *Record) { r.Closed = true })
		select {
		case b.s.closed <- id:
		default:
		}
	}
	*b = eventBody{}
	eventBodies.Put(b)
	return nil
}

// connBody is a stream's body when the server writes it to the connection
// itself (a clientconn.Conn, as Serve and Start accept them): its first
// Read sends the whole stream and returns io.EOF. Each burst (the events
// that follow one another without a wait, up to burstMax bytes) goes out
// as one HTTP chunk in one write: the response header, which fasthttp
// flushes before the first Read, is held and leaves with the first burst,
// and the last burst is held for fasthttp's end of the body, so an
// unpaced answer costs one write whatever its length (fasthttp alone
// writes a chunk per 4 KiB, then "0\r\n" and "\r\n" on their own). The
// bytes and the waits are those eventBody.Read gives (TestConnBodyAsRead).
type connBody struct {
	*eventBody
	cw *clientconn.Conn
}

// burstMax bounds one chunk (a huge_event fault's event goes out in
// pieces of it).
const burstMax = 32 << 10

var burstBufs = sync.Pool{New: func() any { b := make([]byte, burstMax+clientconn.ChunkRoom+2); return &b }}

func (c connBody) Read([]byte) (int, error) {
	b := c.eventBody
	if b.ended {
		return 0, io.EOF
	}
	bp := burstBufs.Get().(*[]byte)
	defer burstBufs.Put(bp)
	buf := *bp
	const room = clientconn.ChunkRoom
	for {
		n, err := b.Read(buf[room : len(buf)-2])
		if n > 0 {
			buf[room+n], buf[room+n+1] = '\r', '\n'
			chunk := buf[clientconn.SizeLine(buf[:room], n) : room+n+2]
			if b.next == len(b.sc.steps) && !b.inStep {
				// The last burst: it waits for fasthttp's "0\r\n" and
				// the "\r\n" after it sends all three.
				c.cw.HoldWrite(chunk)
			} else if _, werr := c.cw.Write(chunk); werr != nil {
				return 0, werr
			}
		}
		if err != nil {
			return 0, err
		}
	}
}
