package judge

import "strings"

// Negated lists. A policy's exclusions are a lead that negates and a list
// of items, each on its own line or after the colon:
//
//	We do not cover:
//	(a) wear and tear;
//	(b) storm or flood damage to gates, fences and hedges;
//
// Read one sentence at a time, item (b) states storm damage to fences
// plainly, and "Storm damage to fences is covered" would be entailed by it.
// The lead's negation goes to each item instead: prepare reads an item as
// its lead followed by the item ("We do not cover: (b) storm or flood
// damage ..."), the span a verdict shows, with a negation that governs the
// item's content terms up to a contrast ("unless", "except", "but"); an
// unnegated claim that states what follows the contrast ("covered if the
// item was hidden in a locked boot") is read without the lead's negation.
// An item's own negation ("pipes in garages that are not heated") leaves
// out a claim that states its terms plainly ("a heated garage": two
// negations, at most neutral), and a claim that keeps it but drops the
// lead's is contradicted. A lead negates when a negation cue governs a
// word of cover, permission or fitness ("not cover", "not included", "are
// not allowed", "will not pay for", "not suitable for") or
// nothing in the lead ("You must not:"), or when it names exclusions
// ("Exclusions:", "Excluded:"); a conditional lead ("If you do not pay:")
// does not. Items are numbered, lettered or bulleted lines, unmarked
// lines that end in ";" or "," or follow an item that does, and, in a list
// whose first item is one, short lines with no marker and no closing
// punctuation (bareItem: "Damage caused by pets", as the index writes a
// Markdown bullet list). The list ends at the first line that is no item,
// a heading ("## 2.7 ...", or a bare line naming the list's subject again,
// "What we cover") or another lead.

// maxLeadChars is the longest lead read as one: a longer sentence ending
// in a colon is prose, not a list's lead.
const maxLeadChars = 120

// leadVerbs are the stems whose negation in a lead excludes the items:
// cover, inclusion, permission, payment, fitness ("not suitable for:",
// "not recommended for:", "cannot be used for:").
var leadVerbs = stemSet("cover covered include included includes allow allowed allows permit permitted accept accepted eligible pay paid provide provided offer offered refund refundable insure insured guarantee guaranteed available supported admitted bring use used responsible liable suitable suited recommended appropriate intended designed safe")

// exclusionStems name a list of exclusions without a negation cue.
var exclusionStems = stemSet("exclusion exclusions excluded exclude excludes prohibited forbidden banned")

// conditionalOpeners open a lead whose negation is a condition, not an
// exclusion ("If you do not pay:").
var conditionalOpeners = []string{"if ", "unless ", "when ", "where ", "whether ", "once ", "in case "}

// contrastWords end an item's excluded part: what follows is let back in.
var contrastWords = []string{" unless ", " except ", " but ", " however ", " provided ", " other than "}

func stemSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[canonStem(w)] = true
	}
	return m
}

// negatingLead reports whether lead (a sentence or clause ending in a
// colon, the colon cut off) carries a negation to the list it opens.
func negatingLead(lead string) bool {
	lead = strings.TrimSpace(lead)
	if lead == "" || len(lead) > maxLeadChars {
		return false
	}
	lower := strings.ToLower(lead)
	for _, c := range conditionalOpeners {
		if strings.HasPrefix(lower, c) {
			return false
		}
	}
	ts := analyse(normPhrases(lead))
	for i, t := range ts {
		if !t.neg && exclusionStems[t.stem] {
			return true
		}
		if !t.neg || t.stem == "without" {
			continue
		}
		governs := false
		for j := i + 1; j < len(ts) && j <= i+negObjs && !ts[j].brk; j++ {
			if ts[j].neg || ts[j].isNum {
				continue
			}
			governs = true
			if leadVerbs[ts[j].stem] {
				return true
			}
		}
		if !governs && i+1 == len(ts) {
			return true // "You must not:", "Not:": the items are what is negated
		}
	}
	return false
}

// listMarker returns the length of the list marker s opens with ("(b) ",
// "b) ", "3. ", "iv. ", "- ", "• "), 0 for none.
func listMarker(s string) int {
	if s == "" {
		return 0
	}
	switch {
	case strings.HasPrefix(s, "- "), strings.HasPrefix(s, "* "), strings.HasPrefix(s, "+ "):
		return 2
	case strings.HasPrefix(s, "• "), strings.HasPrefix(s, "· "), strings.HasPrefix(s, "– "), strings.HasPrefix(s, "— "):
		return strings.IndexByte(s, ' ') + 1
	}
	i := 0
	open := s[0] == '('
	if open {
		i++
	}
	j := i
	for j < len(s) && j-i < 4 && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	if j == i || j >= len(s) {
		return 0
	}
	digits, roman := true, true // no allocation: a line of prose is read here too
	for k := i; k < j; k++ {
		c := s[k]
		digits = digits && c >= '0' && c <= '9'
		c |= 0x20
		roman = roman && (c == 'i' || c == 'v' || c == 'x')
	}
	tok := s[i:j]
	if !digits && !roman && len(tok) > 1 {
		return 0
	}
	switch {
	case s[j] == ')':
	case s[j] == '.' && !open:
	default:
		return 0
	}
	j++
	if j < len(s) && s[j] != ' ' && s[j] != '\t' {
		return 0
	}
	return j
}

