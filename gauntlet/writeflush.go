package gauntlet

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// WriteFlush is st.Flush(st.Write(dst, delta)) in one call, the way a relay
// calls the stream when each delta goes to the client as it arrives: it
// appends to dst the output releasable after delta, then the part of a
// token held at its end that no continuation can make part of a leaked id.
// Its output, and the stream's state after it, are exactly those of
// st.Flush(st.Write(dst, delta)), for every delta and every state; only the
// cost differs: a delta of up to 8 bytes of prose, the usual streamed
// delta, is lexed and released in one pass (while the stream is in plain
// prose: not in code, no marker or drop pending), numbers and other
// tokens that hold no id included; a whole footnote in such a delta, a
// footnote's start that ends it or whose end begins it, and an inline
// code span in it or around it are taken without Write's general loop.
// WriteFlush after Close is a no-op.
func (st *Stream) WriteFlush(dst, delta []byte) []byte {
	if len(delta) != 8 || !st.p8 { // every call here is in tail position: nothing kept across it
		if st.needNorm(delta) {
			if st.closed {
				return dst
			}
			return st.Flush(st.normWrite(dst, delta, (*Stream).feed))
		}
		if len(delta) > 8 {
			return st.Flush(st.Write(dst, delta))
		}
		return st.writeFlush(dst, delta)
	}
	// Most deltas are ASCII letters and spaces only: a few word operations
	// tell, without a table lookup per byte. Such a delta is prose8's
	// with no dot, '!' or '?' in it, where a Write that consumes anything
	// ends on a space it holds (pw: the delta as a word; sp: bit 7 of each
	// space's lane).
	pw := binary.LittleEndian.Uint64(delta)
	lt, sp := lettersSpaces(pw)
	if lt|sp != 0x8080808080808080 {
		if st.needNorm(delta) {
			return st.Flush(st.normWrite(dst, delta, (*Stream).feed))
		}
		return st.prose8(dst, delta)
	}
	h := len(st.hold)
	word := st.hk == hToken // a word of letters (and dots) is held from the previous delta
	was := st.term          // term is set before pw[0]
	hs := h                 // the held word's unreleased bytes start at hold[hs]
	if word {
		if !st.word && !lettersDots(st.hold) {
			return st.prose8(dst, delta) // a held token with a digit or other token punctuation
		}
		hd := !st.word && h > 0 && st.hold[h-1] == '.' // st.word: letters only
		e := bits.TrailingZeros64(sp) >> 3             // 8 when there is no space
		if h+e > st.spec.maxLen || hd && sp&0x80 == 0 {
			return st.Flush(st.writeProse(dst, delta)) // a longer token or one holding a non-letter
		}
		if e == 8 { // the word goes on in the next delta
			st.hold = append(st.hold, uint8(pw), uint8(pw>>8), uint8(pw>>16), uint8(pw>>24),
				uint8(pw>>32), uint8(pw>>40), uint8(pw>>48), uint8(pw>>56))
			st.word = !hd
			st.p8 = true
			return st.early8(dst)
		}
		was = hd // the held token ends in '.' if pw[0] ends it
		hs = min(st.relN, h)
	}
	// end: pw[:end] is consumed by Write, up to the last space; tok: the
	// letters after it are a trailing token. Else all of it, ending in a
	// space. Either way pw[end-1] is a space (end > 0), which Write holds.
	end, tok := 8, sp>>63 == 0
	if tok {
		end = (64 - bits.LeadingZeros64(sp) + 7) >> 3
	}
	if end > 0 {
		if was && sp&0x80 != 0 {
			st.sentGen++ // a space after a token ending in '.' or after '!' or '?'
		}
		st.term = false
	}
	bl := max(end-1, 0) // the body: pw[:end] less its trailing space
	hl := h - hs
	emit := hl+bl > 0
	so := 0 // the held space goes out (before the body or t[:k])
	if st.space {
		so = 1
	}
	at := len(dst)
	if cap(dst)-at < 1+hl+8 {
		dst = slices.Grow(dst, 1+hl+8)
	}
	out := dst[at : at+1+hl+8]
	out[0] = ' ' // overwritten when so == 0
	if hl == 0 {
		// most often: no word was held, or all of it went out early
	} else if hl <= 8 && hs+8 <= cap(st.hold) {
		binary.LittleEndian.PutUint64(out[so:], binary.LittleEndian.Uint64(st.hold[hs:hs+8]))
	} else {
		copy(out[so:], st.hold[hs:h])
	}
	binary.LittleEndian.PutUint64(out[so+hl:], pw)
	// What Write leaves: a held space, brWord (a space in the body ends a
	// bracketed word).
	spaceW := end > 0 || st.space && !emit
	st.brWord = st.brWord && (so == 0 || !emit && end == 0) && sp&lanes(bl) == 0
	st.roll = 0
	k := 0
	if tok {
		// Flush: early on t = pw[end:] read from its start.
		t := pw >> (uint(end) * 8 & 63)
		tn := 8 - end
		st.hk = hToken
		st.word = true
		// Hold the tail and walk it (the same block as in prose8, which
		// differs only in where the tail's bytes are): written out twice
		// on purpose, a shared method costs a call per delta, -4.5% at
		// 8-byte deltas (BenchmarkStreamWriteFlush, 200 -> 191 MB/s).
		st.long, st.ctx, st.relN, st.aPos = false, st.ctx[:0], 0, 0
		if cap(st.hold) >= 8 {
			st.hold = st.hold[:8]
			binary.LittleEndian.PutUint64(st.hold, t)
			st.hold = st.hold[:tn]
		} else {
			st.hold = append(st.hold[:0], out[so+hl+end:so+hl+8]...)
		}
		if !st.noEarly {
			lim := min(tn, st.spec.elim)
			d := &st.dfas[0]
			var s uint16
			if lim >= 2 {
				s = d.pair[int(d.class[uint8(t)])<<(d.shift&15)+int(d.class[uint8(t>>8)])]
				for i, u := 2, t>>16; i < lim; i, u = i+1, u>>8 {
					s = d.next[int(s)+int(d.class[uint8(u)])]
				}
			} else {
				s = d.next[d.class[uint8(t)]]
			}
			st.aSts[0] = s
			st.aPos, st.fLen = lim, tn
			k = lim - d.ageOf(s)
			if k > 0 && st.opt.Catalog != nil && !st.unrelated(st.hold) {
				k = st.catalogEarliest(st.hold, k)
			}
			st.relN = k
		}
	} else if word {
		st.hk, st.hold, st.relN = hNone, st.hold[:0], 0
	}
	total := hl + bl
	if k > 0 {
		total = hl + end + k // the space held at pw[end-1], if any, goes out with t[:k]
		if spaceW {          // rel after a held space
			st.brWord, spaceW = false, false
		}
	} else if !emit && end == 0 {
		so = 0
	}
	total += so
	dst = dst[:at+total]
	if total > 0 {
		st.last = dst[at+total-1]
	}
	st.space = spaceW
	st.p8 = true
	return dst
}

