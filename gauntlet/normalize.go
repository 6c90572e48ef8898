package gauntlet

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The leaked-id filter normalises before it looks a token up, so that an id
// written with look-alike characters or broken up by invisible or markup
// bytes is still caught: "hb\u200b-0402", "hb\u20110402", fullwidth
// "ｈｂ－０４０２", Cyrillic "һb-0402", "hb%2D0402", "**hb**-0402",
// "hb-04<!-- -->02", and ids inside inline code spans and fenced blocks.
//
// An extended token is a run of units: ASCII token bytes, runes that fold
// to ASCII token bytes (NFKC compatibility forms such as fullwidth and
// mathematical letters, Cyrillic and Greek letters that look like Latin
// ones, the Unicode hyphens and minus), and %XX escapes of ASCII token
// bytes; between two units it may hold glue: zero-width characters (U+200B
// to U+200D, U+2060, U+FEFF, the soft hyphen), runs of '*' or '~' (markdown
// emphasis) and HTML comments. Its normal form is its units folded to ASCII
// with the glue removed. When the stream would drop the normal form as a
// leaked id (leakAt, with the token held before it when it continues one),
// the normal form is what the lexer is fed, and the lexer drops it as it
// drops any leaked id; otherwise the original bytes are fed unchanged, so
// prose in any script passes as written. Inside code, where the lexer
// passes everything through, a leaked normal form is dropped here.
//
// Only a delta holding a non-ASCII byte or one of '%', '*', '<', '`', '~',
// or one that arrives while the stream is in code or holds an unfinished
// extended token, takes this path (needNorm); every other delta takes the
// lexer's one-pass paths as before.

// suspect marks the ASCII bytes that can make a delta need normalising.
var suspect = func() (t [256]bool) {
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	for _, c := range "%*<`~" {
		t[c] = true
	}
	return t
}()

// needNorm reports whether delta must take the normalising path.
func (st *Stream) needNorm(delta []byte) bool {
	if len(st.npend) > 0 || st.mode != mText || st.btRun > 0 || st.tilde > 0 {
		return true
	}
	for _, c := range delta {
		if suspect[c] {
			return true
		}
	}
	return false
}

// lexFunc hands text to the lexer within one Write (Stream.feed; the
// step-by-step reference in the tests).
type lexFunc func(st *Stream, dst, text []byte) []byte

// normWrite is Write for a delta that needNorm chose.
func (st *Stream) normWrite(dst, delta []byte, lex lexFunc) []byte {
	st.p8 = false
	start := len(dst)
	if st.ncarry > 0 {
		dst = append(dst, st.carry[:st.ncarry]...)
		st.ncarry = 0
	}
	st.npend = append(st.npend, delta...)
	n := 0
	dst, n = st.normScan(dst, st.npend, false, lex)
	if n > 0 {
		st.nTail = false // the scan went past the token's rest
	}
	k := copy(st.npend, st.npend[n:])
	st.npend = st.npend[:k]
	if len(st.npend) > 4*st.spec.maxLen {
		// An unfinished extended token this long is decided as it is; what
		// continues it in the next delta is its rest, not a token of its own.
		last := st.npend[len(st.npend)-1]
		dst, _ = st.normScan(dst, st.npend, true, lex)
		st.npend = st.npend[:0]
		st.nTail = class[last] == cTok || last >= utf8.RuneSelf
	}
	if n := len(dst); n == start || dst[n-1] < utf8.RuneSelf {
		return dst
	}
	return st.cutCarry(dst, start)
}

// feed hands text to the lexer within one Write: an incomplete UTF-8
// sequence the lexer moved to its carry goes out at once (normWrite cuts
// one at the end of the whole call).
func (st *Stream) feed(dst, text []byte) []byte {
	if len(text) == 0 {
		return dst
	}
	dst = st.lexWrite(dst, text)
	if st.ncarry > 0 {
		dst = append(dst, st.carry[:st.ncarry]...)
		st.ncarry = 0
	}
	return dst
}

// normClose decides and feeds whatever normWrite still holds.
func (st *Stream) normClose(dst []byte) []byte {
	if len(st.npend) > 0 {
		dst, _ = st.normScan(dst, st.npend, true, (*Stream).feed)
		st.npend = st.npend[:0]
	}
	return dst
}

