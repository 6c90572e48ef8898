package gauntlet

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Character classes of the text lexer.
const (
	cPlain   = iota // released at once
	cTok            // token byte: ASCII letter, digit, _ - . : / # @
	cSpace          // ' '
	cTerm           // '!' '?' (sentence end; '.' is a token byte)
	cSpecial        // '[' '`' '~' '\n' '\t' '\r': handled by step
)

var class [256]uint8

// tokTab is 0 for a non-token byte, 1 for a letter, 3 for another token byte.
var tokTab [256]uint8

func init() {
	for c := 'a'; c <= 'z'; c++ {
		class[c] = cTok
		class[c-'a'+'A'] = cTok
	}
	for c := '0'; c <= '9'; c++ {
		class[c] = cTok
	}
	for _, c := range "_-.:/#@" {
		class[c] = cTok
	}
	class[' '] = cSpace
	class['!'], class['?'] = cTerm, cTerm
	for _, c := range "[`~\n\t\r" {
		class[c] = cSpecial
	}
	for c := range 256 {
		if class[c] == cTok {
			tokTab[c] = 3
			if isLetter(byte(c)) {
				tokTab[c] = 1
			}
		}
	}
}

// quiet marks the bytes the fast scan passes over without a look: letters,
// space, ASCII punctuation that is not special, and non-ASCII bytes that
// cannot end a CJK full stop. Everything else is a rare, interesting byte.
var quiet [256]bool

func init() {
	for c := range 256 {
		switch {
		case tokTab[c] == 1, class[c] == cSpace:
			quiet[c] = true
		case class[c] == cPlain:
			quiet[c] = c != 0x81 && c != 0x82 && c != 0x9F
		}
	}
}

