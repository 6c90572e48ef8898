package judge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Splitter cuts a text stream into sentences as they complete. A sentence
// ends at '.', '!' or '?' (plus closing quotes/brackets and any trailing
// citation markers such as "[1][2]") followed by whitespace and the start of
// the next sentence, or at a line break. Abbreviations ("e.g.", "Dr."),
// initials ("J. Smith"), decimals ("3.14") and list or section numbers ("1. "
// at line start, "## 6. " in a heading, "notes: 6. " after a colon) do not
// end a sentence, nor does a bare answer word ("Yes! ", "No. "): it opens
// the sentence after it, which is the claim it answers with. Each returned sentence carries its trailing whitespace, so
// concatenating everything Feed and Flush return gives back the input.
//
// Because a sentence is only known to be complete when the next one starts,
// Feed holds back at most the current sentence. A Splitter is not safe for
// concurrent use.
type Splitter struct {
	buf  []byte
	scan int // bytes of buf already scanned without finding a boundary
}

// NewSplitter returns an empty Splitter.
func NewSplitter() *Splitter { return &Splitter{} }

// Feed appends text and returns the sentences it completed, in order.
func (s *Splitter) Feed(text string) []string {
	s.buf = append(s.buf, text...)
	return s.cut()
}

// FeedBytes is Feed for text in bytes, which it does not keep (the proxy
// feeds each released delta without making a string of it).
func (s *Splitter) FeedBytes(text []byte) []string {
	s.buf = append(s.buf, text...)
	return s.cut()
}

// cut returns the complete sentences at the start of buf and removes them.
func (s *Splitter) cut() []string {
	var out []string
	for {
		end := boundary(s.buf, s.scan)
		if end < 0 {
			// Rescan from a little before the end next time: a boundary
			// needs lookahead, so restart at the last sentence-ish char.
			s.scan = rescanFrom(s.buf)
			return out
		}
		out = append(out, string(s.buf[:end]))
		n := copy(s.buf, s.buf[end:])
		s.buf = s.buf[:n]
		s.scan = 0
	}
}

// Flush returns whatever text is still held (the last sentence, possibly
// incomplete), or nil when nothing is held. The Splitter is empty afterwards.
func (s *Splitter) Flush() []string {
	if len(s.buf) == 0 {
		return nil
	}
	out := []string{string(s.buf)}
	s.buf = s.buf[:0]
	s.scan = 0
	return out
}

// Split cuts a complete text into sentences.
func Split(text string) []string {
	s := NewSplitter()
	out := s.Feed(text)
	return append(out, s.Flush()...)
}

// rescanFrom returns where scanning must restart: the first byte that could
// still begin a terminator group whose boundary is undecided. Scanning from 0
// is always correct; this only saves work on long sentences.
func rescanFrom(buf []byte) int {
	i := backOff(buf, len(buf))
	// The last word may be the lookahead of a terminator before it (a
	// lower-case word that may still turn into a config key): restart
	// before that terminator too.
	j := i
	for j > 0 && isSpace(buf[j-1]) {
		j--
	}
	if j < i {
		i = backOff(buf, j)
	}
	return i
}

// backOff returns where a terminator group ending before end may start:
// back over sentence-ish characters, then to the start of the word.
func backOff(buf []byte, end int) int {
	i := end
	for i > 0 {
		c := buf[i-1]
		if c == '.' || c == '!' || c == '?' || c == '\n' || c == ']' || c == '[' || c == ' ' || c == '\t' || c == '\r' ||
			c == '"' || c == '\'' || c == ')' || c == '*' || c == '_' || (c >= '0' && c <= '9') || c >= 0x80 {
			i--
			continue
		}
		break
	}
	// Back off further to the previous word start so abbreviation checks
	// see the whole word.
	for i > 0 && buf[i-1] != ' ' && buf[i-1] != '\n' {
		i--
	}
	return i
}

