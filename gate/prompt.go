package gate

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"
)

// PromptData is what a system_template sees.
type PromptData struct {
	Decision            string     // "ground", "fallback" (a refused turn has no prompt)
	Notes               string     // the notes block: one line per note, "[^n] (kind: K; address: A) text"
	NoteList            []NoteLine // the same notes, as fields
	Memory              string     // background notes, one per line, no markers; empty if none
	Caveat              string     // the caveat text when between: ground grounded the turn, else empty
	FallbackInstruction string
	Disclaimer          string
}

// NoteLine is one note as the model may see it: no ID, no URL.
type NoteLine struct {
	N             int
	Kind, Address string
	Text          string // newlines collapsed, ids scrubbed
	Line          string // the full fixed-format line
}

var templates sync.Map // template source -> *template.Template

func compiled(src string) (*template.Template, error) {
	if t, ok := templates.Load(src); ok {
		return t.(*template.Template), nil
	}
	t, err := parseTemplate(src)
	if err != nil {
		return nil, err
	}
	templates.Store(src, t)
	return t, nil
}

// SystemPrompt renders the system message for this turn: for Ground, the
// citation rules and the notes; for Fallback, the general-knowledge
// instruction that requires the disclaimer; for Refuse, "" (no upstream call).
// memory holds uncited background notes (text only), rendered without markers
// under "Background (do not cite)". The template is cfg.SystemTemplate; a
// template that fails to parse or execute (Validate catches the former) falls
// back to DefaultSystemTemplate so a turn never goes out without its rules.
//
// Each note line is exactly "[^n] (kind: K; address: A) text", text with
// newlines collapsed to spaces. Real IDs and URLs are never rendered: every
// note's ID (unless it equals a note's address, as in corpora whose id is the
// human address) and URL is removed from all texts where it stands as a
// whole token (an ID that is an ordinary word only where it stands as a
// reference: hideRefs), then cfg.Scrub is applied (the proxy's removes
// id-shaped tokens and every id of the tenant's catalog). Footnote markers
// are removed and bare bracketed numbers ("[1]") become "(1)".
func SystemPrompt(cfg Config, o Outcome, memory []string) string {
	if o.Decision != Ground && o.Decision != Fallback {
		return ""
	}
	d := PromptData{
		Decision:            string(o.Decision),
		FallbackInstruction: cfg.FallbackInstruction,
		Disclaimer:          cfg.Disclaimer,
	}
	clean := cleaner(cfg, o.Notes)
	if o.Decision == Ground {
		if o.Caveat() {
			d.Caveat = cfg.Caveat
		}
		d.NoteList = make([]NoteLine, len(o.Notes))
		for i, n := range o.Notes {
			d.NoteList[i] = NoteLine{N: n.N, Kind: header(n.Kind), Address: header(n.Address), Text: clean(n.Text)}
		}
	}
	var mb strings.Builder
	for _, m := range memory {
		m = clean(m)
		if m == "" {
			continue
		}
		if mb.Len() > 0 {
			mb.WriteByte('\n')
		}
		mb.WriteString("- ")
		mb.WriteString(m)
	}
	d.Memory = mb.String()

	if cfg.SystemTemplate == DefaultSystemTemplate {
		// the note lines go straight into the prompt: no template reads
		// Notes or each Line
		return defaultPromptWith(&d, notesSize(d.NoteList), func(b *strings.Builder) { writeNotes(b, d.NoteList, nil) })
	}
	if d.NoteList != nil {
		// the lines are written once, into Notes; each Line views its part
		var b strings.Builder
		b.Grow(notesSize(d.NoteList))
		starts := make([]int, len(d.NoteList))
		writeNotes(&b, d.NoteList, starts)
		d.Notes = b.String()
		for i := range d.NoteList {
			end := len(d.Notes)
			if i+1 < len(d.NoteList) {
				end = starts[i+1] - 1
			}
			d.NoteList[i].Line = d.Notes[starts[i]:end]
		}
	}
	t, err := compiled(cfg.SystemTemplate)
	var b strings.Builder
	if err == nil {
		err = t.Execute(&b, d)
	}
	if err != nil {
		b.Reset()
		t, _ = compiled(DefaultSystemTemplate)
		_ = t.Execute(&b, d) // the default template is tested to execute
	}
	return b.String()
}

