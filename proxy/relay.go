package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/answer-guard/guard/internal/clientconn"
	"github.com/answer-guard/guard/internal/jsonscan"

	"github.com/answer-guard/guard/internal/peerclose"
	"github.com/answer-guard/guard/internal/sidetext"
	"github.com/answer-guard/guard/internal/sse"
)

// relay moves one upstream stream to the client.
//
// Events that are already read and waiting are written together: each
// event is appended to out, and out is written and flushed (one write, one
// flush) right before the relay would wait on the upstream, so no event
// waits for the next one and a burst of events costs one syscall. In
// steady state nothing is allocated per event: the event bytes stay in the
// reader's buffer, the chunk is scanned in place, and a rewritten content
// is spliced into a reused buffer (TestRelayAllocs).
type relay struct {
	*exchange
	src  *sse.Reader
	up   io.Closer // the upstream answer src reads, closed once it is over (nil in tests)
	pass bool      // the pass-through turn: content is relayed as it is

	// As the body of a served stream (Read, Close): the relay writes its
	// chunks to cw, the client connection, itself (nil in tests, which
	// relay to a plain writer: no chunk framing, no probe peeking).
	cw    *clientconn.Conn
	owed  bool // cw holds bytes the relay must send before it waits
	ctx   context.Context
	first sse.Event
	ran   bool // Read or Close started the stream's end
	// panicked: the relay's run panicked (recoverRun); its turn and
	// buffers are dropped, not pooled
	panicked bool

	// ps holds the mutex that guards w, lastWrite and wErr (the probe
	// writes too). It is per stream, never pooled: a probe tick that fires
	// after the stream ended locks it while r may already serve another.
	ps        *probeState
	w         io.Writer
	lastWrite time.Time
	wErr      error

	waitFn func() // r.wait as a value, made once
	// seenBlocks is src.blocks at the wait that last started the idle
	// clock.
	seenBlocks uint64
	keyed      bool   // registered with the server's keyed streams (revoke.go)
	sides      bool   // a side text was filtered (side.go, internal/sidetext): close the filters at the end
	gone       bool   // a flush failed (relay goroutine only)
	out        []byte // chunkRoom bytes, then the events not yet written
	buf        []byte // the turn's output for one delta
	edit       []byte // a rewritten event
	text       []byte // an unescaped content delta
	compact    bytes.Buffer
	memo       jsonscan.ChunkMemo
	sideMemo   sidetext.Memo
	head       []byte // id/object/created/model of the upstream chunks, for chunks we add
	fin        []byte // the finish chunk with the report
	finished   bool
	done       bool
	sentDone   bool
	// summarized: the request log went to the server (summarizeOnce).
	summarized bool
	usage      []byte // the held usage chunk
	hasUsage   bool
}

// chunkRoom is the room kept at the start of relay.out for an HTTP chunk's
// size line, so that a chunk goes out in one write without a copy. outMax
// bounds what waits for the upstream to pause (internal/waitread).
const chunkRoom, outMax = clientconn.ChunkRoom, 32 << 10

var relayPool sync.Pool

func newRelay(x *exchange, src *sse.Reader) *relay {
	r, _ := relayPool.Get().(*relay)
	if r == nil {
		r = &relay{}
		r.waitFn = r.wait
	}
	_, pass := x.turn.(passTurn)
	r.ps = &probeState{}
	r.exchange, r.src, r.pass = x, src, pass
	if len(r.out) < chunkRoom {
		// A paced stream queues one event (~300 bytes) at a time; a
		// burst grows out, and a pooled relay keeps what it grew.
		r.out = make([]byte, chunkRoom, 1<<10)
	}
	return r
}

// free returns r to the pool once its stream writer is done with it.
func (r *relay) free() {
	const keep = 64 << 10 // don't pool what one huge answer grew
	if cap(r.out) > keep || cap(r.buf) > keep || cap(r.edit) > keep || cap(r.text) > keep || r.compact.Cap() > keep {
		return
	}
	if cap(r.fin) > keep {
		r.fin = nil
	}
	*r = relay{waitFn: r.waitFn, out: r.out[:chunkRoom], buf: r.buf[:0], edit: r.edit[:0], text: r.text[:0],
		compact: r.compact, usage: r.usage[:0], memo: r.memo, head: r.head[:0], fin: r.fin[:0]}
	r.memo.Reset()
	r.compact.Reset()
	relayPool.Put(r)
}