// writeFlush is WriteFlush past its first test.
func (st *Stream) writeFlush(dst, delta []byte) []byte {
	n := len(delta)
	if n == 0 || n > 8 {
		return st.Flush(st.Write(dst, delta))
	}
	if !st.prose8ok() {
		switch {
		case st.hk == hMarker && (st.mk == mkNum || st.mk == mkOpen):
			return st.heldFootnote(dst, delta)
		case st.mode == mInline:
			return st.inline8(dst, delta)
		case st.btRun > 0 && delta[0] != '`' && st.mode == mText && st.hk == hNone && st.tilde == 0 &&
			!(st.btLine && st.btRun >= 3) && st.ncarry == 0 && st.qh == len(st.q) && !st.closed:
			// A backtick run ended the last delta and opens a span
			// (step: endRun), then inline8 as stepInline.
			st.mode, st.codeN, st.btRun = mInline, st.btRun, 0
			return st.inline8(dst, delta)
		}
		return st.Flush(st.Write(dst, delta))
	}
	if n == 8 {
		st.p8 = true
		return st.WriteFlush(dst, delta)
	}
	return st.prose8(dst, delta)
}

// footnote8 is prose8 of a delta p whose first byte that prose8 does not
// take is a '[' at p[b]. When a whole footnote "[^n]" / "[n]" starts
// there, it does what Write does: fastWords8 up to p[b], the footnote as
// fastText resolves it, and then the rest of p as a delta of its own
// (writeFlush), which Write would go on to with no state carried across
// but what the stream holds. Else p goes to Flush(writeProse).
func (st *Stream) footnote8(dst, p []byte, b int) []byte {
	n := len(p)
	j := b + 1
	if j < n && p[j] == '^' {
		j++
	}
	d := j
	for j < n && isDigit(p[j]) {
		j++
	}
	if j == n && j-d <= 6 { // a footnote's start ends p
		return st.footStart8(dst, p, b, j-d)
	}
	if j == d || j == n || p[j] != ']' { // (at most 6 digits in 8 bytes)
		return st.Flush(st.writeProse(dst, p))
	}
	j++
	start := len(dst)
	dst, i, ok := st.proseTo(dst, p, b)
	if !ok { // fastWords8 stopped short of the '[': the general loop goes on
		return st.Flush(st.write(dst, p, start, i))
	}
	// fastText from p[b] on (term, col and sentGen are as it finds them).
	st.roll = 0
	dst = st.footnotes(dst, p[b:j])
	if j == n {
		return dst // Flush: nothing is held
	}
	return st.writeFlush(dst, p[j:])
}

