package check

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/judge"
)

// Cite kinds: how a citation is written in the document.
const (
	KindFootnote = "footnote" // [^label] with a definition [^label]: ... (or a label that is itself a corpus id)
	KindNumbered = "numbered" // [n] with a definition [n]: ..., [^n]: ... or a references list entry
	KindLink     = "link"     // [text](url), [text][ref], <url> naming a corpus document
)

// cite is one distinct citation of a document. Its position in
// parsed.cites (plus one) is the number of the "[k]" markers that stand for
// it in the normalised sentences.
type cite struct {
	key     string // dedup key: "^label", "#n", "url:..."
	label   string // as written, e.g. "[^boil]", "[3]", "[Handbook](https://...)"
	kind    string
	def     string // definition text, or the link text
	url     string // link URL, or the URL of a reference definition
	defined bool   // a definition (or a link URL) exists
	defLine int    // line of the definition (0: none)
}

// sentence is one sentence of the document with citations normalised to
// "[k]" markers.
type sentence struct {
	text string
	line int
}

// unusedDef is a footnote definition that no sentence refers to.
type unusedDef struct {
	label string
	line  int
}

// parsed is a Markdown document cut into sentences and citations.
type parsed struct {
	sentences []sentence
	cites     []cite
	unused    []unusedDef
}

// piece is one source line of a paragraph.
type piece struct {
	line int
	text string
}

type def struct {
	text string
	url  string
	line int
	used bool
}

var (
	fenceRE    = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	footDefRE  = regexp.MustCompile(`^ {0,3}\[\^([^\]\s]+)\]:\s?(.*)$`)
	refDefRE   = regexp.MustCompile(`^ {0,3}\[([^\]^][^\]]*)\]:\s*(\S*)\s*(.*)$`)
	headingRE  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$`)
	setextRE   = regexp.MustCompile(`^ {0,3}(=+|-+)\s*$`)
	listRE     = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	refsHeadRE = regexp.MustCompile(`(?i)^(?:references|sources|bibliography|citations|notes|works cited|footnotes)(?:\s+(?:and|&)\s+(?:references|sources|notes|further reading))?\s*:?$`) // the whole heading: "Notes on installing" is a section
	refItemRE  = regexp.MustCompile(`^\s*(?:[-*+]\s+)?(?:\[(\d{1,4})\]|(\d{1,4})[.)])\s+(.*)$`)
	tableSepRE = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	numListRE  = regexp.MustCompile(`^\d{1,3}(?:\s*[,;]\s*\d{1,3}|\s*[-–]\s*\d{1,3})*$`) // [2020] is a year, not a reference
	urlRE      = regexp.MustCompile(`https?://[^\s<>()\[\]"']+`)
	autoRE     = regexp.MustCompile(`^<((?:https?|corpus|doc)://[^\s<>]+)>`)
	htmlTagRE  = regexp.MustCompile(`^</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>`)
)

// resolver tells the parser whether a link names a corpus document; only
// such links become citations.
type resolver func(text, url string) bool

