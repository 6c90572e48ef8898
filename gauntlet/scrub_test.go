package gauntlet

import "testing"

// ScrubCatalog removes real ids of the catalog by the stream's token rules
// and leaves prose whole: a slug id that is a word goes only where it
// stands as a reference.
func TestScrubCatalog(t *testing.T) {
	spec, err := Compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cat := map[string]bool{"hb-0402": true, "lockers": true, "sauna-2": true, "123456": true, "John-3-16": true}
	isID := func(s string) bool { return cat[s] }
	keep := func(s string) bool { return s == "John-3-16" }
	for _, tc := range []struct{ in, want string }{
		{"see hb-0402 for details", "see  for details"},
		{"see hb-0402.", "see ."},
		{"(`hb-0402`) and \"hb-0402\"", "(``) and \"\""},
		{"at https://ex.org/docs/hb-0402 now", "at https://ex.org/docs/ now"},
		{"hb-04021 and xhb-0402 stay", "hb-04021 and xhb-0402 stay"},
		{"Larger lockers for bags", "Larger lockers for bags"},
		{"see [lockers] or `lockers`", "see [] or ``"},
		{"sauna-2 is open", " is open"},
		{"room 123456 stays", "room 123456 stays"},
		{"John-3-16 is this note's address", "John-3-16 is this note's address"},
	} {
		if got := spec.ScrubCatalog(tc.in, isID, keep); got != tc.want {
			t.Errorf("ScrubCatalog(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := spec.ScrubCatalog("hb-0402", nil, nil); got != "hb-0402" {
		t.Errorf("no catalog: %q", got)
	}
}
