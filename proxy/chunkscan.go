package proxy

import "unsafe"

// chunkView is what the relay reads of one chunk: the raw JSON values
// (substrings of the chunk, "" when absent) at the top level, in the first
// choice and in its delta. Nothing is unescaped (gjson would, and allocate,
// for every escaped string). A repeated key counts once, the last one, as
// with encoding/json.
type chunkView struct {
	id, created, model, err, choices, usage string
	hasChoice                               bool
	content, finish                         string
	// report: the chunk has a top-level "citations" or "guard" member
	// (what attachReport sets).
	report bool
}

// scanChunk checks that data is one JSON value (what gjson.Valid accepts:
// RFC 8259 grammar, no UTF-8 check) and, when it is an object, reads the
// chunk's fields, in a single pass over the bytes. Before, the relay ran
// gjson's validator and then walked the top level, the first choice and
// the delta again: three to four passes over most of each event
// (BenchmarkScanChunk).
func scanChunk(data string) (chunkView, bool) {
	sc := chunkScanner{s: data}
	i := skipWS(data, 0)
	end, ok := sc.value(i, roleTop)
	if !ok {
		return chunkView{}, false
	}
	if skipWS(data, end) != len(data) {
		return chunkView{}, false
	}
	return sc.v, true
}

// role is where in a chunk a value sits, for the fields scanChunk keeps.
type role uint8

const (
	roleNone    role = iota
	roleTop          // the chunk itself
	roleChoices      // the top-level "choices"
	roleChoice       // its first element
	roleDelta        // that choice's "delta"
)

type chunkScanner struct {
	s string
	v chunkView
}

// value validates the value at s[i] and returns the index after it.
func (sc *chunkScanner) value(i int, r role) (int, bool) {
	s := sc.s
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; c {
	case '{':
		return sc.object(i+1, r)
	case '[':
		return sc.array(i+1, r)
	case '"':
		return scanString(s, i+1)
	case 't':
		return literal(s, i, "true")
	case 'f':
		return literal(s, i, "false")
	case 'n':
		return literal(s, i, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return scanNumber(s, i)
		}
		return i, false
	}
}

func literal(s string, i int, lit string) (int, bool) {
	if len(s)-i >= len(lit) && s[i:i+len(lit)] == lit {
		return i + len(lit), true
	}
	return i, false
}

// strStop marks the bytes that end a run of plain string bytes: the
// quote, the backslash and the control characters JSON forbids.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// scanString validates the string body starting at s[i] (after the
// opening quote) and returns the index after the closing quote.
func scanString(s string, i int) (int, bool) {
	for {
		// Eight plain bytes at a time: no quote, no backslash, no control
		// character (a byte < 0x20) in the word.
		for i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if (hasLess(w, 0x20) | hasZero(w^(lsb*'"')) | hasZero(w^(lsb*'\\'))) != 0 {
				break
			}
			i += 8
		}
		for i < len(s) && !strStop[s[i]] {
			i++
		}
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '"':
			return i + 1, true
		case '\\':
			i++
			if i >= len(s) {
				return i, false
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(s)-i < 5 || !isHex(s[i+1]) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) {
					return i, false
				}
				i += 5
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// hasZero is non-zero when a byte of w is 0; hasLess when a byte of w is
// below n (n <= 128). Bit tricks from "Bit Twiddling Hacks" (Sean Eron
// Anderson, public domain).
func hasZero(w uint64) uint64 { return (w - lsb) &^ w & msb }

func hasLess(w, n uint64) uint64 { return (w - lsb*n) &^ w & msb }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// scanNumber validates the number at s[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(s string, i int) (int, bool) {
	if s[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// object validates the members after '{' at s[i]; in the chunk, the first
// choice and its delta it keeps the fields the relay reads.
func (sc *chunkScanner) object(i int, r role) (int, bool) {
	s := sc.s
	i = skipWS(s, i)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		ke, ok := scanString(s, i+1)
		if !ok {
			return ke, false
		}
		key := s[i+1 : ke-1]
		if r != roleNone && containsByte(key, '\\') {
			key = string(appendUnescaped(nil, key))
		}
		i = skipWS(s, ke)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		i = skipWS(s, i+1)
		child := roleNone
		switch {
		case r == roleTop && key == "choices":
			child = roleChoices
			// A repeated "choices" replaces what an earlier one set.
			sc.v.hasChoice, sc.v.content, sc.v.finish = false, "", ""
		case r == roleChoice && key == "delta":
			child = roleDelta
			sc.v.content = ""
		}
		ve, ok := sc.value(i, child)
		if !ok {
			return ve, false
		}
		if r != roleNone {
			sc.keep(r, key, s[i:ve])
		}
		i = skipWS(s, ve)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipWS(s, i+1)
		default:
			return i, false
		}
	}
}

