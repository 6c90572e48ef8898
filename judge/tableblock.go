package judge

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Tables and line lists in a claim.
//
// The index writes a table row as a line of its cells joined by ", ", with
// no closing punctuation (index/markdown.go), and keeps each list item on a
// line of its own. The proxy gives the model each note on one line, so an
// answer that quotes a table or a list often quotes it folded onto one line
// ("Day, Main pool, Learner pool Monday, 06:30 to 21:00, ... Sunday, ..."),
// and an answer model writes Markdown tables ("| Adult | £6.20 |") and
// bullet lists of its own. Read as one sentence, such a quote held every
// row at once, and a row's "closed" was an antonym of another row's hours
// (operator trial 10). So a claim is checked line by line (claimLines): at
// its own line breaks, and where a folded claim holds lines of a cited
// source's table or list, at those lines' ends; each line is verified on
// its own (a table row against its row, rowCheck) and the lines' verdicts
// are combined, the worst first.

// verifyLines verifies a claim as read (verifyRead's text), line by line
// when it holds several table or list lines.
func (l *Local) verifyLines(text string, docs []*prepared) Verdict {
	lines := claimLines(text, docs)
	if len(lines) < 2 {
		return l.verifyLine(text, docs)
	}
	var worst Verdict
	n := 0
	for _, ln := range lines {
		v := l.verifyLine(ln, docs)
		if v.Reason == "no_content" {
			continue // a list's lead or a header with nothing to check
		}
		if n == 0 || lineWorse(v, worst) {
			worst = v
		}
		n++
	}
	if n == 0 {
		return l.verifyLine(text, docs)
	}
	return worst
}

// lineWorse reports whether line verdict a outranks b in a claim's
// combined verdict: a contradiction over anything, then a neutral line
// (the claim is not all supported), then the least sure entailment.
func lineWorse(a, b Verdict) bool {
	rank := func(v Verdict) int {
		switch v.Label {
		case Contradiction:
			return 3
		case Neutral:
			return 2
		case Entailment:
			return 1
		}
		return 0
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra > rb
	}
	if a.Label == Entailment {
		return a.Confidence < b.Confidence
	}
	return a.Confidence > b.Confidence
}

// verifyLine verifies one line of a claim (or a whole claim of one line).
// A Markdown table row is read as the index writes rows ("| Adult | £6.20
// |" as "Adult, £6.20"). A line naming a row of a cited table by its first
// cell with as many cells is checked cell by cell (rowCheck). A line that
// quotes its source word for word, from the start of a line or sentence to
// its end, is never a contradiction (verbatimIn).
func (l *Local) verifyLine(text string, docs []*prepared) Verdict {
	if cells, ok := pipeRow(text); ok {
		text = cells
	}
	bare := strings.TrimSpace(text)
	bare = bare[listMarker(bare):]
	if v, ok := rowCheck(bare, docs); ok {
		return v
	}
	v := l.verifyRead(text, docs)
	if v.Label == Contradiction {
		if span, ok := verbatimIn(bare, docs); ok {
			return Verdict{Label: Entailment, Confidence: 0.9, Severity: Info, Evidence: span, Method: "local", Reason: ReasonVerbatim}
		}
	}
	return v
}

// ReasonVerbatim is the reason of a claim entailed because it quotes its
// cited source word for word (verbatimIn) where the windows read it as a
// contradiction of another part of that source.
const ReasonVerbatim = "verbatim_quote"

// ReasonCellMismatch is the reason of a table row claim whose row, named
// by its first cell, holds another value in a cell (rowCheck).
const ReasonCellMismatch = "cell_mismatch"