// boundary returns the end (exclusive) of the first complete sentence in buf
// whose terminator lies at or after from, or -1 when none is complete yet.
func boundary(buf []byte, from int) int {
	for i := from; i < len(buf); i++ {
		c := buf[i]
		switch c {
		case '\n':
			if !hasContent(buf[:i]) {
				continue // leading blank lines belong to the next sentence
			}
			if answerLine(buf[:i]) {
				continue // "Yes!" on a line of its own opens the claim after it, as on one line
			}
			j := skipSpace(buf, i)
			if j == len(buf) {
				return -1 // more whitespace may follow
			}
			return j
		case '.', '!', '?':
			if c == '.' && !sentenceDot(buf, i) {
				continue
			}
			if answerWord(buf[:i]) {
				continue // "Yes! Dogs are welcome.": the answer word opens the claim
			}
			j := i + 1
			// closing quotes, brackets, repeated terminators
			for j < len(buf) && strings.IndexByte(".!?\"')*_", buf[j]) >= 0 {
				j++
			}
			if j < len(buf) && buf[j] >= 0x80 { // closing curly quote
				if !utf8.FullRune(buf[j:]) {
					return -1 // the rest of the character is still arriving
				}
				r, sz := utf8.DecodeRune(buf[j:])
				if r == '”' || r == '’' || r == '»' {
					j += sz
				}
			}
			afterMarks := j
			j = skipCitations(buf, j)
			if j < 0 {
				return -1 // a citation marker is still arriving
			}
			// a citation just before or after the terminator: the sentence
			// is over whatever case the next one starts with
			cited := j > afterMarks || (i > 0 && buf[i-1] == ']')
			if j == len(buf) {
				return -1
			}
			if !isSpace(buf[j]) {
				continue // "3.5", "e.g.x", "U.S"
			}
			k := skipSpace(buf, j)
			if k == len(buf) {
				return -1
			}
			if buf[k] == '[' { // "fact. [1] Next": citations after a space
				k2 := skipCitations(buf, k)
				if k2 < 0 {
					return -1
				}
				if k2 > k {
					k3 := skipSpace(buf, k2)
					if k3 == len(buf) {
						return -1
					}
					return k3
				}
			}
			if !utf8.FullRune(buf[k:]) {
				return -1 // the next character is still arriving
			}
			r, _ := utf8.DecodeRune(buf[k:])
			if unicode.IsLower(r) && !cited {
				code, decided := codeWord(buf, k)
				if !decided {
					return -1 // the next word is still arriving
				}
				if !code {
					continue // "approx. five", "etc. and"
				}
			}
			return k
		}
	}
	return -1
}

// codeWord reports whether the word at k looks like a config key or an
// identifier ("auth.lockout_attempts", "backup.key_file"): a sentence may
// start with one in lower case. decided is false when the word runs to the
// end of buf undecided (a streamed word may still turn into one).
func codeWord(buf []byte, k int) (code, decided bool) {
	for e := k; e < len(buf) && !isSpace(buf[e]); e++ {
		switch buf[e] {
		case '_':
			return true, true
		case '.':
			if e+1 == len(buf) {
				return false, false
			}
			if buf[e+1] >= 'a' && buf[e+1] <= 'z' {
				return true, true
			}
		}
		if e+1 == len(buf) {
			return false, false
		}
	}
	return false, true
}

// sentenceDot reports whether the '.' at i may end a sentence (it is not part
// of an abbreviation, an initial or a list number).
func sentenceDot(buf []byte, i int) bool {
	// the word before the dot
	w := i
	for w > 0 && !isSpace(buf[w-1]) && buf[w-1] != '(' && buf[w-1] != '"' {
		w--
	}
	word := string(buf[w:i])
	if word == "" {
		return true
	}
	// A list or section number is not a sentence of its own: at line start
	// ("1. ", "12. "), after a Markdown heading's hashes ("## 6. Luggage")
	// or after a colon ("Based on the notes: 6. Luggage, ..."; up to three
	// digits there, so "Founded: 1998. We ..." still ends at the year).
	if allDigits(word) {
		return !listNumber(buf, w, len(word))
	}
	// single capital letter initial: "J. Smith"; dotted acronyms "U.S." are
	// handled by the abbreviation list.
	if r, sz := utf8.DecodeRuneInString(word); sz == len(word) && unicode.IsUpper(r) {
		return false
	}
	if _, ok := abbreviations[strings.ToLower(word)]; ok {
		return false
	}
	return true
}

