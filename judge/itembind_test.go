package judge

import (
	"context"
	"slices"
	"testing"
)

// A number belongs to the item the source states it for: a claim giving it
// to another item of the same sentence or list is a contradiction; given
// to its own item, or stated outside any list, it is entailed.
func TestItemNumbers(t *testing.T) {
	fares := "Ferry fares: foot passengers €6, cyclists €9, cars and drivers €32, motorhomes €48."
	times := "Breakfast is served from 7am, lunch from noon and dinner from 6:30pm."
	rooms := "Our rooms\nSingle room: £70 a night\nDouble room: £95 a night\nFamily room: £130 a night"
	ages := "Mini kickers is for ages 3 to 5; juniors, ages 6 to 11; youth league, ages 12 to 16."
	lessons := "Group lessons take 60 minutes, private lessons 45 minutes."
	checkReasons(t, []reasonCase{
		{"Cyclists pay €32 for the ferry.", fares, Contradiction, "number_mismatch"},
		{"Cyclists pay €9 for the ferry.", fares, Entailment, "covered"},
		{"Cars and drivers pay €32 on the ferry.", fares, Entailment, "covered"},
		{"Drivers pay €32 on the ferry.", fares, Entailment, "covered"},
		{"Dinner is served from 7am.", times, Contradiction, "number_mismatch"},
		{"Breakfast is served from 7am.", times, Entailment, "covered"},
		{"Dinner is served from 6:30pm.", times, Entailment, "covered"},
		{"A double room costs £130 a night.", rooms, Contradiction, "number_mismatch"},
		{"A family room costs £130 a night.", rooms, Entailment, "covered"},
		// the scope reading finds it first: another range for the item
		{"Juniors are ages 12 to 16.", ages, Contradiction, "range_mismatch"},
		{"Juniors are ages 6 to 11.", ages, Entailment, "covered"},
		{"Private lessons take 60 minutes.", lessons, Contradiction, "number_mismatch"},
		{"Private lessons take 45 minutes.", lessons, Entailment, "covered"},
		{"Check-out is by 3pm.", "Check-in is from 3pm and check-out is by 11am.", Contradiction, "number_mismatch"},
		// one item's two times: where it opens and where it closes
		{"The bakery closes at 8am on Sundays.", "On Sundays the bakery opens at 8am and closes at 1pm.", Contradiction, "number_mismatch"},
		{"The bakery opens at 1pm on Sundays.", "On Sundays the bakery opens at 8am and closes at 1pm.", Contradiction, "number_mismatch"},
		{"The bakery is open until 1pm on Sundays.", "On Sundays the bakery opens at 8am and closes at 1pm.", Entailment, "covered"},
		{"The bakery opens at 8am on Sundays.", "On Sundays the bakery opens at 8am and closes at 1pm.", Entailment, "covered"},
		{"Check-in is from 3pm.", "Check-in is from 3pm and check-out is by 11am.", Entailment, "covered"},
		// the number is also stated in a sentence of its own
		{"Private lessons take 60 minutes.", lessons + " Private lessons for two also take 60 minutes.", Entailment, "covered"},
		// a moved time in a sentence of its own
		{"The library opens at 8am on weekdays.", "The library opens at 10am on weekdays.", Contradiction, "number_mismatch"},
		{"The library opens at noon on Sundays.", "The library opens at 10am on weekdays and 1pm on Sundays.", Contradiction, "number_mismatch"},
		{"Lunch is served from noon.", times, Entailment, "covered"},
		{"Lunch is served from 7am.", times, Contradiction, "number_mismatch"},
		{"The library opens at 10am on weekdays.", "The library opens at 10am on weekdays.", Entailment, "covered"},
	})
}

// reasonCase is a claim, its one passage and the verdict and reason wanted.
type reasonCase struct{ claim, ev, want, why string }

// checkReasons verifies each case with the default local verifier
// (checkVerdicts, without reasons).
func checkReasons(t *testing.T, cases []reasonCase) {
	t.Helper()
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range cases {
		got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.ev}})
		if got.Label != tt.want || got.Reason != tt.why {
			t.Errorf("Verify(%q, %q) = %s/%s (%q), want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, got.Evidence, tt.want, tt.why)
		}
	}
}