// emit queues one data event; flush writes it.
func (r *relay) emit(data []byte) {
	r.out = append(append(append(r.out, "data: "...), data...), "\n\n"...)
}

func (r *relay) emitString(data string) {
	r.out = append(append(append(r.out, "data: "...), data...), "\n\n"...)
}

// flush writes the queued events in one write. On failure the client is
// gone and the upstream request is cancelled.
func (r *relay) flush() {
	if len(r.out) == chunkRoom || r.gone {
		r.out = r.out[:chunkRoom]
		if r.owed && !r.gone {
			// Nothing queued, but cw holds what the client is owed (the
			// response header, or the last chunk): send it before the
			// relay waits.
			r.owed = false
			r.ps.mu.Lock()
			if r.wErr == nil {
				r.writeDone(r.cw.Release())
			}
			r.ps.mu.Unlock()
		}
		return
	}
	r.ps.mu.Lock()
	if r.wErr == nil {
		_, err := r.w.Write(r.frame())
		r.writeDone(err)
	}
	r.gone = r.wErr != nil
	r.ps.mu.Unlock()
	r.out = r.out[:chunkRoom]
	r.owed = false // the write took what cw held along
}

// wait runs right before the relay waits on the upstream: it writes what
// is queued, then times the wait (events already received are no pause).
func (r *relay) wait() {
	r.flush()
	if r.pass {
		r.armProbe()
	}
	if r.watch != nil && r.src.Blocks() != r.seenBlocks {
		// idle_timeout runs from the first wait after a complete event
		// block: bytes that trickle in without completing one do not
		// restart it.
		r.seenBlocks = r.src.Blocks()
		r.watch.waiting()
	}
}

// writeDone records the outcome of a write to the client (under ps.mu).
func (r *relay) writeDone(err error) {
	if err != nil {
		r.wErr = err
		r.stop(errClientGone)
		return
	}
	r.lastWrite = time.Now()
}

// frame returns the queued events as one write: as they are, or as one
// HTTP chunk when the relay writes to the connection (the size line goes
// in the room kept before them).
func (r *relay) frame() []byte {
	if r.cw == nil {
		return r.out[chunkRoom:]
	}
	n := len(r.out) - chunkRoom
	r.out = append(r.out, "\r\n"...)
	return r.out[clientconn.SizeLine(r.out[:chunkRoom], n):]
}

// probeTick runs every server.disconnect_probe while the stream lasts, in
// pass-through from the relay's first wait on the upstream (armProbe; a
// self-rearming timer, so a short stream costs no goroutine): it peeks at
// the client socket and, when nothing was written for a whole interval,
// writes an SSE comment, so that a client who went away is noticed (a
// failed flush is the only other disconnect signal) and the upstream
// request is cancelled then.
//
// p is the probe of one run: it outlives the run (a tick may fire after
// it), and once p.ended is set (under p.mu) a tick does nothing, even when
// r has been pooled and reused since.
func (r *relay) probeTick(p *probeState, every time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	if r.wErr == nil && r.cw != nil && peerclose.Closed(r.cw) {
		r.wErr = errClientGone
		r.stop(errClientGone)
	}
	if r.wErr == nil && time.Since(r.lastWrite) >= every {
		keep := ": keep-alive\n\n"
		if r.cw != nil {
			keep = "e\r\n" + keep + "\r\n"
		}
		_, err := io.WriteString(r.w, keep)
		r.writeDone(err)
	}
	if r.wErr == nil {
		p.t.Reset(every)
	}
}

// armProbe starts the probe's ticks, once per run.
func (r *relay) armProbe() {
	p := r.ps
	if p.t != nil {
		// Armed already: every wait of a paced stream gets here. Only
		// this goroutine sets p.t, so it reads it without the lock.
		return
	}
	p.mu.Lock() // p.t is set before the first tick reads it
	if p.t == nil && !p.ended {
		every := r.rt.cfg.Server.DisconnectProbe
		p.t = time.AfterFunc(every, func() { r.probeTick(p, every) })
	}
	p.mu.Unlock()
}

type probeState struct {
	mu    sync.Mutex
	t     *time.Timer
	ended bool // the run is over (guarded by mu)
}

