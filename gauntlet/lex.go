package gauntlet

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

// fastText processes p in plain text mode for as long as nothing needs the
// step machine; it returns how many bytes it consumed. Semantics are those
// of step, byte by byte.
func (st *Stream) fastText(dst, p []byte) ([]byte, int) {
	seg := 0 // start of the pending segment p[seg:i]
	i := 0
	term, col, gen, roll := st.term, st.col, st.sentGen, st.roll // kept in registers
	maxLen := st.spec.maxLen
loop:
	for i < len(p) {
		switch class[p[i]] {
		case cTok:
			j, nl := i, uint8(0)
			for j < len(p) {
				k := tokTab[p[j]]
				if k == 0 {
					break
				}
				nl |= k
				j++
			}
			if j == len(p) || j-i > maxLen {
				break loop // may continue in the next delta, or overlong: step handles it
			}
			if nl&2 != 0 { // not a plain word
				core := p[i : j-trailing(p[i:j])]
				if hasNonLetter(core) && st.leaked(core) {
					st.term, st.col, st.sentGen, st.roll = term, col, gen, 0
					dst = st.relSeg(dst, p[seg:i])
					st.drop(LeakedID, core)
					term, col, roll = st.term, st.col, 0
					seg = i + len(core)
					if seg == j { // nothing released: term and col stay
						i = j
						continue
					}
				}
			}
			term = p[j-1] == '.'
			col, roll = -1, 0
			i = j
		case cSpace:
			if term {
				gen++
			}
			term, roll = false, 0
			if col >= 0 {
				col++
			}
			i++
		case cPlain:
			term = false
			col = -1
			if roll = roll<<8 | uint32(p[i]); fullStop(roll) {
				gen++
			}
			i++
		case cTerm:
			term = true
			col, roll = -1, 0
			i++
		default:
			break loop
		}
	}
	st.term, st.col, st.sentGen, st.roll = term, col, gen, roll
	return st.relSeg(dst, p[seg:i]), i
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
		dst = st.settle(dst, ' ')
		st.space = true
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
		st.long, st.ctx = false, st.ctx[:0]
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