// footStart8 is footnote8 for a p that ends in a footnote's start at
// p[b] ("[", "[^", "[^12", "[3"; digits: its digits): Write holds it, as
// step and stepMarker hold it, after fastWords8 up to it.
func (st *Stream) footStart8(dst, p []byte, b, digits int) []byte {
	start := len(dst)
	dst, i, ok := st.proseTo(dst, p, b)
	if !ok {
		return st.Flush(st.write(dst, p, start, i))
	}
	st.roll = 0
	st.hk, st.mk = hMarker, mkOpen
	st.hold = append(st.hold[:0], p[b:]...)
	if b+1 < len(p) {
		st.mk = mkNum
		st.caret, st.digits, st.needNum = p[b+1] == '^', digits, digits == 0
	}
	return dst // Flush: no token is held
}

// proseTo is Write's first step on a delta p of 1 to 8 bytes given
// prose8ok() whose first byte that fastWords8 stops at is p[b]: fastWords8
// (given st.prose()). It returns how much of p it consumed, and whether
// that is p[:b] with no token held (a held word that p[b] ends is released
// by the general loop).
func (st *Stream) proseTo(dst, p []byte, b int) ([]byte, int, bool) {
	st.p8 = false
	i := 0
	if st.hk == hNone || st.word || lettersDots(st.hold) { // st.prose()
		dst, i = st.fastWords8(dst, p)
	}
	return dst, i, i == b && st.hk == hNone
}

// span8 is prose8 of a delta p whose first byte that prose8 does not take
// is a '`' at p[b]: what Write does, fastWords8 up to it, then the inline
// code span as fastText takes it (fastSpan) and the text after a span it
// closes as a delta of its own (writeFlush). A run of backticks that ends
// p, or a span cut by a newline, goes on in the general loop.
func (st *Stream) span8(dst, p []byte, b int) []byte {
	start := len(dst)
	dst, i, ok := st.proseTo(dst, p, b)
	if !ok {
		return st.Flush(st.write(dst, p, start, i))
	}
	dst, j, ok := st.fastSpan(dst, p[b:], 0, 0, st.term, -1, st.sentGen)
	switch j += b; {
	case !ok || j < len(p) && p[j] == '\n':
		return st.Flush(st.write(dst, p, start, j))
	case j == len(p): // Flush: nothing is held
		if n := len(dst); n > start && dst[n-1] >= utf8.RuneSelf {
			return st.cutCarry(dst, start) // as Write ends
		}
		return dst
	}
	return st.writeFlush(dst, p[j:]) // text after the span
}

