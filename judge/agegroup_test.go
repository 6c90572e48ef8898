package judge

import "testing"

// "65+", "aged 65 and over", "65 and over" and "concessions" name the
// seniors of a price list, as "over-65s" does (judge17): "Pensioners pay
// £6" is entailed by the item and "Pensioners pay £9" contradicted by the
// adults'. An age with "+" that is no senior age ("18+") names no class;
// a number before "and over" that is a price stays one.
func TestAgeGroups(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, v, []verdictCase{
		{"Swim prices: adults £9, 65+ £6, juniors £4.", "Pensioners pay £6 for a swim.", Entailment},
		{"Swim prices: adults £9, 65+ £6, juniors £4.", "Pensioners pay £9 for a swim.", Contradiction},
		{"Swim prices: adults £9, aged 65 and over £6, juniors £4.", "Senior citizens pay £6 for a swim.", Entailment},
		{"Swim prices: adults £9, aged 65 and over £6, juniors £4.", "Senior citizens pay £9 for a swim.", Contradiction},
		{"Swim prices: adults £9; 65 and over: £6; juniors £4.", "Seniors pay £6 for a swim.", Entailment},
		{"Swim prices: adults £9, concessions £6, juniors £4.", "Seniors pay £6 for a swim.", Entailment},
		{"Swim prices: adults £9, concessions £6, juniors £4.", "Seniors pay £9 for a swim.", Contradiction},
		{"Swim prices: adults £9, concessions £6, juniors £4.", "Adults pay £9 for a swim.", Entailment},
		{"Swim prices: adults £9, 65+ £6, juniors £4.", "Juniors pay £4 for a swim.", Entailment},
	})
	for _, c := range []struct {
		s    string
		j    int
		v    float64
		want string
	}{
		{"65+ £6", 2, 65, canon["senior"]},
		{"18+ only", 2, 18, ""},
		{"65 and over", 2, 65, canon["senior"]},
		{"5 and under", 1, 5, canon["kid"]},
		{"65 and more", 2, 65, ""},
		{"1+2", 1, 1, ""},
		{"60+3", 2, 60, ""},
	} {
		if got := ageGroup(c.s, c.j, c.v); got != c.want {
			t.Errorf("ageGroup(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
