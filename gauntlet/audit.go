package gauntlet

import (
	"strings"
	"unsafe"
)

// Finding kinds of the auditor.
const (
	FindInvented        = "invented_marker"  // an output marker [k] with no citation k
	FindBroken          = "broken_marker"    // footnote syntax left in the text ("[^")
	FindLeakedID        = "leaked_id"        // an id-shaped token, or a token the catalog knows
	FindUnknownCitation = "unknown_citation" // a cited ID the catalog does not know
	FindUnusedCitation  = "unused_citation"  // a citation no marker in the text refers to
	FindUnknownNamed    = "unknown_named"    // a card/action marker not in this turn's sets ([Stream.Audit] only)
)

// Finding is one problem the auditor found.
type Finding struct {
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Offset int    `json:"offset"` // byte offset in the text; -1 for citation findings
}

// AuditReport is the result of [Spec.Audit].
type AuditReport struct {
	Markers          int       `json:"markers"` // output markers [k] in the text
	Invented         int       `json:"invented"`
	Broken           int       `json:"broken"`
	LeakedIDs        int       `json:"leaked_ids"`
	UnknownCitations int       `json:"unknown_citations"`
	UnusedCitations  int       `json:"unused_citations"`
	UnknownNamed     int       `json:"unknown_named"`
	Findings         []Finding `json:"findings,omitempty"`
}

// OK reports whether the audit found nothing wrong.
func (r AuditReport) OK() bool { return len(r.Findings) == 0 }

// Audit checks a finished answer (the gauntlet's output, outside code) with
// no model: every marker [k] must name one of cited (k in 1..len(cited)), no
// "[^" may remain, every citation must be referenced, every cited ID must be
// known to catalog (when catalog is not nil), and no token may be id-shaped
// or a catalog id (same tokens and rules as the stream; the addresses of the
// cited sources are exempt). It returns counts per problem and the findings.
func (s *Spec) Audit(text string, cited []Citation, catalog func(string) bool) AuditReport {
	exempt := map[string]bool{}
	for _, c := range cited {
		if c.Address != "" {
			exempt[c.Address] = true
			for _, f := range splitFields(c.Address) {
				exempt[f] = true
			}
		}
	}
	return s.audit(text, auditIn{cited: cited, catalog: catalog, exempt: exempt})
}

// Audit checks this stream's finished output text as [Spec.Audit] does, with
// the stream's own citations, catalog and note addresses, and also checks
// card and action markers against Options.Cards and Options.Actions (in
// bail-out mode any marker is a finding). Call it after Close.
func (st *Stream) Audit(text string) AuditReport {
	in := auditIn{cited: st.cites, catalog: st.opt.Catalog, exempt: st.exemptSet(), named: true}
	if !st.opt.Bailout {
		in.cards, in.actions = st.opt.Cards, st.opt.Actions
	}
	return st.spec.audit(text, in)
}

type auditIn struct {
	cited          []Citation
	catalog        func(string) bool
	exempt         map[string]bool
	named          bool // check card/action markers against cards/actions
	cards, actions map[string]bool
}

func (s *Spec) audit(text string, in auditIn) AuditReport {
	var r AuditReport
	add := func(kind, t string, off int) {
		r.Findings = append(r.Findings, Finding{Kind: kind, Text: t, Offset: off})
	}
	cited, catalog, exempt := in.cited, in.catalog, in.exempt
	used := make([]bool, len(cited)+1)
	for _, seg := range textSegments(text) {
		t := text[seg[0]:seg[1]]
		for i := 0; i < len(t); {
			c := t[i]
			switch {
			case c == '[':
				if i+1 < len(t) && t[i+1] == '^' {
					r.Broken++
					add(FindBroken, t[i:min(len(t), i+8)], seg[0]+i)
					i += 2
					continue
				}
				if in.named && (strings.HasPrefix(t[i:], s.card) || strings.HasPrefix(t[i:], s.action)) {
					prefix, known := s.card, in.cards
					if strings.HasPrefix(t[i:], s.action) {
						prefix, known = s.action, in.actions
					}
					j := strings.IndexAny(t[i:], "]\n")
					switch {
					case j < 0 || t[i+j] != ']':
						r.Broken++
						add(FindBroken, t[i:min(len(t), i+len(prefix)+8)], seg[0]+i)
					case !known[t[i+len(prefix):i+j]]:
						r.UnknownNamed++
						add(FindUnknownNamed, t[i:i+j+1], seg[0]+i)
					}
					i += len(prefix)
					continue
				}
				j, n := i+1, 0
				for j < len(t) && isDigit(t[j]) && j-i <= 6 {
					n = n*10 + int(t[j]-'0')
					j++
				}
				if j > i+1 && j < len(t) && t[j] == ']' {
					r.Markers++
					if n >= 1 && n <= len(cited) {
						used[n] = true
					} else {
						r.Invented++
						add(FindInvented, t[i:j+1], seg[0]+i)
					}
					i = j + 1
					continue
				}
				i++
			case class[c] == cTok:
				j := i
				for j < len(t) && class[t[j]] == cTok {
					j++
				}
				tok := unsafe.Slice(unsafe.StringData(t[i:j]), j-i) // a view: only read
				core := tok[:len(tok)-trailing(tok)]
				if hasNonLetter(core) && !exempt[string(core)] && s.isID(core, catalog) {
					r.LeakedIDs++
					add(FindLeakedID, string(core), seg[0]+i)
				}
				i = j
			default:
				i++
			}
		}
	}
	for _, c := range cited {
		if catalog != nil && !catalog(c.ID) {
			r.UnknownCitations++
			add(FindUnknownCitation, c.ID, -1)
		}
		if c.N >= 1 && c.N < len(used) && !used[c.N] {
			r.UnusedCitations++
			add(FindUnusedCitation, c.ID, -1)
		}
	}
	return r
}

