package judge

import "strings"

// Typographic apostrophes and quotes. Answer models and pasted corpora
// write "don’t" (U+2019), ‘ (U+2018), ʼ (U+02BC), ′ (U+2032), “ ” (U+201C,
// U+201D) as often as the ASCII forms; every reader of words in this
// package (analyse's "n't", the phrase rules, the negation and pay rules,
// the opinion and filler cues) is written for the ASCII ones. The
// verifier reads a copy of the claim and of each passage with them made
// ASCII (normQuotes), at its entry points (prepare, verify, verifyText,
// Features, Judge.check), and takes its evidence quotes from that copy;
// quoteAsWritten maps a quote back to the passage as written.

// quotePairs are the typographic forms normQuotes makes ASCII, each with
// its ASCII form.
var quotePairs = []struct {
	from string
	to   byte
}{
	{"\u2019", '\''}, // ’ right single quote, the apostrophe of "don’t"
	{"\u2018", '\''}, // ‘ left single quote
	{"\u201b", '\''}, // ‛ reversed single quote
	{"\u02bc", '\''}, // ʼ modifier letter apostrophe
	{"\u2032", '\''}, // ′ prime ("5′")
	{"\uff07", '\''}, // ＇ fullwidth apostrophe
	{"\u201c", '"'},  // “
	{"\u201d", '"'},  // ”
	{"\u201f", '"'},  // ‟
	{"\u2033", '"'},  // ″ double prime
	{"\uff02", '"'},  // ＂ fullwidth quote
}

// quoteRunes replaces each of quotePairs by its ASCII form.
var quoteRunes = func() *strings.Replacer {
	var args []string
	for _, q := range quotePairs {
		args = append(args, q.from, string(q.to))
	}
	return strings.NewReplacer(args...)
}()

// mayHoldQuoteRune reports whether s holds a rune of quotePairs: all of
// them are encoded with a lead byte 0xE2, 0xCA or 0xEF, which only those
// are looked up at (a text with "€" or "—" and no quote is not copied).
func mayHoldQuoteRune(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0xe2 || c == 0xca || c == 0xef {
			if _, n := firstQuoteRune(s[i:]); n > 0 {
				return true
			}
		}
	}
	return false
}

// normQuotes returns s with its typographic apostrophes and quotes
// written as ASCII ones ("don’t" as "don't", “free” as "free"); s itself
// when it holds none. The result may be shorter than s: an offset into it
// is none into s (quoteAsWritten maps a quote back).
func normQuotes(s string) string {
	if !mayHoldQuoteRune(s) {
		return s
	}
	return quoteRunes.Replace(s)
}

// quoteAsWritten returns the text of src (as written) that normQuotes
// makes into q, a quote taken from normQuotes(src); q itself when src
// holds no typographic quote or q is not found in its normalised form.
func quoteAsWritten(q, src string) (string, bool) {
	if q == "" || !mayHoldQuoteRune(src) {
		return q, false
	}
	// norm is normQuotes(src); at[i] is the offset in src of norm[i]
	norm := make([]byte, 0, len(src))
	at := make([]int, 0, len(src)+1)
	for i := 0; i < len(src); {
		if src[i] == 0xe2 || src[i] == 0xca || src[i] == 0xef {
			if r, n := firstQuoteRune(src[i:]); n > 0 {
				norm = append(norm, r)
				at = append(at, i)
				i += n
				continue
			}
		}
		norm = append(norm, src[i])
		at = append(at, i)
		i++
	}
	at = append(at, len(src))
	k := strings.Index(string(norm), q)
	if k < 0 {
		return q, false
	}
	return src[at[k]:at[k+len(q)]], true
}

// firstQuoteRune returns the ASCII form of the rune of quoteRunes s opens
// with and that rune's length; 0 for none.
func firstQuoteRune(s string) (byte, int) {
	for _, q := range quotePairs {
		if strings.HasPrefix(s, q.from) {
			return q.to, len(q.from)
		}
	}
	return 0, 0
}

// evidenceAsWritten returns the evidence quote ev, taken from the
// passages' normalised text (normQuotes), as the passages write it. A
// negated list's item is quoted with its lead ("We don't cover: (b) storm
// damage ...", lists.go), which is no substring of the passage: the lead
// and the item are each given back as written.
func evidenceAsWritten(ev string, docs []*prepared) string {
	if w, ok := asWritten(ev, docs); ok {
		return w
	}
	if lead, item, ok := strings.Cut(ev, ": "); ok {
		l, lok := asWritten(lead+":", docs)
		i, iok := asWritten(item, docs)
		if lok || iok {
			return l + " " + i
		}
	}
	return ev
}

// asWritten is quoteAsWritten of q in the first of docs' passages or
// titles as written that holds it.
func asWritten(q string, docs []*prepared) (string, bool) {
	for _, d := range docs {
		if d.raw == "" {
			continue
		}
		if w, ok := quoteAsWritten(q, d.raw); ok {
			return w, true
		}
		if w, ok := quoteAsWritten(q, d.rawTitle); ok {
			return w, true
		}
	}
	return q, false
}
