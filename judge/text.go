package judge

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// term is one analysed word or number of a text.
type term struct {
	stem string  // stemmed lowercase form ("" for numbers)
	raw  string  // lowercase surface form of a word
	num  float64 // value when isNum
	// unit: the unit as written, lowercase, a key of units ("" for none).
	// A quantity with a unit ("90 minutes") is also its value in the base
	// unit of its dimension ("time", 5400 s), so that "1.5 hours"
	// matches it. The dimension and base value are read from units, not
	// kept: a term is 64 bytes (96 with them), and every claim's terms
	// are made afresh.
	unit   string
	dec    int16 // decimals written, for rounding comparisons
	isNum  bool
	entity bool // capitalised mid-sentence, acronym or alphanumeric code
	neg    bool // a negation cue
	brk    bool // a clause boundary (, ; : brackets, sentence end) precedes it
	// lst: a comma of a negated list precedes it ("No dogs, cats or other
	// pets"): no clause boundary, the negation goes on over the list
	lst bool
	// kind: a number written as a price (numMoney: "£89", "12 euros") or
	// as a count of things (numCount: "2 bulbs"); 0 for neither
	kind uint8
}

// The kinds of a number without a unit (term.kind).
const (
	numMoney uint8 = 1 + iota
	numCount
	// numRef: the number of a clause a text names ("clause 6.1", "under
	// section 4.2", "see rule 12", a line's "6.1 " or "Clause 7: "): no
	// quantity, compared only with another clause number, as written
	// (term.raw), a clause matching its own sub-clauses (refEqual); a bit
	// of its own, as otherKinds reads the kinds as bits
	numRef = 4
)

// ReasonReferenceMismatch: the claim names another clause than the cited
// source does for what it says ("under clause 7" against "Clause 6: ..."):
// a contradiction, of major severity (the rule is right, the pointer to it
// is not).
const ReasonReferenceMismatch = "reference_mismatch"

// otherKinds reports whether a and b are a price and a count ("comes with
// 2 bulbs" says nothing against "£89", however both read as plain
// numbers), or a clause number and a quantity ("under clause 6.1" says
// nothing against "£50").
func otherKinds(a, b term) bool {
	if a.kind == numRef || b.kind == numRef {
		return a.kind != b.kind
	}
	return a.kind|b.kind == numMoney|numCount
}

// refEqual reports whether clause numbers a and b name the same clause,
// or one a clause of the other ("6" and "6.1", "4" and "4(b)": "under
// clause 6" cites the clause whose 6.1 the source quotes).
func refEqual(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a) && (b[len(a)] == '.' || b[len(a)] == '(')
}

// refWord reports whether w (any case) names a numbered clause
// (clauseWords).
func refWord(w string) bool {
	for _, cw := range clauseWords {
		if strings.EqualFold(w, cw) {
			return true
		}
	}
	return false
}

// refNumber returns the length of the clause number at s[i:] ("6.1",
// "4.2.3", "12", "6a"): digits, dots between digits and a letter glued
// to the end; 0 when s[i] is no digit or a letter other than one follows
// ("5kg").
func refNumber(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j > i && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
		j++
	}
	if j == i {
		return 0
	}
	if j < len(s) && isLetterByte(s[j]) {
		if j+1 < len(s) && isLetterByte(s[j+1]) {
			return 0
		}
		j++
	}
	return j + refParens(s, j) - i
}

// refParens returns the length of the lettered or numbered sub-clauses
// glued to a clause number at s[j:] ("(b)" in "4(b)", "(b)(ii)" in
// "4(b)(ii)", "(3)" in "12(3)"): each one to three letters or digits in
// brackets; 0 for none.
func refParens(s string, j int) int {
	i := j
	for j < len(s) && s[j] == '(' {
		k := j + 1
		for k < len(s) && k-j <= 3 && (isLetterByte(s[k]) || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		if k == j+1 || k >= len(s) || s[k] != ')' {
			break
		}
		j = k + 1
	}
	return j - i
}

// refAfterWord reports whether the number at text[i:] follows a clause
// word and a space ("clause 6.1", "Section 4"): it names the clause.
func refAfterWord(text string, i int) bool {
	k := i
	for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
		k--
	}
	if k == i {
		return false
	}
	w := k
	for w > 0 && isLetterByte(text[w-1]) {
		w--
	}
	return w < k && refWord(text[w:k])
}

// lettered reports whether the number at text[i:] names a lettered
// sub-clause ("4(b)", "12.3(a)"), which no quantity is written as; not
// after a letter or digit ("A4(b)").
func lettered(text string, i int) bool {
	if i > 0 && (isLetterByte(text[i-1]) || text[i-1] >= '0' && text[i-1] <= '9') {
		return false
	}
	n := refNumber(text, i)
	return n > 0 && strings.IndexByte(text[i:i+n], '(') > 0
}

