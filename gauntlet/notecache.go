package gauntlet

// ScrubNote returns ScrubCatalog(Scrub(text), isID, keep), the text's
// preparation taken from the spec's note cache (made and kept on a miss:
// scrubbing id shapes and finding the catalog's lookups in every note of
// every turn was most of the gate stage's CPU). Safe for concurrent use.
func (s *Spec) ScrubNote(text string, isID, keep func(string) bool) string {
	if s.notes == nil {
		return s.PrepareNote(text).Apply(isID, keep)
	}
	return s.notes.Get(text, s.PrepareNote).Apply(isID, keep)
}
