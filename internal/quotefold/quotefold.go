// Package quotefold writes typographic apostrophes and quotes as ASCII
// ones. Customers typing on phones, answer models and pasted corpora write
// "don’t" (U+2019), ‘ (U+2018), ʼ (U+02BC), ′ (U+2032), “ ” (U+201C,
// U+201D) as often as the ASCII forms, and every reader of words in the
// guard (the verifier's rules, the sentence encoder's vocabulary) is
// written or trained for the ASCII ones. One list, read by the verifier
// (judge) and the encoder's tokenizer (index/encoder), so both fold the
// same runes.
package quotefold

import "strings"

// Pairs are the typographic forms Fold makes ASCII, each with its ASCII
// form.
var Pairs = []struct {
	From string
	To   byte
}{
	{"\u2019", '\''}, // ’ right single quote, the apostrophe of "don’t"
	{"\u2018", '\''}, // ‘ left single quote
	{"\u201b", '\''}, // ‛ reversed single quote
	{"\u02bc", '\''}, // ʼ modifier letter apostrophe
	{"\u2032", '\''}, // ′ prime ("5′")
	{"\uff07", '\''}, // ＇ fullwidth apostrophe
	{"\u201c", '"'},  // “
	{"\u201d", '"'},  // ”
	{"\u201f", '"'},  // ‟
	{"\u2033", '"'},  // ″ double prime
	{"\uff02", '"'},  // ＂ fullwidth quote
}

// replacer replaces each of Pairs by its ASCII form.
var replacer = func() *strings.Replacer {
	var args []string
	for _, q := range Pairs {
		args = append(args, q.From, string(q.To))
	}
	return strings.NewReplacer(args...)
}()

// MayHold reports whether s holds a rune of Pairs: all of them are
// encoded with a lead byte 0xE2, 0xCA or 0xEF, which only those are looked
// up at (a text with "€" or "—" and no quote is not copied).
func MayHold(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0xe2 || c == 0xca || c == 0xef {
			if _, n := First(s[i:]); n > 0 {
				return true
			}
		}
	}
	return false
}

// Fold returns s with its typographic apostrophes and quotes written as
// ASCII ones ("don’t" as "don't", “free” as "free"); s itself when it
// holds none. The result may be shorter than s: an offset into it is none
// into s.
func Fold(s string) string {
	if !MayHold(s) {
		return s
	}
	return replacer.Replace(s)
}

// First returns the ASCII form of the rune of Pairs s opens with and that
// rune's length; 0 for none.
func First(s string) (byte, int) {
	for _, q := range Pairs {
		if strings.HasPrefix(s, q.From) {
			return q.To, len(q.From)
		}
	}
	return 0, 0
}
