package index

import "testing"

// A list item's evidence span is its lead joined to the item, no substring
// of the source; it still names the source that holds the item.
func TestEvidenceSourceListItem(t *testing.T) {
	srcs := []SourcePassage{
		{ID: "cover", Text: "We cover storm damage to the home."},
		{ID: "excl", Text: "We do not cover:\n(a) wear and tear;\n(b) storm or flood damage to gates, fences and hedges;"},
	}
	ev := "We do not cover: (b) storm or flood damage to gates, fences and hedges;"
	id, got := evidenceSource(ev, srcs)
	if id != "excl" || got != ev {
		t.Errorf("evidenceSource = %q, %q; want excl and the span", id, got)
	}
}
