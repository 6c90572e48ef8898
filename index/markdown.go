package index

import (
	"cmp"
	"html"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Markdown is read as plain text at ingest, so that notes, the lexical and
// dense lanes, the model's footnotes and the verifier see words, not markup.
// The reader is a small line-based subset of CommonMark, written for help
// centres and handbooks rather than for rendering:
//
//   - A heading ("## Two-step verification", or a line underlined with "="
//     or "-") becomes a paragraph of its own, so chunking and sentence
//     splitting never glue it to the next sentence. A level-2 or deeper
//     heading also starts a section (see chunkDoc).
//   - Emphasis, strong, strikethrough and inline-code markers are dropped;
//     inline code's text is kept as written.
//   - A link keeps its text and drops its destination (the document's url is
//     what a citation links to; a destination in the text is noise to the
//     lanes and the verifier); a bare autolink "<https://...>" keeps its URL.
//     An image keeps its alt text. Link reference definitions are dropped.
//     Links and images nest at most maxLinkDepth (32) deep; a deeper one is
//     read as text.
//   - HTML comments and raw HTML tags are dropped (the text between tags is
//     kept); the entities &amp; &lt; &gt; &quot; &apos; &nbsp; and numeric
//     ones are decoded.
//   - Bullet markers ("- ", "* ", "+ "), task boxes and blockquote markers
//     are dropped, each item staying on its own line; a table row becomes a
//     line of its cells separated by ", ", and the row of dashes under the
//     header is dropped.
//   - An ordered list item keeps its number as a reader of the rendered page
//     sees it, so that "what does rule 12 say?" finds "12. Dogs must be kept
//     on a lead.": the first item's number starts the list and each later
//     item of the same list is one more, whatever number is written
//     ("1." repeated renders 1, 2, 3; "3." then "7." renders 3, 4), as
//     CommonMark numbers them. The delimiter is kept as written ("2)"). An
//     item with the other delimiter, or after a bullet item at its indent,
//     starts a new list; a deeper-indented item starts a nested list
//     numbered on its own. A heading, a thematic break, a table, a fence or
//     a paragraph after a blank line at or left of the list's indent ends
//     the list (an unindented line right under an item continues it).
//   - A fenced code block's lines are kept verbatim as a paragraph of their
//     own (the fence lines are dropped); none of them is a heading.
//
// The output is valid UTF-8 and never longer than the input plus mdGrowth
// bytes, plus, for an ordered item renumbered past its written number's
// width, the extra digits (at most mdItemGrowth per line).

// mdSection is where a level-2+ section starts in the plain text.
type mdSection struct {
	// Off is the byte offset of the heading's paragraph in the text.
	Off int
	// Heading is the heading's plain text.
	Heading string
}

// mdGrowth bounds how much longer than its input markdownText's output can
// be (a fence or heading at the very start turns into a paragraph break).
const mdGrowth = 2

// mdItemGrowth bounds how many bytes one ordered list item's rendered
// number can add to its written one (a one-digit "1." renumbered to the
// ten-digit number after a nine-digit start).
const mdItemGrowth = 9

// markdownText turns a Markdown body (front matter already removed) into
// plain text, and returns its title (the plain text of its first level-one
// heading, "# Title" or a line underlined with "="; "" when none) and where
// its level-2+ sections start.
func markdownText(body string) (text, title string, secs []mdSection) {
	body = strings.ReplaceAll(strings.ToValidUTF8(body, ""), "\r\n", "\n")
	body = dropHTMLComments(body)
	lines := strings.Split(body, "\n")
	var b strings.Builder
	b.Grow(len(body))
	// breakPara ends the current paragraph: the next line starts after a
	// blank line.
	inPara := false
	breakPara := func() {
		if inPara {
			b.WriteString("\n\n")
		}
		inPara = false
	}
	writeLine := func(s string) {
		if s == "" {
			return
		}
		if inPara {
			b.WriteByte('\n')
		}
		b.WriteString(s)
		inPara = true
	}
	heading := func(level int, text string) {
		text = mdInline(headingAttrRE.ReplaceAllString(text, ""))
		if text == "" {
			breakPara()
			return
		}
		breakPara()
		if level >= 2 || title != "" {
			// a level-one heading after the first starts a section as a
			// level-two one does: a Google Docs export's part headings
			// (operator trial 28) ended the chunk before, and a page
			// written with "#" for every heading had no sections
			secs = append(secs, mdSection{Off: b.Len(), Heading: text})
		} else {
			title = text
		}
		b.WriteString(text)
		inPara = true
		breakPara()
	}
	fence := ""
	inTable := false
	var ol mdLists
	blank := false // the line before was blank
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		t := strings.TrimSpace(raw)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
				breakPara()
				continue
			}
			writeLine(strings.TrimRight(raw, " \t\r"))
			continue
		}
		wasBlank := blank
		blank = t == ""
		if f := fenceOpen(raw); f != "" {
			fence = f
			ol = ol[:0]
			breakPara()
			continue
		}
		if t == "" {
			inTable = false
			breakPara()
			continue
		}
		if level, text, ok := atxHeading(raw); ok {
			ol = ol[:0]
			heading(level, text)
			continue
		}
		if i+1 < len(lines) && !isListItem(t) && !strings.HasPrefix(t, "|") {
			if u := strings.TrimSpace(lines[i+1]); u != "" && leadingSpaces(lines[i+1]) < 4 {
				level := 0
				switch {
				case strings.Trim(u, "=") == "":
					level = 1
				case strings.Trim(u, "-") == "" && !inPara:
					level = 2
				}
				if level > 0 {
					ol = ol[:0]
					heading(level, t)
					i++
					continue
				}
			}
		}
		if isThematicBreak(t) {
			ol = ol[:0]
			breakPara()
			continue
		}
		if m := footnoteDefRE.FindStringSubmatch(t); m != nil {
			// a footnote's text is content (a pandoc export's dates and
			// reasons): "Note 1: ..." as a paragraph of its own
			breakPara()
			writeLine("Note " + m[1] + ": " + mdInline(footnoteRefRE.ReplaceAllString(m[2], "")))
			continue
		}
		if refDefRE.MatchString(t) || gridRuleRE.MatchString(t) {
			continue
		}
		if strings.HasSuffix(t, "\\") && !strings.HasSuffix(t, "\\\\") {
			t = strings.TrimSpace(t[:len(t)-1]) // a hard line break
		}
		if strings.Contains(t, "[^") {
			t = footnoteRefRE.ReplaceAllString(t, "") // the note itself is kept where it is defined
		}
		for strings.HasPrefix(t, ">") { // blockquote
			t = strings.TrimSpace(t[1:])
		}
		if isTableRule(t) {
			continue
		}
		if !inTable && strings.Contains(t, "|") && i+1 < len(lines) && isTableRule(strings.TrimSpace(lines[i+1])) {
			inTable = true
		}
		if strings.HasPrefix(t, "|") || (inTable && strings.Contains(t, "|")) {
			ol = ol[:0]
			writeLine(tableRow(t))
			continue
		}
		if rest, ok := cutListMarker(t); ok {
			writeLine(ol.item(leadingSpaces(raw), t) + mdInline(rest))
			continue
		}
		if wasBlank {
			ol.paragraph(leadingSpaces(raw))
		}
		writeLine(mdInline(t))
	}
	out := strings.TrimRightFunc(b.String(), unicode.IsSpace)
	trimmed := strings.TrimLeftFunc(out, unicode.IsSpace)
	for i := range secs {
		secs[i].Off -= len(out) - len(trimmed)
	}
	return trimmed, title, secs
}

