package index

import (
	"strconv"
	"strings"
)

// Chunk is the unit that is embedded, indexed and cited. A document that
// fits in one chunk keeps its id; longer ones get "id#1", "id#2", ...
// numbered in text order from 1 across the whole document (sections
// included), so an id names the same passage for as long as the document's
// text and the chunk sizes are unchanged. Every chunk keeps its document's
// id, kind, address and url, and its title: a Markdown section's chunk is
// titled "Page title: Section heading", any other the document's title.
type Chunk struct {
	ID      string
	DocID   string
	Seq     int
	Text    string
	Title   string
	Kind    string
	Address string
	URL     string
}

// chunkDoc splits d on paragraph, then sentence, then word boundaries into
// pieces of at most maxChars characters (a single overlong word excepted),
// merging a trailing piece shorter than minChars into its predecessor.
// A Markdown document is first cut into its level-2+ sections (see
// docSections): no chunk spans two sections that each reach minChars.
func chunkDoc(d Doc, maxChars, minChars int) []Chunk {
	type piece struct{ text, title string }
	var all []piece
	// A Markdown or plain-text file's chunks keep its paragraph breaks (a
	// heading stays a paragraph of its own) and rejoin a long paragraph's
	// sentences with a space; other documents' units (JSON lines) are joined
	// by one newline, as they always were (their chunk ids and texts stay
	// as built).
	paraSep, inSep := "\n", "\n"
	if d.markdown || d.paragraphs {
		paraSep, inSep = "\n\n", " "
	}
	for _, sec := range docSections(d, minChars) {
		pieces := splitText(sec.text, maxChars, paraSep, inSep)
		if len(pieces) > 1 && len(pieces[len(pieces)-1]) < minChars {
			last := pieces[len(pieces)-1]
			pieces = pieces[:len(pieces)-1]
			pieces[len(pieces)-1] += "\n\n" + last
		}
		title := d.Title
		if sec.heading != "" && title != "" {
			title += ": " + sec.heading
		} else if sec.heading != "" {
			title = sec.heading
		}
		for _, p := range pieces {
			all = append(all, piece{p, title})
		}
	}
	out := make([]Chunk, len(all))
	for i, p := range all {
		id := d.ID
		if len(all) > 1 {
			id = d.ID + "#" + strconv.Itoa(i+1)
		}
		out[i] = Chunk{ID: id, DocID: d.ID, Seq: i + 1, Text: p.text, Title: p.title, Kind: d.Kind, Address: d.Address, URL: d.URL}
	}
	return out
}

// docSection is a run of a document's text chunked on its own, and the
// heading its chunks are titled by ("" for the document's title).
type docSection struct{ text, heading string }

// docSections cuts d's text at its Markdown sections. The part before the
// first section is a section of its own, titled by the page, when it
// reaches minChars. A section shorter than minChars is merged into the one
// after it (the last into the one before), and the merged section is
// headed by both headings ("3.4 Garden contents; 3.5 Students and
// visitors"), so a citation's title and a refusal's closest topics name
// what the chunk holds; a short part before the first section takes the
// next one's heading alone. A document without sections is one section.
func docSections(d Doc, minChars int) []docSection {
	text := d.Text
	if len(d.sections) == 0 {
		return []docSection{{text: strings.TrimSpace(text)}}
	}
	var secs []docSection
	pre := strings.TrimSpace(text[:d.sections[0].Off])
	for i, s := range d.sections {
		end := len(text)
		if i+1 < len(d.sections) {
			end = d.sections[i+1].Off
		}
		secs = append(secs, docSection{text: strings.TrimSpace(text[s.Off:end]), heading: s.Heading})
	}
	if pre != "" {
		secs = append([]docSection{{text: pre}}, secs...)
	}
	var out []docSection
	for _, s := range secs {
		if n := len(out); n > 0 && len(out[n-1].text) < minChars {
			out[n-1].text += "\n\n" + s.text
			out[n-1].heading = joinHeadings(out[n-1].heading, s.heading)
			continue
		}
		out = append(out, s)
	}
	if n := len(out); n > 1 && len(out[n-1].text) < minChars {
		out[n-2].text += "\n\n" + out[n-1].text
		out[n-2].heading = joinHeadings(out[n-2].heading, out[n-1].heading)
		out = out[:n-1]
	}
	return out
}

// joinHeadings heads a merged section: a's heading, then b's ("" is none).
func joinHeadings(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// splitText cuts text into pieces of at most maxChars on paragraph, then
// sentence, then word boundaries. Within a piece, units that open a
// paragraph are joined by paraSep, the rest (sentences and words of a long
// paragraph) by inSep.
func splitText(text string, maxChars int, paraSep, inSep string) []string {
	if len(text) <= maxChars {
		return []string{text}
	}
	type unit struct {
		s    string
		para bool
	}
	var units []unit
	for _, para := range splitParagraphs(text) {
		if len(para) <= maxChars {
			units = append(units, unit{para, true})
			continue
		}
		first := true
		for _, s := range splitSentences(para) {
			ws := []string{s}
			if len(s) > maxChars {
				ws = splitWords(s, maxChars)
			}
			for _, w := range ws {
				units = append(units, unit{w, first})
				first = false
			}
		}
	}
	var out []string
	var cur strings.Builder
	lead := -1 // where in cur the last unit starts, when it is a lead-in
	for _, u := range units {
		sep := inSep
		if u.para {
			sep = paraSep
		}
		if cur.Len() > 0 && cur.Len()+len(sep)+len(u.s) > maxChars {
			carry := ""
			if lead > 0 && cur.Len()-lead+len(sep)+len(u.s) <= maxChars {
				// a question or a list's lead-in goes with what answers it
				carry = cur.String()[lead:]
				out = append(out, strings.TrimRight(cur.String()[:lead], " \n\t"))
			} else {
				out = append(out, cur.String())
			}
			cur.Reset()
			cur.WriteString(carry)
		}
		lead = -1
		if cur.Len() > 0 {
			cur.WriteString(sep)
		}
		if u.para && leadIn(u.s) {
			lead = cur.Len()
		}
		cur.WriteString(u.s)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// leadInMax is the longest paragraph leadIn takes for a question or a
// list's lead-in.
const leadInMax = 200

// leadIn reports a paragraph that leads into the next one: one short line
// that ends in '?' (a FAQ's question, "Can we bring our own caterer?") or
// ':' ("The main things that affect your price are:"). splitText never
// ends a piece on one: operator trial 26's venue FAQ, its questions in bold
// over their answers, had four chunks end on a question whose answer
// opened the next chunk.
func leadIn(p string) bool {
	if len(p) > leadInMax || strings.Contains(p, "\n") {
		return false
	}
	p = strings.TrimRight(p, " *_")
	return strings.HasSuffix(p, "?") || strings.HasSuffix(p, ":")
}

func splitParagraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// splitSentences splits after '.', '!' or '?' followed by whitespace,
// except after a section or list number that opens a sentence ("4. Children
// and railcards", "12. Lost property"): it stays with its heading.
func splitSentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p)-1; i++ {
		c := p[i]
		if (c == '.' || c == '!' || c == '?') && (p[i+1] == ' ' || p[i+1] == '\n' || p[i+1] == '\t') {
			if c == '.' && listNumber(strings.TrimSpace(p[start:i])) {
				continue
			}
			if s := strings.TrimSpace(p[start : i+1]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// listNumber reports whether s is a number of one to three digits, as
// numbers a section or list item.
func listNumber(s string) bool {
	if len(s) == 0 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func splitWords(s string, maxChars int) []string {
	var out []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > maxChars {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