// parse cuts src into sentences (skipping code, front matter, HTML
// comments, headings, definitions and the references section) and collects
// the citations; isCorpus decides which links are citations.
func parse(src string, isCorpus resolver) parsed {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	foot := map[string]*def{} // footnote definitions by lower-case label
	refs := map[string]*def{} // reference definitions by lower-case label
	nums := map[int]*def{}    // references-list entries by number
	var footOrder []string
	var paras [][]piece
	var cur []piece
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, cur)
			cur = nil
		}
	}
	var fence string // open fence run, "" outside code
	inComment, inRefs, lastBlank, inList := false, false, true, false
	headed := false  // a heading was seen
	var lastDef *def // a footnote definition that may continue on indented lines
	for i := 0; i < len(lines); i++ {
		ln := i + 1
		l := lines[i]
		if i == 0 && strings.TrimSpace(l) == "---" { // front matter
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "---" && strings.TrimSpace(lines[i]) != "..."; i++ {
			}
			continue
		}
		if fence != "" {
			if m := fenceRE.FindStringSubmatch(l); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(l[strings.Index(l, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			continue
		}
		if inComment {
			if strings.Contains(l, "-->") {
				inComment = false
			}
			continue
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" {
			flush()
			lastBlank = true
			continue
		}
		if lastDef != nil && (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) {
			lastDef.text += " " + trimmed
			continue
		}
		lastDef = nil
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			flush()
			fence = m[1]
			continue
		}
		if strings.HasPrefix(trimmed, "<!--") {
			flush()
			if !strings.Contains(trimmed[4:], "-->") {
				inComment = true
			}
			continue
		}
		if lastBlank && !inList && (strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t")) {
			continue // indented code block
		}
		if m := footDefRE.FindStringSubmatch(l); m != nil {
			flush()
			d := &def{text: strings.TrimSpace(m[2]), line: ln}
			lab := strings.ToLower(m[1])
			if _, dup := foot[lab]; !dup {
				foot[lab] = d
				footOrder = append(footOrder, lab)
			}
			lastDef = d
			lastBlank = false
			continue
		}
		if m := refDefRE.FindStringSubmatch(l); m != nil {
			flush()
			d := &def{url: strings.Trim(m[2], "<>"), text: strings.Trim(strings.TrimSpace(m[3]), `"'()`), line: ln}
			lab := strings.ToLower(strings.TrimSpace(m[1]))
			if _, dup := refs[lab]; !dup {
				refs[lab] = d
			}
			lastBlank = false
			continue
		}
		if m := headingRE.FindStringSubmatch(l); m != nil {
			flush()
			// a document's first heading at level one is its title ("# Notes"), never a reference list
			inRefs = refsHeadRE.MatchString(strings.TrimSpace(m[2])) && (len(m[1]) > 1 || headed)
			headed = true
			lastBlank, inList = false, false
			continue
		}
		if setextRE.MatchString(l) && len(cur) > 0 {
			// the paragraph above was a setext heading
			inRefs = refsHeadRE.MatchString(strings.TrimSpace(cur[0].text)) && (strings.TrimSpace(l)[0] == '-' || headed)
			headed = true
			cur = nil
			continue
		}
		if inRefs {
			if m := refItemRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1] + m[2])
				if _, dup := nums[n]; !dup {
					d := &def{text: strings.TrimSpace(m[3]), line: ln}
					nums[n] = d
					lastDef = d
				}
			}
			lastBlank = false
			continue
		}
		if tableSepRE.MatchString(l) && strings.Contains(l, "|") {
			continue
		}
		text := trimmed
		for strings.HasPrefix(text, ">") {
			text = strings.TrimSpace(text[1:])
		}
		if strings.HasPrefix(text, "|") {
			flush() // a table row is a paragraph of its own; the header row is skipped
			if i+1 < len(lines) && tableSepRE.MatchString(lines[i+1]) {
				continue
			}
			text = strings.Trim(text, "| ")
			cur = append(cur, piece{ln, strings.ReplaceAll(text, "|", ";")})
			flush()
			lastBlank = false
			continue
		}
		if m := listRE.FindString(text); m != "" {
			flush()
			text = text[len(m):]
			inList = true
		} else if lastBlank {
			inList = false
		}
		if text == "" {
			continue
		}
		cur = append(cur, piece{ln, text})
		lastBlank = false
	}
	flush()

	p := &inline{foot: foot, refs: refs, nums: nums, isCorpus: isCorpus, index: map[string]int{}}
	var out parsed
	for _, para := range paras {
		out.sentences = append(out.sentences, p.paragraph(para)...)
	}
	out.cites = p.cites
	for _, lab := range footOrder {
		if d := foot[lab]; !d.used {
			out.unused = append(out.unused, unusedDef{label: "[^" + lab + "]", line: d.line})
		}
	}
	return out
}

// inline rewrites paragraph text: citations become "[k]" markers, links
// their text, code spans their content.
type inline struct {
	foot, refs map[string]*def
	nums       map[int]*def
	isCorpus   resolver
	cites      []cite
	index      map[string]int // cite key -> position in cites

	out   strings.Builder
	marks []mark // output offset -> source line
}

type mark struct{ off, line int }

func (p *inline) cite(c cite) int {
	if k, ok := p.index[c.key]; ok {
		return k + 1
	}
	p.index[c.key] = len(p.cites)
	p.cites = append(p.cites, c)
	return len(p.cites)
}