// listNumber reports whether the n digits at w, followed by a '.', are a
// list or section number: first on their line (after spaces and any "#"
// heading marks), or after a colon when they are at most three digits.
func listNumber(buf []byte, w, n int) bool {
	ls := w
	for ls > 0 && (buf[ls-1] == ' ' || buf[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && buf[ls-1] == ':' {
		return n <= 3
	}
	if ls < w { // "## 6." needs the space after the hashes
		for ls > 0 && buf[ls-1] == '#' {
			ls--
		}
		for ls > 0 && (buf[ls-1] == ' ' || buf[ls-1] == '\t') {
			ls--
		}
	}
	return ls == 0 || buf[ls-1] == '\n'
}

var abbreviations = map[string]struct{}{
	"e.g": {}, "i.e": {}, "cf": {}, "vs": {}, "etc": {}, "al": {}, "approx": {}, "ca": {},
	"mr": {}, "mrs": {}, "ms": {}, "dr": {}, "prof": {}, "st": {}, "jr": {}, "sr": {},
	"no": {}, "nos": {}, "vol": {}, "fig": {}, "figs": {}, "eq": {}, "ch": {}, "sec": {},
	"p": {}, "pp": {}, "ed": {}, "eds": {}, "u.s": {}, "u.k": {}, "u.n": {}, "a.m": {}, "p.m": {},
	"jan": {}, "feb": {}, "mar": {}, "apr": {}, "jun": {}, "jul": {}, "aug": {}, "sep": {},
	"sept": {}, "oct": {}, "nov": {}, "dec": {}, "inc": {}, "ltd": {}, "co": {}, "corp": {},
	"gen": {}, "gov": {}, "rev": {}, "ps": {}, "ph.d": {}, "b.c": {}, "a.d": {}, "mt": {},
	"ft": {}, "lb": {}, "oz": {}, "dept": {}, "univ": {}, "est": {},
}

// skipCitations skips citation markers "[12]" (with optional spaces between
// them) starting at j and returns the index after them; -1 when a marker is
// open at the end of buf.
func skipCitations(buf []byte, j int) int {
	for j < len(buf) && buf[j] == '[' {
		k := j + 1
		for k < len(buf) && buf[k] >= '0' && buf[k] <= '9' {
			k++
		}
		if k == len(buf) {
			return -1
		}
		if k == j+1 || buf[k] != ']' {
			return j // not a numeric marker
		}
		j = k + 1
		// allow "[1] [2]"
		m := j
		for m < len(buf) && buf[m] == ' ' {
			m++
		}
		if m < len(buf) && buf[m] == '[' && m > j {
			n := m + 1
			for n < len(buf) && buf[n] >= '0' && buf[n] <= '9' {
				n++
			}
			if n == len(buf) {
				return -1
			}
			if n > m+1 && buf[n] == ']' {
				j = m
			}
		}
	}
	return j
}

func skipSpace(buf []byte, j int) int {
	for j < len(buf) && isSpace(buf[j]) {
		j++
	}
	return j
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func hasContent(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// answerWords are the bare answers to a yes/no question.
// "Sure" is not one: a sentence opening with it is conversational filler
// (metaPrefixes), which a claim it opened would be taken for.
var answerWords = []string{"yes", "no", "yeah", "yep", "nope"}

// answerWord reports whether b, leading spaces aside, is a bare answer word
// ("Yes", "no") and nothing else.
func answerWord(b []byte) bool {
	b = b[skipSpace(b, 0):]
	if len(b) < 2 || len(b) > 5 {
		return false
	}
	var buf [5]byte // the word lower-cased on the stack: no allocation
	for k, c := range b {
		buf[k] = c | 0x20
	}
	for _, a := range answerWords {
		if string(buf[:len(b)]) == a {
			return true
		}
	}
	return false
}

// answerLine reports whether b, spaces aside, is a bare answer word and
// its punctuation ("Yes!", "No.", "Sure,"), with nothing after it on its
// line: the line answers the question and the sentence after it is the
// claim.
func answerLine(b []byte) bool {
	e := len(b)
	for e > 0 && isSpace(b[e-1]) {
		e--
	}
	for e > 0 && (b[e-1] == '!' || b[e-1] == '.' || b[e-1] == ',') {
		e--
	}
	return answerWord(b[:e])
}

// isAnswerWord reports whether w is one of answerWords, in any case.
func isAnswerWord(w string) bool {
	if len(w) < 2 || len(w) > 5 {
		return false
	}
	for _, a := range answerWords {
		if strings.EqualFold(w, a) {
			return true
		}
	}
	return false
}

// CheckedText returns the part of a claim the verifier checks: the claim
// without the bare answer word it may open with ("Yes, on Fibre 500 ..."
// checks "on Fibre 500 ..."). The word answers the question, it states
// nothing a source could give or deny. Judge reads every cited claim so;
// a caller that verifies claims itself (guard judge --pairs) calls it to
// judge them as the proxy does.
func CheckedText(claim string) string { return claim[answerLead(claim):] }

// answerLead returns the length of the bare answer word a claim opens with,
// with its punctuation and the spaces after it ("Yes! ", "No, "), when a
// claim follows; 0 for none. The word answers the question; what follows
// is the claim, read from its own start ("Yes! 6.1 Pitches are ...").
func answerLead(s string) int {
	w := wordAt(s, 0)
	if !isAnswerWord(w) || len(w) == len(s) {
		return 0
	}
	j := len(w)
	for j < len(s) && (s[j] == '!' || s[j] == '.' || s[j] == ',') {
		j++
	}
	if j == len(w) {
		return 0 // "No dogs are allowed": the word is the claim's
	}
	k := j
	for k < len(s) && isSpace(s[k]) {
		k++ // the claim may start on the next line ("Yes!\nDogs are ...")
	}
	if k == j || k == len(s) {
		return 0
	}
	return k
}
