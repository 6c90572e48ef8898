package gauntlet

import (
	"encoding/binary"
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

// leakAt reports whether the token core holds a leaked id and where the
// leaked part starts: at the leftmost id shape, at the start of the core for
// a catalog id that is the core (or the core without the quotes, backticks or
// brackets around it), at a segment's start for a URL or path segment that
// is a catalog id. The exemption of this turn's addresses is looked up only
// for a token that would otherwise be dropped or handed to the catalog.
func (st *Stream) leakAt(core []byte) (int, bool) {
	if len(core) == 0 || !hasNonLetter(core) {
		return 0, false
	}
	if len(core) >= st.spec.minIDLen {
		if k, ok := st.spec.idStart(core); ok {
			return k, !st.exempted(core)
		}
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
				return 0, false
			}
		}
		if st.exempted(core) {
			return 0, false
		}
		return st.inCatalog(core)
	}
	return 0, false
}

// inCatalog asks the catalog about core, about core without the quotes,
// backticks or brackets around it, and, for a URL or path, about each of
// its segments: an id is leaked as much in `injdoc-a-1`, "injdoc-a-1" or
// https://x.example/docs/injdoc-a-1 as on its own. Only the catalog
// decides, so ordinary words are never dropped. It returns where the id
// found starts (0 for the core and the first segment).
func (st *Stream) inCatalog(core []byte) (int, bool) {
	ask := func(b []byte) bool {
		return len(b) >= st.spec.catalogMinLen && st.opt.Catalog(unsafe.String(&b[0], len(b)))
	}
	if ask(core) {
		return 0, true
	}
	inner, lead := core, 0
	for len(inner) > 0 && isWrapper(inner[0]) {
		inner, lead = inner[1:], lead+1
	}
	for len(inner) > 0 && (isWrapper(inner[len(inner)-1]) || inner[len(inner)-1] == '.' || inner[len(inner)-1] == ',') {
		inner = inner[:len(inner)-1]
	}
	if len(inner) != len(core) && ask(inner) {
		return 0, true
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
			if start == 0 {
				return 0, true
			}
			return lead + start, true
		}
		start = i + 1
	}
	return 0, false
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

// dropStart returns where the leaked part of a held token's core starts,
// len(core) when nothing in it is leaked. The leaked part runs to the end of
// the core; what is kept before it is checked again as the token it becomes,
// so it never ends in a shorter id ("REALID42-doc_1a" loses all of it). In a
// long token an id shape may also start in its released bytes (ctx): then
// the whole core goes.
func (st *Stream) dropStart(core []byte, long bool) int {
	s := len(core)
	for s > 0 {
		c := core[:s]
		c = c[:len(c)-trailing(c)]
		k, ok := st.leakAt(c)
		if !ok && long {
			k, ok = st.ctxLeakAt(c)
		}
		if !ok {
			break
		}
		s = k
	}
	return s
}

// endToken decides a held token: release it or drop its leaked part (from
// the start of the id to the end of its core). The first relN bytes of the
// hold are out already (Flush).
func (st *Stream) endToken(dst []byte) []byte {
	tok, rn := st.hold, st.relN
	st.hk = hNone
	st.hold, st.relN = st.hold[:0], 0
	core := tok[:len(tok)-trailing(tok)]
	s := len(core)
	if st.long || hasNonLetter(core) {
		s = st.dropStart(core, st.long)
	}
	end := len(tok) - 1 // the last released byte
	if s < len(core) {
		s = max(s, rn) // rn <= s unless the catalog changed under the stream
		dst = st.rel(dst, tok[rn:s])
		st.drop(LeakedID, core[s:])
		if len(core) == len(tok) {
			if s == 0 {
				return dst // nothing released: term and col stay
			}
			end = s - 1
		}
		rn = len(core)
	}
	dst = st.rel(dst, tok[rn:])
	st.term = tok[end] == '.'
	st.col = -1
	return dst
}