// inline8 is WriteFlush of a delta p of 1 to 8 bytes inside an inline
// code span, with no backtick run pending: code passes through as
// stepInline passes it (with a run that ended the last delta). When p closes the span (a run of as many
// backticks as opened it, then a space, '!' or '?'), the rest of p goes on as a delta of its own (writeFlush), as
// Write's loop goes on with it. A newline, or any other byte after the
// closing run, sends p to Flush(Write).
func (st *Stream) inline8(dst, p []byte) []byte {
	if st.hk != hNone || st.pending() || st.ncarry != 0 || st.qh != len(st.q) || st.closed || p[0] == '`' && st.btRun != 0 {
		return st.Flush(st.Write(dst, p))
	}
	n, i := len(p), 0
	if st.btRun != 0 { // a run ended the last delta: p[0] ends it (stepInline)
		if st.btRun == st.codeN {
			if k := fastKind[p[0]]; k != fSpace && k != fTerm {
				return st.Flush(st.Write(dst, p))
			}
			st.p8 = false
			st.btRun, st.mode = 0, mText
			st.term, st.col = false, -1
			return st.writeFlush(dst, p)
		}
		if p[0] == '\n' {
			return st.Flush(st.Write(dst, p))
		}
		st.btRun = 0 // code goes on: Write would take p[0] as code from here
	}
	for {
		q := i
		for q < n && p[q] != '`' && p[q] != '\n' {
			q++
		}
		if q == n { // code to the end
			st.p8 = false
			st.last = p[n-1]
			if start := len(dst); p[n-1] >= utf8.RuneSelf {
				return st.cutCarry(append(dst, p...), start) // as Write ends
			}
			return append(dst, p...)
		}
		if p[q] == '\n' {
			return st.Flush(st.Write(dst, p))
		}
		e := q
		for e < n && p[e] == '`' {
			e++
		}
		if e == n { // a run that the next delta may go on
			st.p8 = false
			st.btRun, st.last = e-q, '`'
			return append(dst, p...)
		}
		if e-q == st.codeN {
			if k := fastKind[p[e]]; k != fSpace && k != fTerm { // (step keeps other punctuation in roll)
				return st.Flush(st.Write(dst, p))
			}
			st.p8 = false
			dst = append(dst, p[:e]...)
			st.last, st.mode = '`', mText
			st.term, st.col = false, -1
			return st.writeFlush(dst, p[e:])
		}
		i = e // a shorter or longer run is code
	}
}

// heldFootnote is WriteFlush of a delta p of 1 to 8 bytes while "[" or a
// footnote's start ("[^", "[^1", "[2, ") is held. When p's first bytes end
// the footnote (digits, then ']') it is resolved as stepMarker resolves
// it, and the rest of p goes on as a delta of its own (writeFlush), as
// Write's loop goes on with it; else p goes to Flush(Write).
func (st *Stream) heldFootnote(dst, p []byte) []byte {
	if st.ncarry != 0 || st.qh != len(st.q) || st.closed {
		return st.Flush(st.Write(dst, p))
	}
	o := 0 // p[0] opens the footnote after a held "[" (stepMarker's mkOpen)
	if st.mk == mkOpen {
		if c := p[0]; c != '^' && !isDigit(c) {
			return st.Flush(st.Write(dst, p))
		}
		o = 1
	}
	k := o
	for k < len(p) && isDigit(p[k]) {
		k++
	}
	digits := st.digits + k - o
	if o == 1 {
		digits = k - 1
		if p[0] != '^' {
			digits++
		}
	}
	if k == len(p) || p[k] != ']' || digits == 0 || digits > 6 || len(st.hold)+k >= st.spec.maxLen {
		return st.Flush(st.Write(dst, p))
	}
	// stepMarker for p[:k+1]
	st.p8 = false
	if o == 1 {
		c := p[0]
		st.mk = mkNum
		st.caret, st.needNum = c == '^', c == '^'
	}
	if k > o || p[0] != '^' && o == 1 {
		st.needNum = false
	}
	st.digits = digits
	st.hold = append(st.hold, p[:k+1]...)
	dst = st.resolveNums(dst)
	if k+1 == len(p) {
		return dst // Flush: nothing is held
	}
	return st.writeFlush(dst, p[k+1:])
}

// writeProse is Write of a delta of 1 to 8 bytes given prose8ok(), for the
// deltas WriteFlush's one-pass paths hand on: fastWords8 (when st.prose():
// no token but a word is held), then the general loop from where it
// stopped.
func (st *Stream) writeProse(dst, delta []byte) []byte {
	st.p8 = false
	start, i := len(dst), 0
	if st.hk == hNone || st.word || lettersDots(st.hold) { // st.prose(): fastWords8 takes a held word only
		if dst, i = st.fastWords8(dst, delta); i == len(delta) {
			return dst
		}
	}
	return st.write(dst, delta, start, i)
}

