package judge

import "testing"

// A negated word states its complement: "not open" is closed, "isn't
// closed" is open, "not allowed" is forbidden, on either side of the pair
// (the claim's or the evidence's), while a word against its complement
// stated plainly, or a negation against the same word, stays a conflict.
// A want of "!X" is any verdict but X.
func TestComplementStates(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	checkVerdicts(t, v, []verdictCase{
		// the claim negates, the evidence states the complement
		{"The library is closed on Sundays and bank holidays.", "The library is not open on Sundays.", Entailment},
		{"The cafe is closed on Mondays.", "The cafe isn't open on Mondays.", Entailment},
		{"The pool is open on Mondays from 7am to 9pm.", "The pool is not closed on Mondays.", Entailment},
		{"The shop is open at lunchtime.", "The shop isn't closed at lunchtime.", Entailment},
		{"Pets are forbidden in the rooms.", "Pets are not allowed in the rooms.", Entailment},
		{"Breakfast is included.", "Breakfast is not excluded.", Entailment},
		// the evidence negates, the claim states the complement
		{"The museum is not open on Mondays.", "The museum is closed on Mondays.", Entailment},
		{"The cafe isn't closed on bank holidays.", "The cafe is open on bank holidays.", Entailment},
		{"Breakfast is not included on Sundays.", "Breakfast is excluded on Sundays.", Entailment},
		{"Breakfast is not included in the room rate.", "Breakfast is excluded.", Entailment},
		// conflicts stay conflicts
		{"The pool is closed on Sundays.", "The pool is open on Sundays.", Contradiction},
		{"The library is open on Saturdays from 10am to 4pm.", "The library is closed on Saturdays.", Contradiction},
		{"The office is open on Saturdays from 9am to 1pm.", "The office is not open on Saturdays.", Contradiction},
		{"The pool is closed on Mondays.", "The pool isn't closed on Mondays.", Contradiction},
		{"The gym is not closed on Sundays.", "The gym is not open on Sundays.", Contradiction},
		{"The museum is not open on Mondays.", "The museum is not closed on Mondays.", Contradiction},
		{"Breakfast is not included in the room rate.", "Breakfast is not excluded.", Contradiction},
		{"Breakfast is included in the room rate.", "Breakfast is excluded.", Contradiction},
		{"The office is closed on Mondays.", "The office is not open on Sundays.", "!" + Entailment},
		// a contrary pair states nothing by its negation
		{"Aspirin decreased the risk.", "Aspirin did not increase the risk.", "!" + Entailment},
		{"Aspirin did not increase the risk.", "Aspirin decreased the risk.", "!" + Entailment},
		// "closes at 5pm" is when it closes, not closed
		{"On Saturdays the shop opens at 9am and closes at 5pm.", "The shop is open until 5pm on Saturdays.", Entailment},
	})
}
