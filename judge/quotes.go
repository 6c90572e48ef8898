package judge

import (
	"strings"

	"github.com/answer-guard/guard/internal/quotefold"
)

// Typographic apostrophes and quotes (internal/quotefold): every reader
// of words in this package (analyse's "n't", the phrase rules, the
// negation and pay rules, the opinion and filler cues) is written for the
// ASCII ones. The verifier reads a copy of the claim and of each passage
// with them made ASCII (normQuotes), at its entry points (prepare, verify,
// verifyText, Features, Judge.check), and takes its evidence quotes from
// that copy; quoteAsWritten maps a quote back to the passage as written.

// normQuotes returns s with its typographic apostrophes and quotes
// written as ASCII ones; s itself when it holds none.
func normQuotes(s string) string { return quotefold.Fold(s) }

// quoteAsWritten returns the text of src (as written) that normQuotes
// makes into q, a quote taken from normQuotes(src); q itself when src
// holds no typographic quote or q is not found in its normalised form.
func quoteAsWritten(q, src string) (string, bool) {
	if q == "" || !quotefold.MayHold(src) {
		return q, false
	}
	// norm is normQuotes(src); at[i] is the offset in src of norm[i]
	norm := make([]byte, 0, len(src))
	at := make([]int, 0, len(src)+1)
	for i := 0; i < len(src); {
		if src[i] == 0xe2 || src[i] == 0xca || src[i] == 0xef {
			if r, n := quotefold.First(src[i:]); n > 0 {
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