// prose8ok reports whether the stream is in the state prose8 handles: no
// carried UTF-8 bytes, nothing queued, not closed, st.prose() but for the
// held token, which may be any token that is not long, and one prefix
// table for early, unless early releases nothing.
func (st *Stream) prose8ok() bool {
	// The likelier failures first.
	return (st.hk == hNone || st.hk == hToken && !st.long) && st.mode == mText && st.col < 0 &&
		st.btRun == 0 && st.tilde == 0 && !st.glue && st.open == 0 && !st.spaceDel &&
		st.ncarry == 0 && st.qh == len(st.q) && !st.closed && (st.noEarly || len(st.dfas) == 1)
}

// prose8 is WriteFlush of a delta p of 1 to 8 bytes, given prose8ok(). It
// does the work in one pass where p is tokens (of ASCII letters, digits
// and _ - . : / # @), spaces and punctuation that step releases at once,
// and no token that ends in p holds a leaked id: such text is released as
// it comes, less a trailing space or token, which are held. It then leaves
// prose8ok() true and st.p8 set. Any other p goes to Flush(writeProse)
// before anything is changed.
//
// For words of letters (with trailing dots) it is fastWords8 followed by
// early for the token it leaves held; a token that holds a non-letter and
// ends in p is checked as endToken and fastText check it. What prose8ok
// establishes (text mode, no opener, glue or pending drop, the carry and
// the queue empty) is taken as known.
func (st *Stream) prose8(dst, p []byte) []byte {
	word := st.hk == hToken // a token is held from the previous delta
	// Masks have bit 8*i set for p[i] (one bit per byte lane).
	const lo = 0x0101010101010101
	n := len(p)
	var pw, x uint64 // p; the byte kinds (fwFlag), lanes past len(p) 0
	if n == 8 {
		pw = binary.LittleEndian.Uint64(p)
		x = uint64(fwFlag[uint8(pw)]) | uint64(fwFlag[uint8(pw>>8)])<<8 | uint64(fwFlag[uint8(pw>>16)])<<16 |
			uint64(fwFlag[uint8(pw>>24)])<<24 | uint64(fwFlag[uint8(pw>>32)])<<32 | uint64(fwFlag[uint8(pw>>40)])<<40 |
			uint64(fwFlag[uint8(pw>>48)])<<48 | uint64(fwFlag[uint8(pw>>56)])<<56
	} else {
		for i, c := range p {
			x |= uint64(fwFlag[c]) << (uint(i) * 8 & 63)
			pw |= uint64(c) << (uint(i) * 8 & 63)
		}
	}
	if r := x &^ (x >> 1) & (lo << 5); r != 0 { // bit 5 without bit 6: a byte that is no token byte, space or plain punctuation
		switch b := bits.TrailingZeros64(r) >> 3; p[b] {
		case '[':
			return st.footnote8(dst, p, b)
		case '`':
			return st.span8(dst, p, b)
		}
		return st.Flush(st.writeProse(dst, p)) // fastWords8 stops before it, the general loop goes on
	}
	letter, dot, space, term, other := x&lo, x>>1&lo, x>>2&lo, x>>4&lo, x>>6&lo
	tb := letter | dot | other // token bytes
	non := lo & lanes(n) &^ tb // spaces and punctuation
	h := len(st.hold)
	was := uint64(0) // bit 0: term is set before p[0]
	e := 0           // the held token goes on in p[:e]
	if word {
		hd := h > 0 && st.hold[h-1] == '.'
		e = min(bits.TrailingZeros64(non)>>3, n)
		if h+e > st.spec.maxLen {
			return st.Flush(st.writeProse(dst, p)) // a longer token
		}
		if e == n { // the token goes on in the next delta
			st.word = dot|other == 0 && (st.word || !hasNonLetter(st.hold))
			st.hold = append(st.hold, p...)
			st.p8 = true
			return st.early8(dst)
		}
		if hd {
			was = 1 // the held token ends in '.' if p[0] ends it
		}
	} else if st.term {
		was = 1
	}
	end, tok := n, false // p[:end] is consumed; tok: p[end:] is a trailing token
	if lane(tb, n-1) {
		end, tok = (64-bits.LeadingZeros64(non)+7)>>3, true
	}
	// A token that ends in p[:end] may hold a non-letter in its core (a
	// digit or _, or . : / # @ - before a token byte; or the held token
	// is no word): such tokens are checked for a leaked id.
	if word && !st.word || (other|dot&(tb>>8))&lanes(end) != 0 {
		if !st.cleanTokens(p, e, end, word) {
			return st.Flush(st.writeProse(dst, p)) // a drop: the general loop makes it
		}
		// st.word, which nothing reads once the word ends, as Write
		// leaves it: false when its general loop extends the held word
		// (fastWords8 stops before p[:e]'s digit or the first letter
		// after a dot before p's first digit).
		if word && st.word && (dot|other)&lanes(e) != 0 &&
			(other&lanes(e) != 0 || dot&(letter>>8)&lanes(bits.TrailingZeros64(other)>>3) != 0) {
			st.word = false
		}
	}
	// A space ends a sentence after '!', '?' or a token ending in '.'.
	st.sentGen += uint32((space & lanes(end) & ((term|dot)<<8 | was)) * lo >> 56)
	if end > 0 {
		st.term = lane(term|dot, end-1)
	}
	hs := h
	if word {
		hs = min(st.relN, h)
	}
	held := end > 0 && lane(space, end-1) // p[end-1] is a space, which Write holds
	bl := end
	if held {
		bl--
	}
	hl := h - hs
	emit := hl+bl > 0
	// Output: the held space, the held word's unreleased bytes, p[:end]
	// less a trailing space, which is held (Write); then, when Flush
	// releases k bytes of the trailing token t = p[end:], the held space
	// and t[:k], which follow in p. It is written with 8-byte moves where
	// it can (at most 8 bytes of the held word, the rest of which was
	// released early, and p), and cut to length once k is known.
	so := 0 // the held space goes out (before the body or t[:k])
	if st.space {
		so = 1
	}
	at := len(dst)
	if cap(dst)-at < 1+hl+8 {
		dst = slices.Grow(dst, 1+hl+8)
	}
	out := dst[at : at+1+hl+8]
	out[0] = ' ' // overwritten when so == 0
	if hl <= 8 && hs+8 <= cap(st.hold) {
		binary.LittleEndian.PutUint64(out[so:], binary.LittleEndian.Uint64(st.hold[hs:hs+8]))
	} else {
		copy(out[so:], st.hold[hs:h])
	}
	binary.LittleEndian.PutUint64(out[so+hl:], pw)
	spaceW := held || st.space && !emit // the space Write leaves held
	st.brWord = st.brWord && (so == 0 || !emit && !held) && non&lanes(bl) == 0
	st.roll = 0
	k := 0
	if tok {
		// Flush: early on t read from its start.
		t := pw >> (uint(end) * 8 & 63)
		tn := n - end
		st.hk = hToken
		st.word = (dot|other)>>(uint(end)*8&63) == 0
		st.long, st.ctx, st.relN, st.aPos = false, st.ctx[:0], 0, 0
		if cap(st.hold) >= 8 {
			st.hold = st.hold[:8]
			binary.LittleEndian.PutUint64(st.hold, t)
			st.hold = st.hold[:tn]
		} else {
			st.hold = append(st.hold[:0], p[end:]...)
		}
		if !st.noEarly {
			lim := min(tn, st.spec.elim)
			d := &st.dfas[0]
			var s uint16
			if lim >= 2 {
				s = d.pair[int(d.class[uint8(t)])<<(d.shift&15)+int(d.class[uint8(t>>8)])]
				for i, u := 2, t>>16; i < lim; i, u = i+1, u>>8 {
					s = d.next[int(s)+int(d.class[uint8(u)])]
				}
			} else {
				s = d.next[d.class[uint8(t)]]
			}
			st.aSts[0] = s
			st.aPos, st.fLen = lim, tn
			k = lim - d.ageOf(s)
			if k > 0 && st.opt.Catalog != nil && !(st.word && st.unrelated(st.hold)) {
				k = st.catalogEarliest(st.hold, k)
			}
			st.relN = k
		}
	} else if word {
		st.hk, st.hold, st.relN = hNone, st.hold[:0], 0
	}
	total := hl + bl
	if k > 0 {
		total = hl + end + k // the space held at p[end-1], if any, goes out with t[:k]
		if spaceW {          // rel after a held space
			st.brWord, spaceW = false, false
		}
	} else if !emit && !held {
		so = 0
	}
	total += so
	dst = dst[:at+total]
	if total > 0 {
		st.last = dst[at+total-1]
	}
	st.space = spaceW
	st.p8 = true
	return dst
}

