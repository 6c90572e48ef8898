package judge

import (
	"slices"
	"testing"
)

// A polarity in form only is no contradiction: "non-refundable" is "not
// refundable", "prohibited" is "not allowed", "no charge for" is free,
// "must not be under 16" is "at least 16", "not available until 2pm" is
// "from 2pm", "under 12s" are children under 12, "No guests under 18 may"
// asks 18 or over; beside each, a claim that changes the polarity or the
// number stays a conflict (judge19). A want of "!X" is any verdict but X.
func TestPolarityInForm(t *testing.T) {
	const (
		sale   = "There are no refunds on sale items, but they can be exchanged within 14 days."
		prices = "Tickets: adults £9, children £5, under 3s free."
	)
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{"Tickets are non-transferable.", "Tickets cannot be transferred.", Entailment},
		{"Gift cards are nonrefundable.", "Gift cards are not refundable.", Entailment},
		{"Tickets are non-transferable.", "Tickets are transferable.", Contradiction},
		{"Fishing is prohibited in the lake.", "Fishing is not permitted in the lake.", Entailment},
		{"Fishing is not allowed in the lake.", "Fishing is forbidden in the lake.", Entailment},
		{"Fishing is prohibited in the lake.", "Fishing is allowed in the lake.", Contradiction},
		{"A helmet is compulsory on the course.", "A helmet is not optional on the course.", Entailment},
		{"Attendance at the induction is optional.", "Attendance at the induction is not mandatory.", Entailment},
		{"Attendance at the induction is optional.", "Attendance at the induction is mandatory.", Contradiction},
		{"The pass includes unlimited rides.", "There is no limit on rides with the pass.", Entailment},
		{"The pass includes unlimited rides.", "Rides with the pass are limited.", Contradiction},
		{"There is no charge for wifi in the rooms.", "Wifi in the rooms is free.", Entailment},
		{"There is no extra fee for late checkout on Sundays.", "Late checkout on Sundays is free of charge.", Entailment},
		{"Wifi in the rooms is free.", "There is a charge for wifi in the rooms.", Contradiction},
		{"Wifi in the rooms is free.", "You pay for wifi in the rooms.", Contradiction},
		{"Players must not be under 16.", "Players must be at least 16.", Entailment},
		{"Players must not be under 16.", "Players must be at least 18.", Contradiction},
		{"Rooms are not available until 2pm.", "Rooms are available from 2pm.", Entailment},
		{"Rooms are not available until 2pm.", "Rooms are available from 11am.", Contradiction},
		{"Under 12s eat free.", "Children under 12 eat free.", Entailment},
		{"Children under twelve eat free.", "Under 12s eat free.", Entailment},
		{"Under 12s eat free.", "Children under 14 eat free.", Contradiction},
		{"No guests under 18 may use the hot tub.", "Guests must be 18 or over to use the hot tub.", Entailment},
		{"No guests under 18 may use the hot tub.", "Guests must be 16 or over to use the hot tub.", "!" + Entailment},
		{"No guests under 18 may use the hot tub.", "No guests under 18 may use the hot tub.", Entailment},
		{sale, "Sale items cannot be refunded.", Entailment},
		{sale, "Sale items can be refunded.", Contradiction},
		{sale, "Sale items can be exchanged within 30 days.", Contradiction},
		{prices, "Children under 3 pay £5.", Contradiction},
		{prices, "Children under 3 get in free.", Entailment},
		{prices, "Children pay £5.", Entailment},
	})
}

