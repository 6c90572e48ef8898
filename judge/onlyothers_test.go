package judge

import (
	"slices"
	"testing"
)

// "Only residents may park in the courtyard" says what judge17's "...; no
// one else may" says: the others may not. "Non-residents" is one term, so
// a claim that drops "non-" is not read in it ("The deposit is refundable"
// was entailed by "The deposit is non-refundable"). Still wrong, left:
// "Residents may not park" against "Non-residents may not park" is
// entailed (another reading than analyse's finds the claim's words).
func TestOnlyOthers(t *testing.T) {
	const yard = "Only residents may park in the courtyard."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{yard, "No one else may park in the courtyard.", Entailment},
		{yard, "Non-residents may not park in the courtyard.", Entailment},
		{yard, "Residents may park in the courtyard.", Entailment},
		{yard, "Anyone may park in the courtyard.", Contradiction},
		{yard, "Residents may not park in the courtyard.", Contradiction},
		{yard, "Visitors may park in the courtyard.", Contradiction},
		{"The deposit is non-refundable.", "The deposit is refundable.", "!" + Entailment},
		{"The deposit is non-refundable.", "The deposit is non-refundable.", Entailment},
	})
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"Only members can book the courts."}, []string{"Only members can book the courts.", "No one else can book the courts.", "Non-members can not book the courts."}},
		{[]string{"Hi.", "Only registered guests may use the pool."}, []string{"Hi.", "Only registered guests may use the pool.", "No one else may use the pool."}},
		{[]string{"Only members may use the sauna; no one else may."}, []string{"Only members may use the sauna; no one else may."}},
		{[]string{"Only staff may not smoke here."}, []string{"Only staff may not smoke here."}},
		{[]string{"Only 3 people may enter at a time."}, []string{"Only 3 people may enter at a time."}},
		{[]string{"Members may use the sauna."}, []string{"Members may use the sauna."}},
	} {
		if got := onlyOthers(c.in); !slices.Equal(got, c.want) {
			t.Errorf("onlyOthers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