// cleanTokens reports whether no token that ends in p[:end] holds a
// leaked id: the held token, when held, which goes on in p[:e], and those
// after it. Each token whose core holds a non-letter is checked as
// endToken and fastText check it (dropStart); nothing a later call reads
// is changed (the held token is put together past the end of st.hold).
func (st *Stream) cleanTokens(p []byte, e, end int, held bool) bool {
	i := 0
	if held {
		h := len(st.hold)
		if cap(st.hold) < h+e {
			return false
		}
		t := st.hold[:h+e]
		copy(t[h:], p[:e])
		if !st.cleanToken(t) {
			return false
		}
		i = e
	}
	for i < end {
		for i < end && tokTab[p[i]] == 0 {
			i++
		}
		s := i
		for i < end && tokTab[p[i]] != 0 {
			i++
		}
		if i > s && !st.cleanToken(p[s:i]) {
			return false
		}
	}
	return true
}

// cleanToken reports whether the ended token t holds no leaked id. A
// word is never checked; nor is a number (digits and dots) shorter than
// any id shape of digits and dots that the catalog would not be asked
// about (leakAt would find nothing in it).
func (st *Stream) cleanToken(t []byte) bool {
	core := t[:len(t)-trailing(t)]
	var letter, digit, dot, other bool
	for _, c := range core {
		switch {
		case isLetter(c):
			letter = true
		case isDigit(c):
			digit = true
		case c == '.':
			dot = true
		default:
			other = true
		}
	}
	switch s := st.spec; {
	case !digit && !dot && !other:
		return true
	case !letter && !other:
		lim := s.numMin
		if st.opt.Catalog != nil && (dot || s.catalogNumbers) {
			lim = min(lim, s.catalogMinLen)
		}
		if len(core) < lim {
			return true
		}
	}
	return st.dropStart(core, false) == len(core)
}

