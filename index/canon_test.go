package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/wordforms"
)

// TestTokenizeWordForms: an irregular form and its stem, and the words of a
// synonym group, are one term; a word outside every group keeps its Porter
// stem; a stopword is still dropped.
func TestTokenizeWordForms(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"sold", "sell"},
		{"selling", "sells"},
		{"paid", "pay"},
		{"shut", "closed"},
		{"closes", "close"},
		{"taken", "take"},
		{"left", "leaving"},
		{"kids", "children"},
		{"purchased", "bought"},
	} {
		if got, want := Tokenize(tc.a), Tokenize(tc.b); !slices.Equal(got, want) || len(got) != 1 {
			t.Errorf("Tokenize(%q) = %q, Tokenize(%q) = %q: want one and the same term", tc.a, got, tc.b, want)
		}
	}
	if got, want := Tokenize("gardens shut"), []string{"garden", Tokenize("close")[0]}; !slices.Equal(got, want) {
		t.Errorf("Tokenize(gardens shut) = %q, want %q", got, want)
	}
	if got := Tokenize("each every"); !slices.Equal(got, []string{"everi"}) {
		t.Errorf("Tokenize(each every) = %q, want [everi] (each is a stopword, so its group is left out)", got)
	}
}

// TestWordFormsGroupsDistinct: no word is in two groups, so the term a word
// reads as does not depend on the groups' order.
func TestWordFormsGroupsDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, g := range wordforms.Groups {
		ws := strings.Fields(g)
		if len(ws) < 2 {
			t.Errorf("group %q: want at least two words", g)
		}
		for _, w := range ws {
			if prev, ok := seen[w]; ok {
				t.Errorf("%q is in %q and %q", w, prev, g)
			}
			seen[w] = g
		}
	}
}
