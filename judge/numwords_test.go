package judge

import "testing"

// Number words and digits compare as numbers both ways, "one" among them:
// "6 guests" against "one guest" is another count, not a count the source
// lacks. Each row beside them keeps its verdict: "one" as a pronoun beside
// the source's numbers, a count beside a price.
func TestNumberWordsAgainstDigits(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const cottage = "Each cottage is for one family of up to six guests."
	const members = "Members may bring one guest per visit."
	checkVerdicts(t, v, []verdictCase{
		{cottage, "Each cottage sleeps up to 6 guests.", Entailment},
		{"Each cottage is for one family of up to 6 guests.", "Each cottage sleeps up to six guests.", Entailment},
		{cottage, "Each cottage sleeps up to 8 guests.", Contradiction},
		{members, "Members may bring 6 guests per visit.", Contradiction},
		{members, "Members may bring six guests per visit.", Contradiction},
		{members, "Members may bring 1 guest per visit.", Entailment},
		{"Members may bring 2 guests per visit.", "Members may bring one guest per visit.", Contradiction},
		{"Readers may borrow up to 12 books at a time for three weeks.", "Readers may borrow up to twelve books at a time.", Entailment},
		{"Readers may borrow up to twelve books at a time for three weeks.", "Readers may borrow 15 books at a time.", Contradiction},
		{"Built in 1935, the lido is one of the largest outdoor pools in Wales.", "The lido is one of the largest outdoor pools in Wales.", Entailment},
		{"There are two daily crossings; the ferry to the island leaves at 9am and is one of them.", "The ferry to the island is one of two daily crossings.", Entailment},
		{"The family ticket covers 4 people; it costs £40 online and £45 at the gate.", "The family ticket costs £40.", Entailment},
		// "one" weighs as the word did: "a guest" states it
		{"Members may bring a guest per visit.", "Members may bring one guest per visit.", Entailment},
		{"Members may bring a single guest per visit.", "Members may bring one guest per visit.", Entailment},
		{"The guided tour takes 60 minutes.", "The tour takes one hour.", Entailment},
		{"Refunds take 24 hours.", "Refunds take one day.", Entailment},
		{"Refunds take 48 hours.", "Refunds take one day.", Contradiction},
	})
}