// defaultPrompt is DefaultSystemTemplate executed on d, written out (the
// template engine's reflection cost as much as the rest of the prompt);
// TestDefaultPromptIsTemplate holds the two to the byte.
func defaultPrompt(d *PromptData) string {
	return defaultPromptWith(d, len(d.Notes), func(b *strings.Builder) { b.WriteString(d.Notes) })
}

// defaultPromptWith is defaultPrompt with the Notes block written by notes
// (about notesLen bytes) in its place.
func defaultPromptWith(d *PromptData, notesLen int, notes func(*strings.Builder)) string {
	var b strings.Builder
	b.Grow(notesLen + len(d.Memory) + len(d.Caveat) + len(d.FallbackInstruction) + len(d.Disclaimer) + 512)
	switch d.Decision {
	case string(Ground):
		b.WriteString(defaultGroundRules)
		if d.Caveat != "" {
			b.WriteString("\n")
			b.WriteString(d.Caveat)
		}
		b.WriteString("\n\nNotes:\n")
		notes(&b)
	case string(Fallback):
		b.WriteString(d.FallbackInstruction)
		b.WriteString("\nThis notice is already shown to the user ahead of your answer; do not repeat it: \"")
		b.WriteString(d.Disclaimer)
		b.WriteString("\"\nDo not use footnote markers or citations.")
	}
	if d.Memory != "" {
		b.WriteString("\n\nBackground (do not cite):\n")
		b.WriteString(d.Memory)
	}
	b.WriteString("\n")
	return b.String()
}

// notesSize is about the length of the Notes block of lines.
func notesSize(lines []NoteLine) int {
	size := 0
	for _, nl := range lines {
		size += len(nl.Kind) + len(nl.Address) + len(nl.Text) + 40
	}
	return size
}

// writeNotes writes the Notes block: each line "[^n] (kind: K; address:
// A) text", one per line; starts (nil, or one per line) gets where each
// line starts in b.
func writeNotes(b *strings.Builder, lines []NoteLine, starts []int) {
	for i, nl := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if starts != nil {
			starts[i] = b.Len()
		}
		b.WriteString("[^")
		b.WriteString(strconv.Itoa(nl.N))
		b.WriteString("] (kind: ")
		b.WriteString(nl.Kind)
		b.WriteString("; address: ")
		b.WriteString(nl.Address)
		b.WriteString(") ")
		b.WriteString(nl.Text)
	}
}

// defaultGroundRules opens DefaultSystemTemplate's grounded prompt.
const defaultGroundRules = "Answer the user's question using only the numbered notes below.\n" +
	"Cite every sentence that uses a note with its footnote marker, for example [^1] or [^1][^2], placed before the sentence's final punctuation.\n" +
	"Cite only the numbers listed below; never invent a number, a source, an id or a link. Do not cite the same note twice in one sentence.\n" +
	"If the notes do not answer part of the question, say so instead of guessing."

// cleaner returns the text cleaner for this turn's notes: hide every note ID
// and URL where it stands as a whole token (hideRefs; an ID equal to some
// note's address is kept), apply cfg.Scrub, remove footnote-looking markers,
// neutralise bare bracketed numbers, and collapse whitespace.
func cleaner(cfg Config, notes []Note) func(string) string {
	refs := noteRefs(notes)
	guards := refGuards(refs)
	return func(s string) string {
		// what depends on the text alone is kept across turns (noteTexts)
		nt := noteTexts.Get(s, newNoteText)
		var bs *bigramSet
		if len(refs) >= bigramRefs {
			bs = &nt.bigrams
		}
		h := hideGuardedSet(s, refs, guards, bs)
		if cfg.Scrub != nil {
			h = cfg.Scrub(h)
		}
		if h == s {
			return nt.rest
		}
		return cleanRest(h)
	}
}