// dropHTMLComments removes "<!-- ... -->", across lines too; an unclosed
// comment runs to the end.
func dropHTMLComments(s string) string {
	if !strings.Contains(s, "<!--") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return b.String()
		}
		s = s[i+4+j+3:]
	}
}

func leadingSpaces(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// fenceOpen returns the fence ("```" or "~~~") a line opens, or "".
func fenceOpen(l string) string {
	if leadingSpaces(l) > 3 {
		return ""
	}
	t := strings.TrimSpace(l)
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// atxHeading reports a "#" heading: its level and text (closing #s dropped).
func atxHeading(l string) (int, string, bool) {
	if leadingSpaces(l) > 3 {
		return 0, "", false
	}
	t := strings.TrimSpace(l)
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, "", false
	}
	h := strings.TrimSpace(t[level:])
	if trimmed := strings.TrimRight(h, "#"); trimmed != h && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		h = strings.TrimSpace(trimmed)
	}
	return level, h, true
}

func isThematicBreak(t string) bool {
	s := strings.ReplaceAll(t, " ", "")
	if len(s) < 3 {
		return false
	}
	c := s[0]
	return (c == '-' || c == '*' || c == '_') && strings.Trim(s, string(c)) == ""
}

// isTableRule reports a table's header rule: "|---|:--:|" or "--- | ---".
func isTableRule(t string) bool {
	return strings.Contains(t, "-") && strings.Contains(t, "|") && strings.Trim(t, "|-: \t") == ""
}