// early releases the bytes of the held token that no continuation can make
// part of a leaked id (Flush): the bytes before the first place where an id
// shape could start (prefixNFA) or a catalog id could start
// (Options.CatalogPrefix). The token stays held; relN counts the bytes out.
// Only the first maxLen/4 bytes of a token are released this way, so a
// token that outgrows the hold-back has all of them in the part longToken
// releases first.
func (st *Stream) early(dst []byte) []byte {
	st.p8 = false
	t, rn := st.hold, st.relN
	lim := min(len(t), st.spec.elim)
	if rn >= lim || st.noEarly || st.long || st.ncarry > 0 || st.mode != mText || st.qh < len(st.q) || st.closed {
		return dst
	}
	from := st.aPos
	if from != 0 && len(t) == st.fLen {
		return dst // nothing new since the last Flush, which released what it could
	}
	st.aPos, st.fLen = lim, len(t)
	k := lim
	if ds := st.dfas; len(ds) == 1 { // one table for all patterns, the usual case: readDFA(0, ...) inline
		d, s := &ds[0], uint16(0)
		if from != 0 {
			s = st.aSts[0]
		}
		s = d.run(s, t[from:lim])
		st.aSts[0] = s
		k = lim - d.ageOf(s)
	} else if ds != nil {
		for i := range ds {
			k = min(k, lim-st.readDFA(i, t, from, lim))
		}
	} else {
		for _, a := range st.spec.pre { // each pattern sees the whole token, as the DFAs do
			if k = min(k, a.earliest(t[:lim], rn)); k <= rn {
				return dst
			}
		}
	}
	// A word's start is the only place a catalog id can start in it: most
	// often one CatalogPrefix related to no id already.
	if k > rn && st.opt.Catalog != nil && !(rn == 0 && st.word && st.unrelated(t)) {
		k = st.catalogEarliest(t, k)
	}
	if k <= rn {
		return dst
	}
	switch {
	case !st.pending(): // rel without a held space, opener or glue: token bytes keep brWord
		dst = appendShort(dst, t, rn, k)
	case st.space && !st.spaceDel && st.open == 0 && !st.glue: // rel after a plain held space
		dst = appendShort(append(dst, ' '), t, rn, k)
		st.space, st.brWord = false, false
	default:
		dst = st.rel(dst, t[rn:k])
	}
	st.last = t[k-1]
	st.relN = k
	return dst
}

// readDFA reads the held token t up to lim with DFA i, going on from where
// the last Flush of the token left it (from > 0), and returns how many
// bytes back from lim an id could start (0: nowhere).
func (st *Stream) readDFA(i int, t []byte, from, lim int) int {
	d, s := &st.dfas[i], st.aSts[i]
	if from == 0 {
		s = 0
	}
	s = d.run(s, t[from:lim])
	st.aSts[i] = s
	return d.ageOf(s)
}

// appendShort appends t[i:j] to dst, with one 8-byte move when it is that
// short and both have room for the move.
func appendShort(dst, t []byte, i, j int) []byte {
	n := len(dst)
	if j-i > 8 || i+8 > cap(t) || cap(dst)-n < 8 {
		return append(dst, t[i:j]...)
	}
	binary.LittleEndian.PutUint64(dst[n:n+8], binary.LittleEndian.Uint64(t[i:i+8]))
	return dst[:n+j-i]
}

