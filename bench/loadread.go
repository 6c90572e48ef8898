package bench

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/answer-guard/guard/internal/sse"
)

// maxStreamEvent bounds one event of a streamed answer (the reader grows
// its buffer up to it, from 4 KiB); the simulated upstream's huge event
// fault stays far below.
const maxStreamEvent = 16 << 20

// internDecision returns the decision names without a copy per request.
func internDecision(d string) string {
	for _, k := range []string{"ground", "refuse", "fallback", "passthrough"} {
		if d == k {
			return k
		}
	}
	return strings.Clone(d)
}

// readStream reads an SSE answer to its end. It returns the time to the
// first non-empty content delta, the error kind ("" when the stream
// finished and ended with [DONE]) and the guard's decision from the final
// chunk ("" when it carries none).
//
// The generator shares the machine with what it measures, so it reads
// with the proxy's own reader (internal/sse: no copy and no allocation per
// event, FuzzSSEReader holds it to go-sse's reading), not go-sse's Read,
// which cost 60 us and 50 allocations per 24-event stream against 6 us
// and none (BenchmarkReadStream), and it does as little per event as the
// report needs: an event is parsed (gjson) only until the first content,
// a content chunk is known by its last bytes (ordinaryChunk) and not
// searched, and the guard's decision is read once, from the chunk that
// finishes. CheckStream, where the contract matters more than the cost,
// reads with go-sse.
func readStream(r io.Reader, t0 time.Time) (ttft time.Duration, kind, decision string) {
	if r == nil {
		return 0, "stream_empty", ""
	}
	src := sse.NewReader(r, maxStreamEvent)
	defer src.Release()
	finished, errEvent := false, false
	for {
		ev, more, err := src.Next(nil)
		if err != nil {
			if errors.Is(err, sse.ErrEventTooLarge) {
				return ttft, "stream_event_too_large", decision
			}
			return ttft, errKind(err), decision
		}
		if !more {
			return ttft, "stream_no_done", decision
		}
		// data views the reader's buffer: valid until the next event.
		data := ev.Data
		if len(data) > 0 && (maySpace(data[0]) || maySpace(data[len(data)-1])) {
			data = bytes.TrimSpace(data)
		}
		if string(data) == "[DONE]" {
			switch {
			case errEvent:
				return ttft, "stream_error_event", decision
			case !finished:
				return ttft, "stream_unfinished", decision
			}
			return ttft, "", decision
		}
		text := unsafe.String(unsafe.SliceData(data), len(data))
		if ttft == 0 {
			if c := gjson.Get(text, "choices.0.delta.content"); c.Type == gjson.String && c.Str != "" {
				ttft = time.Since(t0)
			}
		}
		if bytes.HasSuffix(data, ordinaryChunk) {
			continue
		}
		// A key cannot occur inside a JSON string, whose quotes are
		// escaped: the text `"error"` is a candidate error key, and
		// `"finish_reason"` followed by a colon and a quote a finish
		// reason that is a string; gjson confirms both where they are.
		if strings.Contains(text, `"error"`) && gjson.Get(text, "error").Exists() {
			errEvent = true
		}
		if !finished && finishNamed(text) && gjson.Get(text, "choices.0.finish_reason").Type == gjson.String {
			finished = true
			// gjson's Str of an unescaped string views data: copied
			// unless it is one of the known names.
			decision = internDecision(gjson.Get(text, "guard.decision").Str)
		}
	}
}

// ordinaryChunk ends a chunk whose (one) choice has not finished: such an
// event is taken for what it ends as, a content chunk with neither an
// error nor a finish reason, and not searched for them (two searches of
// the whole event, about 0.3 us each, on 105 of a guarded turn's 106
// events). Every chunk the guard and the simulated upstream send ends so
// but the one that finishes, a usage chunk and a fault's broken event; an
// event that ends otherwise is searched whole.
var ordinaryChunk = []byte(`"finish_reason":null}]}`)

// maySpace reports a byte that can begin or end white space as
// bytes.TrimSpace reads it: an ASCII control or space (\v and \f too, not
// only JSON's four) or a byte of a multi-byte rune (U+0085, U+00A0, U+2000
// and the like). A JSON event begins with '{' and ends with '}', so the
// trim is skipped for every ordinary event; "data:\v[DONE]" is still the end.
func maySpace(c byte) bool { return c <= ' ' || c >= 0x80 }

// finishNamed reports whether an event has a "finish_reason" key whose
// value is a string (not null): a test on the text, before any parse.
func finishNamed(data string) bool {
	// Searched from its first letter, not its quote: JSON is full of
	// quotes, and strings.Index tries each.
	const key = `finish_reason"`
	for {
		i := strings.Index(data, key)
		if i < 0 {
			return false
		}
		quoted := i > 0 && data[i-1] == '"'
		data = strings.TrimLeft(data[i+len(key):], " \t\r\n")
		if !quoted {
			continue
		}
		if len(data) > 0 && data[0] == ':' {
			if v := strings.TrimLeft(data[1:], " \t\r\n"); len(v) > 0 && v[0] == '"' {
				return true
			}
		}
	}
}
