package judge

import "testing"

// A rule that forbids a whole class forbids each case of it: a claim that
// grants a case under a limit the rule never names ("Dogs over 20 kg are
// allowed" against "No pets are allowed") contradicts it, however the
// limit's number appears nowhere in the source. A want of "!X" is any
// verdict but X.
func TestInventedConditionAgainstNegatedRule(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, v, []verdictCase{
		{"No pets are allowed in the rooms.", "Dogs over 20 kg are allowed in the rooms.", Contradiction},
		{"Food cannot be brought into the cinema.", "Snacks under 500 g can be brought into the cinema.", Contradiction},
		{"No children are allowed in the sauna.", "Children under 12 are allowed in the sauna.", Contradiction},
		{"Bikes cannot be stored in the hallway.", "Bikes under 15 kg can be stored in the hallway.", Contradiction},
		{"No pets are allowed in the rooms.", "Dogs are allowed in the rooms.", Contradiction},
		// the rule's own limit dropped by the claim: condition_dropped
		{"Dogs over 20kg are not allowed in the rooms.", "No pets are allowed in the rooms.", Contradiction},
		// no negated rule, or a claim that negates too
		{"Pets are allowed in the garden.", "Dogs over 20 kg are allowed in the rooms.", Neutral},
		{"Pets are allowed in the rooms.", "Dogs over 20 kg are allowed in the rooms.", "!" + Contradiction},
		{"No pets are allowed in the rooms.", "Dogs over 20 kg are not allowed in the rooms.", "!" + Contradiction},
	})
}
