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
// came before into a new token, marker or fence. A ':' only glues to a
// bracketed word ("[action" + ":").
func (st *Stream) glues(c byte) bool {
	switch last := st.last; {
	case last == '~' || last == '`':
		return c == last
	case c == ':':
		return st.brWord
	}
	return (class[c] == cTok && c != '.') || c == '^' || c == ']'
}

// bracketWord reports whether text ending in b (after text that ended in a
// bracketed word when w) ends in '[' and token bytes.
func bracketWord(w bool, b []byte) bool {
	for _, c := range b {
		w = c == '[' || (w && class[c] == cTok)
	}
	return w
}

// settle releases or discards the held space given the next output byte c.
// It also keeps a drop from gluing two tokens together: "ab[^9]cd" -> "ab cd".
func (st *Stream) settle(dst []byte, c byte) []byte {
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
	return dst
}

func (st *Stream) rel(dst, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	dst = st.settle(dst, b[0])
	st.last = b[len(b)-1]
	if st.brWord || b[0] == '[' {
		st.brWord = bracketWord(st.brWord, b)
	} else {
		st.brWord = false
	}
	return append(dst, b...)
}

func (st *Stream) relByte(dst []byte, c byte) []byte {
	dst = st.settle(dst, c)
	st.last = c
	st.brWord = c == '[' || (st.brWord && class[c] == cTok)
	return append(dst, c)
}

func (st *Stream) drop(r Reason, b []byte) {
	if st.opt.Bailout && r != LeakedID {
		r = Bailout
	}
	st.counts[reasonIndex(r)]++
	if st.space {
		st.spaceDel = true
	} else if class[st.last] == cTok || st.last == '[' || st.last == '~' || st.last == '`' {
		st.glue = true
	}
	if st.opt.OnDrop != nil {
		st.opt.OnDrop(r, b)
	}
}

// relSeg releases a segment of text, holding back a trailing space.
func (st *Stream) relSeg(dst, seg []byte) []byte {
	if len(seg) == 0 {
		return dst
	}
	if seg[len(seg)-1] == ' ' {
		dst = st.rel(dst, seg[:len(seg)-1])
		dst = st.settle(dst, ' ')
		st.space = true
		return dst
	}
	return st.rel(dst, seg)
}
