package judge

import "testing"

// Polarity in form only (judge21): "banned" as a rule is "forbidden", "do
// not pay for" is "free for", "no check-in before 3pm" is "check-in from
// 3pm"; each beside a control that keeps its verdict.
func TestFormPolarity(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, l, []verdictCase{
		{"Dogs are allowed on the beach all year round.", "Dogs are banned from the beach.", Contradiction},
		{"Smoking is allowed in the bedrooms.", "Smoking is strictly banned in the bedrooms.", Contradiction},
		{"Dogs are not allowed on the beach.", "Dogs are banned from the beach.", Entailment},
		{"Glass is prohibited at the pool.", "Glass is banned at the pool.", Entailment},
		{"Parking is free.", "You do not pay for parking.", Entailment},
		{"Wifi is free in all rooms.", "You don't have to pay for wifi.", Entailment},
		{"The lockers are free of charge for visitors.", "Visitors do not pay for the lockers.", Entailment},
		{"Parking is free.", "You pay for parking.", Contradiction},
		{"Parking costs £5 a day.", "You do not pay for parking.", Contradiction},
		{"Check-in is from 3pm.", "No check-in before 3pm.", Entailment},
		{"Entry is from 10am.", "No entry before 10am.", Entailment},
		{"Check-in is from 3pm.", "Check-in before 3pm is fine.", Contradiction},
		{"Check-in is from 1pm.", "No check-in before 3pm.", Contradiction},
	})
}

// The rewrites themselves, and what they leave alone.
func TestFormPolarityPhrases(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"You do not pay for parking.", "You free for parking."},
		{"Guests don't have to pay for wifi.", "Guests free for wifi."},
		{"Children doesn't need to pay to enter.", "Children free to enter."},
		{"You did not pay for parking.", "You did not pay for parking."},
		{"You do not pay tomorrow.", "You do not pay tomorrow."},
		{"No check-in before 3pm.", "check-in from 3pm."},
		{"There are no deliveries until 8am.", "There are deliveries from 8am."},
		{"No entry before noon.", "entry from noon."},
		{"No entry before the show.", "No entry before the show."},
		{"no hot food before 11am", "no hot food before 11am"},
	} {
		if got := normPhrases(c.in); got != c.want {
			t.Errorf("normPhrases(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// "banned" is "forbidden" after "is", "are" or "be" only.
func TestRuleBanned(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Dogs are banned", true},
		{"Glass is strictly banned", true},
		{"Drones must be banned", true},
		{"The drug was banned", false},
		{"It has been banned", false},
		{"banned", false},
	} {
		i := len(c.text) - len("banned")
		if got := ruleBanned(c.text, i); got != c.want {
			t.Errorf("ruleBanned(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// "EU" against "Non-EU" is the other class (neutral), not another name
// (entity_mismatch, a contradiction).
func TestClassSwapNotEntity(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	for _, c := range [][2]string{
		{"Non-EU citizens need a visa to work here.", "EU citizens need a visa to work here."},
		{"Non-UK residents need a permit to fish in the lake.", "UK residents need a permit to fish in the lake."},
	} {
		v, err := l.Verify(t.Context(), c[1], []Passage{{N: 1, ID: "s", Text: c[0]}})
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != Neutral || v.Reason != ReasonOtherClass {
			t.Errorf("%q against %q: %s (%s), want neutral (%s)", c[1], c[0], v.Label, v.Reason, ReasonOtherClass)
		}
	}
	checkVerdicts(t, l, []verdictCase{
		{"All non-UK residents need a permit to fish in the lake.", "Non-UK residents need a permit to fish in the lake.", Entailment},
		{"UK citizens need a visa to work here.", "EU citizens need a visa to work here.", Contradiction},
	})
}

// A colour or material modifier is not stood in for by another of its
// kind, after a determiner or opening the claim; the same modifier still
// entails.
func TestModifierKinds(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, l, []verdictCase{
		{"Plastic bottles go in the blue bin.", "Glass bottles go in the blue bin.", Neutral},
		{"The green trail is closed on Sundays.", "The red trail is closed on Sundays.", Neutral},
		{"Metal furniture can be left on the balcony.", "Wooden furniture can be left on the balcony.", Neutral},
		{"Glass bottles and jars go in the blue bin.", "Glass bottles go in the blue bin.", Entailment},
		{"The red trail is closed on Sundays for maintenance.", "The red trail is closed on Sundays.", Entailment},
	})
}
