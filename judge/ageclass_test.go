package judge

import (
	"context"
	"testing"
)

// An item named in other words binds to its item: "pensioners",
// "seniors", "retirees" name a list's "over-65s", "kids" its "under-16s";
// an age moved is still another age.
func TestAgeClassItems(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	swim := "Swimming: adults £12, over-65s £8, under-5s free."
	entry := "Entry: adults £9, under-16s £5, over-60s £6."
	for _, tt := range []struct{ claim, ev, want, why string }{
		{"Pensioners pay £8.", swim, Entailment, "covered"},
		{"Pensioners pay £12.", swim, Contradiction, "number_mismatch"},
		{"Retirees pay £12 to swim.", swim, Contradiction, "number_mismatch"},
		{"Over-65s pay £12.", swim, Contradiction, "number_mismatch"},
		{"Over-60s pay £8.", swim, Contradiction, "entity_mismatch"},
		{"Kids pay £5.", entry, Entailment, "covered"},
		{"Kids pay £6.", entry, Contradiction, "number_mismatch"},
		{"Adults pay £9.", entry, Entailment, "covered"},
	} {
		if got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.ev}}); got.Label != tt.want || got.Reason != tt.why {
			t.Errorf("Verify(%q, %q) = %s/%s, want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, tt.want, tt.why)
		}
	}
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