// tableRow turns "| a | b |" into "a, b" (or "a b" where ", " would make
// the line longer than the row).
func tableRow(t string) string {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|"))
	var cells []string
	for _, c := range strings.Split(t, "|") {
		if c = mdInline(strings.TrimSpace(c)); c != "" {
			cells = append(cells, c)
		}
	}
	if s := strings.Join(cells, ", "); len(s) <= len(t) {
		return s
	}
	return strings.Join(cells, " ")
}

var (
	listRE   = regexp.MustCompile(`^(?:[-*+]|[0-9]{1,9}[.)])[ \t]+`)
	taskRE   = regexp.MustCompile(`^\[[ xX]\][ \t]+`)
	refDefRE = regexp.MustCompile(`^\[[^\]]+\]:\s*\S+`)
	// Pandoc's Markdown, as it writes a Word document (operator trial 30's
	// nursery handbook): footnotes ("[^1]" and "[^1]: text"), heading
	// attributes ("## Fees {#fees .big}") and grid tables' border lines
	// ("+-----+=====+"). Their text is kept, their syntax dropped: a
	// footnote's text as "Note N: ..." where it is defined, its references
	// dropped (the output stays no longer than the input, mdGrowth).
	footnoteDefRE = regexp.MustCompile(`^\[\^([^\]\s\\]+)\]:\s*(.*)$`)
	footnoteRefRE = regexp.MustCompile(`\[\^([^\]\s\\]+)\]`)
	headingAttrRE = regexp.MustCompile(`\s*\{\s*(?:[#.][\w:-]+|[\w-]+=(?:"[^"]*"|\S+))(?:\s+(?:[#.][\w:-]+|[\w-]+=(?:"[^"]*"|\S+)))*\s*\}\s*$`)
	gridRuleRE    = regexp.MustCompile(`^\+[-=:+]{3,}\+$`)
)

func isListItem(t string) bool { return listRE.MatchString(t) }

// cutListMarker drops a list marker and a task box ("- [x] ").
func cutListMarker(t string) (string, bool) {
	loc := listRE.FindStringIndex(t)
	if loc == nil {
		return t, false
	}
	t = t[loc[1]:]
	if loc := taskRE.FindStringIndex(t); loc != nil {
		t = t[loc[1]:]
	}
	return t, true
}

// mdList is one open ordered list: the indent of its items' markers, their
// delimiter ('.' or ')') and the number its next item renders as.
type mdList struct {
	indent int
	delim  byte
	next   int
}

// mdLists is the stack of open ordered lists, outermost first.
type mdLists []mdList

// item takes a list item line t (blockquote markers already cut) whose
// marker is indent spaces in and returns the item's rendered number and
// delimiter followed by a space ("12. "), or "" for a bullet item.
func (ls *mdLists) item(indent int, t string) string {
	s := *ls
	for len(s) > 0 && s[len(s)-1].indent > indent {
		s = s[:len(s)-1] // a nested list ended
	}
	n := 0
	for n < len(t) && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n == 0 || n >= len(t) { // a bullet ends the ordered list at its indent
		if len(s) > 0 && s[len(s)-1].indent == indent {
			s = s[:len(s)-1]
		}
		*ls = s
		return ""
	}
	delim := t[n]
	if k := len(s) - 1; k >= 0 && indent-s[k].indent <= 1 {
		if s[k].delim == delim {
			num := s[k].next
			s[k].next++
			*ls = s
			return strconv.Itoa(num) + string(delim) + " "
		}
		s = s[:k] // the other delimiter starts a new list
	}
	start, _ := strconv.Atoi(t[:n]) // at most nine digits (listRE)
	*ls = append(s, mdList{indent: indent, delim: delim, next: start + 1})
	return strconv.Itoa(start) + string(delim) + " "
}

