package judge

import "testing"

// Operator trial 6 and verify11's note found four claims the local
// verifier entailed: "open" against "closed" on the same day, an age limit
// the claim moves across, a negated conditional restriction read as
// granted, and a negative universal wider than the list item it cites.
// Each row beside them keeps its verdict. A want of "!X" is any verdict
// but X.
func TestTrial6Misjudgements(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const office = "The office is staffed Monday to Friday 8.30am to 5.30pm and Saturday 9am to 4pm, and is closed on Sundays."
	const climbing = "1.2 Climbers aged 16 and 17 may register themselves with a parent's written consent, and may then climb without an adult present once they have passed the roped climbing assessment. 1.3 Children under 16 must be registered by a parent or guardian, and must be supervised at all times by a registered adult."
	const lessons = "If your child has to miss a lesson, let the teacher know at least 24 hours ahead by text or email and they'll arrange a make-up lesson within the same term. Lessons missed without notice aren't made up or refunded."
	const exclusions = "We do not cover:\n(a) damage caused by wear and tear, rot, damp or anything that happens gradually;\n(b) storm or flood damage to gates, fences and hedges;\n(c) escape of water or theft while the home is unoccupied (see Definitions, 2.3);"
	checkVerdicts(t, v, []verdictCase{
		// open and closed
		{office, "The office is open on Sundays from 9am.", Contradiction},
		{"The cafe is closed on Mondays.", "The cafe is open on Mondays.", Contradiction},
		{"The pool is open on Sundays from 8am to 2pm.", "The pool is closed on Sundays.", Contradiction},
		{office, "The office is closed on Sundays.", Entailment},
		{"On Saturdays the shop opens at 9am and closes at 5pm.", "The shop is open until 5pm on Saturdays.", Entailment},
		{"The shop closes at 5pm.", "The shop is open until 5pm.", "!" + Contradiction},
		{"The office is open Monday to Saturday and is closed on Sundays.", "The office is open every day except Sunday.", "!" + Contradiction},
		// an age limit moved across
		{climbing, "Children under 16 can climb without an adult once they pass the assessment.", Contradiction},
		{"Climbers aged 16 and 17 may climb without an adult present once they have passed the assessment.", "Children under 16 can climb without an adult once they pass the assessment.", Contradiction},
		{"Climbers aged 16 and 17 may climb without an adult present once they have passed the assessment.", "Climbers aged 17 may climb without an adult once they pass the assessment.", Entailment},
		{climbing, "Children under 16 must be supervised at all times.", Entailment},
		{"Children aged 12 and over can swim without an adult.", "Children under 12 can swim without an adult.", Contradiction},
		// a negated conditional restriction
		{lessons, "Lessons missed without notice are made up within the same term.", Contradiction},
		{"Classes cancelled without notice are not refunded.", "Classes cancelled without notice are refunded.", Contradiction},
		{"Items returned without a receipt cannot be refunded.", "Items returned without a receipt are refunded.", Contradiction},
		{"Lessons missed without notice aren't made up or refunded.", "Lessons missed without notice aren't made up.", Entailment},
		{"Bags without a label are kept at the front desk for a week.", "Bags without a label are kept at the desk.", Entailment},
		// a negative universal wider than the item
		{exclusions, "We do not cover any storm damage.", "!" + Entailment},
		{exclusions, "Storm damage is never covered.", "!" + Entailment},
		{exclusions, "We do not cover storm damage to fences.", Entailment},
		{"We do not cover any storm or flood damage.", "We do not cover any storm damage.", Entailment},
		{exclusions, "Storm damage to fences is covered.", Contradiction},
	})
}
