package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
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

// CheckStream reads an SSE body to its end (at most limit bytes) and checks
// the stream contract.
func CheckStream(r io.Reader, limit int64) StreamCheck {
	var c StreamCheck
	br := bufio.NewReader(io.LimitReader(r, limit))
	var data []byte
	dispatch := func() {
		if data == nil {
			return
		}
		d := bytes.TrimSuffix(data, []byte("\n"))
		data = nil
		c.Events++
		if c.Done {
			c.Problems = append(c.Problems, "event after [DONE]")
			return
		}
		if string(d) == "[DONE]" {
			c.Done = true
			return
		}
		if !gjson.ValidBytes(d) {
			c.Problems = append(c.Problems, fmt.Sprintf("event %d is not JSON", c.Events))
			return
		}
		if e := gjson.GetBytes(d, "error"); e.Exists() {
			c.ErrCode = e.Get("code").Str
			if c.ErrCode == "" {
				c.ErrCode = e.Get("type").Str
			}
			if c.ErrCode == "" {
				c.ErrCode = "unnamed"
			}
			return
		}
		if ct := gjson.GetBytes(d, "choices.0.delta.content"); ct.Type == gjson.String {
			c.Content += ct.Str
		}
		if gjson.GetBytes(d, "choices.0.finish_reason").Type == gjson.String {
			c.Finished = true
			c.Final = string(d)
		}
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			l := bytes.TrimRight(line, "\r\n")
			switch {
			case len(l) == 0:
				dispatch()
			case l[0] == ':':
			case bytes.HasPrefix(l, []byte("data:")):
				v := bytes.TrimPrefix(l[5:], []byte(" "))
				data = append(data, v...)
				data = append(data, '\n')
			}
		}
		if err != nil {
			dispatch()
			if !errors.Is(err, io.EOF) {
				c.Problems = append(c.Problems, "read: "+err.Error())
			}
			break
		}
	}
	if !c.Done {
		c.Problems = append(c.Problems, "stream did not end with [DONE]")
	}
	if c.Done && !c.Finished && c.ErrCode == "" {
		c.Problems = append(c.Problems, "stream ended without finish_reason and without an error event (half-written)")
	}
	return c
}
