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

// glues reports whether c, released right after a drop that followed last,
// would join them into a new token, marker or fence.
func glues(last, c byte) bool {
	if last == '~' || last == '`' {
		return c == last
	}
	return (class[c] == cTok && c != '.' && c != ':') || c == '^' || c == ']'
}

// settle releases or discards the held space given the next output byte c.
// It also keeps a drop from gluing two tokens together: "ab[^9]cd" -> "ab cd".
func (st *Stream) settle(dst []byte, c byte) []byte {
	if st.space {
		if !st.spaceDel || !closer(c) || glues(st.last, c) {
			dst = append(dst, ' ')
			st.last = ' '
		} else if st.col > 0 {
			st.col-- // the line's indent is what the output shows
		}
		st.space, st.spaceDel = false, false
	} else if st.glue && glues(st.last, c) {
		dst = append(dst, ' ')
		st.last = ' '
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
	return append(dst, b...)
}

func (st *Stream) relByte(dst []byte, c byte) []byte {
	dst = st.settle(dst, c)
	st.last = c
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