func (sc *chunkScanner) keep(r role, key, val string) {
	v := &sc.v
	switch r {
	case roleTop:
		switch key {
		case "id":
			v.id = val
		case "created":
			v.created = val
		case "model":
			v.model = val
		case "error":
			v.err = val
		case "choices":
			v.choices = val
		case "usage":
			v.usage = val
		case "citations", "guard":
			v.report = true
		}
	case roleChoice:
		if key == "finish_reason" {
			v.finish = val
		}
	case roleDelta:
		if key == "content" {
			v.content = val
		}
	}
}

// array validates the elements after '[' at s[i]; the first element of
// the chunk's choices is read as the choice.
func (sc *chunkScanner) array(i int, r role) (int, bool) {
	s := sc.s
	i = skipWS(s, i)
	if i < len(s) && s[i] == ']' {
		return i + 1, true
	}
	first := true
	for {
		child := roleNone
		if first && r == roleChoices {
			child = roleChoice
			sc.v.hasChoice = true
		}
		first = false
		e, ok := sc.value(i, child)
		if !ok {
			return e, false
		}
		i = skipWS(s, e)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipWS(s, i+1)
		default:
			return i, false
		}
	}
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// chunkMemo scans a stream's events, most of which are content deltas that
// differ from the one before only in their content string (same id,
// model, index and finish_reason around it). When an event has the bytes
// of the last scanned event before and after its content value, only the
// new content string is validated and the view is the old one, moved by
// the content's change in length; any other event is scanned whole.
// Swapping one JSON string for another keeps the value valid and every
// other field where it was (FuzzChunkMemo checks the memo against
// scanChunk).
type chunkMemo struct {
	prev       []byte // the last event scanned whole that had a content string
	cOff, cEnd int    // that content value's bounds in prev
	spans      [8]span
	hasChoice  bool
	report     bool
	ok         bool // prev is usable
}

// span is a field's bounds in prev (0, 0 when absent), and for each bound
// whether it moves with the content's change in length (1) or stays (0):
// a field before the content stays, one after it moves, and one that
// holds it (choices) keeps its start and moves its end.
type span struct{ a, b, ma, mb int }

func (m *chunkMemo) scan(data string) (chunkView, bool) {
	if m.ok {
		tail := len(m.prev) - m.cEnd
		if n := len(data) - tail; n > m.cOff && data[m.cOff] == '"' &&
			data[:m.cOff] == string(m.prev[:m.cOff]) && data[n:] == string(m.prev[m.cEnd:]) {
			if end, ok := scanString(data, m.cOff+1); ok && end == n {
				return m.view(data, n-m.cEnd), true
			}
		}
	}
	v, ok := scanChunk(data)
	m.remember(data, v, ok)
	return v, ok
}

// fields lists v's fields in the order of chunkMemo.spans.
func (v *chunkView) fields() [8]*string {
	return [8]*string{&v.id, &v.created, &v.model, &v.err, &v.choices, &v.usage, &v.content, &v.finish}
}

func (m *chunkMemo) remember(data string, v chunkView, ok bool) {
	m.ok = false
	if !ok || len(v.content) < 2 || v.content[0] != '"' || len(data) > 64<<10 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(data)))
	at := func(f string) (int, int) {
		a := int(uintptr(unsafe.Pointer(unsafe.StringData(f))) - base)
		return a, a + len(f)
	}
	ca, cb := at(v.content)
	for i, f := range v.fields() {
		if *f == "" {
			m.spans[i] = span{}
			continue
		}
		a, b := at(*f)
		// A field is before the content, after it, or holds it (choices);
		// any other layout is not one the memo can move.
		switch {
		case b <= ca:
			m.spans[i] = span{a, b, 0, 0}
		case a >= cb:
			m.spans[i] = span{a, b, 1, 1}
		case a <= ca && b >= cb:
			m.spans[i] = span{a, b, 0, 1}
		default:
			return
		}
	}
	m.prev = append(m.prev[:0], data...)
	m.cOff, m.cEnd, m.hasChoice, m.report, m.ok = ca, cb, v.hasChoice, v.report, true
}

// view is the remembered view over data, whose content value ends shift
// bytes later than prev's.
func (m *chunkMemo) view(data string, shift int) chunkView {
	at := func(s span) string { return data[s.a+s.ma*shift : s.b+s.mb*shift] }
	sp := &m.spans
	return chunkView{hasChoice: m.hasChoice, report: m.report,
		id: at(sp[0]), created: at(sp[1]), model: at(sp[2]), err: at(sp[3]),
		choices: at(sp[4]), usage: at(sp[5]), content: at(sp[6]), finish: at(sp[7])}
}
