package jsonscan

import (
	"unicode/utf8"
	"unsafe"
)

// Chunk is what the relay reads of one chunk: the raw JSON values
// (substrings of the chunk, "" when absent) at the top level, in the first
// choice and in its delta. Nothing is unescaped (gjson would, and allocate,
// for every escaped string). A repeated key counts once, the last one, as
// with encoding/json.
type Chunk struct {
	ID, Created, Model, Err, Choices, Usage string
	HasChoice                               bool
	Content, Finish                         string
	// Report: the chunk has a top-level "citations" or "guard" member
	// (what the proxy's attachReport sets).
	Report bool
}

// ScanChunk checks that data is one JSON value (what gjson.Valid accepts:
// RFC 8259 grammar, no UTF-8 check) and, when it is an object, reads the
// chunk's fields, in a single pass over the bytes. Before, the relay ran
// gjson's validator and then walked the top level, the first choice and
// the delta again: three to four passes over most of each event
// (BenchmarkScanChunk).
func ScanChunk(data string) (Chunk, bool) {
	sc := chunkScanner{s: data}
	i := skipWS(data, 0)
	end, ok := sc.value(i, roleTop)
	if !ok {
		return Chunk{}, false
	}
	if skipWS(data, end) != len(data) {
		return Chunk{}, false
	}
	return sc.v, true
}

// role is where in a chunk a value sits, for the fields ScanChunk keeps.
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
	v Chunk
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
			key = string(AppendUnescaped(nil, key))
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
			sc.v.HasChoice, sc.v.Content, sc.v.Finish = false, "", ""
		case r == roleChoice && key == "delta":
			child = roleDelta
			sc.v.Content = ""
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
			v.ID = val
		case "created":
			v.Created = val
		case "model":
			v.Model = val
		case "error":
			v.Err = val
		case "choices":
			v.Choices = val
		case "usage":
			v.Usage = val
		case "citations", "guard":
			v.Report = true
		}
	case roleChoice:
		if key == "finish_reason" {
			v.Finish = val
		}
	case roleDelta:
		if key == "content" {
			v.Content = val
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
			sc.v.HasChoice = true
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

// ChunkMemo scans a stream's events, most of which are content deltas that
// differ from the one before only in their content string (same id,
// model, index and finish_reason around it). When an event has the bytes
// of the last scanned event before and after its content value, only the
// new content string is validated and the view is the old one, moved by
// the content's change in length; any other event is scanned whole.
// Swapping one JSON string for another keeps the value valid and every
// other field where it was (FuzzChunkMemo checks the memo against
// ScanChunk).
type ChunkMemo struct {
	prev       []byte // the last event scanned whole that had a content string
	cOff, cEnd int    // that content value's bounds in prev
	spans      [8]span
	hasChoice  bool
	report     bool
	ok         bool // prev is usable
	hit        bool // the last Scan took the shortcut
}

// span is a field's bounds in prev (0, 0 when absent), and for each bound
// whether it moves with the content's change in length (1) or stays (0):
// a field before the content stays, one after it moves, and one that
// holds it (choices) keeps its start and moves its end.
type span struct{ a, b, ma, mb int }

// Reset forgets the last event, keeping its buffer for reuse.
func (m *ChunkMemo) Reset() { *m = ChunkMemo{prev: m.prev[:0]} }

// Scan is ScanChunk through the memo.
func (m *ChunkMemo) Scan(data string) (Chunk, bool) {
	if m.ok {
		tail := len(m.prev) - m.cEnd
		if n := len(data) - tail; n > m.cOff && data[m.cOff] == '"' &&
			data[:m.cOff] == string(m.prev[:m.cOff]) && data[n:] == string(m.prev[m.cEnd:]) {
			if end, ok := scanString(data, m.cOff+1); ok && end == n {
				m.hit = true
				return m.view(data, n-m.cEnd), true
			}
		}
	}
	m.hit = false
	v, ok := ScanChunk(data)
	m.remember(data, v, ok)
	return v, ok
}

// Hit reports whether the last Scan took the shortcut: its event has the
// bytes around its content value of the event scanned whole before it
// (the last Scan that was not a hit), only its content string differs.
func (m *ChunkMemo) Hit() bool { return m.hit }

// fields lists v's fields in the order of ChunkMemo.spans.
func (v *Chunk) fields() [8]*string {
	return [8]*string{&v.ID, &v.Created, &v.Model, &v.Err, &v.Choices, &v.Usage, &v.Content, &v.Finish}
}

func (m *ChunkMemo) remember(data string, v Chunk, ok bool) {
	m.ok = false
	if !ok || len(v.Content) < 2 || v.Content[0] != '"' || len(data) > 64<<10 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(data)))
	at := func(f string) (int, int) {
		a := int(uintptr(unsafe.Pointer(unsafe.StringData(f))) - base)
		return a, a + len(f)
	}
	ca, cb := at(v.Content)
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
	m.cOff, m.cEnd, m.hasChoice, m.report, m.ok = ca, cb, v.HasChoice, v.Report, true
}

// view is the remembered view over data, whose content value ends shift
// bytes later than prev's.
func (m *ChunkMemo) view(data string, shift int) Chunk {
	at := func(s span) string { return data[s.a+s.ma*shift : s.b+s.mb*shift] }
	sp := &m.spans
	return Chunk{HasChoice: m.hasChoice, Report: m.report,
		ID: at(sp[0]), Created: at(sp[1]), Model: at(sp[2]), Err: at(sp[3]),
		Choices: at(sp[4]), Usage: at(sp[5]), Content: at(sp[6]), Finish: at(sp[7])}
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// AppendUnescaped appends the JSON string body s (without quotes, valid
// JSON) unescaped; a lone surrogate becomes U+FFFD as in encoding/json.
func AppendUnescaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(s[i+1:])
			if n == 0 {
				dst = append(dst, '\\', 'u')
				continue
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && len(s) >= i+7 && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, n2 := hex4(s[i+3:]); n2 > 0 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, s[i])
		}
	}
	return dst
}

func hex4(s string) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(c)
	}
	return r, 4
}
