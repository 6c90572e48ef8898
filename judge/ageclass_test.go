package judge

import "testing"

// An item named in other words binds to its item: "pensioners",
// "seniors", "retirees" name a list's "over-65s", "kids" its "under-16s";
// an age moved is still another age.
func TestAgeClassItems(t *testing.T) {
	swim := "Swimming: adults £12, over-65s £8, under-5s free."
	entry := "Entry: adults £9, under-16s £5, over-60s £6."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{swim, "Pensioners pay £8.", Entailment},
		{swim, "Pensioners pay £12.", Contradiction},
		{swim, "Retirees pay £12 to swim.", Contradiction},
		{swim, "Over-65s pay £12.", Contradiction},
		{swim, "Over-60s pay £8.", Contradiction},
		{entry, "Kids pay £5.", Entailment},
		{entry, "Kids pay £6.", Contradiction},
		{entry, "Adults pay £9.", Entailment},
	})
	for _, tt := range []struct{ text, want string }{
		{"over-65s £8", "senior"}, {"Over 60s", "senior"}, {"under-16s", "kid"}, {"under 5s", "kid"},
		{"over-16s", ""}, {"the 1960s", ""}, {"under-21s", ""}, {"over 65", ""},
	} {
		got := ""
		for _, tm := range analyse(tt.text) {
			if tm.stem == "senior" || tm.stem == "kid" {
				got = tm.stem
			}
		}
		if got != tt.want {
			t.Errorf("analyse(%q): class %q, want %q", tt.text, got, tt.want)
		}
	}
}

// A claim whose item no cited passage names, at a number a list gives to
// another item, is neutral (missing_term); a claim about the list's own
// heading, or opening with no subject of its own, keeps its verdict.
func TestUnnamedItem(t *testing.T) {
	tour := "Tour tickets: adults €9, children €4, families €22."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{tour, "Instructors pay €4 for the tour.", Neutral},
		{tour, "The instructors pay €4.", Neutral},
		{tour, "The tour costs €9.", Entailment},
		{tour, "It costs €4.", Entailment},
		{tour, "Tickets cost €4 for children.", Entailment},
		{tour, "Kids pay €4 for the tour.", Entailment},
		{"Entry: adults £18, students £14, children £10.", "Entry costs £18.", Entailment},
	})
}
