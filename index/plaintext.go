package index

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// plainTitleMax and plainHeadingMax bound, in characters, a plain-text
// file's title line and a heading line inside it: longer lines are prose.
const (
	plainTitleMax   = 100
	plainHeadingMax = 60
)

// plainText reads a plain-text file's body (.txt, .text). Its first line is
// the title when it reads as one: at most plainTitleMax characters, no
// closing punctuation, and more text after it that does not continue it
// (the next line, when not blank, opens with a capital or a digit). Title
// and heading lines (see headingLine) become paragraphs of their own, as a
// Markdown heading does, so that a note reads "Conditions of Travel. 6.
// Luggage, bicycles and animals. 6.1 You may ..." and not one run-on
// sentence; the title line stays in the text, as a Markdown page's first
// heading does. Everything else is kept as written (line breaks within a
// paragraph included). title is "" when the first line is not a title.
//
// A heading line that stands after a blank line, after the title line or
// after a line that ends a sentence also starts a section, as a Markdown
// "##" heading does: secs are where they start in text, and chunkDoc keeps
// sections apart and titles their chunks "Title: Heading" (operator trial 6:
// a price list's "Offers" and a terms file's "3. Payment" were the last
// line of the chunk before, and every chunk was titled by the file alone).
// A heading line inside a run of prose lines (a hard-wrapped sentence whose
// line happens to be short) makes a paragraph but no section. A heading
// line has text on the next line, save one in capitals (capsHeading), which
// may stand between blank lines.
//
// Text extracted from a PDF is read without its page furniture (pdfText).
func plainText(body string) (text, title string, secs []mdSection) {
	// text from a PDF (pages apart by form feeds) sets its headings as
	// lines of their own between blank lines, in any case (pdftotext
	// -layout: operator trial 40's terms, whose headings titled nothing)
	paged := strings.Contains(body, "\f")
	body = pdfText(strings.ReplaceAll(body, "\r\n", "\n"))
	lines := strings.Split(body, "\n")
	// A line underlined with ===== or ----- is a heading, as in Markdown
	// (operator trial 31's guide: its title was not read as one and each
	// underline was a paragraph of its own); a rule line alone holds no
	// text. Both are dropped, the heading kept.
	underlined := map[int]bool{}
	for i, l := range lines {
		if !ruleLine(l) {
			continue
		}
		if t := strings.TrimSpace(l); i > 0 && (t[0] == '=' || t[0] == '-') {
			if p := strings.TrimSpace(lines[i-1]); p != "" && !ruleLine(p) && utf8.RuneCountInString(p) <= plainTitleMax {
				underlined[i-1] = true
			}
		}
		lines[i] = ""
	}
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first == len(lines) {
		return "", "", nil // blank, or rule lines alone
	}
	next := func(i int) string { // the line after i, "" at the end
		if i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
		return ""
	}
	rest := strings.TrimSpace(strings.Join(lines[first+1:], "\n"))
	if t := strings.TrimSpace(lines[first]); rest != "" && utf8.RuneCountInString(t) <= plainTitleMax &&
		!closedLine(t) && (next(first) == "" || opensBlock(next(first))) {
		title = t
	}
	var b strings.Builder
	b.Grow(len(body) + 16)
	for i := first; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		t := strings.TrimSpace(l)
		n := next(i)
		var prev string
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		emoji := i > first && emojiHeading(t, prev, nextText(lines, i))
		heading := i > first && t != "" && (underlined[i] || emoji ||
			(n != "" && headingLine(t, n) || n == "" && (capsHeading(t) || paged && prev == "") && headingLine(t, nextText(lines, i))) && !fieldList(t, prev, n))
		if heading {
			if underlined[i] || emoji || prev == "" || (i-1 == first && title != "") || closedLine(prev) {
				secs = append(secs, mdSection{Off: b.Len() + len(l) - len(strings.TrimLeftFunc(l, unicode.IsSpace)), Heading: t})
			}
		}
		b.WriteString(l)
		if i == len(lines)-1 {
			break
		}
		b.WriteByte('\n')
		if n != "" && t != "" && ((i == first && title != "") || heading) {
			// a paragraph break after a title or heading line
			b.WriteByte('\n')
		}
	}
	out := b.String()
	lead := len(out) - len(strings.TrimLeftFunc(out, unicode.IsSpace))
	for k := range secs {
		secs[k].Off -= lead
	}
	return strings.TrimSpace(out), title, secs
}