// rowCheck checks a claim line written as a table row ("Adult, £6.20,
// £8.40": no closing punctuation, cells of at most rowCellWords words)
// against the rows of the cited tables (sourceLines holding ", ") with the
// same first cell and as many cells. ok is false unless exactly one such
// row holds the claim's cells (entailment) or one row differs from it in
// cells that are each a value (a number, or one word such as "closed") and
// no row holds it (contradiction: number_mismatch, or cell_mismatch).
func rowCheck(claim string, docs []*prepared) (Verdict, bool) {
	c := strings.TrimSuffix(strings.TrimSpace(claim), ".") // a folded quote's last row
	if c == "" || strings.IndexByte(".!?:;", c[len(c)-1]) >= 0 || !strings.Contains(c, ", ") {
		return Verdict{}, false
	}
	cc := strings.Split(c, ", ")
	for _, x := range cc {
		if n := len(strings.Fields(x)); n == 0 || n > rowCellWords {
			return Verdict{}, false
		}
	}
	var differ []string // the one source row that differs in value cells
	rows := 0
	for _, d := range docs {
		for _, ln := range d.tableLines() {
			if strings.Count(ln, ", ")+1 != len(cc) {
				continue // another number of cells, counted before splitting
			}
			sc := strings.Split(ln, ", ")
			if !strings.EqualFold(sc[0], cc[0]) {
				continue
			}
			same, values, nums := true, true, true
			for i := 1; i < len(cc); i++ {
				if strings.EqualFold(sc[i], cc[i]) {
					continue
				}
				same = false
				dc, ds := hasDigit(cc[i]), hasDigit(sc[i])
				nums = nums && dc && ds
				values = values && (dc || len(strings.Fields(cc[i])) == 1) && (ds || len(strings.Fields(sc[i])) == 1)
			}
			if same {
				return Verdict{Label: Entailment, Confidence: 0.9, Severity: Info, Evidence: ln, Method: "local", Reason: "covered"}, true
			}
			rows++
			if values {
				if nums {
					differ = append([]string{"number_mismatch"}, sc...)
				} else {
					differ = append([]string{ReasonCellMismatch}, sc...)
				}
			}
		}
	}
	if rows != 1 || differ == nil {
		return Verdict{}, false
	}
	return Verdict{Label: Contradiction, Confidence: 0.85, Severity: Critical, Evidence: strings.Join(differ[1:], ", "), Method: "local", Reason: differ[0]}, true
}

// rowCellWords bounds the words of a cell of a row rowCheck reads.
const rowCellWords = 8

func hasDigit(s string) bool { return strings.IndexAny(s, "0123456789") >= 0 }

// claimLines returns the lines of a claim to verify one by one: its own
// lines when it has several (a Markdown table's rule line left out), else,
// for a claim folded onto one line, the claim cut at the ends of the cited
// sources' table and list lines it holds (sourceLines), when it holds at
// least two of them, covering at least half of it, every cut line starting
// as a line does (not in lower case), and no list's lead (a line ending in ":", which
// governs the items after it: such a quote is read whole, and verbatimIn
// takes it when it is word for word). Otherwise nil.
func claimLines(text string, docs []*prepared) []string {
	if strings.IndexByte(strings.TrimSpace(text), '\n') >= 0 {
		var out []string
		for _, ln := range strings.Split(text, "\n") {
			if t := strings.TrimSpace(ln); t != "" && !pipeRule(t) {
				out = append(out, t)
			}
		}
		return out
	}
	folded := strings.TrimSpace(text)
	var cuts []int
	var covered []bool // the claim's bytes inside a source line it holds
	found := 0
	for _, d := range docs {
		for _, ln := range d.tableLines() {
			for from := 0; ; {
				k := strings.Index(folded[from:], ln)
				if k < 0 {
					break
				}
				s, e := from+k, from+k+len(ln)
				from = e
				if (s > 0 && folded[s-1] != ' ') || (e < len(folded) && folded[e] != ' ' && strings.IndexByte(".!?", folded[e]) < 0) {
					continue // not at word boundaries
				}
				if strings.HasSuffix(ln, ":") {
					// a list's lead governs its items (a negated lead
					// above all): the quote is read whole
					return nil
				}
				found++
				cuts = append(cuts, s, e)
				if covered == nil {
					covered = make([]bool, len(folded))
				}
				for i := s; i < e; i++ {
					covered[i] = true
				}
			}
		}
	}
	if found < 2 || 2*countTrue(covered) < len(folded) {
		return nil // prose naming a few of a page's short lines
	}
	// a folded quote of rows holds no sentence end before its last word
	if sentenceEndIn(folded) {
		return nil
	}
	cuts = append(cuts, 0, len(folded))
	slices.Sort(cuts)
	var out []string
	for i := 1; i < len(cuts); i++ {
		if cuts[i] <= cuts[i-1] {
			continue
		}
		if t := strings.TrimSpace(folded[cuts[i-1]:cuts[i]]); strings.Trim(t, ".!? ") != "" {
			if r, _ := utf8.DecodeRuneInString(t); unicode.IsLower(r) {
				return nil // a line starts mid-sentence: prose, not rows
			}
			out = append(out, t)
		}
	}
	return out
}

