package gauntlet

// closer reports whether a held space before a dropped item should go when
// c follows it.
func closer(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '.', ',', ';', ':', '!', '?', ')', ']':
		return true
	}
	return false
}

// glues reports whether c, released right after a drop, would join what
// came before into a new token, marker or fence. ':' and ']' only glue to a
// bracketed word ("[action" + ":", "[12" + "]").
func (st *Stream) glues(c byte) bool {
	switch last := st.last; {
	case last == '~' || last == '`':
		return c == last
	case c == ':':
		return st.brWord
	case c == ']': // "[12" + "]" would be a marker
		return st.brWord && last != '['
	}
	return (class[c] == cTok && c != '.') || c == '^'
}

// bracketWord reports whether text ending in b (after text that ended in a
// bracketed word when w) ends in '[' and token bytes.
func bracketWord(w bool, b []byte) bool {
	for _, c := range b {
		w = c == '[' || (w && class[c] == cTok)
	}
	return w
}

func isOpener(c byte) bool { return c == '(' || c == '[' }

func closerOf(open byte) byte {
	if open == '(' {
		return ')'
	}
	return ']'
}

// glueable reports whether a drop right after last must keep what follows
// from joining it.
func glueable(last byte) bool {
	return class[last] == cTok || last == '[' || last == '~' || last == '`'
}

// settle resolves what is held back given the next output byte c: the held
// space goes when a drop followed it and punctuation follows ("word [^9]."
// -> "word."); a held opener whose content was all dropped vanishes with its
// closer c ("see (doc_1a2b)." -> "see."), and then skip reports that c must
// not be output. It also keeps a drop from gluing two tokens together:
// "ab[^9]cd" -> "ab cd".
func (st *Stream) settle(dst []byte, c byte) ([]byte, bool) {
	if st.open != 0 {
		// Pairs never vanish at a line's start, where they would change
		// the line's indent (and so what is a code fence) in the output.
		if st.openDel && c == closerOf(st.open) && !blank(st.last) {
			st.open, st.openDel = 0, false
			if st.space {
				st.spaceDel = true
			} else if glueable(st.last) {
				st.glue = true
			}
			return dst, true
		}
		if st.space {
			dst = append(dst, ' ')
			st.space, st.spaceDel = false, false
		}
		dst = append(dst, st.open)
		st.last, st.brWord = st.open, st.open == '['
		del := st.openDel
		st.open, st.openDel, st.glue = 0, false, false
		if del && glueable(st.last) {
			st.glue = true
		}
	}
	if st.space {
		if !st.spaceDel || !closer(c) || st.glues(c) {
			dst = append(dst, ' ')
			st.last, st.brWord = ' ', false
		} else if st.col > 0 {
			st.col-- // the line's indent is what the output shows
		}
		st.space, st.spaceDel = false, false
	} else if st.glue && st.glues(c) {
		dst = append(dst, ' ')
		st.last, st.brWord = ' ', false
	}
	st.glue = false
	return dst, false
}

// pending reports whether settle has anything to do: without a held space,
// a held opener or a glue mark it is a no-op.
func (st *Stream) pending() bool { return st.space || st.open != 0 || st.glue }

func blank(c byte) bool { return c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// rel releases text b. A trailing '(' or '[' is held back until the next
// byte shows whether what it opens was all dropped.
func (st *Stream) rel(dst, b []byte) []byte {
	if len(b) == 1 && isOpener(b[0]) && st.open == 0 && st.space && !st.spaceDel {
		st.open = b[0] // held together with the space before it
		return dst
	}
	for st.pending() && len(b) > 0 {
		var skip bool
		if dst, skip = st.settle(dst, b[0]); !skip {
			break
		}
		b = b[1:]
	}
	if n := len(b); n > 0 && isOpener(b[n-1]) {
		st.open, b = b[n-1], b[:n-1]
	}
	if len(b) == 0 {
		return dst
	}
	st.last = b[len(b)-1]
	if st.brWord || b[0] == '[' {
		st.brWord = bracketWord(st.brWord, b)
	} else {
		st.brWord = false
	}
	return append(dst, b...)
}

func (st *Stream) relByte(dst []byte, c byte) []byte {
	var b [1]byte
	b[0] = c
	return st.rel(dst, b[:])
}

// holdSpace holds a space back, settling what was held before it.
func (st *Stream) holdSpace(dst []byte) []byte {
	if st.pending() {
		dst, _ = st.settle(dst, ' ')
	}
	st.space = true
	return dst
}

func (st *Stream) drop(r Reason, b []byte) {
	if st.opt.Bailout && r != LeakedID {
		r = Bailout
	}
	st.counts[reasonIndex(r)]++
	switch {
	case st.open != 0:
		st.openDel = true
	case st.space:
		st.spaceDel = true
	case glueable(st.last):
		st.glue = true
	}
	if st.opt.OnDrop != nil {
		st.opt.OnDrop(r, b)
	}
}

// relSeg releases a segment of text as step would byte by byte: a trailing
// space, or space and opener, are held back.
func (st *Stream) relSeg(dst, seg []byte) []byte {
	k := len(seg)
	if k == 0 {
		return dst
	}
	if isOpener(seg[k-1]) {
		k--
	}
	if k > 0 && seg[k-1] == ' ' {
		k--
	}
	if k > 0 {
		dst = st.rel(dst, seg[:k])
	}
	if k < len(seg) {
		if seg[k] == ' ' {
			dst = st.holdSpace(dst)
			k++
		}
		if k < len(seg) {
			dst = st.rel(dst, seg[k:])
		}
	}
	return dst
}