func (r *relay) run(ctx context.Context, w io.Writer, first sse.Event) {
	r.w, r.lastWrite = w, time.Now()
	p := r.ps
	if !r.pass {
		// The guard's own work (strict verification) can keep the relay
		// from writing without any wait on the upstream: probe from the
		// start. A pass-through relay only ever stops writing to wait,
		// so its probe starts at its first wait (wait), and a stream the
		// upstream sends without a pause never arms one.
		r.armProbe()
	}
	// The probe must be done before fasthttp's final flush of w: once
	// ended is set under mu, a tick that still runs writes nothing.
	defer func() {
		p.mu.Lock()
		if p.t != nil {
			p.t.Stop()
		}
		p.ended = true
		p.mu.Unlock()
	}()

	if r.watch != nil {
		// idle_timeout times the relay's waits, until the answer is over.
		defer r.watch.ended()
	}
	ok := r.event(ctx, first)
	for ok && !r.done && !r.gone {
		if len(r.out) > outMax { // an upstream that never pauses: write anyway
			r.flush()
		}
		ev, more, err := r.src.Next(r.waitFn)
		if err != nil {
			r.failMidStream(ctx, cause(ctx, err))
			break
		}
		if !more {
			break
		}
		ok = r.event(ctx, ev)
	}
	r.closeStream(ctx)
	if r.cw != nil && !r.gone {
		// The last chunk waits for the end of the body that fasthttp
		// writes once Read returns (internal/clientconn): "0\r\n" is held too, the
		// trailer's "\r\n" sends all three in one write.
		r.ps.mu.Lock()
		if r.wErr == nil {
			if len(r.out) > chunkRoom {
				r.cw.HoldWrite(r.frame())
				r.owed = true
			} else {
				r.cw.HoldNext()
			}
		}
		r.ps.mu.Unlock()
		r.out = r.out[:chunkRoom]
	} else {
		r.flush()
	}
	if r.up != nil {
		// The upstream answer is over: its connection goes back to the
		// pool now. Reading the body's end rarely waits (the terminator
		// came with [DONE]); when it would, src's hook (r.wait) sends
		// what the client is owed first, so [DONE] is never delayed.
		r.up.Close()
	}
	if !r.finished {
		// The answer never finished (client gone, upstream failed): join
		// the sentence checks the turn started before the request ends.
		r.turn.Abandon()
	}
	r.summarizeOnce()
}

// closeStream queues the stream's end: the usage chunk the client asked
// for and [DONE], or an error event when the answer never finished.
func (r *relay) closeStream(ctx context.Context) {
	if !r.finished && !r.sentDone {
		// [DONE] or the end of the body came before any finish_reason.
		r.failMidStream(ctx, cause(ctx, errors.New("upstream ended the stream before the answer finished")))
	}
	if r.finished && !r.sentDone && !r.gone {
		if r.hasUsage {
			r.emit(r.usage)
		}
		// The turn is complete: summarize it before the client can read
		// [DONE] (still queued with the last events, so no extra write),
		// and an operator read made right after the stream ends
		// (GET /v1/guard/turns, the gap queue) finds it. A client that
		// vanishes during this last write is logged as 200, not 499.
		if r.wOK() {
			r.log.status = 200
			r.summarizeOnce()
		}
		r.emitString("[DONE]")
	}
}

// Read runs the whole stream on its first call: fasthttp reads the body
// of a streamed answer (Response.SetBodyStream) on the serving goroutine
// once the handler returned, and the relay writes its chunks to the client
// connection itself, so no goroutine and no pipe sit between the upstream
// and the client. p is not used; the end of the stream is io.EOF, after
// which fasthttp writes the end of the chunked body.
func (r *relay) Read([]byte) (n int, err error) {
	if !r.ran {
		r.ran = true
		defer r.recoverRun(&err)
		r.run(r.ctx, r.cw, r.first)
	}
	return 0, io.EOF
}

// recoverRun turns a panic in the relay (a bug in a stage it runs: the
// gauntlet, a verifier) into the end of this stream alone: its upstream
// request is cancelled and the client connection closes without the final
// chunk, which a client reads as a failed stream.
func (r *relay) recoverRun(err *error) {
	if v := recover(); v != nil {
		r.s.caught("stream", v)
		r.panicked = true // its turn and buffers are not pooled again
		r.stop(errStreamPanic)
		func() {
			defer func() { _ = recover() }() // the turn is already broken: a second panic is dropped
			r.turn.Abandon()                 // joins the checks it started
		}()
		r.log.failure = errStreamPanic
		r.summarizeOnce()
		*err = errStreamPanic
	}
}

var errStreamPanic = errors.New("internal error: the relay panicked (logged with its stack)")