// footnote returns the citation of [^label].
func (p *inline) footnote(label string) cite {
	lab := strings.ToLower(label)
	c := cite{key: "^" + lab, label: "[^" + label + "]", kind: KindFootnote}
	if d, ok := p.foot[lab]; ok {
		d.used = true
		c.def, c.defined, c.defLine = d.text, true, d.line
		if m := urlRE.FindString(d.text); m != "" {
			c.url = m
		}
		return c
	}
	if n, err := strconv.Atoi(label); err == nil {
		if d := p.numDef(n); d != nil {
			c.def, c.url, c.defined, c.defLine = d.text, d.url, true, d.line
		}
	}
	return c
}

func (p *inline) numDef(n int) *def {
	if d, ok := p.nums[n]; ok {
		return d
	}
	if d, ok := p.refs[strconv.Itoa(n)]; ok {
		return d
	}
	if d, ok := p.foot[strconv.Itoa(n)]; ok {
		d.used = true
		return d
	}
	return nil
}

// numbered returns the citation of [n].
func (p *inline) numbered(n int) cite {
	c := cite{key: "#" + strconv.Itoa(n), label: "[" + strconv.Itoa(n) + "]", kind: KindNumbered}
	if d := p.numDef(n); d != nil {
		c.def, c.url, c.defined, c.defLine = d.text, d.url, true, d.line
		if c.url == "" {
			c.url = urlRE.FindString(d.text)
		}
	}
	return c
}

// wj (a word joiner) is put after a literal '[' that a digit follows, so
// that text such as "[2020]" left in a sentence is never read as a citation
// marker by the judge; plain removes it again.
const wj = "\u2060"

func (p *inline) emit(s string, line int) {
	if s == "" {
		return
	}
	if strings.Contains(s, "[") {
		s = neutralize(s)
	}
	if n := len(p.marks); n == 0 || p.marks[n-1].line != line {
		p.marks = append(p.marks, mark{p.out.Len(), line})
	}
	p.out.WriteString(s)
}

func (p *inline) marker(k, line int) {
	s := "[" + strconv.Itoa(k) + "]"
	if n := len(p.marks); n == 0 || p.marks[n-1].line != line {
		p.marks = append(p.marks, mark{p.out.Len(), line})
	}
	p.out.WriteString(s)
}

// neutralize puts wj after every '[' followed by a digit.
func neutralize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '[' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			b.WriteString(wj)
		}
	}
	return b.String()
}

// plain is a normalised sentence as the author wrote it, without the
// citation markers.
func plain(s string) string {
	return strings.ReplaceAll(judge.StripCitations(s), "["+wj, "[")
}

// paragraph rewrites one paragraph and splits it into sentences.
func (p *inline) paragraph(ps []piece) []sentence {
	p.out.Reset()
	p.marks = p.marks[:0]
	for i, pc := range ps {
		if i > 0 {
			p.emit(" ", pc.line)
		}
		p.span(pc.text, pc.line)
	}
	text := p.out.String()
	var out []sentence
	off := 0
	sp := judge.NewSplitter()
	for _, s := range append(sp.Feed(text), sp.Flush()...) {
		lead := len(s) - len(strings.TrimLeft(s, " \t"))
		if t := strings.TrimSpace(s); t != "" {
			out = append(out, sentence{text: t, line: p.lineAt(off + lead)})
		}
		off += len(s)
	}
	return out
}

func (p *inline) lineAt(off int) int {
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].off > off })
	if i == 0 {
		return p.marks[0].line
	}
	return p.marks[i-1].line
}

// span rewrites the inline text of one line. Citations and links do not
// span lines here (a link broken over two lines stays plain text).
func (p *inline) span(s string, line int) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_[]()<>#!|^", s[i+1]) >= 0:
			p.emit(s[i+1:i+2], line)
			i += 2
			continue
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			run := s[i : i+n]
			if end := strings.Index(s[i+n:], run); end >= 0 {
				p.emit(strings.TrimSpace(s[i+n:i+n+end]), line)
				i += n + end + n
			} else {
				p.emit(run, line)
				i += n
			}
			continue
		case c == '<':
			if m := autoRE.FindStringSubmatch(s[i:]); m != nil {
				p.emit(m[1], line)
				if p.isCorpus("", m[1]) {
					p.emit(" ", line)
					p.marker(p.cite(cite{key: "url:" + m[1], label: m[0], kind: KindLink, url: m[1], defined: true}), line)
				}
				i += len(m[0])
				continue
			}
			if m := htmlTagRE.FindString(s[i:]); m != "" {
				i += len(m)
				continue
			}
		case c == '*' || c == '_':
			if i+1 < len(s) && s[i+1] == c {
				i += 2 // strong emphasis markers
				continue
			}
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if text, _, n, ok := linkAt(s[i+1:]); ok {
				p.emit(text, line) // image: its alt text
				i += 1 + n
				continue
			}
		case c == '[':
			if n := p.bracket(s[i:], line); n > 0 {
				i += n
				continue
			}
		}
		if c == '[' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			p.emit("["+wj, line)
		} else {
			p.emit(s[i:i+1], line)
		}
		i++
	}
}