// fastText processes p in plain text mode for as long as nothing needs the
// step machine; it returns how many bytes it consumed. Its semantics are
// exactly those of step byte by byte (the chunking tests compare the two):
// it skips quiet bytes in a tight loop and looks at tokens only when they
// hold a non-letter, finding their start by scanning back.
func (st *Stream) fastText(dst, p []byte) ([]byte, int) {
	seg, i, floor := 0, 0, 0 // p[seg:i] is unreleased text; no token starts before floor
	term, col, gen := st.term, st.col, st.sentGen
	termPos := -1 // term was set just before this index
	if term {
		termPos = 0
	}
	colEnd, colVal := -1, -1 // the line-start indent, if p starts a line
	if col >= 0 {
		for i < len(p) && p[i] == ' ' {
			if term {
				gen++
				term, termPos = false, -1
			}
			col++
			i++
		}
		colEnd, colVal = i, col
		if i < len(p) && class[p[i]] != cSpecial {
			col = -1
		}
	}
	maxLen := st.spec.maxLen
	tail := false // p ends in a token that may go on in the next delta
loop:
	for i < len(p) {
		c := p[i]
		if quiet[c] {
			if term {
				if c == ' ' {
					gen++
				}
				term = false
			}
			for i++; i < len(p) && quiet[p[i]]; i++ {
			}
			continue
		}
		switch class[c] {
		case cSpecial:
			if c == '`' {
				var ok bool
				if dst, i, ok = st.fastSpan(dst, p, seg, i, termPos == i, colAt(i, colEnd, colVal), gen); !ok {
					break loop
				}
				if st.mode != mText {
					return dst, i
				}
				term, termPos, seg, floor = false, -1, i, i
				continue
			}
			if c != '[' {
				break loop
			}
			// A whole footnote "[^12]" / "[12]" in p is resolved here, as
			// step would resolve it; anything else goes to step.
			j := i + 1
			if j < len(p) && p[j] == '^' {
				j++
			}
			d := j
			for j < len(p) && j-d <= 6 && isDigit(p[j]) {
				j++
			}
			if j == d || j-d > 6 || j == len(p) || p[j] != ']' {
				break loop
			}
			j++
			st.term, st.col, st.sentGen = termPos == i, -1, gen
			if i == colEnd {
				st.col = colVal
			}
			st.roll = 0
			dst = st.relSeg(dst, p[seg:i])
			dst = st.footnotes(dst, p[i:j])
			term, col, gen = st.term, st.col, st.sentGen
			if col >= 0 { // a drop at a line start: step goes on with the indent
				return dst, j
			}
			termPos = -1
			if term {
				termPos = j
			}
			seg, floor, i = j, j, j
		case cTerm:
			term, termPos = true, i+1
			i++
		case cTok: // a digit or punctuation token byte: letters are quiet
			s, e := i, i+1
			for s > floor && tokTab[p[s-1]] != 0 {
				s--
			}
			for e < len(p) && tokTab[p[e]] != 0 {
				e++
			}
			if e == len(p) || e-s > maxLen {
				i = s // may continue in the next delta, or overlong: step handles it
				tail = e == len(p) && e-s <= maxLen
				break loop
			}
			core := p[s : e-trailing(p[s:e])]
			if k := len(core); hasNonLetter(core) {
				k = st.dropStart(core, false)
				if k < len(core) {
					// Back to the state before the token, as step would have it.
					term = termPos == s
					col = -1
					if s == colEnd {
						col = colVal
					}
					st.term, st.col, st.sentGen = term, col, gen
					dst = st.relSeg(dst, p[seg:s])
					if k > 0 {
						dst = st.rel(dst, core[:k])
					}
					st.drop(LeakedID, core[k:])
					term, col = st.term, st.col
					seg = s + len(core)
					if seg == e && k == 0 { // nothing released: term and col stay
						if term {
							termPos = e
						}
						for col >= 0 && e < len(p) && p[e] == ' ' { // still a line's indent
							if term {
								gen++
								term, termPos = false, -1
							}
							col++
							e++
						}
						if col >= 0 {
							colEnd, colVal = e, col
						}
						floor, i = e, e
						continue
					}
					if seg == e { // the kept part ends the output token
						term, col = core[k-1] == '.', -1
						termPos = -1
						if term {
							termPos = e
						}
						floor, i = e, e
						continue
					}
				}
			}
			term, col = p[e-1] == '.', -1
			if term {
				termPos = e
			}
			floor, i = e, e
		default: // the last byte of a possible CJK full stop
			if fullStopAt(p, i, st.roll) {
				gen++
			}
			term = false
			i++
		}
	}
	word := false
	if i == len(p) {
		// A trailing word may go on in the next delta: step holds it. It
		// holds letters only: any other token byte stops the scan above.
		word = true
		s := i
		for s > floor && tokTab[p[s-1]] != 0 {
			s--
		}
		i = s
		tail = len(p)-s <= maxLen
	}
	if i > 0 {
		st.roll = tailRoll(p[:i], st.roll)
	}
	// term and col as they stand after p[:i]
	term, col = termPos == i, -1
	if i == colEnd {
		col = colVal
	}
	st.term, st.col, st.sentGen = term, col, gen
	dst = st.relSeg(dst, p[seg:i])
	if tail && i < len(p) { // hold the trailing token, as step would
		st.hk = hToken
		st.hold = append(st.hold[:0], p[i:]...)
		st.long, st.ctx, st.roll, st.relN, st.aPos = false, st.ctx[:0], 0, 0, 0
		st.word = word
		return dst, len(p)
	}
	return dst, i
}

func colAt(i, colEnd, colVal int) int {
	if i == colEnd {
		return colVal
	}
	return -1
}

