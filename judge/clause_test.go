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
// the text's start or a line's, and reads the numbers of the clause.
func TestAnalyseSkipsClauseNumbers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		nums []float64
	}{
		{"Section 5: Lockers cost 2 euros a day.", []float64{2}},
		{"6. Guests\n\n6.1 Members may bring two guests.", []float64{2}},
		{"## 4.2 Claims\n4.2.3 Report thefts within 30 days.", []float64{30}},
		{"The total is 6.1 litres.", []float64{6.1}},
		{"Lockers cost 20p.", []float64{20}},
	} {
		var got []float64
		for _, tm := range analyse(tt.in) {
			if tm.isNum {
				got = append(got, tm.num)
			}
		}
		if len(got) != len(tt.nums) || len(got) > 0 && got[0] != tt.nums[0] {
			t.Errorf("analyse(%q) numbers %v, want %v", tt.in, got, tt.nums)
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
		{"Yesterday the pool was shut.", "Yesterday the pool was shut."},
	} {
		if got := tt.in[answerLead(tt.in):]; got != tt.want {
			t.Errorf("answerLead(%q) leaves %q, want %q", tt.in, got, tt.want)
		}
	}
}