// bracket handles a '[' at the start of s: a footnote reference, a list of
// numbered references, an inline or reference link. It returns the bytes
// consumed, 0 when the bracket is plain text.
func (p *inline) bracket(s string, line int) int {
	if strings.HasPrefix(s, "[^") {
		end := strings.IndexByte(s, ']')
		if end < 3 || strings.ContainsAny(s[2:end], " \t[") {
			return 0 // malformed: left in the text for the auditor
		}
		p.marker(p.cite(p.footnote(s[2:end])), line)
		return end + 1
	}
	inner, url, n, ok := linkAt(s)
	if !ok {
		return 0
	}
	rest := s[n:]
	switch {
	case url != "": // inline link
		p.link(inner, url, s[:n], "url:"+url, line)
		return n
	case numListRE.MatchString(strings.TrimSpace(inner)) && !strings.HasPrefix(rest, "("):
		for _, k := range numbers(inner) {
			p.marker(p.cite(p.numbered(k)), line)
		}
		return n
	case strings.HasPrefix(rest, "["): // reference link [text][ref]
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			break
		}
		lab := strings.ToLower(strings.TrimSpace(rest[1:end]))
		if lab == "" {
			lab = strings.ToLower(strings.TrimSpace(inner))
		}
		if d, ok := p.refs[lab]; ok {
			d.used = true
			p.link(inner, d.url, s[:n+end+1], "ref:"+lab, line)
			return n + end + 1
		}
	}
	if d, ok := p.refs[strings.ToLower(strings.TrimSpace(inner))]; ok { // shortcut reference link
		d.used = true
		p.link(inner, d.url, s[:n], "ref:"+strings.ToLower(strings.TrimSpace(inner)), line)
		return n
	}
	return 0
}

// link emits a link's text, and a citation marker when it names a corpus
// document.
func (p *inline) link(text, url, raw, key string, line int) {
	plain := plainText(text)
	p.emit(plain, line)
	if p.isCorpus(plain, url) {
		p.emit(" ", line)
		p.marker(p.cite(cite{key: key, label: raw, kind: KindLink, def: plain, url: url, defined: true}), line)
	}
}

// linkAt parses "[text]" or "[text](url ...)" at the start of s (brackets
// may nest). It returns the text, the URL ("" when no "(...)" follows) and
// the bytes consumed.
func linkAt(s string) (text, url string, n int, ok bool) {
	depth := 0
	end := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				end = i
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 1 {
		return "", "", 0, false
	}
	text = s[1:end]
	n = end + 1
	if n < len(s) && s[n] == '(' {
		depth := 0
		for j := n; j < len(s); j++ {
			switch s[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				dest := strings.TrimSpace(s[n+1 : j])
				if f := strings.Fields(dest); len(f) > 0 {
					dest = f[0]
				}
				return text, strings.Trim(dest, "<>"), j + 1, true
			}
		}
	}
	return text, "", n, true
}

// numbers expands "1, 3-5" to [1 3 4 5] (ranges capped at 50 numbers).
func numbers(s string) []int {
	var out []int
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
		lo, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil {
			continue
		}
		hi := lo
		if isRange {
			if h, err := strconv.Atoi(strings.TrimSpace(b)); err == nil && h >= lo && h-lo < 50 {
				hi = h
			}
		}
		for k := lo; k <= hi; k++ {
			out = append(out, k)
		}
	}
	return out
}

// plainText drops emphasis markers and code backticks from link text.
func plainText(s string) string {
	return strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(s))
}