// noteRefs lists the URLs and IDs of notes to hide, each once, in note
// order: those of 3 bytes or more that are no note's address.
func noteRefs(notes []Note) []string {
	if len(notes) > smallNotes {
		return noteRefsMap(notes)
	}
	// a turn's few notes: a look through them is cheaper than two maps
	isAddr := func(s string) bool {
		for i := range notes {
			if notes[i].Address == s {
				return true
			}
		}
		return false
	}
	refs := make([]string, 0, 2*len(notes))
	for _, n := range notes {
		for _, s := range [2]string{n.URL, n.ID} {
			if len(s) < 3 || slices.Contains(refs, s) || isAddr(s) {
				continue
			}
			refs = append(refs, s)
		}
	}
	return refs
}

// smallNotes is the most notes noteRefs looks through without maps.
const smallNotes = 16

// noteRefsMap is noteRefs with maps, for many notes.
func noteRefsMap(notes []Note) []string {
	addr := make(map[string]bool, len(notes))
	for _, n := range notes {
		addr[n.Address] = true
	}
	var refs []string
	seen := map[string]bool{"": true}
	for _, n := range notes {
		for _, s := range []string{n.URL, n.ID} {
			if seen[s] || addr[s] || len(s) < 3 {
				continue
			}
			seen[s] = true
			refs = append(refs, s)
		}
	}
	return refs
}

// endParagraphs ends with a full stop each paragraph of s (text up to a
// blank line) that ends without closing punctuation: a note is one line in
// the prompt, and a Markdown page's heading or a list's last item must not
// run into the sentence after it ("Two-step verification Turn on ...").
// Text without a line break is returned as it is.
func endParagraphs(s string) string {
	if strings.IndexByte(s, '\n') < 0 {
		return s
	}
	var b strings.Builder
	last := 0 // s[last:] is not written yet
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		j := i + 1 // a blank line: only spaces up to the next break
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
			j++
		}
		if j >= len(s) || s[j] != '\n' {
			continue
		}
		text := strings.TrimRight(s[:i], " \t\r\n")
		if len(text) > last && !strings.ContainsRune(".!?:;\"')]\u201d\u2019", lastRune(text)) {
			b.WriteString(s[last:len(text)])
			b.WriteByte('.')
			last = len(text)
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// lastRune is the last rune of a non-empty s.
func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// collapseSpace is strings.Join(strings.Fields(s), " "), returning s itself
// when it is already so (one ' ' between words, none at the ends: most
// passages), without splitting it.
func collapseSpace(s string) string {
	if plainSpaced(s) {
		return s
	}
	for i := 0; i < len(s); i++ {
		switch spaceClass[s[i]] {
		case 0:
			continue
		case 1: // ' ': not at an end, not twice
			if i > 0 && i+1 < len(s) && s[i+1] != ' ' {
				continue
			}
		case 3: // may start a non-ASCII space
			if r, _ := utf8.DecodeRuneInString(s[i:]); !unicode.IsSpace(r) {
				continue
			}
		}
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// plainSpaced reports whether s is collapsed for sure, by a few
// vectorised searches instead of collapseSpace's byte loop: no space at
// an end or twice, no other ASCII space, and no non-ASCII space where a
// byte may start one. false means: look byte by byte.
func plainSpaced(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ") {
		return false
	}
	for _, c := range [...]byte{'\t', '\n', '\v', '\f', '\r'} {
		if strings.IndexByte(s, c) >= 0 {
			return false
		}
	}
	for _, c := range [...]byte{0xC2, 0xE1, 0xE2, 0xE3} {
		for at := 0; ; at++ {
			i := strings.IndexByte(s[at:], c)
			if i < 0 {
				break
			}
			at += i
			if r, _ := utf8.DecodeRuneInString(s[at:]); unicode.IsSpace(r) {
				return false
			}
		}
	}
	return true
}

// spaceClass sorts bytes for collapseSpace: 1 ' ', 2 the other ASCII
// spaces, 3 the lead bytes of the non-ASCII runes unicode.IsSpace reports
// (U+0085, U+00A0, U+1680, U+2000-U+205F, U+3000), 0 the rest.
var spaceClass = [256]uint8{' ': 1, '\t': 2, '\n': 2, '\v': 2, '\f': 2, '\r': 2, 0xC2: 3, 0xE1: 3, 0xE2: 3, 0xE3: 3}

// refGuardMin is the shortest prefix refGuards shares out.
const refGuardMin = 8

// refGuards returns, for each of refs, the longest prefix of at least
// refGuardMin bytes it shares with another of refs ("" when none): a turn's
// URLs share a site's prefix, and where a text lacks the prefix it lacks
// every ref that starts with it.
func refGuards(refs []string) []string {
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	// refs are distinct, so any sort gives this order (slices.SortFunc:
	// no reflection, unlike sort.Slice)
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(refs[a], refs[b]) })
	// the longest prefix shared with any other is shared with a neighbour
	// in sorted order
	var guards []string
	for k := 1; k < len(order); k++ {
		a, b := refs[order[k-1]], refs[order[k]]
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		if n < refGuardMin {
			continue
		}
		if guards == nil {
			guards = make([]string, len(refs))
		}
		for _, i := range []int{order[k-1], order[k]} {
			if n > len(guards[i]) {
				guards[i] = refs[i][:n]
			}
		}
	}
	return guards
}