// listEnd reports whether s ends as a list item that another follows
// (";" or ",", or "; or", "; and").
func listEnd(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimSuffix(s, " or"), " and")
	return strings.HasSuffix(s, ";") || strings.HasSuffix(s, ",")
}

// excludedStems returns the content stems of item (its marker, if any,
// read past) that a negating lead governs: those before a contrast word,
// in each of its ";"-separated parts; except holds those after one, what
// the item lets back in ("unless the item was hidden in a locked boot");
// inner those of the excluded part that the item's own negation governs
// ("heated" in "pipes in garages that are not heated"): a case that
// states them plainly is outside the exclusion.
func excludedStems(item string) (excluded, except, inner []string) {
	for _, part := range strings.Split(item, ";") {
		part = strings.TrimSpace(part)
		part = part[listMarker(part):]
		lower := " " + lowerASCII(part) + " "
		// lower[i] is part[i-1]: part[:i] ends before the contrast word
		cut := len(part)
		for _, c := range contrastWords {
			if i := strings.Index(lower, c); i >= 0 && i < cut {
				cut = i
			}
		}
		ts := analyse(normPhrases(part[:cut]))
		for i, t := range ts {
			if !t.neg && !t.isNum {
				excluded = append(excluded, t.stem)
				continue
			}
			if !t.neg || t.stem == "without" {
				continue
			}
			for j, n := i+1, 0; j < len(ts) && n < negNear && !ts[j].brk; j++ {
				if !ts[j].neg && !ts[j].isNum {
					inner = append(inner, ts[j].stem)
					n++
				}
			}
		}
		for _, t := range analyse(normPhrases(part[cut:])) {
			if !t.neg && !t.isNum {
				except = append(except, t.stem)
			}
		}
	}
	return excluded, except, inner
}

// statesException reports whether a claim whose content stems are
// claimStems names what an item lets back in (except): at least half of
// it, and two stems or more. Such a claim ("Theft from a car is covered
// if the item was hidden in a locked boot") is about the exception, which
// the lead does not negate.
func statesException(except []string, has func(string) bool) bool {
	if len(except) < 2 {
		return false
	}
	n := 0
	for _, st := range except {
		if has(st) {
			n++
		}
	}
	return n >= 2 && 2*n >= len(except)
}

// statesOutside reports whether a claim whose content stems are claimStems
// (has) and whose negated ones are claimNeg states plainly a stem an
// item's own negation governs (inner): "a heated garage" against "We do not
// cover: ... garages that are not heated" names a case the item leaves
// out.
func statesOutside(inner []string, has func(string) bool, claimNeg []string) bool {
	for _, st := range inner {
		if has(st) && !stemIn(st, claimNeg) {
			return true
		}
	}
	return false
}

// claimNegatesAll reports whether the claim (has, claimNeg as for
// statesOutside) states each stem of inner that it names under a
// negation, and names one.
func claimNegatesAll(inner []string, has func(string) bool, claimNeg []string) bool {
	n := 0
	for _, st := range inner {
		if !has(st) {
			continue
		}
		if !stemIn(st, claimNeg) {
			return false
		}
		n++
	}
	return n > 0
}

// listReader follows the sentences of a passage through negated lists.
type listReader struct {
	lead    string // the open list's lead ("We do not cover:"), "" none
	prevEnd bool   // the last item ends in ";" or "," (listEnd)
	// items counts the open list's items; bare is set when its first
	// item is a bareItem line, and only such a list takes more of them
	items int
	bare  bool
}

// maxBareWords is the longest bareItem line, in words: a longer line
// without closing punctuation is a wrapped sentence's piece, not an item.
const maxBareWords = 12

// bareItem reports whether line t can be an item of a list written one a
// line with no marker and no punctuation, as the index writes a Markdown
// bullet list and a plain-text file keeps one ("We do not cover:" then
// "Damage caused by pets", "Wear and tear"): at most maxBareWords words,
// not closed (no ".", "!", "?", ")" or quote at its end; ";" and "," are
// listEnd's), and not a heading that names the list's subject again
// ("What we cover", "Exclusions", "What is included"): a lead or
// exclusion word in a line that follows the list starts the next part.
// A heading of another subject ("Claims") is taken as an item; see
// docs/quality.md (judge26).
func bareItem(t string) bool {
	if strings.Count(t, " ")+1 > maxBareWords {
		return false
	}
	switch t[len(t)-1] {
	case '.', '!', '?', ')', ']', '"', '\'':
		return false
	}
	if strings.HasSuffix(t, "”") || strings.HasSuffix(t, "’") {
		return false
	}
	for _, tm := range analyse(normPhrases(t)) {
		if leadVerbs[tm.stem] || exclusionStems[tm.stem] {
			return false
		}
	}
	return true
}