// fastSpan handles an inline code span opened at p[i] as step would, given
// the state before p[i]: the text p[seg:i] is released first. It returns
// false, having done nothing, when the backtick run may be a fence or may go
// on in the next delta. Otherwise it returns where text resumes after the
// span's closing run, or, with st.mode still mInline, where the span was
// cut by a newline, an unfinished run or the end of p.
func (st *Stream) fastSpan(dst, p []byte, seg, i int, term bool, col int, gen uint32) ([]byte, int, bool) {
	k := i
	for k < len(p) && p[k] == '`' {
		k++
	}
	n := k - i
	if k == len(p) || n >= 3 && col >= 0 && col <= 3 {
		return dst, i, false
	}
	st.term, st.col, st.sentGen = term, col, gen
	st.roll = 0
	dst = st.relSeg(dst, p[seg:i])
	st.term, st.col = false, -1
	dst = st.rel(dst, p[i:k])
	st.mode, st.codeN = mInline, n
	for {
		q := k
		for q < len(p) && p[q] != '`' && p[q] != '\n' {
			q++
		}
		if q == len(p) || p[q] == '\n' {
			if q > k {
				dst = append(dst, p[k:q]...)
				st.last = p[q-1]
			}
			if q < len(p) {
				st.mode = mText // step takes the newline in text mode
			}
			return dst, q, true
		}
		e := q
		for e < len(p) && p[e] == '`' {
			e++
		}
		dst = append(dst, p[k:e]...)
		st.last = '`'
		if e == len(p) {
			st.btRun = e - q
			return dst, e, true
		}
		if e-q == n {
			st.mode = mText
			return dst, e, true
		}
		k = e
	}
}

// fullStopAt reports whether p[i] ends a CJK full stop; the bytes before p
// come from roll.
func fullStopAt(p []byte, i int, roll uint32) bool {
	var w uint32
	switch i {
	case 0:
		w = roll<<8 | uint32(p[0])
	case 1:
		w = roll<<16 | uint32(p[0])<<8 | uint32(p[1])
	default:
		w = uint32(p[i-2])<<16 | uint32(p[i-1])<<8 | uint32(p[i])
	}
	return fullStop(w)
}

// tailRoll is the roll after text p (preceded by roll): its last plain
// bytes, reset by any ASCII byte.
func tailRoll(p []byte, roll uint32) uint32 {
	if n := len(p); n > 0 && p[n-1] < 0x80 {
		return 0
	}
	k := max(0, len(p)-3)
	if k > 0 {
		roll = 0
	}
	for _, c := range p[k:] {
		if c < 0x80 {
			roll = 0
		} else {
			roll = roll<<8 | uint32(c)
		}
	}
	return roll
}

// fastCode releases code bytes that cannot end the code region.
func (st *Stream) fastCode(dst, p []byte) ([]byte, int) {
	i := 0
	if st.mode == mInline {
		for i < len(p) && p[i] != '`' && p[i] != '\n' {
			i++
		}
	} else if st.fl.state == 3 {
		for i < len(p) && p[i] != '\n' {
			i++
		}
	}
	if i > 0 {
		st.last = p[i-1]
	}
	return append(dst, p[:i]...), i
}

// step processes one byte.
func (st *Stream) step(dst []byte, c byte) []byte {
	switch st.mode {
	case mInline:
		return st.stepInline(dst, c)
	case mFence:
		return st.stepFence(dst, c)
	}
	switch st.hk {
	case hToken:
		if class[c] == cTok {
			st.hold = append(st.hold, c)
			if len(st.hold) > st.spec.maxLen {
				dst = st.longToken(dst)
			}
			return dst
		}
		dst = st.endToken(dst)
		return st.step(dst, c)
	case hDropTok:
		if class[c] == cTok {
			return dst
		}
		st.hk = hNone
		return st.step(dst, c)
	case hMarker:
		return st.stepMarker(dst, c)
	case hSkip:
		switch c {
		case ']':
			st.hk = hNone
		case '\n':
			st.hk = hNone
			return st.step(dst, c)
		}
		return dst
	}
	// hNone, text mode.
	if st.btRun > 0 && c != '`' {
		dst = st.endRun(dst)
		return st.step(dst, c)
	}
	if st.tilde > 0 && c != '~' {
		dst = st.endRun(dst)
		return st.step(dst, c)
	}
	if class[c] != cPlain {
		st.roll = 0
	}
	switch c {
	case '`':
		if st.btRun == 0 {
			st.btLine = st.col >= 0 && st.col <= 3
		}
		st.btRun++
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	case '~':
		if st.tilde > 0 || (st.col >= 0 && st.col <= 3) {
			st.tilde++
		}
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	case '[':
		st.hk, st.mk = hMarker, mkOpen
		st.hold = append(st.hold[:0], c)
		return dst
	case ' ':
		dst = st.holdSpace(dst)
		if st.term {
			st.sentGen++
		}
		st.term = false
		if st.col >= 0 {
			st.col++
		}
		return dst
	case '\n':
		dst = st.relByte(dst, c)
		st.sentGen++
		st.term, st.col = false, 0
		return dst
	case '\t', '\r':
		if st.term {
			st.sentGen++
		}
		st.term, st.col = false, -1
		return st.relByte(dst, c)
	}
	if class[c] == cTok {
		st.hk = hToken
		st.hold = append(st.hold[:0], c)
		st.long, st.ctx, st.word, st.relN, st.aPos = false, st.ctx[:0], false, 0, 0
		return dst
	}
	st.term = class[c] == cTerm
	st.col = -1
	if class[c] == cPlain {
		st.roll = st.roll<<8 | uint32(c)
		if fullStop(st.roll) {
			st.sentGen++
		}
	}
	return st.relByte(dst, c)
}