// longToken handles a token that outgrew the hold-back: if the held window
// holds an id shape the token is dropped from its start on, else all but
// its last 3/4*max_marker_len bytes are released and the window slides on,
// so an id of up to that length inside a long token (a URL) is still caught.
//
// Every release is checked together with the token bytes released before it
// (ctx), so the released part is never id-shaped should the rest be dropped.
func (st *Stream) longToken(dst []byte) []byte {
	keep := st.spec.maxLen * 3 / 4
	n := len(st.hold) - keep
	s, ok := len(st.hold), false
	if hasNonLetter(st.hold) {
		s, ok = st.spec.idStart(st.hold)
	}
	if !ok {
		s, ok = st.ctxLeakAt(st.hold[:n])
	}
	if ok {
		for s > 0 { // what is kept must not end in an id shape
			c := st.hold[:s]
			k, bad := st.ctxLeakAt(c[:len(c)-trailing(c)])
			if !bad {
				break
			}
			s = k
		}
		s = max(s, st.relN)
		dst = st.rel(dst, st.hold[st.relN:s])
		st.drop(LeakedID, st.hold[s:])
		st.hold, st.relN = st.hold[:0], 0
		st.hk = hDropTok
		if s > 0 {
			st.term, st.col = false, -1
		}
		return dst
	}
	if n > st.relN {
		dst = st.rel(dst, st.hold[st.relN:n])
	}
	st.relN = 0 // early releases stay within the first n bytes
	st.ctx = append(st.ctx, st.hold[:n]...)
	if len(st.ctx) > keep {
		st.ctx = st.ctx[:copy(st.ctx, st.ctx[len(st.ctx)-keep:])]
	}
	st.hold = st.hold[:copy(st.hold, st.hold[n:])]
	st.long = true
	st.term, st.col = false, -1
	return dst
}

// ctxLeakAt reports whether the last released bytes of a long token
// followed by b hold an id shape, and where in b it starts (0 when it
// starts in the released bytes).
func (st *Stream) ctxLeakAt(b []byte) (int, bool) {
	st.win = append(append(st.win[:0], st.ctx...), b...)
	if !hasNonLetter(st.win) {
		return 0, false
	}
	k, ok := st.spec.idStart(st.win)
	return max(0, k-len(st.ctx)), ok
}

// catalogEarliest returns the first place before k in the held token t, at
// or after relN, where a catalog id could start: the token's start (or
// after its leading '_') and each segment's start after a '/', '#' or ':',
// when CatalogPrefix relates the rest of t to an id.
func (st *Stream) catalogEarliest(t []byte, k int) int {
	if st.relN == 0 {
		if st.related(t) {
			return 0
		}
		u := 0
		for u < len(t) && t[u] == '_' {
			u++
		}
		if u > 0 && st.related(t[u:]) {
			return 0
		}
	}
	if st.word {
		return k // letters only: no segment
	}
	for i := max(st.relN-1, 0); i+1 < k; i++ {
		if (t[i] == '/' || t[i] == '#' || t[i] == ':') && st.related(t[i+1:]) {
			return i + 1
		}
	}
	return k
}

// related reports whether Options.CatalogPrefix relates b (token bytes,
// ASCII) to an id. It asks first about b's one- or two-byte start, once
// per response: when no id is related to the start, none is related to b
// either (such an id would start with it, or be a prefix of it), and most
// tokens start with one that no id does.
func (st *Stream) related(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if st.unrelated(b) {
		return false
	}
	start := b[:min(len(b), 2)]
	n := catBit(start)
	if y := catYes + n; st.catAsked[y>>6]>>(y&63)&1 == 0 { // not asked yet
		if !st.opt.CatalogPrefix(unsafe.String(&start[0], len(start))) {
			st.catAsked[n>>6] |= 1 << (n & 63)
			return false
		}
		st.catAsked[y>>6] |= 1 << (y & 63)
	}
	return len(b) <= 2 || st.opt.CatalogPrefix(unsafe.String(&b[0], len(b)))
}

// unrelated reports whether b (not empty) starts with a one- or two-byte
// token start CatalogPrefix related to no id.
func (st *Stream) unrelated(b []byte) bool {
	n := uint(b[0] & 0x7f)
	if len(b) >= 2 && st.catAsked[2+n<<1+uint(b[1]>>6&1)]>>(b[1]&63)&1 != 0 {
		return true
	}
	return st.catAsked[n>>6]>>(n&63)&1 != 0
}

// catYes is where catAsked's bits for token starts related to an id begin.
const catYes = 128 + 128*128

// catBit is the bit of catAsked for b of one or two ASCII bytes.
func catBit(b []byte) int {
	if len(b) == 1 {
		return int(b[0] & 0x7f)
	}
	return 128 + int(b[0]&0x7f)<<7 + int(b[1]&0x7f)
}
