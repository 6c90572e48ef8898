package index

import (
	"strconv"
	"strings"
)

// Chunk is the unit that is embedded, indexed and cited. A document that
// fits in one chunk keeps its id; longer ones get "id#1", "id#2", ...
// Every chunk keeps its document's id, title, kind, address and url.
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
func chunkDoc(d Doc, maxChars, minChars int) []Chunk {
	pieces := splitText(strings.TrimSpace(d.Text), maxChars)
	if len(pieces) > 1 && len(pieces[len(pieces)-1]) < minChars {
		last := pieces[len(pieces)-1]
		pieces = pieces[:len(pieces)-1]
		pieces[len(pieces)-1] += "\n\n" + last
	}
	out := make([]Chunk, len(pieces))
	for i, p := range pieces {
		id := d.ID
		if len(pieces) > 1 {
			id = d.ID + "#" + strconv.Itoa(i+1)
		}
		out[i] = Chunk{ID: id, DocID: d.ID, Seq: i + 1, Text: p, Title: d.Title, Kind: d.Kind, Address: d.Address, URL: d.URL}
	}
	return out
}

func splitText(text string, maxChars int) []string {
	if len(text) <= maxChars {
		return []string{text}
	}
	var units []string
	for _, para := range splitParagraphs(text) {
		if len(para) <= maxChars {
			units = append(units, para)
			continue
		}
		for _, s := range splitSentences(para) {
			if len(s) <= maxChars {
				units = append(units, s)
				continue
			}
			units = append(units, splitWords(s, maxChars)...)
		}
	}
	var out []string
	var cur strings.Builder
	for _, u := range units {
		if cur.Len() > 0 && cur.Len()+1+len(u) > maxChars {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteString("\n")
		}
		cur.WriteString(u)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
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

// splitSentences splits after '.', '!' or '?' followed by whitespace.
func splitSentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p)-1; i++ {
		c := p[i]
		if (c == '.' || c == '!' || c == '?') && (p[i+1] == ' ' || p[i+1] == '\n' || p[i+1] == '\t') {
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