// fullStop reports whether the last plain bytes are a CJK sentence end
// (。！？), which ends a sentence without a following space.
func fullStop(roll uint32) bool {
	switch roll & 0xFFFFFF {
	case 0xE38082, 0xEFBC81, 0xEFBC9F:
		return true
	}
	return false
}

// endRun resolves a finished backtick or tilde run in text mode.
func (st *Stream) endRun(dst []byte) []byte {
	if st.btRun > 0 {
		if st.btLine && st.btRun >= 3 {
			st.mode, st.fenceCh, st.fenceLen = mFence, '`', st.btRun
			st.fl = fenceLine{state: 3}
		} else {
			st.mode, st.codeN = mInline, st.btRun
		}
		st.btRun = 0
	}
	if st.tilde > 0 {
		if st.tilde >= 3 {
			st.mode, st.fenceCh, st.fenceLen = mFence, '~', st.tilde
			st.fl = fenceLine{state: 3}
		}
		st.tilde = 0
	}
	return dst
}

func (st *Stream) stepInline(dst []byte, c byte) []byte {
	if c == '`' {
		st.btRun++
		st.last = c
		return append(dst, c)
	}
	if st.btRun > 0 {
		closed := st.btRun == st.codeN
		st.btRun = 0
		if closed {
			st.mode = mText
			st.term, st.col = false, -1
			return st.step(dst, c)
		}
	}
	if c == '\n' { // spans end at the end of the line
		st.mode = mText
		return st.step(dst, c)
	}
	st.last = c
	return append(dst, c)
}

func (st *Stream) stepFence(dst []byte, c byte) []byte {
	dst = append(dst, c)
	st.last = c
	fl := &st.fl
	if c == '\n' {
		if (fl.state == 1 || fl.state == 2) && fl.run >= st.fenceLen {
			st.mode = mText
			st.sentGen++
			st.term, st.col = false, 0
		}
		*fl = fenceLine{}
		return dst
	}
	switch fl.state {
	case 0:
		switch {
		case c == ' ' && fl.indent < 3:
			fl.indent++
		case c == st.fenceCh:
			fl.state, fl.run = 1, 1
		default:
			fl.state = 3
		}
	case 1:
		switch {
		case c == st.fenceCh:
			fl.run++
		case c == ' ' || c == '\t':
			fl.state = 2
		default:
			fl.state = 3
		}
	case 2:
		if c != ' ' && c != '\t' {
			fl.state = 3
		}
	}
	return dst
}

// Byte kinds of the prose fast path (fastWords); 0 is any other byte.
const (
	fLetter = 1 + iota // ASCII letter
	fDot               // '.'
	fSpace             // ' '
	fPunct             // printable ASCII that step releases at once ('(' excepted)
	fTerm              // '!' '?'
)

var fastKind [256]uint8

// quietW marks the bytes fastWords passes over without a look: letters,
// spaces and fPunct.
var quietW [256]bool

