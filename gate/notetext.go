package gate

import "github.com/answer-guard/guard/internal/textcache"

// noteText is what the prompt's note cleaner reads of a text before this
// turn's refs and scrub apply, and the cleaning that follows them when they
// leave the text as it is: both depend on the text alone, and the same
// passages are notes turn after turn (a turn's refs and the partition's
// catalog do not: they are applied per turn, as before).
type noteText struct {
	src     string
	bigrams bigramSet // newBigramSet(src)
	// rest is collapseSpace(endParagraphs(neutralizeNumbers(stripMarkers(src)))):
	// the cleaning after the refs are hidden and the scrub applied
	rest string
}

func newNoteText(s string) *noteText {
	return &noteText{src: s, bigrams: *newBigramSet(s), rest: cleanRest(s)}
}

// cleanRest is the cleaning of a note text after its refs are hidden and
// the scrub applied: footnote markers removed, bare bracketed numbers
// neutralised, paragraphs ended, whitespace collapsed.
func cleanRest(s string) string {
	return collapseSpace(endParagraphs(neutralizeNumbers(stripMarkers(s))))
}

// noteTexts keeps noteText values across turns (internal/textcache: keyed
// by a hash of the text, checked against it; a value is a function of its
// text alone, so nothing crosses tenants that the text does not give).
var noteTexts = textcache.New[*noteText](16 << 20)

// Source is the text n was made from.
func (n *noteText) Source() string { return n.src }

// Size is an entry's cost in bytes: its text (kept alive by the entry),
// its cleaned form when that is a copy, and the struct.
func (n *noteText) Size() int {
	sz := len(n.src) + 192
	if n.rest != n.src {
		sz += len(n.rest)
	}
	return sz
}