// Close ends the served stream once fasthttp is done with the body (also
// when it never read it: the client went away before the header was
// written) and gives the relay back to the pool.
func (r *relay) Close() error {
	if !r.ran {
		r.ran = true
		r.ps.mu.Lock()
		r.wErr = errClientGone
		r.ps.mu.Unlock()
		r.stop(errClientGone)
		r.turn.Abandon()
		r.summarizeOnce()
	}
	// The relay was the turn's last user (Read ended it: finished, or
	// abandoned and joined), and fasthttp is done with the body.
	if !r.panicked {
		releaseTurn(r.turn)
	}
	s, stop := r.s, r.stop
	// The upstream stream is closed before its context ends: a context
	// that ends first closes the connection (upstream.postStream), which a
	// finished stream would have given back to the pool.
	if r.up != nil { // nil on the event loop (evloop.go)
		r.up.Close()
	}
	r.src.Release()
	stop(nil)
	if r.keyed {
		s.keyed.remove(r.watch)
	}
	if !r.panicked {
		r.free()
	}
	s.streams.Done()
	return nil
}

// summarizeOnce closes the request log and hands it to the server, once.
func (r *relay) summarizeOnce() {
	if r.summarized {
		return
	}
	r.summarized = true
	r.log.upWait += r.src.Waited()
	if !r.wOK() {
		r.log.failure = errClientGone
		if r.log.status == 0 {
			r.log.status = 499
		}
	}
	r.log.finished = time.Now()
	r.s.summarize(r.log)
}

func (r *relay) wOK() bool {
	r.ps.mu.Lock()
	defer r.ps.mu.Unlock()
	return r.wErr == nil && !r.gone
}