func init() {
	for c := 0x20; c < 0x7f; c++ {
		switch {
		case tokTab[c] == 1:
			fastKind[c] = fLetter
		case c == '.':
			fastKind[c] = fDot
		case c == ' ':
			fastKind[c] = fSpace
		case class[c] == cTerm:
			fastKind[c] = fTerm
		case class[c] == cPlain && c != '(':
			fastKind[c] = fPunct
		}
		k := fastKind[c]
		quietW[c] = k == fLetter || k == fSpace || k == fPunct
	}
}

// prose reports whether the stream is in the state fastWords handles: text
// mode, nothing held but a space and a word of letters, no drop pending, not
// at a line start.
func (st *Stream) prose() bool {
	if st.mode != mText || st.btRun != 0 || st.tilde != 0 || st.col >= 0 || st.glue || st.open != 0 || st.spaceDel {
		return false
	}
	switch st.hk {
	case hNone:
		return true
	case hToken:
		return !st.long && (st.word || lettersDots(st.hold))
	}
	return false
}

// lettersDots reports whether b is ASCII letters followed by dots (either
// may be none): a token whose core is a word.
func lettersDots(b []byte) bool {
	i := 0
	for i < len(b) && fastKind[b[i]] == fLetter {
		i++
	}
	for i < len(b) && b[i] == '.' {
		i++
	}
	return i == len(b)
}

// fastWords processes plain prose at the start of p, given st.prose():
// words of ASCII letters (with trailing dots), spaces and punctuation that
// step releases at once. Such text is never dropped: the output is the
// input, less one trailing space or a trailing word, which are held. It
// stops before anything else (a digit, a token byte inside a word, a
// marker, a newline, non-ASCII text, a trailing word longer than the
// hold-back) and returns how many bytes it consumed, leaving the state
// exactly as step would leave it there; the general loop goes on from that
// byte.
func (st *Stream) fastWords(dst, p []byte) ([]byte, int) {
	n, maxLen := len(p), st.spec.maxLen
	term, gen := st.term, st.sentGen
	i, h, word := 0, len(st.hold), false // word: a held word ends in p
	if st.hk == hToken {                 // a word of letters (and dots) held from the previous delta
		hd := h > 0 && st.hold[h-1] == '.'
		j := 0
		for j < n && fastKind[p[j]] == fLetter {
			j++
		}
		e := j
		for e < n && p[e] == '.' {
			e++
		}
		if h+e > maxLen || e < n && (tokTab[p[e]] != 0 || fastKind[p[e]] == 0) || hd && j > 0 {
			return dst, 0 // a longer token, one holding a non-letter, or a rare byte next
		}
		if e == n { // the word goes on in the next delta
			st.hold = append(st.hold, p...)
			st.word = j == n && !hd
			return dst, n
		}
		term, i, word = e > j || hd, e, true // endToken releases it whole
	}
	floor := i
	termPos := -1 // term was set just before this index
	if term {
		termPos = i
	}
	end, tok := n, false      // p[:end] is consumed; tok: p[end:] is a trailing token
	back := func(i int) int { // the start of the word ending before p[i]
		for i > floor && fastKind[p[i-1]] == fLetter {
			i--
		}
		return i
	}
loop:
	for i < n {
		c := p[i]
		if quietW[c] {
			if i == termPos && c == ' ' {
				gen++
			}
			for i++; i < n && quietW[p[i]]; i++ {
			}
			continue
		}
		switch fastKind[c] {
		case fDot:
			e := i + 1
			for e < n && p[e] == '.' {
				e++
			}
			if e == n {
				i = n // a trailing token, below
				break loop
			}
			if tokTab[p[e]] != 0 { // a token holding a non-letter: fastText checks it
				end = back(i)
				break loop
			}
			termPos, i = e, e
		case fTerm:
			termPos, i = i+1, i+1
		default:
			end = i
			if tokTab[c] != 0 {
				end = back(i)
			}
			break loop
		}
	}
	if i == n && n > floor && tokTab[p[n-1]] != 0 { // a trailing token: held, as fastText holds it
		s := n
		for s > floor && p[s-1] == '.' {
			s--
		}
		s = back(s)
		end, tok = s, n-s <= maxLen
	}
	term = termPos == end
	if end == 0 && !word && !tok {
		return dst, 0
	}
	// Output: the held space, the held word's unreleased bytes, p[:end]
	// less a trailing space, which is held.
	body, hold := p[:end], st.hold[min(st.relN, h):]
	if !word {
		hold = nil
	}
	held := end > 0 && p[end-1] == ' '
	if held {
		body = body[:end-1]
	}
	if len(hold)+len(body) > 0 {
		if st.space {
			dst = append(dst, ' ')
			st.brWord = false
		}
		dst = append(dst, hold...)
		dst = append(dst, body...)
		st.last = dst[len(dst)-1]
		if st.brWord {
			st.brWord = bracketWord(true, body)
		}
		st.space = false
	} else if held && st.space {
		dst = append(dst, ' ')
		st.last, st.brWord = ' ', false
	}
	st.space = st.space || held
	st.term, st.sentGen, st.roll = term, gen, 0
	if word {
		st.hk, st.hold, st.relN = hNone, st.hold[:0], 0
	}
	if tok {
		st.hk = hToken
		st.hold = append(st.hold[:0], p[end:]...)
		st.long, st.ctx, st.relN, st.aPos = false, st.ctx[:0], 0, 0
		st.word = !hasDot(p[end:])
		return dst, n
	}
	return dst, end
}

