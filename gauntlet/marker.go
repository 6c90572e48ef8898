package gauntlet

import (
	"strconv"
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// stepMarker advances a held "[..." by one byte.
func (st *Stream) stepMarker(dst []byte, c byte) []byte {
	s := st.spec
	switch st.mk {
	case mkOpen:
		switch {
		case c == '^' || isDigit(c):
			st.mk = mkNum
			st.caret, st.digits, st.needNum = c == '^', 0, c == '^'
			if isDigit(c) {
				st.digits = 1
			}
			st.hold = append(st.hold, c)
			return dst
		case c == s.card[1] || c == s.action[1]:
			st.mk = mkPrefix
			return st.stepMarker(dst, c)
		}
		return st.notMarker(dst, c)
	case mkPrefix:
		st.hold = append(st.hold, c)
		h := st.hold
		switch {
		case string(h) == s.card:
			st.mk = mkCard
		case string(h) == s.action:
			st.mk = mkAction
		case len(h) < len(s.card) && string(h) == s.card[:len(h)], len(h) < len(s.action) && string(h) == s.action[:len(h)]:
		default:
			st.hold = st.hold[:len(st.hold)-1]
			return st.notMarker(dst, c)
		}
		return dst
	case mkCard, mkAction:
		switch c {
		case ']':
			dst = st.resolveNamed(dst)
			return dst
		case '\n', '[', '`':
			st.malformed(st.hold)
			st.reset()
			return st.step(dst, c)
		}
		st.hold = append(st.hold, c)
		if len(st.hold) > s.maxLen {
			st.malformed(st.hold)
			st.reset()
			st.hk = hSkip
		}
		return dst
	case mkNum:
		switch {
		case len(st.hold) >= s.maxLen:
			return st.numBreak(dst, c)
		case isDigit(c) && st.digits < 6:
			st.digits++
			st.needNum = false
		case c == '^' && st.digits == 0 && st.hold[len(st.hold)-1] != '^':
			st.caret = true
			st.needNum = true
		case (c == ',' || c == ';') && st.digits > 0:
			st.digits = 0
			st.needNum = true
		case c == ' ' && st.needNum && st.digits == 0 && !st.caretLast():
		case c == ']' && st.digits > 0:
			st.hold = append(st.hold, c)
			return st.resolveNums(dst)
		default:
			return st.numBreak(dst, c)
		}
		st.hold = append(st.hold, c)
		return dst
	case mkBad:
		switch c {
		case ']':
			st.hold = append(st.hold, c)
			st.malformed(st.hold)
			st.reset()
			return dst
		case '[', '\n', '`':
			return st.badCut(dst, c, true)
		}
		st.hold = append(st.hold, c)
		if len(st.hold) > s.maxLen {
			return st.badCut(dst, 0, false)
		}
		return dst
	}
	return dst
}

// numBreak ends a footnote that c cannot continue: a broken footnote if it
// had a caret, plain text otherwise.
func (st *Stream) numBreak(dst []byte, c byte) []byte {
	if st.caret {
		st.mk = mkBad
		return st.stepMarker(dst, c)
	}
	return st.notMarker(dst, c)
}

func (st *Stream) caretLast() bool { return st.hold[len(st.hold)-1] == '^' }

func (st *Stream) reset() {
	st.hk = hNone
	st.hold = st.hold[:0]
}

// notMarker releases the held '[' as text and re-feeds the rest and c.
func (st *Stream) notMarker(dst []byte, c byte) []byte {
	dst = st.rel(dst, st.hold[:1])
	st.term, st.col = false, -1
	rest := st.hold[1:]
	st.hk = hNone
	st.pushBytes(rest, c)
	st.hold = st.hold[:0]
	return dst
}

// badCut ends a broken footnote that has no ']' in reach: it drops "[" plus
// the run of marker-ish bytes after it and re-feeds the rest (and c).
func (st *Stream) badCut(dst []byte, c byte, withC bool) []byte {
	h := st.hold
	n := 1
	for n < len(h) && (isDigit(h[n]) || isLetter(h[n]) || h[n] == '^' || h[n] == '_' || h[n] == '-') {
		n++
	}
	st.malformed(h[:n])
	st.hk = hNone
	if withC {
		st.pushBytes(h[n:], c)
	} else {
		st.push(h[n:]...)
	}
	st.hold = st.hold[:0]
	return dst
}

func (st *Stream) malformed(b []byte) { st.drop(Malformed, b) }

// resolveNamed decides a complete card or action marker.
func (st *Stream) resolveNamed(dst []byte) []byte {
	st.hold = append(st.hold, ']')
	m := st.hold
	var ok bool
	var r Reason
	if st.mk == mkCard {
		ok, r = st.opt.Cards[string(m[len(st.spec.card):len(m)-1])], UnknownCard
	} else {
		ok, r = st.opt.Actions[string(m[len(st.spec.action):len(m)-1])], UnknownAction
	}
	if ok && !st.opt.Bailout {
		st.kept++
		dst = st.rel(dst, m)
		st.term, st.col = false, -1
	} else {
		st.drop(r, m)
	}
	st.reset()
	return dst
}

// resolveNums decides a complete footnote marker or list "[^1][^2]",
// "[1, 2]", each number on its own.
func (st *Stream) resolveNums(dst []byte) []byte {
	dst = st.footnotes(dst, st.hold)
	st.reset()
	return dst
}

// footnotes resolves each number of the complete marker m.
func (st *Stream) footnotes(dst, m []byte) []byte {
	for i := 1; i < len(m); {
		if !isDigit(m[i]) {
			i++
			continue
		}
		n, j := 0, i
		for j < len(m) && isDigit(m[j]) {
			n = n*10 + int(m[j]-'0')
			j++
		}
		dst = st.footnote(dst, n, m)
		i = j
	}
	return dst
}

func (st *Stream) footnote(dst []byte, n int, m []byte) []byte {
	if n >= len(st.noteSrc) || st.noteSrc[n] == 0 {
		st.drop(UnknownNumber, m)
		return dst
	}
	if st.opt.Bailout {
		st.drop(Bailout, m)
		return dst
	}
	src := &st.srcs[st.noteSrc[n]-1]
	if src.sent == st.sentGen {
		st.drop(RepeatInSentence, m)
		return dst
	}
	src.sent = st.sentGen
	if src.out == 0 {
		src.out = len(st.cites) + 1
		nt := src.note
		st.cites = append(st.cites, Citation{N: src.out, ID: nt.ID, Title: nt.Title, Address: nt.Address, URL: nt.URL})
	}
	st.kept++
	dst, _ = st.settle(dst, '[')
	st.last, st.brWord, st.term, st.col = ']', false, false, -1
	if src.out < 10 { // most answers cite fewer than ten sources
		return append(dst, '[', byte('0'+src.out), ']')
	}
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(src.out), 10)
	return append(dst, ']')
}

// flushHold ends whatever is held at the end of the stream.
func (st *Stream) flushHold(dst []byte) []byte {
	switch st.hk {
	case hToken:
		return st.endToken(dst)
	case hMarker:
		switch st.mk {
		case mkOpen, mkPrefix:
			dst = st.rel(dst, st.hold[:1])
			st.push(st.hold[1:]...)
			st.reset()
		case mkNum:
			if st.caret {
				return st.badCut(dst, 0, false)
			}
			dst = st.rel(dst, st.hold[:1])
			st.push(st.hold[1:]...)
			st.reset()
		case mkCard, mkAction:
			st.malformed(st.hold)
			st.reset()
		case mkBad:
			return st.badCut(dst, 0, false)
		}
	}
	return dst
}