// nextText is the first non-blank line after line i, trimmed ("" at the
// end).
func nextText(lines []string, i int) string {
	for _, l := range lines[i+1:] {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// capsHeading reports a line in capitals ("PART 3 - CULTIVATION", "TERMS"):
// a heading even with a blank line after it, where a short line of another
// case between blank lines may be a one-line paragraph. Operator trial 27's
// rules had every part's heading end the chunk before it.
func capsHeading(t string) bool {
	letters := 0
	for _, r := range t {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3
}

// headingLine reports whether line t, followed by the non-blank line next,
// is a heading: short (plainHeadingMax), no closing punctuation, opening
// with a capital or a digit, next opening a block the same way (a
// hard-wrapped sentence's next line mostly opens in lower case), and not
// a list line (listLine).
func headingLine(t, next string) bool {
	return utf8.RuneCountInString(t) <= plainHeadingMax && !closedLine(t) && opensBlock(t) && !bulletLine(t) && opensBlock(next) && !listLine(t)
}

// A note written on a phone (Apple Notes, a holiday let's house book:
// operator trial 35) heads its sections with an emoji and no blank line
// ("🔑 ARRIVAL", "📶 Wi-Fi:"), and lists its details as "Label: value"
// lines ("Network: RoseCottage", "Password: ..."). The emoji line was no
// heading (it opens with no capital), and a label line was one, titling
// the chunks after it by a Wi-Fi network's name.

// emojiLead splits the emoji (and other pictographs and symbols, their
// variation selectors and joiners) that open t from the text after them;
// lead is "" when t opens with a letter, digit or punctuation.
func emojiLead(t string) (lead, rest string) {
	i := 0
	for i < len(t) {
		r, size := utf8.DecodeRuneInString(t[i:])
		if !(unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\u200d' || r == '\ufe0f' || r == '\u20e3' || unicode.Is(unicode.Mn, r) && i > 0) {
			break
		}
		i += size
	}
	return t[:i], strings.TrimSpace(t[i:])
}

// emojiHeading reports a line that opens with an emoji and reads as a
// heading: short, in capitals or ending in ":" or without closing
// punctuation, and not one of a list of lines that open with the same
// emoji ("✅ Towels", "✅ Linen"), prev and next being the lines before
// and after it (trimmed, "" for none).
func emojiHeading(t, prev, next string) bool {
	lead, rest := emojiLead(t)
	if lead == "" || rest == "" || utf8.RuneCountInString(rest) > plainHeadingMax || bulletLine(rest) || fieldList(rest, "", "") {
		return false
	}
	if closedLine(rest) && !strings.HasSuffix(rest, ":") {
		return false
	}
	if p, _ := emojiLead(prev); p == lead {
		return false
	}
	n, _ := emojiLead(next)
	return n != lead
}

// fieldRE is a "Label: value" line: a label of a few words (a name in
// brackets allowed), a colon, a value.
var fieldRE = regexp.MustCompile(`^[\p{L}][\p{L}\p{N} ()&'’/.-]{0,30}:\s+(\S.*)$`)

// fieldList reports a "Label: value" line (fieldRE) that is a detail, not
// a heading: its value holds a digit ("Code: 2468", "Owner (Ann): 07700
// 900123"), or the line before or after it (prev, next) is one too
// ("Network: ...", "Password: ..."). "Part 3: Payment" alone is still a
// heading.
func fieldList(t, prev, next string) bool {
	m := fieldRE.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	return strings.ContainsAny(m[1], "0123456789") || fieldRE.MatchString(prev) || fieldRE.MatchString(next)
}

// bulletLine reports a list item ("- collecting the person", "• Binding",
// Google Docs' text export's "* " and "   + ", "●", "◦", "▪"):
// never a heading (operator trial 31: a package's first item titled the
// chunk of the rest of its list).
func bulletLine(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	return (r == '-' || r == '*' || r == '+' || r == '\u2022' || r == '\u25cf' || r == '\u25e6' || r == '\u25aa' || r == '\u2013') && len(t) > size && (t[size] == ' ' || t[size] == '\t')
}

// ruleLine reports a line made only of three or more of one of = - _ *
// (an underline or a rule), spaces aside.
func ruleLine(l string) bool {
	t := strings.ReplaceAll(strings.TrimSpace(l), " ", "")
	return len(t) >= 3 && strings.Trim(t, t[:1]) == "" && strings.ContainsAny(t[:1], "=-_*")
}

// listLine reports whether t reads as a line of a price list or a
// timetable rather than a heading: it holds a dot leader or a tab
// ("Full service ... £189", "Brake fluid\t£45"), or it ends in a price or
// a time ("Wheel alignment £45", "Saturday 8am to 1pm", "Sunday 10:30").
// Such lines stay paragraphs of their own, but never start a section: a
// price list's first line used to title every chunk after it.
func listLine(t string) bool {
	if strings.Contains(t, "...") || strings.ContainsRune(t, '\u2026') || strings.ContainsRune(t, '\t') {
		return true
	}
	last := t[strings.LastIndexFunc(t, unicode.IsSpace)+1:]
	if last != t && strings.EqualFold(last, "closed") || dayTimeRE.MatchString(t) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(last)
	if unicode.Is(unicode.Sc, r) { // £189, $20, €4.50
		return true
	}
	if r < '0' || r > '9' {
		return false
	}
	low := strings.ToLower(last)
	return strings.HasSuffix(low, "am") || strings.HasSuffix(low, "pm") || strings.ContainsRune(low, ':') ||
		strings.HasSuffix(low, "p") && strings.Trim(low[:len(low)-1], "0123456789.") == "" // 8am, 5.30pm, 17:30, 50p
}

// dayTimeRE matches a timetable line that opens with a day and holds a
// time ("Sundays 10am to 12 noon, from March to October": operator trial
// 27's opening hours titled the next section).
var dayTimeRE = regexp.MustCompile(`(?i)^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b.*(?:\d\s*(?:am|pm)\b|\d[:.]\d\d\b|\bnoon\b|\bmidday\b)`)

// closedLine reports whether t ends as a sentence or clause does, or as a
// line that continues (a comma, a colon introducing a list).
func closedLine(t string) bool {
	r, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(".!?:;,\"')]\u201d\u2019", r)
}

// opensBlock reports whether t opens with a capital letter, a digit or a
// list bullet.
func opensBlock(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || r == '-' || r == '*' || r == '\u2022'
}