func hasDot(b []byte) bool {
	for _, c := range b {
		if c == '.' {
			return true
		}
	}
	return false
}

// lanes is the mask of the first k byte lanes of a word (k <= 8).
func lanes(k int) uint64 { return laneMasks[k&15] }

var laneMasks = [16]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1, 1<<64 - 1}

// lane reports whether byte lane i (0..7) of mask m is set. (The shifts
// here are known to be under 64: Go then needs no check for wider ones.)
func lane(m uint64, i int) bool { return m>>(uint(i)*8&63)&1 != 0 }

// fwFlag has one bit per fastKind, for fastWords8: bit k-1 for kind k,
// 1<<5 for any other byte, and with it 1<<6 for a token byte that is not
// a letter or '.' (a digit or _ - : / # @), which prose8 takes too.
var fwFlag [256]uint8

func init() {
	for c := range 256 {
		switch k := fastKind[c]; {
		case k != 0:
			fwFlag[c] = 1 << (k - 1)
		case tokTab[c] != 0:
			fwFlag[c] = 1<<5 | 1<<6
		default:
			fwFlag[c] = 1 << 5
		}
	}
}

// fastWords8 is fastWords for a delta of at most 8 bytes, the common
// streamed delta, without a data-dependent branch per byte: it reads the
// byte kinds into one word and works on bit masks of them (bit i for
// p[i]). It stops where fastWords would.
func (st *Stream) fastWords8(dst, p []byte) ([]byte, int) {
	// Masks have bit 8*i set for p[i] (one bit per byte lane).
	const lo = 0x0101010101010101
	n := len(p)
	var x, pw uint64 // the byte kinds; p, read before dst is written
	if n == 8 {
		x = uint64(fwFlag[p[0]]) | uint64(fwFlag[p[1]])<<8 | uint64(fwFlag[p[2]])<<16 | uint64(fwFlag[p[3]])<<24 |
			uint64(fwFlag[p[4]])<<32 | uint64(fwFlag[p[5]])<<40 | uint64(fwFlag[p[6]])<<48 | uint64(fwFlag[p[7]])<<56
		pw = binary.LittleEndian.Uint64(p)
	} else {
		for i, c := range p[:min(n, 8)] {
			x |= uint64(fwFlag[c]) << (8 * i)
			pw |= uint64(c) << (8 * i)
		}
	}
	// m: the bytes before the first rare one, the part looked at here.
	m := min(bits.TrailingZeros64(x&(lo<<5))>>3, n)
	if m == 0 {
		return dst, 0
	}
	in := lanes(m)
	letter := x & lo & in
	dot := x >> 1 & lo & in
	space := x >> 2 & lo & in
	term := x >> 4 & lo & in
	if dot&(letter>>8) != 0 {
		return dst, 0 // a letter after a dot: a token with a non-letter core
	}
	non := lo & in &^ (letter | dot) // spaces and punctuation
	// more: p[m] is a rare token byte, the token before it goes on.
	more := m < n && tokTab[p[m]] != 0
	h, maxLen := len(st.hold), st.spec.maxLen
	word := st.hk == hToken
	was := uint64(0) // bit 0: term is set before p[0]
	if word {        // a word of letters (and dots) held from the previous delta
		hd := h > 0 && st.hold[h-1] == '.'
		e := min(bits.TrailingZeros64(non)>>3, m)
		if e == m && more || h+e > maxLen || hd && letter&1 != 0 {
			return dst, 0 // a longer token or one holding a non-letter: the general loop takes it
		}
		if e == n { // it goes on in the next delta
			st.hold = append(st.hold, p...)
			st.word = dot == 0 && !hd
			return dst, n
		}
		if hd {
			was = 1 // the held token ends in '.' if p[0] ends it
		}
	} else if st.term {
		was = 1
	}
	end, tok := m, false // p[:end] is consumed; tok: p[end:] is a trailing token
	if lane(letter|dot, m-1) && (m == n || more) {
		end, tok = (64-bits.LeadingZeros64(non)+7)>>3, m == n
		if !tok && end == 0 && !word {
			return dst, 0
		}
	}
	// A space ends a sentence after '!', '?' or a token ending in '.'. (Each
	// lane holds 0 or 1, so one multiply sums them into the top lane.)
	st.sentGen += uint32((space & lanes(end) & ((term|dot)<<8 | was)) * lo >> 56)
	if end > 0 {
		st.term = lane(term|dot, end-1)
	}
	// Output: the held space, the held word's unreleased bytes, p[:end]
	// less a trailing space, which is held. It is written with 8-byte
	// moves where it can: at most 8 bytes of the held word (the rest was
	// released early) and a whole 8-byte delta, and cut to length after.
	hs := h
	if word {
		hs = min(st.relN, h)
	}
	held := end > 0 && lane(space, end-1)
	bl := end
	if held {
		bl--
	}
	hl := h - hs
	emit := hl+bl > 0
	so := 0 // the held space goes out
	if st.space && (emit || held) {
		so = 1
	}
	total := so + hl + bl
	k := len(dst)
	if cap(dst)-k < 1+hl+8 {
		dst = slices.Grow(dst, 1+hl+8)
	}
	out := dst[k : k+1+hl+8]
	out[0] = ' ' // overwritten when so == 0
	if hl <= 8 && hs+8 <= cap(st.hold) {
		binary.LittleEndian.PutUint64(out[so:], binary.LittleEndian.Uint64(st.hold[hs:hs+8]))
	} else {
		copy(out[so:], st.hold[hs:h])
	}
	binary.LittleEndian.PutUint64(out[so+hl:], pw)
	dst = dst[:k+total]
	if total > 0 {
		st.last = dst[k+total-1]
	}
	// The held space or a space or punctuation in the body ends a bracketed word.
	st.brWord = st.brWord && uint64(so)|non&lanes(bl) == 0
	st.space = held || st.space && !emit
	st.roll = 0
	if word {
		st.hk, st.hold, st.relN = hNone, st.hold[:0], 0
	}
	if tok {
		st.hk = hToken
		if cap(st.hold) >= 8 {
			st.hold = st.hold[:8]
			binary.LittleEndian.PutUint64(st.hold, pw>>(uint(end)*8&63)) // end < n
			st.hold = st.hold[:n-end]
		} else {
			st.hold = append(st.hold[:0], p[end:]...)
		}
		st.long, st.ctx, st.relN, st.aPos = false, st.ctx[:0], 0, 0
		st.word = dot>>(uint(end)*8&63) == 0
		return dst, n
	}
	return dst, end
}
