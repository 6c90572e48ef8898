package gauntlet

import (
	"unsafe"
)

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// hasNonLetter reports whether a token holds a digit or punctuation: only
// such tokens are checked for ids (plain words never are).
func hasNonLetter(tok []byte) bool {
	for _, c := range tok {
		if !isLetter(c) {
			return true
		}
	}
	return false
}

// trailing reports how many trailing bytes of a token are punctuation that
// is not part of it.
func trailing(tok []byte) int {
	n := 0
	for i := len(tok) - 1; i >= 0; i-- {
		switch tok[i] {
		case '.', ':', '/', '#', '@', '-':
			n++
			continue
		}
		break
	}
	return n
}

// leaked reports whether the token core is a leaked id. The exemption of
// this turn's addresses is looked up only for a token that would otherwise
// be dropped or handed to the catalog.
func (st *Stream) leaked(core []byte) bool {
	if len(core) == 0 {
		return false
	}
	if len(core) >= st.spec.minIDLen && st.spec.IDShaped(core) {
		return !st.exempted(core)
	}
	if st.opt.Catalog != nil && len(core) >= st.spec.catalogMinLen {
		if !st.spec.catalogNumbers {
			num := true
			for _, c := range core {
				if c < '0' || c > '9' {
					num = false
					break
				}
			}
			if num {
				return false
			}
		}
		return !st.exempted(core) && st.inCatalog(core)
	}
	return false
}

// inCatalog asks the catalog about core, about core without the quotes,
// backticks or brackets around it, and, for a URL or path, about each of
// its segments: an id is leaked as much in `injdoc-a-1`, "injdoc-a-1" or
// https://x.example/docs/injdoc-a-1 as on its own. Only the catalog
// decides, so ordinary words are never dropped.
func (st *Stream) inCatalog(core []byte) bool {
	ask := func(b []byte) bool {
		return len(b) >= st.spec.catalogMinLen && st.opt.Catalog(unsafe.String(&b[0], len(b)))
	}
	if ask(core) {
		return true
	}
	inner := core
	for len(inner) > 0 && isWrapper(inner[0]) {
		inner = inner[1:]
	}
	for len(inner) > 0 && (isWrapper(inner[len(inner)-1]) || inner[len(inner)-1] == '.' || inner[len(inner)-1] == ',') {
		inner = inner[:len(inner)-1]
	}
	if len(inner) != len(core) && ask(inner) {
		return true
	}
	start := 0
	split := false
	for i := 0; i <= len(inner); i++ {
		if i < len(inner) && !isURLSep(inner[i]) {
			continue
		}
		if i < len(inner) {
			split = true
		}
		if split && i > start && ask(inner[start:i]) {
			return true
		}
		start = i + 1
	}
	return false
}

func isWrapper(c byte) bool {
	switch c {
	case '`', '"', '\'', '(', ')', '[', ']', '<', '>', '*', '_', '{', '}':
		return true
	}
	return false
}

func isURLSep(c byte) bool {
	switch c {
	case '/', '?', '#', '=', '&', ':':
		return true
	}
	return false
}

func (st *Stream) exempted(core []byte) bool {
	return len(st.addrs) > 0 && st.exemptSet()[string(core)]
}

// exemptSet returns this turn's note addresses and their words, tokens that
// are never dropped as leaked ids.
func (st *Stream) exemptSet() map[string]bool {
	if st.exemptOK {
		return st.exempt
	}
	if st.exempt == nil {
		st.exempt = make(map[string]bool, 2*len(st.addrs))
	} else {
		clear(st.exempt)
	}
	for _, a := range st.addrs {
		st.exempt[a] = true
		for f, i := nextField(a, 0); f != ""; f, i = nextField(a, i) {
			st.exempt[f] = true
		}
	}
	st.exemptOK = true
	return st.exempt
}

// endToken decides a held token: release it or drop it as a leaked id.
func (st *Stream) endToken(dst []byte) []byte {
	tok := st.hold
	st.hk = hNone
	st.hold = st.hold[:0]
	core := tok[:len(tok)-trailing(tok)]
	if hasNonLetter(core) && st.leaked(core) || st.long && st.ctxLeaked(core) {
		st.drop(LeakedID, core)
		if len(core) == len(tok) {
			return dst // nothing released: term and col stay
		}
		dst = st.rel(dst, tok[len(core):])
	} else {
		dst = st.rel(dst, tok)
	}
	st.term = tok[len(tok)-1] == '.'
	st.col = -1
	return dst
}

// longToken handles a token that outgrew the hold-back: if the held window
// holds an id shape the whole token is dropped, else all but its last
// 3/4*max_marker_len bytes are released and the window slides on, so an id
// of up to that length inside a long token (a URL) is still caught.
//
// Every release is checked together with the token bytes released before it
// (ctx), so the released part is never id-shaped should the rest be dropped.
func (st *Stream) longToken(dst []byte) []byte {
	keep := st.spec.maxLen * 3 / 4
	n := len(st.hold) - keep
	if hasNonLetter(st.hold) && st.spec.IDShaped(st.hold) || st.ctxLeaked(st.hold[:n]) {
		st.drop(LeakedID, st.hold)
		st.hold = st.hold[:0]
		st.hk = hDropTok
		return dst
	}
	dst = st.rel(dst, st.hold[:n])
	st.ctx = append(st.ctx, st.hold[:n]...)
	if len(st.ctx) > keep {
		st.ctx = st.ctx[:copy(st.ctx, st.ctx[len(st.ctx)-keep:])]
	}
	st.hold = st.hold[:copy(st.hold, st.hold[n:])]
	st.long = true
	st.term, st.col = false, -1
	return dst
}

// ctxLeaked reports whether the last released bytes of a long token followed
// by b hold an id shape.
func (st *Stream) ctxLeaked(b []byte) bool {
	st.win = append(append(st.win[:0], st.ctx...), b...)
	return hasNonLetter(st.win) && st.spec.IDShaped(st.win)
}