// TestTableRowItems: a table row written with its headings ("label:
// heading value; heading value", rowLine) binds each number to its row
// and its column (operator trial 10's price and opening-hours tables); a
// list or range of days in a heading holds the claim's day.
func TestTableRowItems(t *testing.T) {
	prices := "Ticket prices\n\nPrices are per person and include VAT.\n\n" +
		"Adult: Monday, Wednesday, Thursday £10.80; Friday to Sunday and bank holidays £12.40\n" +
		"Senior (65 and over): Monday, Wednesday, Thursday £8.60; Friday to Sunday and bank holidays £9.90\n" +
		"Student (with a valid NUS or university card): Monday, Wednesday, Thursday £8.60; Friday to Sunday and bank holidays £9.90\n" +
		"Child (3 to 15): Monday, Wednesday, Thursday £7.20; Friday to Sunday and bank holidays £7.90\n" +
		"Recliner seat (Screen 1, rows J and K): Monday, Wednesday, Thursday add £2.50; Friday to Sunday and bank holidays add £2.50\n\n" +
		"Booking online or on the phone costs 80p per ticket."
	hours := "Opening hours\n\n" +
		"Monday: Box office and café 12:30 to 21:00; Harbour Bar closed\n" +
		"Tuesday to Thursday: Box office and café 12:30 to 21:30; Harbour Bar 17:00 to 23:00\n" +
		"Friday: Box office and café 12:00 to 22:30; Harbour Bar 16:00 to 23:30\n" +
		"Sunday: Box office and café 10:00 to 21:00; Harbour Bar 14:00 to 22:00"
	checkReasons(t, []reasonCase{
		// another column's price for the claim's day
		{"A child ticket costs £7.90 on a Wednesday.", prices, Contradiction, "number_mismatch"},
		{"An adult ticket costs £12.40 on a Monday.", prices, Contradiction, "number_mismatch"},
		// another row's price
		{"A child ticket costs £12.40 on a Friday.", prices, Contradiction, "number_mismatch"},
		{"A child ticket costs £7.20 on a Wednesday.", prices, Entailment, "covered"},
		{"An adult ticket costs £12.40 on a Friday.", prices, Entailment, "covered"},
		{"Adults pay £12.40 at the weekend.", prices, Entailment, "covered"},
		// Saturday is in "Friday to Sunday" (no antonym of the range's
		// days), but the source does not name it: neutral
		{"Adults pay £12.40 on Saturday.", prices, Neutral, "missing_anchor"},
		{"Seniors pay £8.60 on Mondays.", prices, Entailment, "covered"},
		// a label with a comma is one row's label, not a list
		{"The recliner seats cost £2.50 extra.", prices, Entailment, "covered"},
		{"On Sunday the box office and café are open from 10:00 to 21:00.", hours, Entailment, "covered"},
		{"The Harbour Bar is open on Friday from 16:00 to 23:30.", hours, Entailment, "covered"},
		{"The box office opens at 16:00 on Friday.", hours, Contradiction, "number_mismatch"},
	})
}

// TestItemAnswerLead: a source sentence's bare answer word is read as a
// claim's is (operator trial 10: the proxy checked "on Fibre 500 and Fibre
// 900 ..." without its "Yes, " against the row that opens with it, and
// read "Yes, on Fibre 500" as an item the claim did not name).
func TestItemAnswerLead(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	ev := "Yes, on Fibre 500 and Fibre 900 you can add a static IPv4 address for £5 a month. It's not available on Fibre 150."
	for _, claim := range []string{
		"on Fibre 500 and Fibre 900 you can add a static IPv4 address for £5 a month.",
		"Yes, on Fibre 500 and Fibre 900 you can add a static IPv4 address for £5 a month.",
	} {
		got, _ := v.Verify(context.Background(), CheckedText(claim), []Passage{{N: 1, Text: ev}})
		if got.Label != Entailment {
			t.Errorf("Verify(%q) = %s/%s (%q), want entailment", claim, got.Label, got.Reason, got.Evidence)
		}
	}
	if got, want := CheckedText("Yes, on Fibre 500 you can."), "on Fibre 500 you can."; got != want {
		t.Errorf("CheckedText = %q, want %q", got, want)
	}
	if got, want := CheckedText("No dogs are allowed."), "No dogs are allowed."; got != want {
		t.Errorf("CheckedText = %q, want %q", got, want)
	}
}

func TestItemGroups(t *testing.T) {
	for _, tt := range []struct {
		text  string
		items [][]string // each group's items' texts
	}{
		// "under-5s" is read as "children under 5" (normPhrases): an item
		// with its age, as "children aged 3 to 15 £10" is
		{"Adults £12, students and over-65s £8, under-5s free.", [][]string{{"Adults £12", "students and over-65s £8", "under-5s free."}}},
		{"The pool opens at 9am, the spa at 10am and the gym at 6am.", [][]string{{"The pool opens at 9am", "the spa at 10am", "the gym at 6am."}}},
		// a heading line without a number is left out
		{"Prices\nTea: £2\nCake: £3", [][]string{{"Tea: £2", "Cake: £3"}}},
		{"Tea costs £2, served all day.", nil},
		{"One item with 2 numbers: 3 cats.", nil},
		// dates, years and ordinals are no item's values
		{"Opened on 3 May 2001, it won its 2nd award in 2005 and its 3rd on 4 June.", nil},
	} {
		var got [][]string
		for _, g := range itemGroupsOf(tt.text).groups {
			var texts []string
			for _, s := range g.segs {
				texts = append(texts, s.text)
			}
			got = append(got, texts)
		}
		if !slices.EqualFunc(got, tt.items, slices.Equal) {
			t.Errorf("itemGroupsOf(%q) = %q, want %q", tt.text, got, tt.items)
		}
	}
}

