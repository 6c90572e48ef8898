package index

import (
	"encoding/csv"
	"regexp"
	"strings"
	"unicode/utf8"
)

// A software product's docs are often a Sphinx project: a folder of
// reStructuredText (.rst) pages. The build refused them by type (operator
// trial 36: an invoicing app's eight pages). rstMarkdown rewrites a page
// as the Markdown of the same structure, which markdownText then reads:
// underlined (and overlined) titles become headings, levels in the order
// the page first uses each style; admonitions (note, warning, tip, ...)
// become paragraphs led by their name; a list-table or csv-table becomes
// a table; code and literal blocks stay as written; the directives that
// show no text (toctree, image, index, include, raw, ...), comments,
// link targets and option lines are dropped; roles, links and
// substitutions keep their text.

// rstPage reads a reStructuredText file (.rst); it must be UTF-8.
func rstPage(id string, b []byte) (Doc, error) {
	if err := checkUTF8(b); err != nil {
		return Doc{}, err
	}
	if blank(string(b)) {
		return Doc{}, errEmptyFile
	}
	return textDoc(id, rstMarkdown(strings.TrimPrefix(string(b), utf8BOM)), true), nil
}

var (
	// rstDirectiveRE is an explicit markup line: ".. name:: arguments".
	rstDirectiveRE = regexp.MustCompile(`^(\s*)\.\.\s+(?:\|[^|]+\|\s+)?([A-Za-z][\w:-]*)::(?:\s+(.*))?$`)
	// rstOptionRE is a directive's option line (":maxdepth: 2").
	rstOptionRE = regexp.MustCompile(`^\s*:[\w][\w -]*:(?:\s.*)?$`)
	// rstRoleRE is an interpreted text with a role, :ref:`text <target>`
	// or :doc:`target`.
	rstRoleRE = regexp.MustCompile(":[\\w:+-]+:`([^`]*)`")
	// rstLinkRE is a hyperlink reference: `text <target>`_, `text`__.
	rstLinkRE = regexp.MustCompile("`([^`<]*?)\\s*(?:<[^`>]*>)?`_{1,2}")
	// rstCommentRE is a link target's, a footnote's or a comment's opening
	// line: ".. _x:", ".. [1] ...", ".. anything".
	rstCommentRE = regexp.MustCompile(`^\s*\.\.(?:\s|$)`)
	// rstSubstRE is a substitution reference, |name|, and rstFootRefRE a
	// footnote or citation reference, [#]_ or [1]_.
	rstSubstRE   = regexp.MustCompile(`\|([^|\s][^|]*?)\|(?:_{1,2})?`)
	rstFootRefRE = regexp.MustCompile(`\s?\[(?:#[\w-]*|\*|\d+|[A-Za-z][\w-]*)\]_`)
)

// rstSilent are the directives whose content is not text a reader sees.
var rstSilent = map[string]bool{"toctree": true, "image": true, "index": true, "include": true, "raw": true, "contents": true,
	"meta": true, "highlight": true, "literalinclude": true, "sectnum": true, "role": true, "default-role": true,
	"autosummary": true, "automodule": true, "autoclass": true, "autofunction": true, "tabularcolumns": true}

// rstAdmonitions are the directives read as a paragraph led by their name.
var rstAdmonitions = map[string]string{"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
	"caution": "Caution", "attention": "Attention", "hint": "Hint", "danger": "Danger", "error": "Error",
	"seealso": "See also", "admonition": "", "versionadded": "New in version", "versionchanged": "Changed in version",
	"deprecated": "Deprecated since version"}

