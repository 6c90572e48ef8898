package judge

import "testing"

// A period compares across units: exactly where the units are (minutes,
// hours, days, weeks; months and years), and months against days or weeks
// neither as the same number nor, within 28 to 31 days a month, as another.
func TestPeriodsAcrossUnits(t *testing.T) {
	num := func(text string) term {
		t.Helper()
		for _, tm := range analyse(text) {
			if tm.isNum {
				return tm
			}
		}
		t.Fatalf("no number in %q", text)
		return term{}
	}
	cases := []struct {
		a, b         string
		equal, apart bool
	}{
		{"12 months", "1 year", true, false},
		{"2 years", "24 months", true, false},
		{"2 years", "12 months", false, true},
		{"18 months", "1.5 years", true, false},
		{"7 days", "1 week", true, false},
		{"48 hours", "2 days", true, false},
		{"24 hours", "1 day", true, false},
		{"90 minutes", "1.5 hours", true, false},
		{"2 hours", "90 minutes", false, true},
		{"1 year", "365 days", true, false},
		{"1 month", "30 days", false, false},
		{"1 month", "4 weeks", false, false},
		{"3 months", "13 weeks", false, false},
		{"3 months", "2 weeks", false, true},
		{"1 month", "14 days", false, true},
		{"6 months", "6 days", false, true},
		{"2 months", "2 months", true, false},
	}
	for _, c := range cases {
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			x, y := num(ab[0]), num(ab[1])
			if got := numEqual(x, y); got != c.equal {
				t.Errorf("numEqual(%q, %q) = %v, want %v", ab[0], ab[1], got, c.equal)
			}
			if got := !numEqual(x, y) && periodsApart(x, y); got != c.apart {
				t.Errorf("apart(%q, %q) = %v, want %v", ab[0], ab[1], got, c.apart)
			}
		}
	}
}

// The local verifier reads a period in another unit, in a plain sentence
// and in an item of a list.
func TestPeriodVerdicts(t *testing.T) {
	guarantee := "We guarantee our work: 12 months on all repairs and 2 years on all installation work."
	gym := "Gym membership lasts 12 months and can be renewed at the front desk."
	trial := "The free trial lasts 30 days, after which the plan renews."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{guarantee, "Our guarantee is 2 years on repairs.", Contradiction},
		{guarantee, "Our guarantee is 1 year on repairs.", Entailment},
		{guarantee, "Installation work is guaranteed for 24 months.", Entailment},
		{gym, "Gym membership lasts 1 year.", Entailment},
		{gym, "Gym membership lasts 2 years.", Contradiction},
		{trial, "The free trial lasts 1 month.", Neutral},
		{"The free trial lasts 2 weeks, after which the plan renews.", "The free trial lasts 3 months.", Contradiction},
	})
}
