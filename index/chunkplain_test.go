package index

import (
	"strings"
	"testing"
)

// para returns a paragraph of about n characters: sentences about topic.
func para(topic string, n int) string {
	s := "The " + topic + " rule applies every day of the year. "
	return strings.TrimSpace(strings.Repeat(s, max(1, n/len(s))))
}

// TestPlainParagraphStandsAlone chunks an untitled plain-text file of
// paragraphs (operator trial 9's shape), written with blank lines between
// paragraphs and one paragraph to a line: a paragraph of min_chunk_chars or
// more is a chunk of its own, a short one opens the chunk of the paragraph
// after it, an overlong one is cut at sentences and the paragraph after it
// opens a new chunk. Both layouts give the same chunks.
func TestPlainParagraphStandsAlone(t *testing.T) {
	paras := []string{
		para("alpha", 300),
		"Boats and canoes are checked every morning.", // short: packs forwards
		para("bravo", 400),
		para("charlie", 350),
		para("delta", 1500), // over chunk_chars: cut at sentences
		para("echo", 250),
	}
	want := []string{"alpha", "Boats and canoes", "charlie", "delta", "delta", "echo"}
	wantShort := 1 // chunk 2 holds the short paragraph, then bravo
	for _, layout := range []struct{ name, sep string }{{"blank lines", "\n\n"}, {"a paragraph a line", "\n"}} {
		d := textDoc("info.txt", strings.Join(paras, layout.sep)+"\n", false)
		chunks := chunkDoc(d, 1200, 200)
		if len(chunks) != len(want) {
			t.Fatalf("%s: %d chunks, want %d:\n%s", layout.name, len(chunks), len(want), chunkTexts(chunks))
		}
		for i, c := range chunks {
			if !strings.HasPrefix(c.Text, want[i]) && !strings.HasPrefix(c.Text, "The "+want[i]) {
				t.Errorf("%s: chunk %d opens %q, want %q", layout.name, i+1, c.Text[:min(40, len(c.Text))], want[i])
			}
			if len(c.Text) > 1200 {
				t.Errorf("%s: chunk %d has %d chars, over 1200", layout.name, i+1, len(c.Text))
			}
		}
		if got, w := chunks[wantShort].Text, paras[1]+"\n\n"+paras[2]; got != w {
			t.Errorf("%s: chunk 2 = %q, want the short paragraph then bravo's", layout.name, got[:min(80, len(got))])
		}
		if !strings.Contains(chunks[4].Text, "delta") || strings.Contains(chunks[4].Text, "echo") {
			t.Errorf("%s: the overlong paragraph's last piece runs on into the next paragraph", layout.name)
		}
	}
}

func chunkTexts(cs []Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.ID + ": " + c.Text[:min(60, len(c.Text))] + "\n")
	}
	return b.String()
}

// TestPlainParagraphLines: when a single line break ends a paragraph. A
// block of mostly long lines (over plainWrapMax) is a paragraph a line, a
// line that does not end a sentence running on; hard-wrapped prose at 72
// columns, and a block of short lines, stay one paragraph.
func TestPlainParagraphLines(t *testing.T) {
	wrap := func(s string, width int) string { // hard-wraps s at width
		var lines []string
		var cur strings.Builder
		for _, w := range strings.Fields(s) {
			if cur.Len() > 0 && cur.Len()+1+len(w) > width {
				lines = append(lines, cur.String())
				cur.Reset()
			}
			if cur.Len() > 0 {
				cur.WriteByte(' ')
			}
			cur.WriteString(w)
		}
		return strings.Join(append(lines, cur.String()), "\n")
	}
	long1, long2, long3 := para("one", 300), para("two", 250), para("three", 200)
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"a paragraph a line", long1 + "\n" + long2 + "\n" + long3, 3},
		{"a short line among long ones", long1 + "\nOpen daily.\n" + long2, 3},
		{"a line broken mid-sentence runs on", long1 + "\n" + strings.TrimSuffix(long2, ".") + " and\n" + long3, 2},
		{"hard-wrapped at 72 columns", wrap(long1+" "+long2+" "+long3, 72), 1},
		{"hard-wrapped at 80 columns, two blocks", wrap(long1, 80) + "\n\n" + wrap(long2, 80), 2},
		{"short lines", "Open daily.\nClosed at Christmas.\nPhone 01632 960 418.", 1},
	} {
		got := plainParagraphs(tc.text)
		if len(got) != tc.want {
			t.Errorf("%s: %d paragraphs, want %d: %q", tc.name, len(got), tc.want, got)
		}
	}
}

// TestStandAlonePlainTextOnly: a Markdown page's paragraphs and a row's
// lines still pack up to chunk_chars (the rule was measured on Markdown and
// not kept, chunk20), and a plain-text file that fits in one chunk is one
// chunk and keeps its id.
func TestStandAlonePlainTextOnly(t *testing.T) {
	text := para("alpha", 300) + "\n\n" + para("bravo", 300) + "\n\n" + para("charlie", 300) + "\n\n" + para("delta", 400)
	md := Doc{ID: "p.md", Text: text, markdown: true}
	row := Doc{ID: "r1", Text: text}
	for _, d := range []Doc{md, row} {
		if got := chunkDoc(d, 1200, 200); len(got) != 2 {
			t.Errorf("%s: %d chunks, want 2 (packed):\n%s", d.ID, len(got), chunkTexts(got))
		}
	}
	if got := chunkDoc(textDoc("p.txt", text, false), 1200, 200); len(got) != 4 {
		t.Errorf("plain text: %d chunks, want 4:\n%s", len(got), chunkTexts(got))
	}
	small := textDoc("s.txt", para("alpha", 300)+"\n\n"+para("bravo", 300), false)
	if got := chunkDoc(small, 1200, 200); len(got) != 1 || got[0].ID != "s.txt" {
		t.Errorf("a file that fits: %d chunks, want one keeping its id", len(got))
	}
}