func countTrue(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// sentenceEndIn reports whether s holds a sentence end (". " and the like,
// as Split finds) before its last sentence: then it is prose, not a folded
// table.
func sentenceEndIn(s string) bool { return len(Split(s)) > 1 }

// sourceLines returns a passage's table and list lines: lines without
// closing punctuation (nor a clause's ";") of at least two words that stand next to another such
// line (a table's rows, a list's items and its lead), or that hold a cell
// separator ", ". A heading alone between blank lines is none of them.
func sourceLines(text string) []string {
	lines := strings.Split(text, "\n")
	open := func(i int) bool {
		if i < 0 || i >= len(lines) {
			return false
		}
		t := strings.TrimSpace(lines[i])
		return t != "" && strings.IndexByte(".!?;", t[len(t)-1]) < 0 && strings.IndexByte(t, ' ') >= 0
	}
	var out []string
	for i, ln := range lines {
		if !open(i) {
			continue
		}
		t := strings.TrimSpace(ln)
		if open(i-1) || open(i+1) || strings.Contains(t, ", ") {
			out = append(out, t)
		}
	}
	return out
}

// linesOnce holds a passage's sourceLines, made once on first use.
type linesOnce struct {
	once  sync.Once
	lines []string
}

// tableLines returns the passage's sourceLines, made once.
func (p *prepared) tableLines() []string {
	p.lines.once.Do(func() { p.lines.lines = sourceLines(p.text) })
	return p.lines.lines
}

// pipeRow returns a Markdown table row ("| Adult | £6.20 | £8.40 |") as
// the index writes rows ("Adult, £6.20, £8.40"); ok is false for any other
// line.
func pipeRow(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 3 || t[0] != '|' || t[len(t)-1] != '|' {
		return "", false
	}
	var cells []string
	for _, c := range strings.Split(t[1:len(t)-1], "|") {
		if c = strings.TrimSpace(c); c != "" {
			cells = append(cells, c)
		}
	}
	return strings.Join(cells, ", "), len(cells) > 0
}

// pipeRule reports whether a line is a Markdown table's rule ("|---|:--:|").
func pipeRule(t string) bool {
	return strings.Trim(t, "|-: ") == "" && strings.Contains(t, "-")
}

// fold returns s with every run of whitespace as one space, trimmed.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// verbatimIn returns the span of a cited passage that the claim quotes word
// for word (whitespace folded, its closing punctuation aside), starting
// where a line or sentence of the passage starts and ending where one ends
// (not at a comma, a semicolon or a colon, after which the source may go on
// with a condition the quote would drop). Such a claim says what its source
// says in the source's words, so it is no contradiction of it: the windows
// found one only because the source says something else elsewhere (a
// table's "closed" beside another row's hours), and a source contradicting
// itself is not the answer's error. An item of a negated list ("We do not
// cover:" then "Damage caused by pets") quoted without its lead is not
// taken: the item alone reads as the opposite of what the source says.
func verbatimIn(claim string, docs []*prepared) (string, bool) {
	c, _ := foldLines(claim) // lower-cased, whitespace folded
	c = strings.TrimRight(c, ".!?;: ")
	if strings.Count(c, " ") < 1 {
		return "", false
	}
	for _, d := range docs {
		t, line := foldLines(d.text)
		for from := 0; ; {
			k := strings.Index(t[from:], c)
			if k < 0 {
				break
			}
			s, e := from+k, from+k+len(c)
			from = s + 1
			if !verbatimStart(t, line, s) || !verbatimEnd(t, line, e) || negatedItem(d.text, c) {
				continue
			}
			if f := fold(d.text); len(f) == len(t) {
				return f[s:e], true // the span as written
			}
			return t[s:e], true
		}
	}
	return "", false
}

// verbatimStart reports whether position s of a foldLines text t (line:
// its spaces that held a line break) begins a line or a sentence.
func verbatimStart(t string, line []bool, s int) bool {
	return s == 0 || t[s-1] == ' ' && (line[s-1] || s >= 2 && strings.IndexByte(".!?", t[s-2]) >= 0)
}

// verbatimEnd reports whether position e of a foldLines text t ends a line
// or a sentence ("3.5" goes on after its dot).
func verbatimEnd(t string, line []bool, e int) bool {
	if e == len(t) || line[e] {
		return true
	}
	if strings.IndexByte(".!?", t[e]) < 0 {
		return false
	}
	return e+1 == len(t) || strings.IndexByte(" \"')", t[e+1]) >= 0
}

// negatedItem reports whether the claim is (starts) an item line of a list
// whose lead line ends in ":" and holds a negation, without that lead.
func negatedItem(raw, claim string) bool {
	lines := strings.Split(raw, "\n")
	for i := 1; i < len(lines); i++ {
		ln, _ := foldLines(lines[i])
		if ln == "" || !strings.HasPrefix(claim, ln) && !strings.HasPrefix(ln, claim) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			lead := strings.TrimSpace(lines[j])
			if lead == "" {
				break
			}
			if strings.HasSuffix(lead, ":") {
				if fl, _ := foldLines(lead); hasNegation(lead) && !strings.Contains(claim, fl) {
					return true
				}
				break
			}
		}
	}
	return false
}

// hasNegation reports whether s holds a negation cue as analyse reads one.
func hasNegation(s string) bool {
	for _, tm := range analyse(normPhrases(s)) {
		if tm.neg {
			return true
		}
	}
	return false
}