// bigramRefs is the number of refs from which the prompt first makes the
// text's bigram set: one pass over the text, against a search per ref.
const bigramRefs = 3

// hideGuardedSet removes each of refs (ids and URLs) from s where it
// stands as a whole token: not glued to a letter, digit, '-', '_' or '.'
// before it, nor to a letter, digit, '-' or '_' after it (a trailing '.',
// ':', '/', '@' or '#' that ends the token may follow). A ref made of
// letters only (a slug such as "lockers") is an ordinary word as well: it
// is removed only where it stands as a reference (refContext), never from
// prose. It skips the refs whose guard (refGuards; nil for none) s does not
// contain and, with bs (s's bigram set; nil: none is read), those with a
// pair of adjacent bytes s lacks.
func hideGuardedSet(s string, refs, guards []string, bs *bigramSet) string {
	var cut []bool    // the bytes of s to remove, made at the first match
	var absent string // the last guard s was found not to contain
	for k, ref := range refs {
		if bs != nil && !bs.mayContain(ref) {
			continue
		}
		if guards != nil && guards[k] != "" {
			if g := guards[k]; g == absent || !strings.Contains(s, g) {
				absent = g
				continue
			}
		}
		word := isWord(ref)
		for from := 0; from <= len(s)-len(ref); {
			i := strings.Index(s[from:], ref)
			if i < 0 {
				break
			}
			i += from
			j := i + len(ref)
			from = i + 1
			if !tokenStart(s, i) || !tokenEnd(s, j) || word && !refContext(s, i, j) {
				continue
			}
			if cut == nil {
				cut = make([]bool, len(s))
			}
			if i > 0 && j < len(s) && wrapPair(s[i-1], s[j]) {
				i, j = i-1, j+1 // "[lockers]" goes whole, not as "[]"
			}
			for k := i; k < j; k++ {
				cut[k] = true
			}
		}
	}
	if cut == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for k := 0; k < len(s); k++ {
		if !cut[k] {
			b.WriteByte(s[k])
		}
	}
	return b.String()
}

// bigramSet is a 1,024-bit filter of the pairs of adjacent bytes of a
// text: a string with a pair the set lacks is not in the text (a pair it
// has may be a collision, so a hit says nothing).
type bigramSet [16]uint64

func bigram(a, b byte) uint { return (uint(a)*37 ^ uint(b)) & 1023 }

