package judge

import (
	"context"
	"slices"
	"testing"
)

// Operator trial 7 (terms with numbered clauses) found a verbatim quote of
// a clause, with or without its number, judged range_mismatch against the
// clause under its heading; a clause number read as a quantity ("Section
// 5:" matching "5 euros"); a price in pence ("50p") read as a code, so
// "costs 50p" against "free" was only neutral; and a bare "Yes!" split off
// as a claim of its own. Each row beside them keeps its verdict: a number
// moved beside a clause number is still caught. A want of "!X" is any
// verdict but X.
func TestNumberedClauses(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const stay = "3. Your stay\n\n3.2 Rooms are available from 2pm on the day of arrival and must be vacated by 10am on the day of departure."
	const hotel = "Hotel rules\n12) Check-in is from 3pm and check-out is by 11am."
	const guests = "6. Guests\n\n6.1 Members may bring one guest per visit between 10am and 4pm on weekdays."
	checkVerdicts(t, v, []verdictCase{
		{stay, "Rooms are available from 2pm on the day of arrival and must be vacated by 10am on the day of departure.", Entailment},
		{stay, "3.2 Rooms are available from 2pm on the day of arrival and must be vacated by 10am on the day of departure.", Entailment},
		{stay, "Rooms must be vacated by 10am on the day of departure.", Entailment},
		{stay, "Rooms are available from 2pm on the day of arrival.", Entailment},
		{"Rooms are available from 2pm on the day of arrival and must be vacated by 10am on the day of departure.", "Rooms are available from 2pm on the day of arrival.", Entailment},
		{"Google acquired YouTube in 2006.", "YouTube acquired Google in 2006.", "!" + Entailment},
		{stay, "3.2 Rooms are available from 4pm on the day of arrival and must be vacated by 10am on the day of departure.", Contradiction},
		{hotel, "Check-in is from 3pm and check-out is by 11am.", Entailment},
		{hotel, "Check-in is from 2pm.", Contradiction},
		{guests, "6.1 Members may bring one guest per visit between 11am and 4pm on weekdays.", Contradiction},
		{guests, "Members may bring 6 guests per visit.", "!" + Entailment},
		{"Section 5: Lockers cost 2 euros a day and must be emptied by 6pm.", "Lockers cost 5 euros a day.", Contradiction},
		{"Clause 7: Vehicles must be returned with a full tank by 6pm on the return date.", "Vehicles must be returned with a full tank by 8pm on the return date.", Contradiction},
		// pence
		{"Bags can be left at reception; the lockers are free.", "The lockers cost 20p.", Contradiction},
		{"Printing costs 10p a page; scanning is free.", "Printing costs 10p a page.", Entailment},
		{"Printing costs 10p a page.", "Printing costs 20p a page.", Contradiction},
		{"Lockers cost 50p a day; the showers are free.", "The showers cost 50p.", Contradiction},
		{"Printing costs 10p a page; scanning is free.", "Scanning costs 10p a page.", Contradiction},
		{"Lockers cost 1 euro; towels are free.", "Lockers cost 1 euro.", Entailment},
		{"Entry is free at our own galleries; partner galleries charge 5 euros per visit.", "Visiting a partner gallery costs 5 euros per visit.", "!" + Contradiction},
		{"Parking costs £2 an hour until 6pm and is free after 6pm.", "Parking costs £2 an hour until 6pm.", Entailment},
	})
}

