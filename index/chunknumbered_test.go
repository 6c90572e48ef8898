package index

import (
	"strings"
	"testing"
)

// TestSplitSentencesKeepsSectionNumbers: a section or list number that
// opens a sentence stays with its heading; a number that ends a sentence
// still ends it.
func TestSplitSentencesKeepsSectionNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The fee is 5. 4. Children and railcards\n4.1 Children under 5 travel free.",
			[]string{"The fee is 5.", "4. Children and railcards\n4.1 Children under 5 travel free."}},
		{"12. Lost property. Items are kept for 30 days.", []string{"12. Lost property.", "Items are kept for 30 days."}},
		{"Open 9 to 5. 2024. Closed on Sundays.", []string{"Open 9 to 5.", "2024.", "Closed on Sundays."}},
	} {
		got := splitSentences(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("splitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestChunkNumberedPlainText: a plain-text policy whose numbered sections
// are longer than a chunk is cut without leaving a section's number at the
// end of the chunk before it (it was "...eight Anytime singles.\n4." and
// the next chunk opened "Children, railcards and group travel").
func TestChunkNumberedPlainText(t *testing.T) {
	sec3 := "3. Ticket types\n3.1 An Anytime ticket is valid on any train on the date shown. " + strings.Repeat("An Advance ticket is valid only on the train booked. ", 8)
	sec4 := "4. Children, railcards and group travel\n4.1 Children under 5 travel free. " + strings.Repeat("Groups of three to nine adults get a discount. ", 8)
	d := textDoc("conditions.txt", sec3+sec4, false)
	chunks := chunkDoc(d, 550, 200)
	found := false
	for _, c := range chunks {
		if strings.HasSuffix(strings.TrimSpace(c.Text), "4.") {
			t.Errorf("chunk %s ends with the next section's number: %q", c.ID, c.Text)
		}
		if strings.HasPrefix(c.Text, "4. Children, railcards and group travel") {
			found = true
		}
	}
	if !found {
		var got []string
		for _, c := range chunks {
			got = append(got, c.Text)
		}
		t.Errorf("no chunk opens with section 4's heading; chunks:\n%s", strings.Join(got, "\n---\n"))
	}
}

// TestChunkQuestionWithAnswer: a FAQ written as a bold question over its
// answer never has a chunk end on the question; a list's lead-in ("... are:")
// stays with its list; a question alone in its piece is not carried.
func TestChunkQuestionWithAnswer(t *testing.T) {
	ans := strings.Repeat("We hold the date for fourteen days once you have viewed. ", 4)
	text := "**Can we hold a date?**\n\n" + ans + "\n\n**Can we bring our own caterer?**\n\n" + ans +
		"\n\nThe main things that affect the price are:\n\n- the season\n- the day of the week"
	d := Doc{ID: "faq.md", Title: "FAQ", Text: text, markdown: true}
	d.Text, _, d.sections = markdownText(d.Text)
	chunks := chunkDoc(d, 300, 0)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks, want the FAQ split", len(chunks))
	}
	for _, c := range chunks {
		last := c.Text[strings.LastIndex(c.Text, "\n")+1:]
		if leadIn(last) {
			t.Errorf("chunk %s ends on a lead-in %q:\n%s", c.ID, last, c.Text)
		}
	}
	if !strings.HasPrefix(chunks[1].Text, "Can we bring our own caterer?") {
		t.Errorf("chunk 2 opens %q, want the question with its answer", chunks[1].Text[:40])
	}
	for p, want := range map[string]bool{"Can we hold a date?": true, "Prices are:": true, "**Is there parking?**": true,
		"Yes.": false, "Why?\nBecause.": false, strings.Repeat("x", 200) + "?": false} {
		if leadIn(p) != want {
			t.Errorf("leadIn(%q) = %v, want %v", p, !want, want)
		}
	}
}
