package judge

import (
	"context"
	"strings"
	"testing"
)

// A claim that quotes the opening items of its source's list, word for word,
// drops items of an enumeration: narrower, never scope_widened. A cut before
// a clause that limits the quoted ones still is (operator trial 5, once the
// simulated model quoted whole clauses).
func TestScopePartQuote(t *testing.T) {
	tell := "6.2 Changes you must tell us about\n\nTell us straight away if: you start to run a business from the home that has visitors or staff; you plan building work costing more than 25,000 pounds; you take in a lodger or let any part of the home; the home will be unoccupied; anyone living with you gets a criminal conviction. We may change the premium or the terms."
	excl := "## 2.6 What is not covered\n\nWe do not cover:\n(a) damage caused by wear and tear, rot, damp or anything that happens gradually;\n(b) storm or flood damage to gates, fences and hedges;\n(c) escape of water or theft while the home is unoccupied (see Definitions, 2.3);\n(d) damage by pets chewing, scratching or fouling."
	for _, c := range []struct {
		claim, ev string
		widened   bool
	}{
		{"Tell us straight away if: you start to run a business from the home that has visitors or staff; you plan building work costing more than 25,000 pounds; you take in a lodger or let any part of the home; the home will be unoccupied.", tell, false},
		{"We do not cover: (a) damage caused by wear and tear, rot, damp or anything that happens gradually; (b) storm or flood damage to gates, fences and hedges; (c) escape of water or theft while the home is unoccupied (see Definitions, 2.3).", excl, false},
	} {
		f, bad, _ := readScope(c.claim, c.ev)
		if got := bad && f.reason == ReasonScopeWidened; got != c.widened {
			t.Errorf("claim %.60q: scope_widened %v (finding %+v), want %v", c.claim, got, f, c.widened)
		}
	}
}

// quotesPart takes no cut before a clause that limits the quoted ones.
func TestQuotesPartLimit(t *testing.T) {
	ev := "You can pause, skip a delivery or cancel your subscription at any time, online or by email; but only before 9am on the day before your next roast date."
	w := newScopeWindow(ev)
	for _, cl := range []string{
		"You can pause, skip a delivery or cancel your subscription at any time, online or by email.",
		"skip a delivery or cancel your subscription at any time, online or by email.", // not from a sentence's start
	} {
		if ok := partQuote(cl, w); ok {
			t.Errorf("quotesPart(%q) = true, want false", cl)
		}
	}
	if ok := partQuote("Changes: you may pause a delivery at any time by email or online", newScopeWindow("Changes: you may pause a delivery at any time by email or online; you may skip one too.")); !ok {
		t.Error("quotesPart of a list's first item = false, want true")
	}
}

// partQuote is quotesPart for a claim's text.
func partQuote(claim string, w *scopeWindow) bool {
	c := newClaimForms(claim)
	c.quote = quoteForm(claim)
	_, ok := c.quotesPart(w)
	return ok
}

// A claim that quotes a negated list from its lead, the lead and its first
// items in order (or all of them), is entailed: the windows read each item
// after its lead, so the quote is part of none of them, and it drops items,
// which narrows it (trial 5: 7 of 103 policy claims were scope_widened). A
// claim that drops the lead's negation, or quotes items without their lead,
// stays a contradiction.
// The four items of a home policy's exclusion list, and the section that
// lists them after its lead.
const (
	exclA       = "damage caused by wear and tear, rot, damp or anything that happens gradually"
	exclB       = "storm or flood damage to gates, fences and hedges"
	exclC       = "escape of water or theft while the home is unoccupied (see Definitions, 2.3)"
	exclD       = "subsidence caused by the settlement of new structures or by coastal erosion"
	exclSection = "## 2.6 What is not covered\n\nWe do not cover:\n(a) " + exclA + ";\n(b) " + exclB + ";\n(c) " + exclC + ";\n(d) " + exclD + "."
)

func TestNegatedListQuote(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const a, b, c, d, ev = exclA, exclB, exclC, exclD, exclSection
	tests := []struct {
		name, claim string
		want, why   string
	}{
		{"the lead and its first three items", "We do not cover: (a) " + a + "; (b) " + b + "; (c) " + c + ".", Entailment, "covered"},
		{"after a lead-in", "Based on the notes: We do not cover: (a) " + a + "; (b) " + b + "; (c) " + c + ".", Entailment, "covered"},
		{"the lead and its first two items", "We do not cover: (a) " + a + "; (b) " + b + ".", Entailment, "covered"},
		{"the whole list", "We do not cover: (a) " + a + "; (b) " + b + "; (c) " + c + "; (d) " + d + ".", Entailment, "covered"},
		{"the whole list, then prose", "We do not cover: (a) " + a + "; (b) " + b + "; (c) " + c + "; (d) " + d + ".", Entailment, "covered"},
		{"the items' markers left out", "We do not cover: " + a + "; " + b + "; " + c + ".", Entailment, "covered"},
		{"the lead's negation dropped", "We cover: (a) " + a + "; (b) " + b + "; (c) " + c + ".", Contradiction, "negation"},
		{"items without their lead", "(b) " + b + "; (c) " + c + ".", Contradiction, "negation"},
		{"one item read as cover", "Storm damage to fences is covered.", Contradiction, "negation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := ev
			if strings.Contains(tt.name, "then prose") {
				text = strings.TrimPrefix(ev, "## 2.6 What is not covered\n\n") + "\nWe pay for the rest of the damage."
			}
			got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: text}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Label != tt.want || got.Reason != tt.why {
				t.Errorf("Verify(%.60q) = %s/%s %q, want %s/%s", tt.claim, got.Label, got.Reason, got.Evidence, tt.want, tt.why)
			}
		})
	}
}

// BenchmarkLocalVerifyListQuote is the cost of a claim that quotes a
// negated list from its lead, the path after a scope finding that reads
// every cited passage's list (quotesListOpening), against three cited
// policy sections with lists, analysed passages cached as the judge
// caches them.
func BenchmarkLocalVerifyListQuote(b *testing.B) {
	v := NewLocal(DefaultConfig().Local)
	docs := []*prepared{
		prepare("", exclSection),
		prepare("", "## 3.4 Contents: what is not covered\n\nWe will not pay for:\n(a) money or bank cards left in an unlocked car;\n(b) damage by pets, insects or vermin;\n(c) items used for business.\nWe pay for the rest of the contents up to the sum insured."),
		prepare("", "## 4.1 Garden\n\nExclusions:\n- plants in pots left outside over winter;\n- theft from an unlocked shed;\n- frost damage to pipes in an unheated garage."),
	}
	claims := []string{
		"We do not cover: " + exclA + "; " + exclB + "; " + exclC + ".",
		"We do not cover: (a) " + exclA + "; (b) " + exclB + ".",
		"We will not pay for: money or bank cards left in an unlocked car; damage by pets, insects or vermin.",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.verify(claims[i%len(claims)], docs)
		i++
	}
}