// normScan feeds buf to the lexer, extended token by extended token, and
// returns how much of buf it consumed: unless final, it stops before an
// extended token that the next delta may continue (or change), or an
// incomplete rune.
func (st *Stream) normScan(dst, buf []byte, final bool, lex lexFunc) ([]byte, int) {
	fed, i := 0, 0
	for i < len(buf) {
		if !suspect[buf[i]] && (i == 0 || !suspect[buf[i-1]]) {
			// In text, skip to the token before the next suspect byte:
			// what comes before it is the lexer's business alone.
			dst = lex(st, dst, buf[fed:i])
			fed = i
			if !st.inCode() {
				p := i
				for p < len(buf) && !suspect[buf[p]] {
					p++
				}
				if p == len(buf) {
					break
				}
				q := p
				for q > i && class[buf[q-1]] == cTok {
					q--
				}
				if i = q; i == p {
					continue
				}
			}
		}
		c := buf[i]
		join := i == 0 && st.joinable() // buf may continue a token the lexer holds
		if !(class[c] == cTok || c >= utf8.RuneSelf || c == '%' || join) {
			i++
			continue
		}
		end, changed, open := st.scanExt(buf, i, join)
		if open && !final {
			dst = lex(st, dst, buf[fed:i])
			fed = i
			if changed || end < len(buf) || st.inCode() {
				return dst, i
			}
		}
		if end == i {
			if c >= utf8.RuneSelf {
				if !utf8.FullRune(buf[i:]) && !final {
					dst = lex(st, dst, buf[fed:i])
					return dst, i // the rest of the rune comes with the next delta
				}
				_, n := utf8.DecodeRune(buf[i:])
				i += n
				continue
			}
			i++
			continue
		}
		dst = lex(st, dst, buf[fed:i])
		fed = i
		code := st.inCode()
		if !changed && (!code || !st.mayLeak(buf[i:end])) {
			i = end // plain ASCII token text: the lexer's own business
			continue
		}
		nf := st.fold(buf[i:end])
		if code {
			core := nf[:len(nf)-trailing(nf)]
			if len(core) <= st.spec.maxLen && !(i == 0 && st.nTail) {
				if _, leak := st.leakAt(core); leak {
					st.counts[reasonIndex(LeakedID)]++
					if st.opt.OnDrop != nil {
						st.opt.OnDrop(LeakedID, buf[i:end])
					}
					fed = end
				}
			}
		} else if st.wouldLeak(nf, i == 0) {
			dst = lex(st, dst, nf)
			fed = end
		}
		i = end
	}
	dst = lex(st, dst, buf[fed:])
	return dst, len(buf)
}

// mayLeak reports whether an ASCII token could hold a leaked id at all:
// one of letters only never does, nor one shorter than any id can be.
func (st *Stream) mayLeak(tok []byte) bool {
	n := st.spec.minIDLen
	if st.opt.Catalog != nil {
		n = min(n, st.spec.catalogMinLen)
	}
	return len(tok) >= n && hasNonLetter(tok)
}

// joinable reports whether the lexer holds (or is dropping) a token that
// the next input byte continues: glue may come first.
func (st *Stream) joinable() bool {
	if st.mode != mText {
		return false
	}
	switch st.hk {
	case hToken, hDropTok:
		return true
	case hMarker:
		return len(st.hold) > 0 && class[st.hold[len(st.hold)-1]] == cTok
	}
	return false
}

// inCode reports whether the next byte fed to the lexer lands in code
// (inline span or fence), counting a backtick or tilde run still open.
func (st *Stream) inCode() bool {
	switch st.mode {
	case mText:
		return st.btRun > 0 || st.tilde >= 3
	case mInline:
		return !(st.btRun > 0 && st.btRun == st.codeN)
	}
	return true
}

// wouldLeak reports whether nf, the normal form of an extended token,
// would be dropped as a leaked id. At the start of a buffer (atStart) nf
// continues whatever token the lexer holds: the held token, or the token
// bytes at the end of a held marker (re-fed when the marker fails); the
// rest of a token longer than max_marker_len (held long, or being
// dropped) is left to the lexer, as is any token that long.
func (st *Stream) wouldLeak(nf []byte, atStart bool) bool {
	t := nf
	if atStart && st.mode == mText {
		var prev []byte
		switch st.hk {
		case hToken:
			if st.long {
				return false
			}
			prev = st.hold
		case hDropTok:
			return false // the rest of a token longer than max_marker_len
		case hMarker:
			k := len(st.hold)
			for k > 0 && class[st.hold[k-1]] == cTok {
				k--
			}
			prev = st.hold[k:]
		}
		if len(prev) > 0 {
			st.nwin = append(append(st.nwin[:0], prev...), nf...)
			t = st.nwin
		}
	}
	if len(t) > st.spec.maxLen {
		return false
	}
	core := t[:len(t)-trailing(t)]
	_, leak := st.leakAt(core)
	return leak
}