// "non-" before an -able or -ible word is a negation of it; before
// another word it names another class, one term.
func TestAnalyseNonAble(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // stems, "not" for a negation cue
	}{
		{"non-refundable deposit", []string{"not", "refund", "deposit"}},
		{"nonrefundable deposit", []string{"not", "refund", "deposit"}},
		{"Non-transferable tickets", []string{"not", "transfer", "ticket"}},
		{"non-residents", []string{"nonresid"}},
		{"non-smoking rooms", []string{"nonsmoke", "room"}},
		{"nonsense", []string{"nonsens"}},
		{"unlimited rides", []string{"not", "limit", "ride"}},
	} {
		var got []string
		for _, tm := range analyse(c.in) {
			if tm.neg {
				got = append(got, "not")
			} else {
				got = append(got, tm.stem)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("analyse(%q) stems = %q, want %q", c.in, got, c.want)
		}
	}
}

// The rewrites of a polarity in form only, and their near misses.
func TestNormPhrasesPolarity(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"There is no charge for parking.", "There is free for parking."},
		{"No extra fees to members.", "free to members."},
		{"There is no charge.", "There is no charge."},
		{"no charges apply", "no charges apply"},
		{"Riders must not be under 12.", "Riders must be at least 12."},
		{"must not be younger than twelve", "must be at least twelve"},
		{"must not be under the influence", "must not be under the influence"},
		{"Check-in is not possible before 3pm.", "Check-in is possible from 3pm."},
		{"The pool is not open until noon.", "The pool is open from noon."},
		{"not available until further notice", "not available until further notice"},
		{"Under 5s go free.", "children under 5 go free."},
		{"under-16s and under 18s", "children under 16 and children under 18"},
		{"under 19s", "under 19s"},
		{"under 5sx", "under 5sx"},
		{"under 0s", "under 0s"},
	} {
		if got := normPhrases(c.in); got != c.want {
			t.Errorf("normPhrases(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// "Nobody under N may P" adds "You must be N or over to P"; a class
// before the age is the subject.
func TestOnlyReadingsUnder(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Nobody under 18 may book a room.", []string{"You must be 18 or over to book a room."}},
		{"No one under sixteen can hire a kayak.", []string{"You must be sixteen or over to hire a kayak."}},
		{"No guests under 16 are allowed to use the spa.", []string{"Guests must be 16 or over to use the spa."}},
		{"No dogs under 6 months may enter.", nil},
		{"Nobody under 18 may not enter.", nil},
		{"No one under the age of 18 may book.", nil},
		{"Nobody may book under 18.", nil},
	} {
		if got := onlyReadings(c.in); !slices.Equal(got, c.want) {
			t.Errorf("onlyReadings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A ", but" with a subject of its own opens a clause of its own.
func TestScopeClausesBut(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"No refunds on sale items, but they can be exchanged within 14 days.", []string{"No refunds on sale items", "but they can be exchanged within 14 days."}},
		{"Parking is free for 2 hours, but after that it costs £3 an hour.", []string{"Parking is free for 2 hours, but after that it costs £3 an hour."}},
		{"Open daily, but closed on Mondays; free, but you must book.", []string{"Open daily, but closed on Mondays", "free", "but you must book."}},
	} {
		if got := scopeClauses(c.in); !slices.Equal(got, c.want) {
			t.Errorf("scopeClauses(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A claim's modifier the source lacks, where the source names the same
// thing with another ("the cleaning fee" against "the booking fee"), is
// no entailment: the claim is about another fee (missing_term). A word
// the word vectors put near the source's (hasSynonym: "plastic" and
// "glass" are 0.68) still stands in for it.
func TestOtherModifier(t *testing.T) {
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{"The booking fee is non-refundable.", "The cleaning fee is not refundable.", Neutral},
		{"The junior ticket costs £20 for the season.", "The family ticket costs £20 for the season.", Neutral},
		{"The staff car park is closed on Sundays.", "The visitor car park is closed on Sundays.", "!" + Entailment},
		{"The booking fee is non-refundable.", "The booking fee is not refundable.", Entailment},
		{"The fee is non-refundable.", "The booking fee is not refundable.", Entailment},
		{"Low-dose acetylsalicylic acid reduces the risk of myocardial infarction.", "Aspirin reduces the risk of myocardial infarction.", Entailment},
	})
}
