package mockllm

// The simulated upstream's streamed answers as they were rendered before
// they were replayed from a script (stream.go): each request laid its
// events out in a plan of its own, with its id and creation time written
// in. Kept as the reference TestReplayAsRendered holds the replay to,
// byte for byte and read by read.

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// refStep is one piece of a simulated stream: wait, then send one event (the
// frame buf[from:to] of the answer's refPlan), or (cut) drop the connection.
type refStep struct {
	wait     time.Duration
	from, to int
	cut      bool
}

// refPlan lays out the events of one streamed answer as frames in one buffer
// ("data: ...\n\n" each, framed by go-sse), with their pacing, before the
// first is sent: a paced stream's events then cost a copy each.
type refPlan struct {
	buf   []byte
	steps []refStep
	wait  time.Duration // before the next event
	at    int           // start of the frame being written
	head  []byte        // the chunk fields every event starts with
	data  []byte        // the event data close frames (scratch)
}

// refPlans are laid-out answers whose streams have ended, for reuse: a
// refPlan's buffer is a few tens of kilobytes per answer.
var refPlans sync.Pool

// refAcquirePlan returns an empty refPlan with room for size bytes of frames.
func refAcquirePlan(size int) *refPlan {
	p, _ := refPlans.Get().(*refPlan)
	if p == nil {
		p = &refPlan{}
	}
	if cap(p.buf) < size {
		p.buf = make([]byte, 0, size)
	}
	*p = refPlan{buf: p.buf[:0], steps: p.steps[:0], head: p.head[:0], data: p.data[:0]}
	return p
}

// refReleasePlan returns p for reuse; nothing may read it after.
func refReleasePlan(p *refPlan) {
	if cap(p.buf) > refPlanKeepMax {
		return
	}
	refPlans.Put(p)
}

// refPlanKeepMax is the largest refPlan buffer kept for reuse.
const refPlanKeepMax = 1 << 20

// open starts an event: its data is appended to buf from here, after the
// "data: " its frame starts with.
func (p *refPlan) open() {
	p.at = len(p.buf)
	p.buf = append(p.buf, refDataField...)
}

const refDataField = "data: "

// close frames the data appended since open as one event, as go-sse's
// Message frames it: a "data: " line per line of it, then the blank line.
// Data of one line (every JSON event) is framed in place; empty data and
// data with line breaks go through go-sse (TestFrameAsGoSSE).
func (p *refPlan) close() {
	data := p.buf[p.at+len(refDataField):]
	if len(data) > 0 && bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		p.buf = append(p.buf, "\n\n"...)
	} else {
		p.data = append(p.data[:0], data...)
		p.buf = frameGoSSE(p.buf[:p.at], p.data)
	}
	p.steps = append(p.steps, refStep{wait: p.wait, from: p.at, to: len(p.buf)})
	p.wait = 0
}