// rstMarkdown rewrites a reStructuredText page as Markdown (see above).
func rstMarkdown(body string) string {
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	var out []string
	levels := map[string]int{} // a title style ("=" under, "=/=" over and under) -> its level
	level := func(style string) int {
		if l, ok := levels[style]; ok {
			return l
		}
		levels[style] = min(len(levels)+1, 6)
		return levels[style]
	}
	// block returns the lines after i indented deeper than indent (blank
	// lines inside it included), and the index after them.
	block := func(i, indent int) ([]string, int) {
		j := i
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || leadingSpaces(lines[j]) > indent) {
			j++
		}
		for j > i && strings.TrimSpace(lines[j-1]) == "" {
			j-- // trailing blank lines belong to what follows
		}
		return dedent(lines[i:j]), j
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		t := strings.TrimSpace(l)
		// an overlined title: rule, text, the same rule
		if rstRule(t) && i+2 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && strings.TrimSpace(lines[i+2]) == t {
			out = append(out, "", strings.Repeat("#", level(t[:1]+"/"+t[:1]))+" "+rstInline(strings.TrimSpace(lines[i+1])), "")
			i += 2
			continue
		}
		// an underlined title: text, a rule at least about as long
		if t != "" && !rstRule(t) && leadingSpaces(l) == 0 && i+1 < len(lines) {
			if u := strings.TrimSpace(lines[i+1]); rstRule(u) && utf8.RuneCountInString(u) >= min(utf8.RuneCountInString(t), 3) && (i == 0 || strings.TrimSpace(lines[i-1]) == "" || rstRule(strings.TrimSpace(lines[i-1]))) {
				out = append(out, "", strings.Repeat("#", level(u[:1]))+" "+rstInline(t), "")
				i++
				continue
			}
		}
		if m := rstDirectiveRE.FindStringSubmatch(l); m != nil {
			indent, name, arg := len(m[1]), strings.ToLower(m[2]), strings.TrimSpace(m[3])
			body, next := block(i+1, indent)
			i = next - 1
			for len(body) > 0 && (rstOptionRE.MatchString(body[0]) || strings.TrimSpace(body[0]) == "") {
				body = body[1:] // the directive's options
			}
			switch {
			case rstSilent[name]:
			case name == "figure":
				// its caption and legend: the body after the options
				out = append(out, "")
				out = append(out, rstMarkdownLines(body)...)
			case name == "code-block" || name == "code" || name == "sourcecode" || name == "parsed-literal":
				out = append(out, "", "```")
				out = append(out, body...)
				out = append(out, "```", "")
			case name == "list-table" || name == "csv-table":
				out = append(out, "")
				if arg != "" {
					out = append(out, rstInline(arg), "") // the table's title
				}
				if name == "list-table" {
					out = append(out, rstListTable(body)...)
				} else {
					out = append(out, rstCSVTable(body)...)
				}
				out = append(out, "")
			default:
				lead := rstAdmonitions[name]
				switch {
				case name == "only":
					arg = "" // ".. only:: html": its body is the text
				case lead != "" && arg != "":
					// ".. warning:: Data export" reads "Warning: Data export. ..."
					lead += ": " + strings.TrimRight(arg, ".") + "."
				case lead == "":
					lead = arg // a generic admonition's title, a rubric, or nothing
				}
				text := rstMarkdownLines(body)
				out = append(out, "")
				sep := ": "
				if strings.HasSuffix(lead, ".") {
					sep = " "
				}
				switch {
				case lead != "" && len(text) > 0 && text[0] != "":
					text[0] = rstInline(lead) + sep + text[0]
				case lead != "":
					text = append([]string{rstInline(lead)}, text...)
				}
				out = append(out, text...)
				out = append(out, "")
			}
			continue
		}
		if rstCommentRE.MatchString(l) {
			// a comment, a link target, a footnote: with its indented body
			_, next := block(i+1, leadingSpaces(l))
			if strings.HasPrefix(t, ".. [") {
				// a footnote's text is content: "Note: ..."
				if j := strings.Index(t, "]"); j > 0 && j+1 < len(t) {
					out = append(out, "", "Note: "+rstInline(strings.TrimSpace(t[j+1:])), "")
				}
			}
			i = next - 1
			continue
		}
		if rstOptionRE.MatchString(l) && leadingSpaces(l) == 0 && (strings.HasPrefix(t, ":orphan:") || strings.HasPrefix(t, ":nosearch:")) {
			continue // file-wide options
		}
		if strings.HasSuffix(t, "::") && !strings.HasPrefix(t, "..") {
			// a paragraph that opens a literal block: "Example::"
			if t == "::" {
				t = ""
			} else {
				t = strings.TrimSuffix(t, ":")
			}
			if t != "" {
				out = append(out, strings.Repeat(" ", leadingSpaces(l))+rstInline(t))
			}
			body, next := block(i+1, leadingSpaces(l))
			for len(body) > 0 && strings.TrimSpace(body[0]) == "" {
				body = body[1:]
			}
			if len(body) > 0 {
				out = append(out, "", "```")
				out = append(out, body...)
				out = append(out, "```", "")
				i = next - 1
			}
			continue
		}
		if strings.HasPrefix(t, "#. ") {
			l = strings.Replace(l, "#. ", "1. ", 1)
		}
		if strings.HasPrefix(t, "| ") || t == "|" {
			l = strings.Replace(l, "|", "", 1) // a line block's line
		}
		if leadingSpaces(l) >= 4 {
			l = "   " + strings.TrimLeft(l, " ") // indented text (a definition, a quote) is not code here
		}
		out = append(out, rstInline(l))
	}
	return strings.Join(out, "\n")
}