// early8 is early for prose8: the held token is not long; nothing is pending but a plain held space; the carry and the
// queue are empty; st.dfas is one table unless noEarly.
func (st *Stream) early8(dst []byte) []byte {
	t, rn := st.hold, st.relN
	lim := min(len(t), st.spec.elim)
	if rn >= lim || st.noEarly {
		return dst
	}
	from := st.aPos
	if from != 0 && len(t) == st.fLen {
		return dst
	}
	st.aPos, st.fLen = lim, len(t)
	d := &st.dfas[0]
	s := uint16(0)
	if from != 0 {
		s = st.aSts[0]
	}
	s = d.run(s, t[from:lim])
	st.aSts[0] = s
	k := lim - d.ageOf(s)
	if k > rn && st.opt.Catalog != nil && !(rn == 0 && st.word && st.unrelated(t)) {
		k = st.catalogEarliest(t, k)
	}
	if k <= rn {
		return dst
	}
	if st.space {
		dst = append(dst, ' ')
		st.space, st.brWord = false, false
	}
	dst = appendShort(dst, t, rn, k)
	st.last = t[k-1]
	st.relN = k
	return dst
}

// lettersSpaces returns the lanes of w (8 bytes) that hold an ASCII letter
// and those that hold a space, each as bit 7 of its lane. l is w with its
// letters in lower case, in 7 bits (other bytes move too, none into
// 'a'..'z'); a lane of l holds a letter when l+0x1f reaches 0x80 ('a') and
// l+0x05 does not ('{'), no sum carrying into the next lane.
func lettersSpaces(w uint64) (letters, spaces uint64) {
	const hi, low7 = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	l := (w | 0x2020202020202020) & low7
	letters = (l + 0x1f1f1f1f1f1f1f1f) &^ (l + 0x0505050505050505) &^ w & hi
	z := w ^ 0x2020202020202020 // 0 in a space's lane
	spaces = ^((z&low7 + low7) | z) & hi
	return letters, spaces
}