// choice opens a chunk event up to its first choice's delta, which the
// caller appends; endChoice closes it with the finish reason ("" = null).
func (p *refPlan) choice() {
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"choices":[{"index":0,"delta":`...)
}

func (p *refPlan) endChoice(finish string) {
	p.buf = append(p.buf, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		p.buf = append(p.buf, "null"...)
	} else {
		p.buf = gjson.AppendJSONString(p.buf, finish)
	}
	p.buf = append(p.buf, "}]}"...)
	p.close()
}

func (p *refPlan) usage(usage string) {
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"choices":[],"usage":`...)
	p.buf = append(p.buf, usage...)
	p.buf = append(p.buf, '}')
	p.close()
}

// steps lays out the events of one streamed answer, with its pacing and
// its faults, and a usage event with usage when it is not "".
func refSteps(s *Server, a answer, id, model string, created int64, usage string) *refPlan {
	p := refAcquirePlan(256 * (len(a.pieces) + 4))
	p.head = append(p.head, `{"id":`...)
	p.head = gjson.AppendJSONString(p.head, id)
	p.head = append(p.head, `,"object":"chat.completion.chunk","created":`...)
	p.head = strconv.AppendInt(p.head, created, 10)
	p.head = append(p.head, `,"model":`...)
	p.head = gjson.AppendJSONString(p.head, model)
	p.head = append(p.head, `,"system_fingerprint":"mock-fp"`...)
	if a.slowFirst {
		p.wait = s.cfg.SlowFirstDelay
	}
	done := func() *refPlan {
		if usage != "" {
			p.usage(usage)
		}
		p.open()
		p.buf = append(p.buf, "[DONE]"...)
		p.close()
		return p
	}
	if a.toolName != "" {
		p.choice()
		p.buf = append(p.buf, `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_mock_1","type":"function","function":{"name":`...)
		p.buf = gjson.AppendJSONString(p.buf, a.toolName)
		p.buf = append(p.buf, `,"arguments":""}}]}`...)
		p.endChoice("")
		half := len(a.toolArgs) / 2
		for _, part := range []string{a.toolArgs[:half], a.toolArgs[half:]} {
			p.choice()
			p.buf = append(p.buf, `{"tool_calls":[{"index":0,"function":{"arguments":`...)
			p.buf = gjson.AppendJSONString(p.buf, part)
			p.buf = append(p.buf, `}}]}`...)
			p.endChoice("")
		}
		p.choice()
		p.buf = append(p.buf, `{}`...)
		p.endChoice("tool_calls")
		return done()
	}
	p.open()
	p.buf = append(p.buf, p.head...)
	p.buf = append(p.buf, `,"x_mock_trace":`...)
	p.buf = gjson.AppendJSONString(p.buf, id)
	p.buf = append(p.buf, `,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`...)
	p.close()
	for i, piece := range a.pieces {
		if i == a.cutAt {
			// simulated crash: the stream ends without its terminator
			p.steps = append(p.steps, refStep{wait: p.wait, cut: true})
			return p
		}
		if i == a.stallAt {
			p.wait += s.cfg.StallDelay
		}
		// the answer-level faults drawn at piece i (build draws them
		// among the pieces the stream reaches)
		if i == a.badAt {
			p.open()
			p.buf = append(p.buf, `{"id":`...)
			p.buf = gjson.AppendJSONString(p.buf, id)
			p.buf = append(p.buf, `,"choices":[{"index":0,"delta":{"content":"oops`...)
			p.close()
		}
		if i == a.hugeAt {
			p.choice()
			p.buf = append(p.buf, `{"content":`...)
			p.buf = gjson.AppendJSONString(p.buf, strings.Repeat("x", s.cfg.HugeEventBytes))
			p.buf = append(p.buf, '}')
			p.endChoice("")
		}
		p.choice()
		p.buf = append(p.buf, `{"content":`...)
		p.buf = gjson.AppendJSONString(p.buf, piece)
		p.buf = append(p.buf, '}')
		p.endChoice("")
		p.wait = s.cfg.Pace
	}
	p.choice()
	p.buf = append(p.buf, `{}`...)
	p.endChoice("stop")
	return done()
}

// refEventBody is a streamed answer as fasthttp reads it (SetBodyStream); it
// runs on the serving goroutine, with no pipe and no second goroutine per
// stream. fasthttp sends what one Read returns as one chunk and flushes it:
// a Read returns one event after its wait (pacing, a stall), and with it
// the events that follow without a wait, as many as fit, as a model server
// that is not paced sends whatever it has ready.
type refEventBody struct {
	s       *Server
	conn    net.Conn
	id      string
	refPlan *refPlan
	next    int    // the next refStep
	rest    []byte // the part of an event a short Read left
	ended   bool   // every refStep was sent or the connection was cut
	sleep   func(time.Duration)
}

func (b *refEventBody) Read(p []byte) (int, error) {
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	steps := b.refPlan.steps
	for len(b.rest) == 0 && b.next < len(steps) {
		st := steps[b.next]
		if n > 0 && (st.wait > 0 || st.cut) {
			break // send what is ready before waiting
		}
		b.next++
		if st.wait > 0 {
			b.sleep(st.wait)
		}
		if st.cut {
			b.ended = true
			b.conn.Close()
			return 0, refErrCut
		}
		ev := b.refPlan.buf[st.from:st.to]
		m := copy(p[n:], ev)
		n += m
		b.rest = ev[m:]
	}
	if n == 0 && b.next == len(steps) {
		b.ended = true
		return 0, io.EOF
	}
	return n, nil
}

var refErrCut = errors.New("simulated crash: connection cut mid-stream")

// Close is called once fasthttp is done with the body: before its end, the
// client went away.
func (b *refEventBody) Close() error {
	if b.refPlan != nil {
		refReleasePlan(b.refPlan)
		b.refPlan, b.rest = nil, nil
	}
	if !b.ended {
		b.s.log.update(b.id, func(r *Record) { r.Closed = true })
		select {
		case b.s.closed <- b.id:
		default:
		}
	}
	return nil
}