// markerRef is the clause number a line's clause marker m (clauseMarker)
// names: that of a clause word ("Clause 7: ") or a dotted one ("6.1 ",
// "4.2.3. "); "" for a plain list marker ("3. ", "12) ", "(a) ", "iv. "),
// which numbers an answer's list as often as a clause.
func markerRef(m string) string {
	i := 0
	if w := wordAt(m, 0); w != "" {
		if !refWord(w) {
			return ""
		}
		i = skipSpaceStr(m, len(w))
	}
	n := refNumber(m, i)
	if n == 0 || i == 0 && strings.IndexAny(m[:i+n], ".(") < 0 {
		return ""
	}
	return strings.ToLower(m[i : i+n])
}

// numKind is the kind of the number text[i:j] (with its multiplier, if
// any) that has no unit: a price after a currency sign or before a
// currency word, a count before a content word ("2 bulbs", "2 million
// people"; not "2 a night", nor "2, £89").
func numKind(text string, i, j int) uint8 {
	k := i
	for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
		k--
	}
	if r, _ := utf8.DecodeLastRuneInString(text[:k]); r == '£' || r == '$' || r == '€' || r == '¥' {
		return numMoney
	}
	k = skipSpaceStr(text, j)
	if k == j && k < len(text) {
		return 0 // glued to what follows
	}
	w := wordAt(text, k)
	if len(w) < 2 || k+len(w) < len(text) && text[k+len(w)] >= '0' && text[k+len(w)] <= '9' {
		return 0
	}
	// the word lower-cased on the stack: the look-ups allocate nothing
	var buf [24]byte
	if len(w) > len(buf) {
		return numCount // no currency, unit or stopword is that long
	}
	lw := buf[:len(w)]
	for x := range len(w) {
		lw[x] = w[x] | 0x20 // wordAt returns ASCII letters only
	}
	if currencyWords[string(lw)] {
		return numMoney
	}
	if wc := lexicon[string(lw)]; wc.stop || wc.neg || wc.unNeg || wc.numWord || units[string(lw)] != (unit{}) || multipliers[string(lw)] != 0 {
		return 0
	}
	return numCount
}

// dim is the dimension of t's unit ("time", "length"), "" without one.
func (t *term) dim() string {
	if t.unit == "" {
		return ""
	}
	return units[t.unit].dim
}

// analyse splits text into terms. Stopwords are dropped except negation
// cues, which are kept with neg set; a negated adjective ("unrelated") is a
// negation cue followed by the adjective ("related").
func analyse(text string) []term {
	return analyseUpTo(text, 0)
}

// analyseUpTo is analyse, stopping as soon as the terms hold limit terms
// that are not negation cues (0: no limit). The scan reads text left to
// right and a term depends only on the text before it and, for a comma
// before it, the list that comma may open (negList), so what it returns is
// the first terms of analyse(text).
func analyseUpTo(text string, limit int) []term {
	n := len(text)/8 + 2 // about a term per 8 bytes of prose
	if limit > 0 {
		n = min(n, 2*limit)
	}
	return analyseAppend(make([]term, 0, n), text, limit)
}

