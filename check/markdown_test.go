package check

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/answer-guard/guard/judge"
)

// corpusURL treats links to example.org as corpus documents.
func corpusURL(text, url string) bool { return strings.Contains(url, "example.org") }

// render shows a parse as "line: sentence" lines and "k=label(def)" citations.
func render(p parsed) string {
	var b strings.Builder
	for _, s := range p.sentences {
		fmt.Fprintf(&b, "%d: %s\n", s.line, s.text)
	}
	for i, c := range p.cites {
		fmt.Fprintf(&b, "%d=%s %s def=%q url=%q\n", i+1, c.kind, c.label, c.def, c.url)
	}
	for _, u := range p.unused {
		fmt.Fprintf(&b, "unused %s@%d\n", u.label, u.line)
	}
	return b.String()
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"footnote with definition", "Water boils at 100 C.[^b]\n\n[^b]: water-boiling\n",
			"1: Water boils at 100 C.[1]\n1=footnote [^b] def=\"water-boiling\" url=\"\"\n"},
		{"footnote without definition", "It boils.[^water-boiling] Next one.\n",
			"1: It boils.[1]\n1: Next one.\n1=footnote [^water-boiling] def=\"\" url=\"\"\n"},
		{"same footnote twice is one citation", "Alpha is beta.[^x] Gamma is delta.[^X]\n\n[^x]: id\n",
			"1: Alpha is beta.[1]\n1: Gamma is delta.[1]\n1=footnote [^x] def=\"id\" url=\"\"\n"},
		{"sentence across lines keeps its first line", "intro\n\nWater boils\nat 100 C [^b].\n\n[^b]: d\n",
			"1: intro\n3: Water boils at 100 C [1].\n1=footnote [^b] def=\"d\" url=\"\"\n"},
		{"numbered list and references section", "A is B [1, 3].\n\n## References\n\n1. First source\n3. Third, https://example.org/x\n",
			"1: A is B [1][2].\n1=numbered [1] def=\"First source\" url=\"\"\n2=numbered [3] def=\"Third, https://example.org/x\" url=\"https://example.org/x\"\n"},
		{"numbered range", "A is B [2-3].\n\n[2]: https://example.org/2\n[3]: https://example.org/3\n",
			"1: A is B [1][2].\n1=numbered [2] def=\"\" url=\"https://example.org/2\"\n2=numbered [3] def=\"\" url=\"https://example.org/3\"\n"},
		{"corpus link is a citation, other link is text", "See [the doc](https://example.org/a) and [elsewhere](https://other.net).\n",
			"1: See the doc [1] and elsewhere.\n1=link [the doc](https://example.org/a) def=\"the doc\" url=\"https://example.org/a\"\n"},
		{"reference link", "Per [the handbook][hb].\n\n[hb]: https://example.org/hb \"Handbook\"\n",
			"1: Per the handbook [1].\n1=link [the handbook][hb] def=\"the handbook\" url=\"https://example.org/hb\"\n"},
		{"autolink", "Read <https://example.org/z>.\n",
			"1: Read https://example.org/z [1].\n1=link <https://example.org/z> def=\"\" url=\"https://example.org/z\"\n"},
		{"code is skipped", "```go\nx := a[^1]\n```\n\n    [^2] indented\n\nUse `a[^3]` here.\n~~~\n[^4]\n~~~\n",
			"7: Use a[^3] here.\n"},
		{"front matter, comments, headings skipped", "---\ntitle: x\n---\n# Title [^h]\n<!-- a\n[^c] -->\nText here.\n",
			"7: Text here.\n"},
		{"list items are paragraphs", "- one fact [^a]\n- two fact\n\n[^a]: x\n",
			"1: one fact [1]\n2: two fact\n1=footnote [^a] def=\"x\" url=\"\"\n"},
		{"footnote definition continues on indented lines", "A.[^a]\n\n[^a]: first\n    second\n",
			"1: A.[1]\n1=footnote [^a] def=\"first second\" url=\"\"\n"},
		{"unused definition", "Plain.\n\n[^u]: x\n",
			"1: Plain.\nunused [^u]@3\n"},
		{"malformed footnote stays text", "Odd [^ 2] marker.\n", "1: Odd [^ 2] marker.\n"},
		{"bracketed year and broken link are not markers", "In [2020] it rose [3](x.\n",
			"1: In [\u20602020] it rose [\u20603](x.\n"},
		{"plain brackets stay text", "He said [sic] and [x](y).\n", "1: He said [sic] and x.\n"},
		{"emphasis and html", "**Bold** <sup>[^n]</sup> text.\n\n[^n]: d\n",
			"1: Bold [1] text.\n1=footnote [^n] def=\"d\" url=\"\"\n"},
		{"table rows", "| a | b |\n|---|---|\n| Water boils | 100 C [^t] |\n\n[^t]: d\n",
			"3: Water boils ; 100 C [1]\n1=footnote [^t] def=\"d\" url=\"\"\n"},
		{"blockquote", "> Quoted fact [^q].\n\n[^q]: d\n", "1: Quoted fact [1].\n1=footnote [^q] def=\"d\" url=\"\"\n"},
		{"CRLF", "A is B.[^a]\r\n\r\n[^a]: d\r\n", "1: A is B.[1]\n1=footnote [^a] def=\"d\" url=\"\"\n"},
		{"a title that says Notes is a title", "# Notes\n\nWater boils at 100 C.\n",
			"3: Water boils at 100 C.\n"},
		{"a section about notes is a section", "Intro.\n\n## Notes on boiling\n\nWater boils at 100 C.\n",
			"1: Intro.\n5: Water boils at 100 C.\n"},
		{"a later Notes heading lists references", "# Page\n\nA is B [1].\n\n# Notes\n\n1. First source\n",
			"3: A is B [1].\n1=numbered [1] def=\"First source\" url=\"\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(parse(tc.src, corpusURL)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{{"1", "[1]"}, {"1, 3", "[1 3]"}, {"2-4", "[2 3 4]"}, {"1;2", "[1 2]"}, {"5-2", "[5]"}, {"1-999", "[1]"}} {
		if got := fmt.Sprint(numbers(tc.in)); got != tc.want {
			t.Errorf("numbers(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestNormURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HTTPS://Example.ORG/Path/", "https://example.org/Path"},
		{"https://example.org/a/#frag", "https://example.org/a#frag"},
		{"corpus://doc", "corpus://doc"},
	} {
		if got := normURL(tc.in); got != tc.want {
			t.Errorf("normURL(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParse: any input parses without panic; every sentence has a line in
// the document, valid UTF-8 when the input is, and markers that name a
// citation of the table.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Water boils at 100 C.[^b]\n\n[^b]: water-boiling\n",
		"A [1, 3] b [2-3] c.\n\n## References\n1. x\n",
		"[a](https://example.org/a) [b][r] <https://example.org/z>\n\n[r]: https://example.org/r\n",
		"```\n[^x]\n```\n    code\n`[^y]` [^ z] [[[^1]]] [^a\n",
		"---\nx\n---\n<!--\n-->\n| a | b |\n|--|--|\n> q [^q]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p := parse(src, corpusURL)
		nlines := strings.Count(src, "\n") + 1
		for _, s := range p.sentences {
			if s.line < 1 || s.line > nlines {
				t.Fatalf("sentence %q on line %d of %d", s.text, s.line, nlines)
			}
			if utf8.ValidString(src) && !utf8.ValidString(s.text) {
				t.Fatalf("invalid UTF-8 sentence %q", s.text)
			}
			for _, n := range judge.Citations(s.text) {
				if n < 1 || n > len(p.cites) {
					t.Fatalf("marker [%d] in %q names no citation (%d)", n, s.text, len(p.cites))
				}
			}
		}
	})
}
