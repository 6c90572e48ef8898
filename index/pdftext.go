package index

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/answer-guard/guard/index/wordvec"
)

// Text extracted from a PDF (pdftotext, a viewer's "Save as text", a copy
// of the whole document) carries the page's furniture into the body: a
// form feed between pages, a running header and footer on every page
// ("Riverside Vets - Client Handbook", "Page 3 of 6") and words hyphenated
// across line ends ("vacci-" / "nation"). Read as written, the header
// stood in the middle of every chunk, "Page 1 of 2" titled a section, and
// "prac-tice" was two words no question holds. pdfText takes them out
// before plainText reads the lines.

var (
	// pageNumberRE is a line that holds a page number alone: "Page 3 of
	// 6", "3 / 6", "- 3 -", "3".
	pageNumberRE = regexp.MustCompile(`(?i)^(?:page\s+\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[-–—]\s*\d{1,4}\s*[-–—])$`)
	// pageOfRE is the form of pageNumberRE that never is text, even
	// without a form feed to say where a page ends: "Page 3 of 6".
	pageOfRE = regexp.MustCompile(`(?i)^page\s+\d{1,4}\s*(?:of|/)\s*\d{1,4}$`)
	digitsRE = regexp.MustCompile(`\d+`)
)

// pageEdgeLines is how many non-blank lines at each end of a page may be
// its header or footer.
const pageEdgeLines = 3

// pdfText returns body with the page furniture of a PDF's text taken out:
// form feeds, running headers and footers (a line at a page's top or
// bottom that recurs at the same place on at least half of the pages,
// digits aside; the first page's header is kept as the title and the last
// page's footer, unless it is a page number), "Page N of M" lines, and
// hyphens that split a word across two lines ("exam-" / "ination" is
// "examination" when the word vectors know that word, else "same-day"
// stays hyphenated). Text without that furniture is returned unchanged.
func pdfText(body string) string {
	if strings.Contains(body, "\f") {
		body = dropPageFurniture(strings.Split(body, "\f"))
	}
	if !strings.Contains(body, "-\n") && !strings.Contains(body, "-\r\n") && !pageLineRE.MatchString(body) {
		return body
	}
	lines := strings.Split(body, "\n")
	out := lines[:0]
	for _, l := range lines {
		if pageOfRE.MatchString(strings.TrimSpace(l)) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(joinHyphenated(out), "\n")
}

// pageLineRE finds a "Page N of M" line anywhere in a text.
var pageLineRE = regexp.MustCompile(`(?im)^[ \t]*page\s+\d{1,4}\s*(?:of|/)\s*\d{1,4}[ \t]*\r?$`)

// dropPageFurniture joins pages, their running headers and footers and
// page-number lines taken out.
func dropPageFurniture(pages []string) string {
	type page struct{ lines []string }
	ps := make([]page, len(pages))
	key := func(l string) string {
		return strings.Join(strings.Fields(strings.ToLower(digitsRE.ReplaceAllString(l, "#"))), " ")
	}
	heads, foots := map[string]int{}, map[string]int{}
	texts := 0
	for i, p := range pages {
		ps[i].lines = strings.Split(strings.ReplaceAll(p, "\r\n", "\n"), "\n")
		var nb []string
		for _, l := range ps[i].lines {
			if strings.TrimSpace(l) != "" {
				nb = append(nb, key(l))
			}
		}
		if len(nb) == 0 {
			continue
		}
		texts++
		seen := map[string]bool{}
		for k := 0; k < pageEdgeLines && k < len(nb); k++ {
			if !seen["h"+nb[k]] {
				seen["h"+nb[k]] = true
				heads[nb[k]]++
			}
			if j := len(nb) - 1 - k; !seen["f"+nb[j]] {
				seen["f"+nb[j]] = true
				foots[nb[j]]++
			}
		}
	}
	running := func(counts map[string]int, k string) bool { return counts[k] >= 2 && 2*counts[k] >= texts }
	keptHead := map[string]bool{}
	var b strings.Builder
	for i := range ps {
		lines := ps[i].lines
		// the header: up to pageEdgeLines lines from the top
		for k, n := 0, 0; k < len(lines) && n < pageEdgeLines; k++ {
			t := strings.TrimSpace(lines[k])
			if t == "" {
				continue
			}
			n++
			kk := key(t)
			switch {
			case pageNumberRE.MatchString(t):
			case running(heads, kk) && !keptHead[kk]:
				keptHead[kk] = true // the document's title, once
				continue
			case running(heads, kk):
			default:
				n = pageEdgeLines // the page's text begins here
				continue
			}
			lines[k] = ""
		}
		// the footer: up to pageEdgeLines lines from the bottom
		for k, n := len(lines)-1, 0; k >= 0 && n < pageEdgeLines; k-- {
			t := strings.TrimSpace(lines[k])
			if t == "" {
				continue
			}
			n++
			kk := key(t)
			last := i == len(ps)-1
			switch {
			case pageNumberRE.MatchString(t):
			case running(foots, kk) && !last:
			case running(foots, kk):
				continue // kept once, at the end
			default:
				n = pageEdgeLines
				continue
			}
			lines[k] = ""
		}
		text := strings.TrimSpace(strings.Join(lines, "\n"))
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			// a page that ends mid-sentence runs on into the next
			prev := b.String()
			r, _ := utf8.DecodeRuneInString(text)
			if unicode.IsLower(r) && !strings.ContainsAny(prev[len(prev)-1:], ".!?:") {
				b.WriteByte('\n')
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(text)
	}
	return b.String()
}

// joinHyphenated moves the rest of a word split by a hyphen at a line's
// end up to that line: without the hyphen when the joined word is a word
// of the embedded word vectors' vocabulary, else with it.
func joinHyphenated(lines []string) []string {
	var vocab *wordvec.Vectors
	for i := 0; i+1 < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		n := len(l)
		if n < 3 || l[n-1] != '-' || !isLetter(l[n-2]) || !isLetter(l[n-3]) {
			continue
		}
		next := strings.TrimLeft(lines[i+1], " \t")
		r, _ := utf8.DecodeRuneInString(next)
		if !unicode.IsLower(r) {
			continue
		}
		end := strings.IndexFunc(next, func(r rune) bool { return !unicode.IsLetter(r) })
		if end < 0 {
			end = len(next)
		}
		// the tail: the word's piece before the hyphen
		start := strings.LastIndexFunc(l[:n-1], func(r rune) bool { return !unicode.IsLetter(r) }) + 1
		if start > 0 && l[start-1] == '-' {
			continue // "x-ray-" / "s": a compound; leave it
		}
		joined := l[start:n-1] + next[:end]
		if vocab == nil {
			vocab, _ = wordvec.Default()
		}
		hyphen := "-"
		if vocab != nil {
			if _, ok := vocab.ID(strings.ToLower(joined)); ok {
				hyphen = ""
			}
		}
		// the word moves up with the punctuation after it ("tice,")
		tok := strings.IndexAny(next, " \t")
		if tok < 0 {
			tok = len(next)
		}
		lines[i] = l[:n-1] + hyphen + next[:tok]
		lines[i+1] = strings.TrimLeft(next[tok:], " \t")
		if strings.TrimSpace(lines[i+1]) == "" {
			// the next line held only the word's end: keep the lines
			// apart as they were (a blank line here would break the
			// paragraph), so drop the now empty line
			lines = append(lines[:i+1], lines[i+2:]...)
		}
	}
	return lines
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