// analyseAppend is analyseUpTo(text, limit) appended to out: a caller that
// only counts the terms passes a buffer of its own (on its stack) and
// allocates nothing unless the terms outgrow it.
func analyseAppend(out []term, text string, limit int) []term {
	content := 0  // terms that are not negation cues
	first := true // sentence-initial word: capitalisation says nothing
	brk := false  // a clause boundary was seen since the last term
	lst := false  // a comma of a negated list was seen since the last term
	// negOpen: a negation cue was seen in this clause; sinceNeg counts the
	// content terms since it or since the last comma of its list
	negOpen, sinceNeg := false, 0
	// lineStart: nothing but spaces and heading marks since the text's or
	// the line's start, where a clause number ("6.1 ", "(a) ", "Clause 7:")
	// names the clause and says no quantity
	lineStart := true
	i := 0
	for i < len(text) {
		r, sz := utf8.DecodeRuneInString(text[i:])
		n0 := len(out)
		if lineStart {
			switch r {
			case ' ', '\t', '\r', '#':
			default:
				lineStart = false
				if n := clauseMarker(text[i:]); n > 0 {
					if ref := markerRef(text[i : i+n]); ref != "" {
						out = append(out, term{raw: ref, isNum: true, kind: numRef, brk: true})
					}
					i += n
					brk, first = true, true
					continue
				}
			}
		}
		switch {
		case r >= '0' && r <= '9' && (refAfterWord(text, i) && refNumber(text, i) > 0 || lettered(text, i)):
			// "clause 6.1", "under section 4.2", "see rule 12", "in
			// 4(b)": the clause's name, no quantity
			n := refNumber(text, i)
			out = append(out, term{raw: strings.ToLower(text[i : i+n]), isNum: true, kind: numRef})
			i += n
			first = false
		case r >= '0' && r <= '9':
			j := i
			dec := 0
			seenDot := false
			for j < len(text) {
				c := text[j]
				if c >= '0' && c <= '9' {
					if seenDot {
						dec++
					}
					j++
					continue
				}
				if (c == '.' || c == ',') && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9' {
					if c == '.' {
						if seenDot {
							break
						}
						seenDot = true
					}
					j++
					continue
				}
				break
			}
			raw := strings.ReplaceAll(text[i:j], ",", "")
			v, err := strconv.ParseFloat(raw, 64)
			if err == nil {
				// "2 million"
				k := skipSpaceStr(text, j)
				w := wordAt(text, k)
				if m, ok := multipliers[strings.ToLower(w)]; ok {
					v *= m
					j = k + len(w)
					dec = 0
				}
				// a unit after the number ("90 minutes", "38 m", "12 km")
				if j >= len(text) || !isLetterByte(text[j]) || glued[strings.ToLower(unitAt(text, j))] {
					k := skipSpaceStr(text, j)
					if u := unitAt(text, k); u != "" {
						if _, ok := units[strings.ToLower(u)]; ok {
							out = append(out, term{num: v, dec: int16(dec), isNum: true, unit: strings.ToLower(u)})
							i = k + len(u)
							first = false
							break
						}
					}
				}
				// a letter glued to digits ("ADAR1", "5th", "IL6") is a code
				if j < len(text) && isLetterByte(text[j]) {
					k := j
					for k < len(text) && (isLetterByte(text[k]) || (text[k] >= '0' && text[k] <= '9')) {
						k++
					}
					suffix := strings.ToLower(text[j:k])
					if suffix == "th" || suffix == "st" || suffix == "nd" || suffix == "rd" {
						out = append(out, term{num: v, isNum: true})
					} else if suffix == "p" {
						// pence ("50p"): a price, as "50 pence" is
						out = append(out, term{num: v, dec: int16(dec), isNum: true, kind: numMoney})
					} else {
						code := strings.ToLower(text[i:k])
						out = append(out, term{stem: code, raw: code, entity: true})
						if cls := ageClass(text, i, suffix, v); cls != "" {
							// "over-65s" names the seniors, by its age
							out = append(out, term{stem: cls, raw: cls})
						}
					}
					j = k
				} else {
					out = append(out, term{num: v, dec: int16(dec), isNum: true, kind: numKind(text, i, j)})
					if cls := ageGroup(text, j, v); cls != "" {
						// "65+", "65 and over": the seniors, by their age
						out = append(out, term{stem: cls, raw: cls})
					}
				}
			}
			i = j
			first = false
		case unicode.IsLetter(r):
			j := i
			hasDigit := false
			upper := 0
			n := 0
			for j < len(text) {
				r2, sz2 := utf8.DecodeRuneInString(text[j:])
				if unicode.IsLetter(r2) || unicode.IsDigit(r2) || (r2 == '\'' && j+1 < len(text) && text[j+1] == 't') {
					if unicode.IsDigit(r2) {
						hasDigit = true
					}
					if unicode.IsUpper(r2) {
						upper++
					}
					n++
					j += sz2
					continue
				}
				break
			}
			raw := text[i:j]
			lower := strings.ToLower(raw)
			if lower == "non" && j+1 < len(text) && text[j] == '-' && isLetterByte(text[j+1]) {
				// "non-residents": the others than the residents, one
				// term, so that "Residents may not park" is not read in
				// "Non-residents may not park"
				k := j + 1
				for k < len(text) && isLetterByte(text[k]) {
					k++
				}
				w := strings.ToLower(text[j+1 : k])
				if nonAble(w) {
					// "non-refundable" is "not refundable", as written with
					// "no refunds" or "cannot be refunded": a negation of
					// the word, where "non-residents" names other people
					out = append(out, term{stem: "not", neg: true}, term{stem: porterStem(w), raw: w})
				} else {
					out = append(out, term{stem: "non" + porterStem(w), raw: "non" + w})
				}
				i = k
				first = false
				break
			}
			if len(lower) > 3 && lower[:3] == "non" && nonAble(lower[3:]) {
				// "nonrefundable", "nontransferable": as "non-refundable"
				out = append(out, term{stem: "not", neg: true}, term{stem: porterStem(lower[3:]), raw: lower[3:]})
				i = j
				first = false
				continue
			}
			if strings.HasSuffix(lower, "n't") {
				out = append(out, term{stem: "not", neg: true})
				lower = strings.TrimSuffix(lower, "n't")
				if lower == "ca" || lower == "wo" || lower == "sha" {
					i = j
					first = false
					continue
				}
			}
			// one look-up for negations, unNegated, numberWords, stopwords
			// and canon
			wc := lexicon[lower]
			if wc.ref && refNumber(text, skipSpaceStr(text, j)) > 0 && skipSpaceStr(text, j) > j {
				// the clause word of a clause number, which names
				// the clause with it (the number's case above)
				i = j
				first = false
				continue
			}
			if lower == "one" && oneCounts(text, i, j) {
				wc.numWord, wc.num = true, 1
			}
			if wc.neg {
				out = append(out, term{stem: lower, neg: true})
			} else if wc.unNeg {
				out = append(out, term{stem: "not", neg: true}, term{stem: porterStem(lower[2:]), raw: lower[2:]})
			} else if wc.numWord {
				v := wc.num
				k := skipSpaceStr(text, j)
				w := wordAt(text, k)
				if m, ok := multipliers[strings.ToLower(w)]; ok {
					v *= m
					j = k + len(w)
				}
				nt := term{num: v, isNum: true}
				if lower == "one" {
					nt.raw = "one" // weighs as the word did (Local.signals)
				}
				k = skipSpaceStr(text, j)
				if u := unitAt(text, k); u != "" {
					if _, ok := units[strings.ToLower(u)]; ok {
						nt.unit = strings.ToLower(u)
						j = k + len(u)
					}
				}
				if nt.unit == "" {
					nt.kind = numKind(text, i, j)
				}
				out = append(out, nt)
			} else if !wc.stop && n > 1 {
				ent := hasDigit || (upper > 1 && upper == n) || (upper > 0 && !first) || (upper > 1)
				st := lower
				if !hasDigit && len(lower) > 3 {
					st = porterStem(lower)
				}
				if wc.canonical {
					st = wc.canon
				} else if c, ok := canon[st]; ok {
					st = c
				}
				if lower == "banned" && ruleBanned(text, i) {
					st = canon["forbid"]
				}
				out = append(out, term{stem: st, raw: lower, entity: ent})
				if lower == "concession" || lower == "concessions" {
					// a price list's concessions are its older people's
					// price, among others': the item names the seniors
					// too, as "over-65s" does
					out = append(out, term{stem: canon["senior"], raw: canon["senior"]})
				}
			}
			i = j
			first = false
		default:
			if r == '.' || r == '!' || r == '?' || r == ':' || r == '\n' {
				first = true
			}
			lineStart = lineStart || r == '\n'
			switch r {
			case ',':
				if negOpen && sinceNeg >= 1 && sinceNeg <= negListItem && negList(text, i+1) {
					lst, sinceNeg = true, 0
				} else {
					brk = true
				}
			case '.', '!', '?', ':', ';', '(', ')', '[', ']', '\n':
				brk = true
			}
			i += sz
		}
		if len(out) > n0 {
			if brk {
				out[n0].brk = true
				brk, lst, negOpen = false, false, false
			} else if lst {
				out[n0].lst = true
				lst = false
			}
			for _, t := range out[n0:] {
				if t.neg {
					negOpen, sinceNeg = true, 0
				} else if negOpen {
					sinceNeg++
				}
			}
		}
		if limit > 0 {
			for _, t := range out[n0:] {
				if !t.neg {
					content++
				}
			}
			if content >= limit {
				break
			}
		}
	}
	return out
}