func newBigramSet(s string) *bigramSet {
	var bs bigramSet
	for i := 0; i+1 < len(s); i++ {
		h := bigram(s[i], s[i+1])
		bs[h>>6] |= 1 << (h & 63)
	}
	return &bs
}

// mayContain reports false only when sub is not a substring of the set's
// text.
func (bs *bigramSet) mayContain(sub string) bool {
	for i := 0; i+1 < len(sub); i++ {
		h := bigram(sub[i], sub[i+1])
		if bs[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// wrapPair reports whether open and close are a pair of brackets or
// backticks around a reference.
func wrapPair(open, close byte) bool {
	switch open {
	case '[':
		return close == ']'
	case '(':
		return close == ')'
	case '<':
		return close == '>'
	case '{':
		return close == '}'
	case '`':
		return close == '`'
	}
	return false
}

// isWord reports whether s is made of letters only.
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// tokenStart reports whether a token may start at s[i]: nothing that
// continues a word or an id (a letter, digit, '-', '_' or '.') before it.
func tokenStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.')
}

// tokenEnd reports whether a token may end at s[j]: no letter, digit, '-'
// or '_' after it, and a '.', ':', '/', '@' or '#' after it only as
// trailing punctuation (not followed by a letter or digit).
func tokenEnd(s string, j int) bool {
	if j == len(s) {
		return true
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	switch {
	case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
		return false
	case r == '.' || r == ':' || r == '/' || r == '@' || r == '#':
		if j+n < len(s) {
			r2, _ := utf8.DecodeRuneInString(s[j+n:])
			return !(unicode.IsLetter(r2) || unicode.IsDigit(r2))
		}
	}
	return true
}

// refContext reports whether the word s[i:j] stands as a reference rather
// than as prose: inside [..], <..>, {..} or `..`, as a URL or path segment
// ('/' or '#' before it), or after a label "id:", "ref:", "source:" or
// "doc:". Parentheses and quotes are prose.
func refContext(s string, i, j int) bool {
	if i > 0 {
		switch s[i-1] {
		case '/', '#':
			return true
		case '[', '<', '{', '`':
			if j < len(s) && strings.IndexByte("]>}`", s[j]) >= 0 {
				return true
			}
		}
	}
	before := strings.ToLower(strings.TrimRight(s[:i], " \t"))
	for _, label := range []string{"id:", "ref:", "source:", "doc:", "id=", "ref="} {
		if strings.HasSuffix(before, label) && tokenStart(before, len(before)-len(label)) {
			return true
		}
	}
	return false
}

// neutralizeNumbers turns a bracketed number or list of numbers in a note
// ("[1]", "[2, 3]", "[4;5]") into a parenthesised one, so that passage
// text cannot put a footnote marker of its own in front of the model: the
// gauntlet would resolve a copied "[1]" to this turn's note 1.
func neutralizeNumbers(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		j, digits := i+1, false
		for j < len(s) {
			c := s[j]
			if c >= '0' && c <= '9' {
				digits = true
			} else if c != ',' && c != ';' && c != ' ' && c != '^' {
				break
			}
			j++
		}
		if !digits || j >= len(s) || s[j] != ']' {
			continue
		}
		if b == nil {
			b = []byte(s)
		}
		b[i], b[j] = '(', ')'
		i = j
	}
	if b == nil {
		return s
	}
	return string(b)
}

// header makes a kind or address safe for the "(kind: K; address: A)" header:
// one line, no parentheses or semicolons that would break its parse.
func header(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '(', ')', ';', '[', ']':
			return -1
		}
		return r
	}, s)
	s = collapseSpace(s)
	if s == "" {
		return "-"
	}
	return s
}

// stripMarkers removes "[^n]" footnote markers already present in a text, so
// a note cannot smuggle a marker of another numbering into the prompt.
func stripMarkers(s string) string {
	if !strings.Contains(s, "[^") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "[^")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := i + 2
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i+2 && j < len(s) && s[j] == ']' {
			s = s[j+1:]
			continue
		}
		b.WriteString("[^")
		s = s[i+2:]
	}
}