// paragraph ends the lists a paragraph that opens after a blank line, indent
// spaces in, is not inside: those whose items are at or right of it.
func (ls *mdLists) paragraph(indent int) {
	s := *ls
	for len(s) > 0 && s[len(s)-1].indent >= indent {
		s = s[:len(s)-1]
	}
	*ls = s
}

var (
	htmlTagRE = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>`)
	entityRE  = regexp.MustCompile(`&(?:amp|lt|gt|quot|apos|nbsp|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});`)
	// maxEntity is the longest text entityRE matches ("&#1234567;").
	maxEntity = len("&#1234567;")
)

// maxLinkDepth is how deeply links and images may nest in one another's
// text ("[![alt](img)](url)" is 2 deep): a '[' deeper than this is read as
// text, so a line of nested links costs at most maxLinkDepth passes over
// its text (4,700 links nested in 32 KB took 0.5 s and 290 MB).
const maxLinkDepth = 32

// mdInline makes one line of Markdown plain: code spans kept as written,
// links and images reduced to their text, raw HTML tags dropped, emphasis
// markers and backslash escapes removed, a few entities decoded.
func mdInline(s string) string {
	l := mdLine{s: s}
	return l.inline(s, 0, 0)
}

// mdLine is one line mdInline reads. Its inline method reads s, the line's
// text from byte off on (all of it, or a link's text at depth depth), as
// mdInline reads a line.
type mdLine struct {
	s string
	// brackets lists every '[' of s (escaped ones apart) and parens every
	// '(', in order, each with the index of the ']' or ')' that closes it.
	// Made in one pass the first time a link is tried (nil until then), so
	// a line of brackets costs linear time (and a binary search for each
	// "]("): searching forward from each '[' made it quadratic (32,000 '['
	// took 0.45 s of CPU).
	brackets, parens []mdOpen
	// next is the index in brackets of the last '[' looked up (or of the
	// first after it): mdInline tries them left to right.
	next int
}

// mdOpen is the '[' or '(' at index at of a line and the index of the ']'
// or ')' that closes it, -1 for none.
type mdOpen struct{ at, close int32 }

func (l *mdLine) inline(s string, off, depth int) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case c == '`':
			n := runOf(s, i, '`')
			if j := strings.Index(s[i+n:], s[i:i+n]); j >= 0 && runOf(s, i+n+j, '`') == n {
				b.WriteString(strings.TrimSpace(s[i+n : i+n+j]))
				i += n + j + n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if j, end, ok := l.link(s, off, i+1, depth); ok {
				b.WriteString(l.inline(s[i+2:j], off+i+2, depth+1))
				i = end
				continue
			}
		case c == '[':
			if j, end, ok := l.link(s, off, i, depth); ok {
				b.WriteString(l.inline(s[i+1:j], off+i+1, depth+1))
				i = end
				continue
			}
		case c == '<':
			// Neither an autolink nor a tag holds a "<" before its ">": look
			// no further than the next of the two, so a run of "<" costs
			// linear time (it was quadratic: 16,000 of them took 4.7 s).
			if k := strings.IndexAny(s[i+1:], "<>"); k >= 0 && s[i+1+k] == '>' {
				j := k + 1 // the ">" at i+j
				inner := s[i+1 : i+j]
				if (strings.HasPrefix(inner, "http://") || strings.HasPrefix(inner, "https://") || strings.HasPrefix(inner, "mailto:")) && !strings.ContainsAny(inner, " <") {
					b.WriteString(strings.TrimPrefix(inner, "mailto:"))
					i += j + 1
					continue
				}
				if loc := htmlTagRE.FindStringIndex(s[i : i+j+1]); loc != nil && loc[0] == 0 {
					i += loc[1]
					continue
				}
			}
		case c == '*' || c == '_' || c == '~':
			n := runOf(s, i, c)
			if c == '~' && n < 2 {
				break
			}
			if emphasisRun(s, i, n) {
				i += n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
			continue
		case c == '&':
			// an entity is at most maxEntity bytes: search no further, so a
			// run of "&" costs linear time (it was quadratic: 8,000 of them took 3 s)
			if loc := entityRE.FindStringIndex(s[i:min(len(s), i+maxEntity)]); loc != nil && loc[0] == 0 {
				e := s[i : i+loc[1]]
				if e == "&nbsp;" {
					b.WriteByte(' ')
				} else {
					b.WriteString(html.UnescapeString(e))
				}
				i += loc[1]
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func runOf(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// emphasisRun reports whether the run of n markers at s[i] opens or closes
// emphasis (it is left- or right-flanking, as CommonMark defines it). A run
// between two word characters (snake_case, 2*3) or between spaces
// ("a * b") is text.
func emphasisRun(s string, i, n int) bool {
	var prev, next byte = ' ', ' '
	if i > 0 {
		prev = s[i-1]
	}
	if i+n < len(s) {
		next = s[i+n]
	}
	if !isSpace(prev) && !isPunct(prev) && !isSpace(next) && !isPunct(next) {
		return false
	}
	left := !isSpace(next) && (!isPunct(next) || isSpace(prev) || isPunct(prev))
	right := !isSpace(prev) && (!isPunct(prev) || isSpace(next) || isPunct(next))
	return left || right
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isPunct(c byte) bool { return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 }

// link reads "[text](dest)", "[text][ref]" or "[text][]" at the '[' at
// s[i], s being the line's text from byte off at depth depth (see inline):
// the index of the text's closing ']', the index after the link, and ok. A
// bracket that is not followed by a destination or a reference, or is more
// than maxLinkDepth deep, or is on a line of 2 GB or more, is not a link.
//
// The ']' is the one that balances the '[' (escaped brackets not counted),
// the ')' the one that balances the '(' (escapes not heeded): see
// mdLine. It is read from a pass over the whole line, which agrees with a
// search from s[i] because mdInline never tries a '[' escaped by an odd run
// of backslashes (it reads such a run two by two, and so does the pass).
func (l *mdLine) link(s string, off, i, depth int) (int, int, bool) {
	if depth >= maxLinkDepth || len(l.s) > math.MaxInt32 {
		return 0, 0, false
	}
	j := l.closing(off+i) - off
	if j <= i || j >= len(s) {
		return 0, 0, false
	}
	if j+1 < len(s) && s[j+1] == '(' {
		if k := l.closing(off+j+1) - off; k > j+1 && k < len(s) {
			return j, k + 1, true
		}
		return 0, 0, false
	}
	if j+1 < len(s) && s[j+1] == '[' {
		if k := strings.IndexByte(s[j+1:], ']'); k >= 0 {
			return j, j + 1 + k + 1, true
		}
	}
	return 0, 0, false
}

// closing returns the index of the ']' or ')' that closes the '[' or '('
// at l.s[at], -1 for none.
func (l *mdLine) closing(at int) int {
	if l.brackets == nil {
		l.brackets, l.parens = mdOpens(l.s)
	}
	a := int32(at)
	if l.s[at] == '(' {
		return closeAt(l.parens, mdSearch(l.parens, a), a)
	}
	// mdInline tries brackets left to right: step on from the last one
	k := l.next
	if k > 0 && l.brackets[k-1].at >= a {
		k = mdSearch(l.brackets, a) // not left to right after all
	}
	for k < len(l.brackets) && l.brackets[k].at < a {
		k++
	}
	l.next = k
	return closeAt(l.brackets, k, a)
}

// mdSearch returns the index in opens of the entry at a, or of the first
// after it.
func mdSearch(opens []mdOpen, a int32) int {
	k, _ := slices.BinarySearchFunc(opens, a, func(o mdOpen, a int32) int { return cmp.Compare(o.at, a) })
	return k
}

// closeAt returns the close of opens[k] if that is the entry at a, else -1.
func closeAt(opens []mdOpen, k int, a int32) int {
	if k < len(opens) && opens[k].at == a {
		return int(opens[k].close)
	}
	return -1
}

// mdOpens makes mdLine.brackets and parens for s.
func mdOpens(s string) (brackets, parens []mdOpen) {
	nb, np := strings.Count(s, "["), strings.Count(s, "(")
	both := make([]mdOpen, nb+np) // one allocation for the two
	brackets, parens = both[:0:nb], both[nb:nb]
	// The stacks of those still open live in the lists: an open one's close
	// holds the index in its list of the one open before it (-1 for none),
	// and bracket and paren that of the innermost.
	bracket, paren := int32(-1), int32(-1)
	push := func(list *[]mdOpen, top *int32, j int) {
		*list = append(*list, mdOpen{int32(j), *top})
		*top = int32(len(*list) - 1)
	}
	pop := func(list []mdOpen, top *int32, j int) {
		if o := *top; o >= 0 {
			*top, list[o].close = list[o].close, int32(j)
		}
	}
	escaped := false
	for j := range len(s) {
		switch c := s[j]; {
		case c == '(':
			push(&parens, &paren, j)
		case c == ')':
			pop(parens, &paren, j)
		case escaped:
		case c == '\\':
			escaped = true
			continue
		case c == '[':
			push(&brackets, &bracket, j)
		case c == ']':
			pop(brackets, &bracket, j)
		}
		escaped = false
	}
	for top := bracket; top >= 0; {
		top, brackets[top].close = brackets[top].close, -1
	}
	for top := paren; top >= 0; {
		top, parens[top].close = parens[top].close, -1
	}
	return brackets, parens
}

var (
	// shortcodeRE is a static site generator's template tag in a page:
	// Hugo's shortcodes ({{< figure src="a.jpg" caption="Our cars" >}},
	// {{% notice %}}, their closing tags) and Liquid's tags ({% include
	// cta.html %}, {% endraw %}).
	shortcodeRE = regexp.MustCompile(`\{\{[<%]-?[^{}]*?-?[>%]\}\}|\{%-?[^{}]*?-?%\}`)
	// shortcodeTextRE is a shortcode's attribute whose value is text a
	// reader sees: a figure's caption, a title, an image's alt text.
	shortcodeTextRE = regexp.MustCompile(`\b(?:caption|title|alt)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
)

// markdownSource reads the syntax a Markdown file's tool adds to
// Markdown (Hugo's shortcodes, Obsidian's wikilinks and callouts,
// Docusaurus's MDX and admonitions) as the text a reader sees, before
// markdownText reads the Markdown. Only a Markdown file has it: the
// Markdown an HTML page is converted to does not, and its text may hold
// ":::" or "{{% %}}" as written.
func markdownSource(body string) string {
	return mdxText(obsidianText(dropShortcodes(body)))
}

// dropShortcodes takes a Hugo site's shortcodes and Liquid tags out of a
// page, keeping the text they wrap ("{{< button >}}Book now{{< /button
// >}}" is "Book now") and the text of their caption, title or alt
// attributes (operator trial 32: "{{< figure src=... caption=... >}}" was
// indexed as written).
func dropShortcodes(body string) string {
	if !strings.Contains(body, "{{") && !strings.Contains(body, "{%") {
		return body
	}
	return shortcodeRE.ReplaceAllStringFunc(body, func(tag string) string {
		var kept []string
		for _, m := range shortcodeTextRE.FindAllStringSubmatch(tag, -1) {
			kept = append(kept, m[1]+m[2])
		}
		return strings.Join(kept, " ")
	})
}

var (
	// wikilinkRE is an Obsidian (or wiki) link between notes, [[Note]],
	// [[Note#Heading|shown text]], or an embed, ![[kit.png]].
	wikilinkRE = regexp.MustCompile(`(!?)\[\[([^\[\]|#\n]*)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]`)
	// calloutRE is an Obsidian callout's first line inside a quote:
	// "> [!warning] Title", "> [!info]-".
	calloutRE = regexp.MustCompile(`(?m)^(\s*(?:>\s*)+)\[!([A-Za-z-]+)\][+-]?[ \t]*(.*)$`)
)

// obsidianText reads an Obsidian vault's note syntax as the text a reader
// sees (operator trial 38: a club handbook kept in Obsidian): a wikilink
// is its shown text, else the note's name (a heading after "#" read as
// "Note, Heading"); an embedded image or file (![[kit.png]]) is left out,
// an embedded note is its name; a callout's "[!info] Half term" is its
// title, or its type ("Warning") when it has none.
func obsidianText(body string) string {
	if strings.Contains(body, "[[") {
		body = wikilinkRE.ReplaceAllStringFunc(body, func(m string) string {
			g := wikilinkRE.FindStringSubmatch(m)
			embed, note, head, shown := g[1] != "", strings.TrimSpace(g[2]), strings.TrimSpace(strings.TrimPrefix(g[3], "#")), strings.TrimSpace(g[4])
			switch {
			case embed && strings.Contains(path.Base(note), "."):
				return "" // an image, a PDF
			case shown != "":
				return shown
			case note != "" && head != "":
				return note + ", " + head
			case note != "":
				return note
			}
			return head
		})
	}
	if strings.Contains(body, "[!") {
		body = calloutRE.ReplaceAllStringFunc(body, func(m string) string {
			g := calloutRE.FindStringSubmatch(m)
			if t := strings.TrimSpace(g[3]); t != "" {
				return g[1] + t
			}
			typ := strings.ReplaceAll(g[2], "-", " ")
			return g[1] + strings.ToUpper(typ[:1]) + strings.ToLower(typ[1:])
		})
	}
	return body
}

var (
	// mdxImportRE is an MDX page's import or export line (Docusaurus:
	// "import Tabs from '@theme/Tabs';").
	mdxImportRE = regexp.MustCompile(`^(?:import\s.+\sfrom\s+['"][^'"]+['"];?|import\s+['"][^'"]+['"];?|export\s+(?:const|default|function|let)\b.*)$`)
	// admonitionRE opens or closes a Docusaurus (or VitePress) admonition:
	// ":::tip", ":::caution Title", ":::note[Title]", ":::".
	admonitionRE = regexp.MustCompile(`^:::+\s*([A-Za-z]+)?(?:\[([^\]]*)\])?\s*(.*)$`)
	// jsxLineRE is a line holding only JSX tags (<Tabs>, <TabItem
	// value="ios" label="iPhone">, </TabItem>); jsxLabelRE a tag's label.
	jsxLineRE  = regexp.MustCompile(`^(?:\s*</?[A-Z][A-Za-z0-9.]*(?:\s[^<>]*)?/?>)+\s*$`)
	jsxLabelRE = regexp.MustCompile(`\blabel=(?:"([^"]*)"|'([^']*)'|\{["']([^"']*)["']\})`)
)

// mdxText reads a docs site's Markdown extensions as the text a reader
// sees (operator trial 40's Docusaurus help, .mdx): import and export
// lines are dropped; an admonition's ":::tip Title" opens a paragraph
// "Tip: Title" and its closing ":::" ends it; a line of JSX tags only
// (<Tabs>, </TabItem>) is dropped, a tab's label kept as a line of its own
// ("iPhone"). Code fences are left as written.
func mdxText(body string) string {
	if !strings.Contains(body, ":::") && !strings.Contains(body, "import ") && !strings.Contains(body, "export ") && !strings.Contains(body, "</") {
		return body
	}
	lines := strings.Split(body, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(l); f != "" {
			fence = f
			continue
		}
		switch {
		case mdxImportRE.MatchString(t):
			lines[i] = ""
		case strings.HasPrefix(t, ":::"):
			m := admonitionRE.FindStringSubmatch(t)
			if m == nil || m[1] == "" {
				lines[i] = "" // the closing ":::"
				continue
			}
			kind := strings.ToUpper(m[1][:1]) + strings.ToLower(m[1][1:])
			if title := strings.TrimSpace(m[2] + " " + m[3]); title != "" {
				kind += ": " + title
			}
			lines[i] = "\n" + kind
		case jsxLineRE.MatchString(l):
			var labels []string
			for _, m := range jsxLabelRE.FindAllStringSubmatch(l, -1) {
				labels = append(labels, m[1]+m[2]+m[3])
			}
			lines[i] = strings.Join(labels, " ")
		}
	}
	return strings.Join(lines, "\n")
}