// negListItem is how many words an item of a negated list may have.
const negListItem = 3

// negList reports whether text[i:], just after a comma, goes on a list:
// items of one to negListItem words, separated by commas, the last joined
// by "or", "nor" or "and" ("cats or other pets are allowed", "cats, birds
// or fish"). A clause ("and the dogs must be leashed" after a comma) or
// other punctuation ends it: not a list. ", or pets" is one; ", and" is
// not (it joins clauses more often than it ends a list), nor is ", but
// ..." and the like (contrast).
func negList(text string, i int) bool {
	words := 0
	for items := 0; i < len(text) && items < 8; {
		c := text[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == ',':
			if words == 0 {
				return false
			}
			words = 0
			items++
			i++
		case isLetterByte(c) || (c >= '0' && c <= '9') || c >= 0x80:
			j := i
			for j < len(text) && (isLetterByte(text[j]) || (text[j] >= '0' && text[j] <= '9') || text[j] >= 0x80 || text[j] == '-' || text[j] == '\'') {
				j++
			}
			switch lw := strings.ToLower(text[i:j]); {
			case lw == "or" || lw == "nor":
				return true
			case lw == "and":
				return words > 0
			case words == 0 && contrast[lw]:
				return false // "not on Sundays, but on Mondays or ..."
			}
			words++
			if words > negListItem {
				return false
			}
			i = j
		default:
			return false
		}
	}
	return false
}