// scanExt scans the extended token at buf[i:]: it returns its end (the end
// of its last unit; i when there is none), whether it holds anything but
// ASCII token bytes, and whether the scan reached the end of buf (so the
// next delta may continue it). join lets glue come first (it continues the
// token the lexer holds).
func (st *Stream) scanExt(buf []byte, i int, join bool) (end int, changed, open bool) {
	j, last, lastChanged := i, i, false
	units := join
	for j < len(buf) {
		c := buf[j]
		if class[c] == cTok {
			j++
			last, lastChanged, units = j, changed, true
			continue
		}
		if c == '%' {
			if j+3 > len(buf) {
				return last, lastChanged, true
			}
			if d, ok := unhex(buf[j+1], buf[j+2]); ok && class[d] == cTok {
				j += 3
				changed = true
				last, lastChanged, units = j, true, true
				continue
			}
			break
		}
		if units && (c == '*' || c == '~') {
			for j < len(buf) && buf[j] == c {
				j++
			}
			changed = true
			continue
		}
		if units && c == '<' {
			rest := buf[j:]
			if len(rest) < 4 {
				if string(rest) == "<!--"[:len(rest)] {
					return last, lastChanged, true
				}
				break
			}
			if string(rest[:4]) != "<!--" {
				break
			}
			k := indexStr(rest[4:], "-->")
			if k < 0 {
				if len(rest) > 256 {
					break
				}
				return last, lastChanged, true
			}
			j, changed = j+4+k+3, true
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		if !utf8.FullRune(buf[j:]) {
			return last, lastChanged, true
		}
		r, n := utf8.DecodeRune(buf[j:])
		if zeroWidth(r) {
			if !units {
				break
			}
			j, changed = j+n, true
			continue
		}
		if _, ok := foldRune(r, buf[j:j+n]); !ok {
			break
		}
		j += n
		changed = true
		last, lastChanged, units = j, true, true
	}
	return last, lastChanged, j == len(buf)
}

// fold returns the normal form of an extended token (st.nbuf).
func (st *Stream) fold(b []byte) []byte {
	out := st.nbuf[:0]
	for j := 0; j < len(b); {
		c := b[j]
		switch {
		case class[c] == cTok:
			out = append(out, c)
			j++
		case c == '%' && j+2 < len(b):
			if d, ok := unhex(b[j+1], b[j+2]); ok && class[d] == cTok {
				out = append(out, d)
				j += 3
				continue
			}
			j++
		case c == '<' && j+4 <= len(b) && string(b[j:j+4]) == "<!--":
			k := indexStr(b[j+4:], "-->")
			if k < 0 {
				j = len(b)
				continue
			}
			j += 4 + k + 3
		case c < utf8.RuneSelf:
			j++ // '*', '~'
		default:
			r, n := utf8.DecodeRune(b[j:])
			if s, ok := foldRune(r, b[j:j+n]); ok {
				out = append(out, s...)
			}
			j += n
		}
	}
	st.nbuf = out
	return out
}

func indexStr(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}

// zeroWidth reports the invisible characters that may sit inside a token.
func zeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E:
		return true
	}
	return false
}

// homoglyphs folds Cyrillic and Greek letters that look like Latin ones,
// and the Unicode hyphens and minus, to ASCII.
var homoglyphs = map[rune]byte{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x',
	'і': 'i', 'ј': 'j', 'ѕ': 's', 'һ': 'h', 'ԁ': 'd', 'ӏ': 'l', 'ԛ': 'q', 'ԝ': 'w', 'ь': 'b',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'У': 'Y',
	'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Һ': 'H', 'Ԁ': 'D', 'Ӏ': 'I',
	// Greek
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T',
	'Υ': 'Y', 'Χ': 'X', 'ο': 'o', 'ν': 'v', 'α': 'a', 'ι': 'i', 'κ': 'k', 'ρ': 'p', 'υ': 'u', 'χ': 'x',
	// hyphens and minus
	'\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-', '\uFE58': '-', '\uFE63': '-',
	'\u2043': '-', '\u02D7': '-',
}

// foldRune returns the ASCII token bytes r (encoded as enc) stands for: a
// homoglyph's Latin letter or hyphen, or r's NFKC form when that is all
// ASCII token bytes (fullwidth forms, mathematical letters and digits,
// ligatures such as "ﬁ"). ok is false for any other rune.
func foldRune(r rune, enc []byte) (string, bool) {
	if b, ok := homoglyphs[r]; ok {
		return asciiStr[b : b+1], true
	}
	if r < 0xA0 || norm.NFKC.IsNormal(enc) {
		return "", false
	}
	s := norm.NFKC.String(string(enc))
	for i := 0; i < len(s); i++ {
		if class[s[i]] != cTok {
			return "", false
		}
	}
	return s, s != ""
}

// asciiStr holds every ASCII byte at its own index, for one-byte strings
// without an allocation.
var asciiStr = func() string {
	b := make([]byte, 128)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()