// A clause cited mid-sentence ("as set out in clause 6.1", "under section
// 4.2", "see rule 12") names the clause: it is no quantity the source must
// state, it matches the source's clause number (mid-sentence or opening a
// line, the clause itself or one of its sub-clauses), and another clause
// number in the source's sentence is reference_mismatch; a source that
// numbers nothing leaves the claim's clause unchecked (neutral). Numbers
// of the clause's text are compared as before.
func TestClauseReferences(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const pay = "6. Payment\n\n6.1 The deposit is £50 per booking and is due when you book."
	const refund = "Deposits are refunded within 14 days of departure, as set out in clause 6.1."
	checkVerdicts(t, v, []verdictCase{
		{refund, "Deposits are refunded within 14 days, as set out in clause 6.1.", Entailment},
		{refund, "Deposits are refunded within 14 days, as set out in clause 6.", Entailment},
		{refund, "Deposits are refunded within 14 days.", Entailment},
		{refund, "Deposits are refunded within 30 days, as set out in clause 6.1.", Contradiction},
		{pay, "Under clause 6.1, the deposit is £50 per booking.", Entailment},
		{pay, "Under Clause 6, the deposit is £50 per booking.", Entailment},
		{pay, "Under clause 6.1, the deposit is £80 per booking.", Contradiction},
		{"4.2 A late check-out costs £20 and must be arranged at reception.", "Under section 4.2, a late check-out costs £20.", Entailment},
		{"Rule 12: no more than 4 people may share a locker.", "See rule 12: no more than 4 people may share a locker.", Entailment},
		{"Rule 12: no more than 4 people may share a locker.", "See rule 12: no more than 6 people may share a locker.", Contradiction},
		{"Pets must be kept on a lead at all times.", "As set out in clause 3, pets must be kept on a lead.", Neutral},
		{"4.2 Check-in is from 2pm to 8pm.", "Under clause 4.2, check-in is from 2pm to 8pm.", Entailment},
		{"Rule 3: Children under 12 must be supervised at all times.", "Under rule 3, children under 12 must be supervised.", Entailment},
		{"Rule 3: Children under 12 must be supervised at all times.", "Under rule 3, children under 14 must be supervised.", Contradiction},
		{"## 4.2 Making a claim\nThefts must be reported to us within 30 days.", "Under section 4.2, thefts must be reported within 30 days.", Entailment},
		{"In 2005 the airline filed for bankruptcy under Chapter 11.", "The airline filed for Chapter 11 bankruptcy in 2005.", Entailment},
		// a quote's own clause number is checked as well (judge14 left it
		// out: entailed); a plain list number is not
		{"Members may bring one guest per visit.", "6.1 Members may bring one guest per visit.", Neutral},
		{"Members may bring one guest per visit.", "1. Members may bring one guest per visit.", Entailment},
	})
	for _, tt := range []struct{ ev, claim string }{
		{"Clause 6: The deposit is £50 per booking and is due when you book.", "Under clause 7, the deposit is £50 per booking."},
		{refund, "Deposits are refunded within 14 days, as set out in clause 7.2."},
		{refund, "Deposits are refunded within 14 days, as set out in clause 6.10."},
	} {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{Text: tt.ev}})
		if got.Label != Contradiction || got.Reason != ReasonReferenceMismatch {
			t.Errorf("%q against %q: %s %s, want %s %s", tt.claim, tt.ev, got.Label, got.Reason, Contradiction, ReasonReferenceMismatch)
		}
	}
}

func TestClauseMarker(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // what is left after the marker
	}{
		{"6.1 Pitches are available", "Pitches are available"},
		{"4.2.3 Thefts must be reported", "Thefts must be reported"},
		{"4.2.3. Thefts must be reported", "Thefts must be reported"},
		{"(a) Adults may borrow", "Adults may borrow"},
		{"12) Check-in is from 3pm", "Check-in is from 3pm"},
		{"iv. The licence covers", "The licence covers"},
		{"6. Guests", "Guests"},
		{"Clause 7: Vehicles must", "Vehicles must"},
		{"Section 5. Lockers cost", "Lockers cost"},
		{"Article 12 - Members may", "Members may"},
		// quantities, not clause numbers
		{"2.5 Litres of water", "2.5 Litres of water"},
		{"6.1 million people live there", "6.1 million people live there"},
		{"12 eggs are needed", "12 eggs are needed"},
		{"Section 5 covers lockers", "Section 5 covers lockers"},
		{"Parts are sold separately", "Parts are sold separately"},
		{"3.5", "3.5"},
	} {
		if got := tt.in[clauseMarker(tt.in):]; got != tt.want {
			t.Errorf("clauseMarker(%q) leaves %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A clause number names the clause: analyse reads no quantity from it, at
// the text's start or a line's or after a clause word mid-sentence, and
// reads the numbers of the clause. A dotted number or a clause word's
// number is kept as the clause's name (numRef, compared only with
// another); a plain list marker ("6. ", "12) ") is not.
func TestAnalyseSkipsClauseNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		nums []float64
		refs []string
	}{
		{"Section 5: Lockers cost 2 euros a day.", []float64{2}, []string{"5"}},
		{"6. Guests\n\n6.1 Members may bring two guests.", []float64{2}, []string{"6.1"}},
		{"## 4.2 Claims\n4.2.3 Report thefts within 30 days.", []float64{30}, []string{"4.2", "4.2.3"}},
		{"The total is 6.1 litres.", []float64{6.1}, nil},
		{"Lockers cost 20p.", []float64{20}, nil},
		{"12) Late check-in costs 3 euros.", []float64{3}, nil},
		{"Deposits are refunded within 14 days, as set out in clause 6.1.", []float64{14}, []string{"6.1"}},
		{"Under Section 4.2, a late check-out costs £20.", []float64{20}, []string{"4.2"}},
		{"See rule 12: no more than 4 people may share a locker.", []float64{4}, []string{"12"}},
		{"Part 2a of the form asks for 3 references.", []float64{3}, []string{"2a"}},
		{"This clause covers 5 devices.", []float64{5}, nil},
		{"The section is 5km long.", []float64{5}, nil},
	} {
		var nums []float64
		var refs []string
		for _, tm := range analyse(tt.in) {
			switch {
			case tm.isNum && tm.kind == numRef:
				refs = append(refs, tm.raw)
			case tm.isNum:
				nums = append(nums, tm.num)
			case refWord(tm.raw) && len(refs) > 0:
				t.Errorf("analyse(%q) keeps the clause word %q beside its number", tt.in, tm.raw)
			}
		}
		if !slices.Equal(nums, tt.nums) || !slices.Equal(refs, tt.refs) {
			t.Errorf("analyse(%q) numbers %v, clauses %q; want %v, %q", tt.in, nums, refs, tt.nums, tt.refs)
		}
	}
}

// A clause number compares only with another: the same clause, or one of
// its own sub-clauses ("clause 6" and "6.1"), not "6.10" nor a quantity.
func TestRefEqual(t *testing.T) {
	ref := func(s string) term { return term{raw: s, isNum: true, kind: numRef} }
	for _, tt := range []struct {
		a, b term
		want bool
	}{
		{ref("6.1"), ref("6.1"), true},
		{ref("6"), ref("6.1"), true},
		{ref("6.1"), ref("6"), true},
		{ref("6.1"), ref("6.10"), false},
		{ref("7"), ref("6"), false},
		{ref("6"), term{num: 6, isNum: true}, false},
		{term{num: 6, isNum: true}, ref("6"), false},
	} {
		if got := numEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("numEqual(%q %v, %q %v) = %v, want %v", tt.a.raw, tt.a.num, tt.b.raw, tt.b.num, got, tt.want)
		}
		if got := otherKinds(tt.a, tt.b); got == (tt.a.kind == tt.b.kind) {
			t.Errorf("otherKinds(%q, %q) = %v", tt.a.raw, tt.b.raw, got)
		}
	}
}