// b2s views b as a string without copying; b must not change while the
// string is in use.
func b2s(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// event handles one upstream event; false ends the relay.
func (r *relay) event(ctx context.Context, ev sse.Event) bool {
	data := ev.Data
	if string(data) == "[DONE]" {
		r.done = true
		return true
	}
	f, valid := r.memo.Scan(b2s(data))
	if !valid {
		r.failMidStream(ctx, errors.New("upstream sent an event that is not JSON"))
		return false
	}
	sf, filter := r.turn.(sidetext.Filter)
	side := filter && !r.pass && r.sideMemo.Has(data, f.Choices, f.Content, r.memo.Hit()) // before data changes
	if !ev.OneLine && (bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0) {
		// A multi-line data field: re-emit it on one line so each event
		// stays one "data:" line for the client.
		r.compact.Reset()
		if err := json.Compact(&r.compact, data); err != nil {
			r.failMidStream(ctx, err)
			return false
		}
		data = r.compact.Bytes()
		f, _ = jsonscan.ScanChunk(b2s(data))
	}
	if f.Err != "" || ev.Type == "error" {
		// An upstream error event: flush what is held, pass the error on.
		r.flushTail(ctx)
		r.log.failure = fmt.Errorf("upstream error event: %s", gjson.Get(f.Err, "message").Str)
		r.log.status = 502
		r.emit(data)
		r.emitString("[DONE]")
		r.done, r.sentDone = true, true
		return false
	}
	if len(r.head) == 0 && !r.pass { // only a held tail needs it: pass-through holds none
		r.head = append(r.head, `{"id":`...)
		r.head = append(r.head, orNull(f.ID)...)
		r.head = append(r.head, `,"object":"chat.completion.chunk","created":`...)
		r.head = append(r.head, orNull(f.Created)...)
		r.head = append(r.head, `,"model":`...)
		r.head = append(r.head, orNull(f.Model)...)
	}
	if strings.HasPrefix(f.Choices, "[") && !f.HasChoice {
		// The usage chunk: forced upstream, forwarded only if asked for.
		if r.req.includeUsage && f.Usage != "" {
			r.usage, r.hasUsage = append(r.usage[:0], data...), true
		}
		return true
	}
	if !r.req.includeUsage && f.Usage != "" {
		data, _ = sjson.DeleteBytes(data, "usage")
		f, _ = jsonscan.ScanChunk(b2s(data))
	}
	if c := f.Content; strings.HasPrefix(c, `"`) {
		switch {
		case r.pass:
			// Pass-through: the content goes out as the upstream wrote it.
			if len(c) > 2 && r.log.ttft == 0 {
				r.log.ttft = time.Since(r.log.start)
			}
		default:
			text := r.unquote(data, c)
			r.buf = r.turn.Content(ctx, r.buf[:0], text)
			if !bytes.Equal(r.buf, text) {
				edited, ok := splice(r.edit[:0], data, c, r.buf)
				if !ok {
					r.failMidStream(ctx, errors.New("upstream chunk content could not be rewritten"))
					return false
				}
				r.edit, data = edited, edited
			}
			if len(r.buf) > 0 && r.log.ttft == 0 {
				r.log.ttft = time.Since(r.log.start)
			}
		}
	}
	if filter && !r.pass {
		if end := strings.HasPrefix(f.Finish, `"`); side || end && r.sides {
			// Other choices, reasoning_content, refusal (side.go, internal/sidetext): the
			// chunk is rewritten whole, off the fast path.
			r.sides = true
			edited, err := sidetext.Rewrite(sf, data, "delta", end)
			if err != nil {
				r.failMidStream(ctx, fmt.Errorf("upstream chunk side text could not be rewritten: %w", err))
				return false
			}
			data = edited
		}
	}
	if strings.HasPrefix(f.Finish, `"`) {
		tail, rep := r.turn.Finish(ctx, r.buf[:0])
		r.buf = tail
		if len(tail) > 0 {
			prev := gjson.GetBytes(data, "choices.0.delta.content").Str
			data, _ = sjson.SetBytes(data, "choices.0.delta.content", prev+string(tail))
		}
		// The tail set no report member. Written into the relay's own
		// buffer: data is the reader's, r.edit or r.compact, never r.fin.
		r.fin = appendReport(r.fin[:0], data, rep, f.Report)
		data = r.fin
		r.log.report = rep
		r.finished = true
	}
	r.emit(data)
	return true
}

// unquote returns the text of the JSON string raw (a slice of data): the
// bytes inside the quotes when there is no escape, else unescaped into
// r.text.
func (r *relay) unquote(data []byte, raw string) []byte {
	inner := raw[1 : len(raw)-1]
	if strings.IndexByte(inner, '\\') < 0 {
		if off, ok := offsetIn(data, raw); ok {
			return data[off+1 : off+len(raw)-1]
		}
		r.text = append(r.text[:0], inner...)
		return r.text
	}
	r.text = jsonscan.AppendUnescaped(r.text[:0], inner)
	return r.text
}

// offsetIn returns where raw, a substring of data, starts in data.
func offsetIn(data []byte, raw string) (int, bool) {
	if len(data) == 0 || len(raw) == 0 {
		return 0, false
	}
	off := int(uintptr(unsafe.Pointer(unsafe.StringData(raw))) - uintptr(unsafe.Pointer(&data[0])))
	return off, off >= 0 && off+len(raw) <= len(data)
}

// splice appends to dst the event data with the JSON string value raw (a
// slice of data) replaced by text.
func splice(dst, data []byte, raw string, text []byte) ([]byte, bool) {
	off, ok := offsetIn(data, raw)
	if !ok {
		return dst, false
	}
	dst = append(dst, data[:off]...)
	dst = jsonscan.AppendQuoted(dst, text)
	return append(dst, data[off+len(raw):]...), true
}

func orNull(raw string) string {
	if raw == "" {
		return "null"
	}
	return raw
}

// flushTail emits held-back text (if any) as a content chunk of its own.
func (r *relay) flushTail(ctx context.Context) {
	if r.finished {
		return
	}
	tail, rep := r.turn.Finish(ctx, r.buf[:0])
	r.log.report = rep
	r.finished = true // no finish chunk will follow
	if len(tail) > 0 && len(r.head) > 0 {
		r.emitString(string(r.head) + `,"choices":[{"index":0,"delta":{"content":` + jsonString(string(tail)) + `},"logprobs":null,"finish_reason":null}]}`)
	}
}

// failMidStream ends a stream whose upstream failed after it began: the held
// text, one error event, then the end of the stream.
func (r *relay) failMidStream(ctx context.Context, err error) {
	if !r.wOK() {
		return
	}
	r.flushTail(ctx)
	ae := toAPIError(err)
	if ae.Code == "upstream_unavailable" {
		ae = &APIError{Status: 502, Type: "upstream_error", Code: "upstream_stream_failed",
			Message: "the upstream stream failed before the answer finished", Err: err}
	}
	r.log.failure, r.log.status = ae, ae.Status
	r.emit(ae.body())
	r.emitString("[DONE]")
	r.done, r.sentDone = true, true
}