// contrast are the words that open a clause set against a negated one,
// not an item of its list.
var contrast = map[string]bool{"but": true, "except": true, "only": true, "instead": true, "rather": true, "unless": true}

// lowerASCII lowercases the ASCII letters of s and leaves every other
// byte as it is, so an index into the result is one into s (strings.ToLower
// may change the length: invalid UTF-8 becomes U+FFFD, "İ" becomes "i̇").
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isLetterByte(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func skipSpaceStr(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// ruleBanned reports whether the "banned" at text[i:] states a rule: after
// "is", "are" or "be", with at most an -ly word between ("Dogs are
// banned", "Glass is strictly banned", "must be banned"). It is then
// "forbidden", the complement of "allowed". "Ban" and "banned" in general
// are not: in news and science a ban is more often a policy named ("was
// banned in 1990", "the ban on ...") than a rule stated, and reading them
// as "forbid" moved the models fitted across data sets down (judge19).
func ruleBanned(text string, i int) bool {
	w, i := wordBefore(text, i)
	if len(w) > 4 && strings.HasSuffix(w, "ly") {
		w, _ = wordBefore(text, i)
	}
	return w == "is" || w == "are" || w == "be"
}

// wordBefore returns the lowercase word of letters that ends, but for
// spaces, just before text[i:], and where it starts ("" when no word does).
func wordBefore(text string, i int) (string, int) {
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && isLetterByte(text[k-1]) {
		k--
	}
	return strings.ToLower(text[k:j]), k
}

func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isLetterByte(s[j]) {
		j++
	}
	return s[i:j]
}

// oneCounts reports whether the "one" at text[i:j] is a number: one of a
// thing ("one guest", "one family of") or of a unit ("one hour"), where
// the word says as much as "1" or "six" does; not a pronoun ("one of
// the largest", "no one else", "the one that").
func oneCounts(text string, i, j int) bool {
	k := skipSpaceStr(text, j)
	if k == j {
		return false
	}
	if u := unitAt(text, k); u == "" || units[strings.ToLower(u)] == (unit{}) {
		if numKind(text, i, j) != numCount {
			return false
		}
	}
	switch w, _ := wordBefore(text, i); w {
	case "no", "any", "every", "each", "some", "the", "this", "that", "which", "another":
		return false
	}
	switch strings.ToLower(wordAt(text, k)) {
	case "another", "else", "way":
		return false
	}
	return true
}

// numEqual compares a claim number with an evidence number at the claim's
// precision ("3.5" matches "3.49"; "3" does not match "3.5"). A clause
// number equals only a clause number of the same clause (refEqual).
func numEqual(claim, ev term) bool {
	if claim.kind == numRef || ev.kind == numRef {
		return claim.kind == ev.kind && refEqual(claim.raw, ev.raw)
	}
	if claim.unit != "" && ev.unit != "" {
		if cu, eu := units[claim.unit], units[ev.unit]; cu.dim == eu.dim && cu != eu {
			cm, cok := calMonths(cu, claim.num)
			em, eok := calMonths(eu, ev.num)
			switch {
			case cok && eok:
				// months against years are exact: 12 months are a year
				return math.Abs(cm-em) <= 1e-9*math.Max(math.Abs(cm), math.Abs(em))
			case cu.f == monthSecs || eu.f == monthSecs:
				// months against days or weeks are not (a month is 28 to
				// 31 days): never the same number, apart only outside that
				// span (periodsApart)
				return false
			}
			// the same quantity in another unit of its dimension: exact
			// for time, within rounding for the others ("38 metres (125
			// ft)")
			tol := 1e-9
			if cu.dim != "time" {
				tol = 0.005
			}
			cb, eb := float64(claim.num*cu.f), float64(ev.num*eu.f) // the values in the base unit, rounded as when they were kept
			return math.Abs(cb-eb) <= tol*math.Max(math.Abs(cb), math.Abs(eb))
		}
	}
	if claim.num == ev.num {
		return true
	}
	p := math.Pow(10, float64(claim.dec))
	return claim.dec > 0 && math.Round(ev.num*p) == math.Round(claim.num*p)
}

var multipliers = map[string]float64{
	"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
}

var numberWords = map[string]float64{
	"zero": 0, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
	"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
	"twice": 2, "triple": 3, "thrice": 3, "once": 1, "single": 1, "double": 2,
}

// unit is a unit of a dimension and its factor to the dimension's base.
type unit struct {
	dim string
	f   float64
}

// units maps a unit word (as written, lowercase) to its dimension.
var units = func() map[string]unit {
	m := map[string]unit{}
	add := func(dim string, f float64, words string) {
		for _, w := range strings.Fields(words) {
			m[w] = unit{dim, f}
		}
	}
	add("time", 1, "second seconds sec secs s")
	add("time", 60, "minute minutes min mins")
	add("time", 3600, "hour hours hr hrs h")
	add("time", 86400, "day days")
	add("time", 7*86400, "week weeks")
	add("time", monthSecs, "month months")
	add("time", 365*86400, "year years yr yrs")
	add("length", 1, "metre metres meter meters m")
	add("length", 0.01, "centimetre centimetres centimeter centimeters cm")
	add("length", 0.001, "millimetre millimetres millimeter millimeters mm")
	add("length", 1000, "kilometre kilometres kilometer kilometers km")
	add("length", 0.3048, "foot feet ft")
	add("length", 0.0254, "inch inches in")
	add("length", 1609.344, "mile miles mi")
	add("mass", 1, "gram grams g")
	add("mass", 1000, "kilogram kilograms kilo kilos kg")
	add("mass", 0.001, "milligram milligrams mg")
	add("mass", 453.59237, "pound pounds lb lbs")
	add("volume", 1, "litre litres liter liters l")
	add("volume", 0.001, "millilitre millilitres milliliter milliliters ml")
	add("ratio", 1, "percent %")
	// "per cent" is one unit of two words (unitAt); "per" alone says what
	// a price is for ("£50 per booking"), "cent" alone is money
	m["per cent"] = unit{"ratio", 1}
	return m
}()

// monthSecs is a month's factor in units: 30 days, a month's length only
// roughly, which numEqual and periodsApart read apart from the others.
const monthSecs = 30 * 86400

// calMonths returns n of unit u in months where u is a month or a year.
func calMonths(u unit, n float64) (float64, bool) {
	switch {
	case u.dim != "time":
	case u.f == monthSecs:
		return n, true
	case u.f == 365*86400:
		return 12 * n, true
	}
	return 0, false
}

// periodsApart reports whether quantities a and b of one dimension are
// certainly different: they are, except a number of months against a
// period in days, weeks or hours that lies within as many times 28 to 31
// days ("1 month" and "30 days", "4 weeks", or "3 months" and "13 weeks"
// may be the same period; "3 months" and "2 weeks" are not).
func periodsApart(a, b term) bool {
	if a.unit == "" || b.unit == "" {
		return true
	}
	au, bu := units[a.unit], units[b.unit]
	if au.dim != "time" || bu.dim != "time" || (au.f == monthSecs) == (bu.f == monthSecs) {
		return true
	}
	if au.f != monthSecs {
		a, b, au, bu = b, a, bu, au
	}
	if _, ok := calMonths(bu, b.num); ok {
		return true // months and years compare exactly
	}
	days := b.num * bu.f / 86400
	return days < 28*a.num || days > 31*a.num
}

// glued are the units written against the number ("12km").
var glued = map[string]bool{"km": true, "kg": true, "mg": true, "cm": true, "mm": true, "ml": true, "m": true, "%": true, "lb": true, "lbs": true, "min": true}

// unitAt returns the unit word at s[i:] ("" when none). "in" and "s",
// "m", "h", "l", "g" count only when no letter follows.
func unitAt(s string, i int) string {
	if i < len(s) && s[i] == '%' {
		return "%"
	}
	w := wordAt(s, i)
	if w == "" {
		return ""
	}
	if (w == "per" || w == "Per") && len(s) >= i+8 && s[i+3] == ' ' && strings.EqualFold(wordAt(s, i+4), "cent") {
		return s[i : i+8] // "per cent"
	}
	if _, ok := units[strings.ToLower(w)]; !ok {
		return ""
	}
	if w == "in" || w == "In" {
		return "" // the preposition, almost always
	}
	return w
}

var negations = map[string]struct{}{
	"not": {}, "no": {}, "never": {}, "none": {}, "neither": {}, "nor": {}, "without": {},
	"cannot": {}, "nothing": {}, "nobody": {}, "nowhere": {}, "lack": {}, "lacks": {},
	"lacked": {}, "lacking": {}, "absence": {}, "absent": {}, "unable": {}, "fail": {},
	"fails": {}, "failed": {},
}

// unNegated are adjectives that negate with a prefix; analyse reads them
// as a negation of the adjective without it ("unlimited mileage" is "no
// limit on mileage").
var unNegated = map[string]struct{}{
	"unrelated": {}, "uninvolved": {}, "unaffected": {}, "unchanged": {}, "unaltered": {},
	"uncorrelated": {}, "unassociated": {}, "unnecessary": {}, "unimportant": {}, "unlikely": {},
	"unlimited": {},
}

// nonAble reports whether w, written after "non-" or "non", is an
// adjective of what can be done to a thing ("refundable", "transferable",
// "negotiable", "returnable", "accessible"): "non-" then says "not", and
// analyse reads it as a negation of w. Other words after "non-" name
// another class ("non-residents", "non-members", "non-smoking") and stay
// one term.
func nonAble(w string) bool {
	return len(w) > 5 && (strings.HasSuffix(w, "able") || strings.HasSuffix(w, "ible")) && isLetterByte(w[0])
}

var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a an the and or but if then than that this these those there here
	of in on at by for with from to into onto over under about as is are was were be been being am
	it its it's he she they them their his her him we us our you your i me my mine yours
	do does did doing done have has had having will would shall should can could may might must
	which who whom whose what when where why how all any both each few many most other some such
	only own same so too very just also still even yet however thus therefore hence
	s t via per upon within among between while during after before because since until although though
	whereas whether either more less much further again once out up down off above below
	were'nt is's one's times approximately around roughly about nearly almost some generally
	usually typically often likely reportedly perhaps possibly probably mostly largely`) {
		m[w] = struct{}{}
	}
	// direction and comparison words carry meaning: keep them
	for _, w := range []string{"more", "less", "up", "down", "above", "below", "after", "before"} {
		delete(m, w)
	}
	return m
}()

// exclusive are the stems of words that restrict a claim to one cause or
// case ("solely", "exclusively"): the evidence must say so too.
var exclusive = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields("solely exclusively entirely always completely sole exclusive universally invariably") {
		m[stem(w)] = struct{}{}
	}
	return m
}()

// direction maps a word (as written, lowercase: stems would take "active"
// for "activate") that states a change of quantity to its polarity: +1 up
// ("increase", "higher", "promote"), -1 down ("reduce", "lower",
// "inhibit"). Words with common other senses ("fall", "limited", "lost",
// "high school") are left out.
var direction = func() map[string]int8 {
	m := map[string]int8{}
	for _, w := range strings.Fields(`increase increases increased increasing increment rise rises rose risen raise raises raised
	higher elevated elevation elevate enhance enhances enhanced enhancement promote promotes promoted
	induce induces induced induction stimulate stimulates stimulated stimulation activate activates activated
	activation upregulate upregulates upregulated upregulation more greater augment augments augmented
	boost boosts boosted amplify amplifies amplified accelerate accelerates accelerated faster larger
	rising raising elevates elevating enhancing promoting inducing stimulating activating upregulating
	augmenting boosting amplifying accelerating increments`) {
		m[w] = 1
	}
	for _, w := range strings.Fields(`decrease decreases decreased decreasing decrement reduce reduces reduced reducing reduction
	lower lowered lowers decline declines declined diminish diminishes diminished attenuate attenuates
	attenuated inhibit inhibits inhibited inhibition suppress suppresses suppressed suppression impair impairs
	impaired impairment downregulate downregulates downregulated downregulation less fewer smaller slower
	decelerate decelerates shorter deplete depletes depleted depletion abolish abolishes abolished abrogate
	abrogates abrogated prevent prevents prevented lowering declining diminishing attenuating inhibiting
	suppressing impairing downregulating depleting abolishing abrogating preventing reductions decrements`) {
		m[w] = -1
	}
	return m
}()

// Direction bits of a text: it states a change up, a change down.
const (
	dirUp uint8 = 1 << iota
	dirDown
)

// directions returns the direction bits of an analysed text. A negation
// just before a direction word, in its clause, flips it ("did not
// increase").
func directions(ts []term) uint8 {
	var b uint8
	for i := range ts {
		if ts[i].isNum || ts[i].neg {
			continue
		}
		pol, ok := direction[ts[i].raw]
		if !ok {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-2 && !ts[j+1].brk; j-- {
			if ts[j].neg {
				pol = -pol
				break
			}
		}
		if pol > 0 {
			b |= dirUp
		} else {
			b |= dirDown
		}
	}
	return b
}

// wordClass is what negations, unNegated, numberWords, stopwords, canon
// and clauseWords say of one lowercase word.
type wordClass struct {
	neg, unNeg, numWord, stop, canonical bool
	ref                                  bool    // clauseWords
	num                                  float64 // numberWords
	canon                                string  // canon
}

// lexicon merges the word lists analyse consults for every word, so that
// a word costs one map look-up instead of up to five. Built once from the
// lists, which nothing changes after.
var lexicon = func() map[string]wordClass {
	m := map[string]wordClass{}
	set := func(w string, f func(*wordClass)) {
		c := m[w]
		f(&c)
		m[w] = c
	}
	for w := range negations {
		set(w, func(c *wordClass) { c.neg = true })
	}
	for w := range unNegated {
		set(w, func(c *wordClass) { c.unNeg = true })
	}
	for w, v := range numberWords {
		set(w, func(c *wordClass) { c.numWord, c.num = true, v })
	}
	for w := range stopwords {
		set(w, func(c *wordClass) { c.stop = true })
	}
	for w, st := range canon {
		set(w, func(c *wordClass) { c.canonical, c.canon = true, st })
	}
	for _, w := range clauseWords {
		set(w, func(c *wordClass) { c.ref = true })
	}
	return m
}()

// canon maps inflected and synonymous forms (as written, or as stemmed) to
// one stem, so that a paraphrase matches its source: irregular verb forms
// ("lit", "bought"), and common synonyms ("purchase" for "buy").
var canon = func() map[string]string {
	m := map[string]string{}
	groups := []string{
		"light lit lighted lighting lights",
		"buy bought buying buys purchase purchased purchases purchasing",
		"begin began begun beginning begins start started starts starting commence commenced",
		"end ended ends ending finish finished finishes conclude concluded",
		"build built building builds construct constructed",
		"make made making makes",
		"take took taken takes taking",
		"hold held holds holding",
		"lead led leads leading",
		"sell sold sells selling",
		"pay paid pays paying",
		"write wrote written writes writing",
		"find found finds finding",
		"give gave given gives giving",
		"leave left leaves leaving depart departs departed departing",
		"run ran runs running",
		"win won wins winning",
		"know knew known",
		"grow grew grown growing grows",
		"show showed shown shows showing demonstrate demonstrated demonstrates",
		"need needs needed require requires required requirement compulsory mandatory obligatory",
		"get gets got obtain obtains obtained receive receives received",
		"allow allows allowed permit permits permitted",
		// the complement of allow (antonymPairs): "prohibited" is "not
		// allowed", "not permitted" "forbidden". "Ban" was tried with
		// them and left out: on the training splits it moved the models
		// fitted across data sets down (SciFact 0.692 -> 0.676, HaluEval
		// 0.786 -> 0.774), a ban in news and science being more often a
		// policy named than a rule stated
		"forbid forbids forbidden forbidding prohibit prohibits prohibited prohibiting",
		"help helps helped assist assists assisted",
		"use used uses using utilise utilised utilize utilized employ employed",
		"big large huge",
		"small little tiny",
		"quick fast rapid rapidly quickly",
		"tall high",
		"car automobile",
		"kid kids child children",
		// the classes of a price list's older people; an "over-65s" item
		// names them too (ageClass)
		"senior seniors pensioner pensioners retiree retirees oap oaps",
		"cost costs price priced",
		"free gratis",
		"shut close closed closes",
		"open opened opens",
		"travel travels travelled traveled traveling travelling journey",
		"live lives lived reside resides resided",
		"die died dies death",
		"born birth",
		"automate automated automatic",
		"every each",
		"see seen saw visible",
	}
	for _, g := range groups {
		ws := strings.Fields(g)
		c := ws[0]
		if len(c) > 3 {
			c = porterstemmer.StemString(c)
		}
		for _, w := range ws {
			m[w] = c
			if len(w) > 3 {
				st := porterstemmer.StemString(w)
				if _, ok := m[st]; !ok {
					m[st] = c
				}
			}
		}
	}
	delete(m, "pension") // the stem of "pensioners", and a word of its own
	return m
}()

// ageGroup returns the stem of the class of people an age with an open
// end names, "" for none: the number v ends at text[j:] and "+" or "and
// over" follows it ("65+", "aged 65 and over": seniors, from 60 to 99;
// "5 and under": children, up to 18), as ageClass reads "over-65s".
func ageGroup(text string, j int, v float64) string {
	over := j < len(text) && text[j] == '+' && (j+1 == len(text) || text[j+1] < '0' || text[j+1] > '9')
	if !over {
		k := skipSpaceStr(text, j)
		if !strings.EqualFold(wordAt(text, k), "and") {
			return ""
		}
		k = skipSpaceStr(text, k+3)
		switch w := strings.ToLower(wordAt(text, k)); {
		case w == "over":
			over = true
		case w == "under" && v >= 1 && v <= 18:
			return canon["kid"]
		default:
			return ""
		}
	}
	if over && v >= 60 && v < 100 && v == float64(int(v)) {
		return canon["senior"]
	}
	return ""
}

// ageClass returns the stem of the class of people an age item names
// ("over-65s", "over 60s": seniors; "under-16s", "under 5s": children),
// "" for none: text[i:j] is the number, s the letters glued to it, v its
// value. Only the plural item counts, after "over" or "under".
func ageClass(text string, i int, s string, v float64) string {
	if s != "s" {
		return ""
	}
	k := i
	if k > 0 && (text[k-1] == '-' || text[k-1] == ' ') {
		k--
	}
	b := k
	for b > 0 && isLetterByte(text[b-1]) {
		b--
	}
	switch w := strings.ToLower(text[b:k]); {
	case w == "over" && v >= 60 && v < 100:
		return canon["senior"]
	case w == "under" && v >= 1 && v <= 18:
		return canon["kid"]
	}
	return ""
}
