package index

import (
	"fmt"
	"strings"
	"testing"
)

// bracketLines are single lines of n bytes made of the shapes that made the
// inline reader's link search quadratic: at every '[' it looked for the
// closing ']' and then a balanced '(' ... ')' over the rest of the line.
func bracketLines(n int) []struct{ name, line string } {
	rep := func(unit string) string { return strings.Repeat(unit, n/len(unit)) }
	h := n / 2
	return []struct{ name, line string }{
		{"open", rep("[")},
		{"link-open", rep("[a](")},
		{"image-open", rep("![")},
		{"nested", strings.Repeat("[", h) + "x" + strings.Repeat("]", h)},
		{"nested-links", strings.Repeat("[a ", n/7) + strings.Repeat("](b)", n/7)},
		{"close", rep("]")},
		{"ref-open", rep("[a][")},
		{"checkboxes", rep("| [ ] ")},
	}
}

// BenchmarkMarkdownBrackets times mdInline on one long line of each shape
// in bracketLines, at 8, 16 and 32 KB.
func BenchmarkMarkdownBrackets(b *testing.B) {
	for _, n := range []int{8 << 10, 16 << 10, 32 << 10} {
		for _, c := range bracketLines(n) {
			b.Run(fmt.Sprintf("%s/%dk", c.name, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(c.line)))
				b.ReportAllocs()
				for b.Loop() {
					mdInline(c.line)
				}
			})
		}
	}
}

// TestMarkdownBracketsAsBefore: lines full of brackets read as they did
// when the link reader searched forward from every '[' (the wants were
// computed once with that code): a link's text, an image's alt text, a
// reference link's text, escapes and code spans as before.
func TestMarkdownBracketsAsBefore(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"| [ ] Backups | [x] Sync | [ ] [Share](https://x.example/s) |", "| [ ] Backups | [x] Sync | [ ] Share |"},
		{"[[[x]]] and [[[x](a)]] and [[x](a)](b) [[x]](a)", "[[[x]]] and [[x]] and x [x]"},
		{"[a](b) [a](( [a]([b](c)) d) ![[i](j)](k) ![a][b][c]", "a [a](( a d) i a[c]"},
		{"[a][[a][[a][[a][ ][]]", "a[a]"},
		{`\[a](b) \\[c](d) [e\](f)](g) [h](i\)j) ` + "`[k](l)` [`m](n)`", `[a](b) \c e](f) hj) [k](l) ` + "`m`"},
		{"[[[[[[[[[[x](y)", "[[[[[[[[[x"},
		{"]]]][a](b)[[[[", "]]]]a[[[["},
		{"[a](<b)>) [c](d)", "a>) c"},
		{"![![[ x ](y)](z)](w)", "x"},
		{strings.Repeat("[a ", maxLinkDepth) + strings.Repeat("](b)", maxLinkDepth), strings.TrimSpace(strings.Repeat("a ", maxLinkDepth))},
	} {
		if got := mdInline(tc.in); got != tc.want {
			t.Errorf("mdInline(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	// Long lines: every shape but nested links and "[a][" reads as its
	// own text, whitespace collapsed, as before.
	for _, c := range bracketLines(4096) {
		want := strings.Join(strings.Fields(c.line), " ")
		switch c.name {
		case "nested-links":
			continue // deeper than maxLinkDepth: see TestMarkdownLinkDepth
		case "ref-open":
			want = strings.Repeat("a[", 512)
		}
		if got := mdInline(c.line); got != want {
			t.Errorf("%s: got %d bytes %.40q..., want %d bytes %.40q...", c.name, len(got), got, len(want), want)
		}
	}
}

// TestMarkdownLinkDepth: links nested deeper than maxLinkDepth are the one
// place the reader parts from the old one: the deepest read as text (the
// old reader gave "a" 33 times here, at quadratic cost in the depth).
func TestMarkdownLinkDepth(t *testing.T) {
	d := maxLinkDepth + 1
	in := strings.Repeat("[a ", d) + strings.Repeat("](b)", d)
	want := strings.Repeat("a ", maxLinkDepth) + "[a ](b)"
	if got := mdInline(in); got != want {
		t.Errorf("mdInline(%q)\n got %q\nwant %q", in, got, want)
	}
}
