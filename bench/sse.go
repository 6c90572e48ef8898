package bench

import (
	"fmt"
	"io"

	"github.com/tidwall/gjson"
	"github.com/tmaxmax/go-sse"
)

// StreamCheck is what a client saw of one SSE answer.
type StreamCheck struct {
	Events   int    // data events, [DONE] included
	Done     bool   // the stream ended with data: [DONE]
	Finished bool   // a chunk carried a finish_reason
	ErrCode  string // code (or type) of the error event, if one came
	Content  string // concatenated content deltas
	// Final is the chunk that carried finish_reason (holds the guard object).
	Final string
	// Problems breaks the stream contract: every stream ends with [DONE],
	// nothing follows [DONE], and a stream that did not finish has an error
	// event before [DONE].
	Problems []string
}

// CheckStream reads an SSE body to its end (at most limit bytes) with
// go-sse's reader and checks the stream contract. As in a browser, an
// event is only dispatched by its blank line: a stream cut after its last
// data line has not sent that event.
func CheckStream(r io.Reader, limit int64) StreamCheck {
	var c StreamCheck
	dispatch := func(d string) {
		c.Events++
		if c.Done {
			c.Problems = append(c.Problems, "event after [DONE]")
			return
		}
		if d == "[DONE]" {
			c.Done = true
			return
		}
		if !gjson.Valid(d) {
			c.Problems = append(c.Problems, fmt.Sprintf("event %d is not JSON", c.Events))
			return
		}
		if e := gjson.Get(d, "error"); e.Exists() {
			c.ErrCode = e.Get("code").Str
			if c.ErrCode == "" {
				c.ErrCode = e.Get("type").Str
			}
			if c.ErrCode == "" {
				c.ErrCode = "unnamed"
			}
			return
		}
		if ct := gjson.Get(d, "choices.0.delta.content"); ct.Type == gjson.String {
			c.Content += ct.Str
		}
		if gjson.Get(d, "choices.0.finish_reason").Type == gjson.String {
			c.Finished = true
			c.Final = d
		}
	}
	tail := &tailReader{r: io.LimitReader(r, limit)}
	for ev, err := range sse.Read(tail, &sse.ReadConfig{MaxEventSize: int(min(limit, 1<<30))}) {
		if err != nil {
			c.Problems = append(c.Problems, "read: "+err.Error())
			break
		}
		if ev.Data == "" && ev.Type == "" {
			continue // an id or retry line alone: no data event
		}
		dispatch(ev.Data)
	}
	if tail.n > 0 && !tail.atBoundary() {
		c.Problems = append(c.Problems, "stream cut mid-event (its last line or blank line missing)")
	}
	if !c.Done {
		c.Problems = append(c.Problems, "stream did not end with [DONE]")
	}
	if c.Done && !c.Finished && c.ErrCode == "" {
		c.Problems = append(c.Problems, "stream ended without finish_reason and without an error event (half-written)")
	}
	return c
}

// tailReader remembers how the stream ended, so that a stream cut inside
// an event (which go-sse's reader drops without a word) is reported.
type tailReader struct {
	r   io.Reader
	n   int64
	run []byte // the trailing line-end bytes, at most 4
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, b := range p[:n] {
		switch {
		case b != '\n' && b != '\r':
			t.run = t.run[:0]
		case len(t.run) < 4:
			t.run = append(t.run, b)
		}
	}
	t.n += int64(n)
	return n, err
}

// atBoundary: the stream ended with a blank line (two line ends, each
// "\n", "\r" or "\r\n"), after which nothing is pending.
func (t *tailReader) atBoundary() bool {
	ends := 0
	for i := 0; i < len(t.run); i++ {
		if t.run[i] == '\r' && i+1 < len(t.run) && t.run[i+1] == '\n' {
			i++
		}
		ends++
	}
	return ends >= 2
}
