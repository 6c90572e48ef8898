package judge

import "testing"

// A claim that moves a one-sided limit of the clause it restates states
// another limit, even where the limit it names is narrower ("from age 5"
// against "from age 4", "over 18" against "over 16") and its number stands
// elsewhere in the source for something else (a group size, a price),
// which hides the changed number from the number check. The same limit
// written another way ("18 or over", "18+") is no change.
func TestScopeMovedLimit(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, v, []verdictCase{
		{"Children can join the club from age 4. Groups have 5 to 8 children.", "Children can join the club from age 5.", Contradiction},
		{"Visitors over 16 can rent a kayak for 18 euros an hour.", "Visitors over 18 can rent a kayak.", Contradiction},
		{"Visitors aged 16 and over can rent a kayak for 18 euros an hour.", "Visitors aged 18 and over can rent a kayak.", Contradiction},
		// a long clause the claim restates in part
		{"Visitors over 16 can rent a kayak, a canoe or a paddle board at the boathouse by the north gate for 18 euros an hour, with life jackets and a map included.", "Visitors over 18 can rent a kayak.", Contradiction},
		{"Visitors over 18 can rent a kayak, a canoe or a paddle board at the boathouse by the north gate for 15 euros an hour, with life jackets and a map included.", "Visitors over 18 can rent a kayak.", Entailment},
		{"Lessons are for children from the age of 5, in groups of up to 6.", "Lessons are for children from the age of 6.", Contradiction},
		{"Returns are accepted within 30 days of delivery; refunds take 5 to 14 days.", "Returns are accepted within 14 days of delivery.", Contradiction},
		{"Children can join the club from age 4. Groups have 3 to 8 children.", "Children can join the club from age 3.", Contradiction},
		{"Children can join the club from age 4.", "Children can join the club from age 5.", Contradiction},
		// the same limit
		{"The sauna is open to adults (18+).", "The sauna is open to adults 18 or over.", Entailment},
		{"The sauna is open to adults (18+). Children under 16 are not allowed in the spa.", "The sauna is open to adults 18 or over.", Entailment},
		{"Children can join the club from age 5. Groups have 4 to 8 children.", "Children can join the club from age 5.", Entailment},
		{"Visitors over 18 can rent a kayak; a kayak costs 15 euros an hour.", "Visitors over 18 can rent a kayak.", Entailment},
		{"Returns are accepted within 30 days of delivery.", "Returns are accepted within 30 days.", Entailment},
		{"After ten failed password attempts within 15 minutes an account is locked for 30 minutes.", "After ten failed password attempts within 900 seconds an account is locked for 30 minutes.", Entailment},
		// a point inside a range is no limit
		{"Climbers aged 16 and 17 may climb without an adult present once they have passed the assessment.", "Climbers aged 17 may climb without an adult once they pass the assessment.", Entailment},
	})
}

// "from age 5" and "from the age of 5" are lower bounds on an age.
func TestScopeAgeFrom(t *testing.T) {
	for _, text := range []string{"Children can join from age 5.", "Lessons are for children from the age of 5.", "Children can join from the age of five."} {
		si := analyseScope(text)
		if len(si.conds) != 1 || si.conds[0].dim != "n" || si.conds[0].lo != 5 || si.conds[0].hi < 1e300 {
			t.Errorf("analyseScope(%q).conds = %+v, want one bound of n from 5", text, si.conds)
		}
	}
}