func (s *Spec) isID(core []byte, catalog func(string) bool) bool {
	if len(core) >= s.minIDLen && s.IDShaped(core) {
		return true
	}
	if catalog == nil || len(core) < s.catalogMinLen {
		return false
	}
	if !s.catalogNumbers {
		num := true
		for _, c := range core {
			num = num && isDigit(c)
		}
		if num {
			return false
		}
	}
	return catalog(string(core))
}

// textSegments returns the [start,end) byte ranges of text that are not code,
// by the same rules as the stream: inline spans close on a backtick run of
// the opening length or at the end of the line; fences are ``` or ~~~ (3+)
// at a line start (up to 3 spaces in) and close on a line of the same
// character at least as long with nothing else but blanks.
func textSegments(text string) [][2]int {
	var segs [][2]int
	start := 0
	col := 0 // spaces since line start, -1 after anything else
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\n':
			col = 0
			i++
		case c == ' ' && col >= 0:
			col++
			i++
		case c == '`' || (c == '~' && col >= 0 && col <= 3):
			j := i
			for j < len(text) && text[j] == c {
				j++
			}
			run := j - i
			atLine := col >= 0 && col <= 3
			if c == '~' && run < 3 {
				col = -1
				i = j
				continue
			}
			if j >= len(text) { // a run at the very end opens nothing
				i = j
				continue
			}
			if atLine && run >= 3 { // fence: find the closing line
				segs = append(segs, [2]int{start, j})
				end := fenceEnd(text, j, c, run)
				start, i, col = end, end, 0
				continue
			}
			if c == '~' {
				col = -1
				i = j
				continue
			}
			segs = append(segs, [2]int{start, j})
			// inline span: closes on a run of exactly run backticks, or at '\n'
			k := j
			for k < len(text) && text[k] != '\n' {
				if text[k] != '`' {
					k++
					continue
				}
				m := k
				for m < len(text) && text[m] == '`' {
					m++
				}
				if m-k == run && m < len(text) {
					k = m
					break
				}
				if m-k == run { // closing run at the very end
					k = m
					break
				}
				k = m
			}
			start, i, col = k, k, -1
		default:
			col = -1
			i++
		}
	}
	segs = append(segs, [2]int{start, len(text)})
	return segs
}

// fenceEnd returns the offset just after the line that closes a fence opened
// at from (the rest of the opening line belongs to the fence), or len(text).
func fenceEnd(text string, from int, ch byte, n int) int {
	nl := indexByte(text, from, '\n')
	if nl < 0 {
		return len(text)
	}
	for line := nl + 1; line < len(text); {
		end := indexByte(text, line, '\n')
		l := text[line:]
		if end >= 0 {
			l = text[line:end]
		}
		k := 0
		for k < len(l) && k < 3 && l[k] == ' ' {
			k++
		}
		m := k
		for m < len(l) && l[m] == ch {
			m++
		}
		rest := true
		for _, b := range []byte(l[m:]) {
			rest = rest && (b == ' ' || b == '\t')
		}
		if m-k >= n && rest && end >= 0 {
			return end + 1
		}
		if end < 0 {
			return len(text)
		}
		line = end + 1
	}
	return len(text)
}

func indexByte(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