// rstMarkdownLines rewrites a directive's dedented body.
func rstMarkdownLines(body []string) []string {
	if len(body) == 0 {
		return nil
	}
	return strings.Split(rstMarkdown(strings.Join(body, "\n")), "\n")
}

// rstInline rewrites one line's inline markup: roles and links keep their
// text (a :doc: target its last part), “literals“ and *emphasis* stay
// for mdInline, substitutions their name, footnote references dropped.
func rstInline(s string) string {
	if !strings.ContainsAny(s, "`|]") {
		return s
	}
	s = rstRoleRE.ReplaceAllStringFunc(s, func(m string) string {
		in := rstRoleRE.FindStringSubmatch(m)[1]
		if j := strings.Index(in, "<"); j > 0 && strings.HasSuffix(in, ">") {
			return strings.TrimSpace(in[:j])
		}
		in = strings.TrimPrefix(strings.TrimPrefix(in, "~"), "!")
		if k := strings.LastIndexAny(in, "/."); k >= 0 && k+1 < len(in) && !strings.Contains(in, " ") {
			in = in[k+1:]
		}
		return in
	})
	s = rstLinkRE.ReplaceAllString(s, "$1")
	s = rstFootRefRE.ReplaceAllString(s, "")
	s = rstSubstRE.ReplaceAllString(s, "$1")
	// interpreted text without a role, `x`, reads as x (``x`` stays code)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			if i+1 < len(s) && s[i+1] == '`' {
				j := strings.Index(s[i+2:], "``")
				if j < 0 {
					b.WriteString(s[i:])
					break
				}
				b.WriteString(s[i : i+2+j+2])
				i += 2 + j + 1
				continue
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// rstRule reports a line of one punctuation character repeated (four or
// more; three for "===" and "---" would be list items or a Markdown rule
// elsewhere, but an adornment of a three-letter title is three).
func rstRule(t string) bool {
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'*+#:._`", rune(t[0])) {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// dedent removes the indent the non-blank lines share.
func dedent(lines []string) []string {
	least := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := leadingSpaces(l); least < 0 || n < least {
			least = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= least && least > 0 {
			out[i] = l[least:]
		} else {
			out[i] = strings.TrimLeft(l, " ")
		}
	}
	return out
}

// rstListTable turns a list-table's body ("* - a" / "  - b" rows) into
// pipe-table rows.
func rstListTable(body []string) []string {
	var rows [][]string
	for _, l := range body {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "* - "):
			rows = append(rows, []string{strings.TrimSpace(t[4:])})
		case strings.HasPrefix(t, "- ") && len(rows) > 0:
			rows[len(rows)-1] = append(rows[len(rows)-1], strings.TrimSpace(t[2:]))
		case t != "" && len(rows) > 0 && len(rows[len(rows)-1]) > 0:
			r := rows[len(rows)-1]
			r[len(r)-1] += " " + t // a cell's next line
		}
	}
	return pipeRows(rows)
}

// rstCSVTable turns a csv-table's body into pipe-table rows.
func rstCSVTable(body []string) []string {
	cr := csv.NewReader(strings.NewReader(strings.Join(body, "\n")))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.TrimLeadingSpace = true
	rows, _ := cr.ReadAll()
	return pipeRows(rows)
}

// pipeRows writes rows as a Markdown pipe table, the first row its header.
func pipeRows(rows [][]string) []string {
	var out []string
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			cells[j] = strings.ReplaceAll(rstInline(c), "|", "/")
		}
		out = append(out, "| "+strings.Join(cells, " | ")+" |")
		if i == 0 {
			out = append(out, "|"+strings.Repeat("---|", max(len(r), 1)))
		}
	}
	return out
}
