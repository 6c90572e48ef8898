package index

import (
	"slices"
	"testing"
)

// TestTokenizeApostrophes: every apostrophe splits a word alike ("don't",
// "don’t", "donʼt"); ʼ (U+02BC) is a letter to unicode.IsLetter, and was
// kept in the word ("hotelʼ", "donʼt").
func TestTokenizeApostrophes(t *testing.T) {
	want := Tokenize("We don't accept cheques, it's the hotel's rule")
	for _, ap := range []string{"\u2019", "\u02bc"} {
		s := "We don" + ap + "t accept cheques, it" + ap + "s the hotel" + ap + "s rule"
		if got := Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", s, got, want)
		}
		if got, w := Words(s), Words("We don't accept cheques, it's the hotel's rule"); !slices.Equal(got, w) {
			t.Errorf("Words(%q) = %q, want %q", s, got, w)
		}
	}
}