// A bare answer word opening an answer is no claim of its own: it goes
// with the claim after it, which the report checks as one.
func TestReportAnswerWord(t *testing.T) {
	j, _ := New(DefaultConfig(), nil)
	note := Passage{N: 1, ID: "rules", Text: "Dogs are welcome in the bar and the garden. Smoking is not allowed in any of the rooms."}
	stay := Passage{N: 2, ID: "stay", Text: "3. Your stay\n\n3.2 Rooms are available from 2pm on the day of arrival and must be vacated by 10am on the day of departure."}
	cited := map[int]Passage{1: note, 2: stay}
	for _, tt := range []struct {
		answer string
		want   []string
	}{
		{"Yes! Dogs are welcome in the bar [1].", []string{Entailment}},
		{"No! Smoking is not allowed in the rooms [1]. Dogs are welcome in the garden [1].", []string{Entailment, Entailment}},
		{"No! Smoking is allowed in the rooms [1].", []string{Contradiction}},
		{"Yes! [1] Dogs are welcome in the garden.", []string{Entailment}},
		{"Yes! 3.2 Rooms are available from 2pm on the day of arrival [2].", []string{Entailment}},
		// the answer word on a line of its own opens the claim after it
		{"Yes!\nDogs are welcome in the bar [1].", []string{Entailment}},
		{"No.\n\nSmoking is not allowed in the rooms [1]. Dogs are welcome in the garden [1].", []string{Entailment, Entailment}},
		{"Yep\nDogs are welcome in the garden [1].", []string{Entailment}},
	} {
		r := j.Report(context.Background(), tt.answer, cited, []Passage{note, stay}, nil)
		var got []string
		for _, c := range r.Claims {
			got = append(got, c.Verdict)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Report(%q) claims %q, want %q", tt.answer, got, tt.want)
		}
	}
}

func TestAnswerLead(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Yes! Dogs are welcome in the bar.", "Dogs are welcome in the bar."},
		{"No. Smoking is not allowed.", "Smoking is not allowed."},
		{"No, smoking is not allowed.", "smoking is not allowed."},
		{"No dogs are allowed.", "No dogs are allowed."},
		{"Yes!", "Yes!"},
		{"Yes!\nDogs are welcome in the bar.", "Dogs are welcome in the bar."},
		{"No.\n\nThe pool opens at 7am.", "The pool opens at 7am."},
		{"Yes\n", "Yes\n"},
		{"Yesterday the pool was shut.", "Yesterday the pool was shut."},
	} {
		if got := tt.in[answerLead(tt.in):]; got != tt.want {
			t.Errorf("answerLead(%q) leaves %q, want %q", tt.in, got, tt.want)
		}
	}
}
