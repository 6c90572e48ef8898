package judge

import "testing"

// A claim about members is not entailed by a source about non-members,
// nor the reverse; the same class on both sides, or both classes in the
// source, still entails.
func TestOtherClass(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, l, []verdictCase{
		{"Non-residents may not park in bay 3.", "Residents may not park in bay 3.", Neutral},
		{"Residents may not park in bay 3.", "Non-residents may not park in bay 3.", Neutral},
		{"Non-members pay £10 for a day pass.", "Members pay £10 for a day pass.", Neutral},
		{"Members pay £10 for a day pass.", "Non-members pay £10 for a day pass.", Neutral},
		{"Non-smokers are given rooms on the ground floor.", "Smokers are given rooms on the ground floor.", Neutral},
		{"Nonmembers can bring guests to the pool.", "Members can bring guests to the pool.", Neutral},
		{"EU citizens need a visa to work here.", "Non-EU citizens need a visa to work here.", Neutral},
		// controls: the same class, both classes, non- on both sides,
		// "non-" as "not" before an -able word
		{"Non-members pay £10 for a day pass.", "Non-members pay £10 for a day pass.", Entailment},
		{"Members pay £10 for a day pass.", "Members pay £10 for a day pass.", Entailment},
		{"Members and non-members can book the courts.", "Members can book the courts.", Entailment},
		{"Members and non-members can book the courts.", "Non-members can book the courts.", Entailment},
		{"Only residents may park in the courtyard.", "Non-residents may not park in the courtyard.", Entailment},
		{"All tickets are non-refundable.", "Tickets are non-refundable.", Entailment},
		{"Tickets are non-refundable.", "Tickets are not refundable.", Entailment},
	})
	v, err := l.Verify(t.Context(), "Members pay £10 for a day pass.", []Passage{{N: 1, ID: "n", Text: "Non-members pay £10 for a day pass."}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Reason != ReasonOtherClass {
		t.Errorf("reason = %q, want %q", v.Reason, ReasonOtherClass)
	}
}