// listItem is a sentence read as an item of a negated list.
type listItem struct {
	// text is the sentence as read: the item after its lead ("We do not
	// cover: (b) storm ..."), or the sentence itself for an inline list
	text                    string
	excluded, except, inner []string // excludedStems of the item or the list after the colon
	// leadCues: the lead's negation cues, the text's first
	leadCues int
	lead     bool // the item is on its own line after its lead, not inline
}

// next reads sentence t (trimmed) and returns it as an item of a negated
// list, on its own line after its lead or after the lead's colon in t
// ("Not included: towels; bedding."); ok is false for any other sentence.
func (r *listReader) next(t string) (it listItem, ok bool) {
	if r.lead != "" {
		// a heading or another lead ends the list
		bare := (r.items == 0 || r.bare) && listMarker(t) == 0 && !r.prevEnd && !listEnd(t) && bareItem(t)
		if t[0] != '#' && !strings.HasSuffix(t, ":") && (listMarker(t) > 0 || r.prevEnd || listEnd(t) || bare) {
			if r.items == 0 {
				r.bare = bare
			}
			r.prevEnd = listEnd(t)
			r.items++
			it = listItem{text: r.lead + " " + t, leadCues: cues(r.lead), lead: true}
			it.excluded, it.except, it.inner = excludedStems(t)
			return it, true
		}
		r.lead = ""
	}
	colon := strings.IndexByte(t, ':')
	if colon < 0 {
		return it, false
	}
	rest := strings.TrimSpace(t[colon+1:])
	if rest == "" {
		if strings.HasSuffix(t, ":") && negatingLead(t[:colon]) {
			r.lead, r.prevEnd, r.items, r.bare = t, false, 0, false
		}
		return it, false
	}
	if (listMarker(rest) > 0 || strings.Contains(rest, ";")) && negatingLead(t[:colon]) {
		it = listItem{text: t, leadCues: cues(t[:colon+1])}
		it.excluded, it.except, it.inner = excludedStems(rest)
		return it, true
	}
	return it, false
}

// cues counts the negation cues of lead as prepare reads them.
func cues(lead string) int {
	n := 0
	for _, t := range analyse(normPhrases(lead)) {
		if t.neg {
			n++
		}
	}
	return n
}

// clauseWords name a numbered clause of terms or rules ("Clause 7:",
// "Section 5.", "Article 12 -").
var clauseWords = []string{"clause", "section", "article", "paragraph", "rule", "part", "schedule", "chapter"}

// clauseMarker returns the length of the clause number s opens with, with
// the spaces after it, 0 for none: a list marker ("(a) ", "12) ", "iv. ",
// "6. "), a dotted number before a capitalised word ("6.1 Pitches",
// "4.2.3 Thefts", "4.2.3. Thefts"; not a decimal before a unit, "2.5 Litres"),
// or a clause word and its number before ':', '.' or a dash ("Clause 7: ",
// "Section 5. ", "Article 12 - "). A clause number names the clause; it is
// no quantity of what the clause says.
func clauseMarker(s string) int {
	if n := listMarker(s); n > 0 {
		return skipSpaceStr(s, n)
	}
	i := 0
	if w := wordAt(s, 0); w != "" {
		if !refWord(w) {
			return 0
		}
		i = skipSpaceStr(s, len(w))
		if i == len(w) {
			return 0
		}
	}
	j, dots := i, 0
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j > i && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
		if s[j] == '.' {
			dots++
		}
		j++
	}
	if j == i || j-i > 12 {
		return 0
	}
	if p := refParens(s, j); p > 0 { // "4(b) ", "Clause 4(b): "
		j += p
		if i == 0 {
			if k := skipSpaceStr(s, j); k > j && k < len(s) {
				return k
			}
			return 0
		}
	}
	if i > 0 { // after a clause word: "7:", "5.", "12 -", "7 –"
		k := j
		if k < len(s) && (s[k] == ':' || s[k] == '.') {
			k++
		} else if d := skipSpaceStr(s, k); d > k && (strings.HasPrefix(s[d:], "- ") || strings.HasPrefix(s[d:], "– ") || strings.HasPrefix(s[d:], "— ")) {
			k = d + strings.IndexByte(s[d:], ' ')
		} else {
			return 0
		}
		if k < len(s) && s[k] != ' ' && s[k] != '\t' {
			return 0
		}
		return skipSpaceStr(s, k)
	}
	if dots == 0 {
		return 0
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	k := skipSpaceStr(s, j)
	if k == j || k == len(s) || s[k] < 'A' || s[k] > 'Z' {
		return 0
	}
	if dots == 1 {
		w := wordAt(s, k)
		var buf [24]byte
		if len(w) <= len(buf) {
			lw := buf[:len(w)]
			for x := range len(w) {
				lw[x] = w[x] | 0x20
			}
			if units[string(lw)] != (unit{}) || currencyWords[string(lw)] || multipliers[string(lw)] != 0 {
				return 0
			}
		}
	}
	return k
}