func TestCutClocks(t *testing.T) {
	for _, tt := range []struct {
		in, rest string
		clocks   []int
	}{
		{"opens at 9:30am, shuts at 5 pm", "opens at  , shuts at  ", []int{570, 1020}},
		{"from 10.15am to 17:45", "from   to  ", []int{615, 1065}},
		{"at 12am and 12pm", "at   and  ", []int{0, 720}},
		{"6.1 rooms, 3 a.m.", "6.1 rooms, 3 a.m.", nil},
		{"13pm or 9:75am or 2018 am", "13pm or 9:75am or 2018 am", nil},
		{"the 5am train", "the   train", []int{300}},
		{"from noon to Midnight", "from   to  ", []int{720, 0}},
		{"afternoon, noonday", "afternoon, noonday", nil},
		{"ADAR1am", "ADAR1am", nil},
	} {
		rest, clocks := cutClocks(tt.in)
		if rest != tt.rest || !slices.Equal(clocks, tt.clocks) {
			t.Errorf("cutClocks(%q) = %q, %v, want %q, %v", tt.in, rest, clocks, tt.rest, tt.clocks)
		}
	}
}

// "per" is no unit: "£50 per booking" is a price; "per cent" is.
func TestPerUnit(t *testing.T) {
	for _, tt := range []struct {
		text string
		unit string
		kind uint8
	}{
		{"£50 per booking", "", numMoney},
		{"50 per booking", "", 0},
		{"10 per cent off", "per cent", 0},
		{"10 Per cent off", "per cent", 0},
		{"10 percent off", "percent", 0},
		{"10% off", "%", 0},
		{"20 cents", "", numMoney},
	} {
		ts := analyse(tt.text)
		i := slices.IndexFunc(ts, func(t term) bool { return t.isNum })
		if i < 0 {
			t.Fatalf("analyse(%q): no number", tt.text)
		}
		if ts[i].unit != tt.unit || ts[i].kind != tt.kind {
			t.Errorf("analyse(%q) number unit %q kind %d, want %q kind %d", tt.text, ts[i].unit, ts[i].kind, tt.unit, tt.kind)
		}
	}
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct{ claim, ev, want string }{
		{"Canoe hire is £20 per hour.", "Canoe hire is £15 an hour.", Contradiction},
		{"Canoe hire is £15 an hour.", "Canoe hire is £20 per hour.", Contradiction},
		{"Canoe hire is £15 per hour.", "Canoe hire is £15 per hour, paddles included.", Entailment},
		{"Members save 10 per cent.", "Members save 10% on every visit.", Entailment},
	} {
		if got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.ev}}); got.Label != tt.want {
			t.Errorf("Verify(%q, %q) = %s/%s, want %s", tt.claim, tt.ev, got.Label, got.Reason, tt.want)
		}
	}
}

// The business's own advice ("We recommend ...") is checked against a
// cited source that gives advice; against one that gives none it stays an
// opinion, not checked.
func TestOwnAdvice(t *testing.T) {
	j, _ := New(DefaultConfig(), nil)
	advice := Passage{N: 1, ID: "faq", Text: "We recommend booking the escape room at least 10 days ahead at weekends."}
	plain := Passage{N: 2, ID: "rooms", Text: "The escape room can be booked up to 3 months ahead."}
	cited := map[int]Passage{1: advice, 2: plain}
	for _, tt := range []struct{ sentence, want string }{
		{"We recommend booking the escape room at least 10 days ahead at weekends [1].", Entailment},
		{"We recommend booking the escape room at least 3 days ahead at weekends [1].", Contradiction},
		{"We recommend booking the escape room 3 months ahead [2].", Opinion},
		{"We recommend the escape room, I think it is wonderful [1].", Opinion},
		{"I recommend booking the escape room at least 10 days ahead [1].", Opinion},
	} {
		if got := j.Claim(context.Background(), tt.sentence, cited); got.Verdict != tt.want {
			t.Errorf("Claim(%q) = %s/%s, want %s", tt.sentence, got.Verdict, got.Reason, tt.want)
		}
	}
	v := NewLocal(DefaultConfig().Local)
	if got, _ := v.Verify(context.Background(), "We recommend booking at least 3 days ahead at weekends.", []Passage{advice}); got.Label != Contradiction {
		t.Errorf("Local.Verify against advice = %s, want %s", got.Label, Contradiction)
	}
	if got, _ := v.Verify(context.Background(), "We recommend booking 3 months ahead.", []Passage{plain}); got.Label != Opinion {
		t.Errorf("Local.Verify against no advice = %s, want %s", got.Label, Opinion)
	}
}

// FuzzCutClocks: cutClocks never panics, reads times within a day, and
// its quick look (mayHaveClock) never misses a time the scan finds.
func FuzzCutClocks(f *testing.F) {
	for _, s := range []string{"opens at 9:30am, shuts at 5 pm", "from 10.15am to 17:45", "noon", "12am 12pm", "1 2:30pm", "9:5am", "x9am", "Midnight"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, clocks := scanClocks(s)
		for _, c := range clocks {
			if c < 0 || c >= 24*60 {
				t.Fatalf("scanClocks(%q) read %d minutes", s, c)
			}
		}
		if len(clocks) > 0 && !mayHaveClock(s) {
			t.Fatalf("mayHaveClock(%q) false, but scanClocks reads %v", s, clocks)
		}
	})
}
