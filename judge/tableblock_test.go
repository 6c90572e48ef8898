package judge

import (
	"context"
	"reflect"
	"testing"
)

// poolHours is a source holding a table as the index writes it: one row a
// line, cells joined by ", ", no closing punctuation.
var poolHours = Passage{N: 1, ID: "kb/pool", Title: "Swimming pool: Opening hours", Text: "The pool is heated to 29 degrees. Lane swimming needs no booking; lessons are booked at reception.\n\n" +
	"Day, Main pool, Learner pool\nMonday, 06:30 to 21:00, 09:00 to 17:00\nTuesday to Friday, 06:30 to 22:00, 09:00 to 19:00\n" +
	"Saturday, 08:00 to 18:00, closed\nSunday, 08:00 to 16:00, 10:00 to 14:00\n\nThe pool closes on 1 January."}

var notCovered = Passage{N: 2, ID: "kb/cover", Title: "What we do not cover", Text: "The policy does not cover:\nWear and tear\nDamage caused by pets\nLoss of money left in a car\n\nParking is free for the first 3 hours; after that it costs 2 euros an hour."}

// TestTableBlockClaims judges table and list quotes as the proxy does
// (Report splits the answer with the proxy's Splitter).
func TestTableBlockClaims(t *testing.T) {
	j := newJudge(t, func(c *Config) { c.MinContextChars = 0 })
	cited := map[int]Passage{1: poolHours, 2: notCovered}
	type claim struct{ text, verdict, reason string }
	for _, tc := range []struct {
		answer string
		want   []claim
	}{
		// the whole table quoted folded onto one line, as the model reads
		// its note: it was an antonym contradiction ("closed" against
		// another row's hours)
		{"Day, Main pool, Learner pool Monday, 06:30 to 21:00, 09:00 to 17:00 Tuesday to Friday, 06:30 to 22:00, 09:00 to 19:00 Saturday, 08:00 to 18:00, closed Sunday, 08:00 to 16:00, 10:00 to 14:00 [1].",
			[]claim{{"Day, Main pool, Learner pool Monday, 06:30 to 21:00, 09:00 to 17:00 Tuesday to Friday, 06:30 to 22:00, 09:00 to 19:00 Saturday, 08:00 to 18:00, closed Sunday, 08:00 to 16:00, 10:00 to 14:00.", Entailment, ""}}},
		// one cell changed in the folded quote: its row is checked alone
		{"Monday, 06:30 to 21:00, 09:00 to 17:00 Tuesday to Friday, 06:30 to 22:00, 09:00 to 19:00 Saturday, 08:00 to 18:00, closed Sunday, 08:00 to 17:00, 10:00 to 14:00 [1].",
			[]claim{{"Monday, 06:30 to 21:00, 09:00 to 17:00 Tuesday to Friday, 06:30 to 22:00, 09:00 to 19:00 Saturday, 08:00 to 18:00, closed Sunday, 08:00 to 17:00, 10:00 to 14:00.", Contradiction, "number_mismatch"}}},
		// rows one a line, each cited
		{"Saturday, 08:00 to 18:00, closed [1]\nMonday, 06:30 to 21:00, 09:00 to 18:00 [1]",
			[]claim{{"Saturday, 08:00 to 18:00, closed", Entailment, ""}, {"Monday, 06:30 to 21:00, 09:00 to 18:00", Contradiction, "number_mismatch"}}},
		// Markdown pipe rows, read as the index writes rows
		{"| Saturday | 08:00 to 18:00 | closed | [1]\n| Sunday | 08:00 to 16:00 | closed | [1]",
			[]claim{{"| Saturday | 08:00 to 18:00 | closed |", Entailment, ""}, {"| Sunday | 08:00 to 16:00 | closed |", Contradiction, ReasonCellMismatch}}},
		// a negated list quoted whole with its lead is the source's word
		{"The policy does not cover: Wear and tear Damage caused by pets Loss of money left in a car [2].",
			[]claim{{"The policy does not cover: Wear and tear Damage caused by pets Loss of money left in a car.", Entailment, ""}}},
	} {
		r := j.Report(context.Background(), tc.answer, cited, nil, nil)
		var got []claim
		for _, c := range r.Claims {
			cl := claim{c.Text, c.Verdict, ""}
			if c.Verdict == Contradiction {
				cl.reason = firstWord(c.Reason)
			}
			got = append(got, cl)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.answer, got, tc.want)
		}
	}
}

func firstWord(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' || s[i] == ' ' {
			return s[:i]
		}
	}
	return s
}

// TestVerbatimIn: a quote is taken only from a line or sentence start to a
// line or sentence end, and an item of a negated list only with its lead.
func TestVerbatimIn(t *testing.T) {
	docs := []*prepared{prepare(poolHours.Title, poolHours.Text), prepare(notCovered.Title, notCovered.Text)}
	for _, tc := range []struct {
		claim string
		want  bool
	}{
		{"Saturday, 08:00 to 18:00, closed", true},
		{"saturday, 08:00 to 18:00,  closed.", true},                             // case and spaces folded
		{"Lane swimming needs no booking.", false},                               // ends at a ";": the source goes on
		{"Parking is free.", false},                                              // the condition after it dropped
		{"Parking is free for the first 3 hours", false},                         // a clause, not a sentence
		{"The pool closes on 1 January.", true},                                  // a sentence
		{"pool closes on 1 January.", false},                                     // not from a sentence start
		{"Damage caused by pets", false},                                         // an item of a negated list, without its lead
		{"The policy does not cover: Wear and tear Damage caused by pets", true}, // with its lead
		{"Saturday, 08:00 to 18:00", false},                                      // a row cut short
		{"closed", false},                                                        // one word
	} {
		_, got := verbatimIn(tc.claim, docs)
		if got != tc.want {
			t.Errorf("verbatimIn(%q) = %v, want %v", tc.claim, got, tc.want)
		}
	}
}

// page is a web page as WiCE gives them: short lines without punctuation.
const page = "Player Signings\nCavalry FC\nCanadian Premier League\nJanuary 23, 2019\nCalgary, AB\nNews\nCavalry FC is pleased to welcome four more players."

func TestClaimLinesAndPipeRow(t *testing.T) {
	docs := []*prepared{prepare(poolHours.Title, poolHours.Text), prepare(notCovered.Title, notCovered.Text)}
	for _, tc := range []struct {
		claim string
		want  []string
	}{
		{"Day, Main pool, Learner pool Monday, 06:30 to 21:00, 09:00 to 17:00 Sunday, 08:00 to 17:00, 10:00 to 14:00.",
			[]string{"Day, Main pool, Learner pool", "Monday, 06:30 to 21:00, 09:00 to 17:00", "Sunday, 08:00 to 17:00, 10:00 to 14:00."}},
		{"| Day | Main pool |\n|---|:---:|\n| Monday | 06:30 to 21:00 |", []string{"| Day | Main pool |", "| Monday | 06:30 to 21:00 |"}},
		{"The main pool opens at 06:30 on Monday.", nil},                         // prose: no table line
		{"Monday, 06:30 to 21:00, 09:00 to 17:00", nil},                          // one row
		{"The policy does not cover: Wear and tear Damage caused by pets.", nil}, // a lead: read whole
		{"Monday, 06:30 to 21:00, 09:00 to 17:00. Saturday, 08:00 to 18:00, closed.", nil},
		// prose naming a page's short lines (a web page's menu, as WiCE's
		// pages have): not cut
		{"Giantsopoulos returned to Canada and signed with Cavalry FC of the Canadian Premier League on January 23, 2019.", nil},
		{"Cavalry FC Canadian Premier League signed Giantsopoulos and three other players in January.", nil},
	} {
		if got := claimLines(tc.claim, append(docs, prepare("", page))); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("claimLines(%q) = %q, want %q", tc.claim, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"| Adult | £6.20 | £8.40 |", "Adult, £6.20, £8.40"},
		{"  |Child|  £3.10 |", "Child, £3.10"},
		{"Adult | £6.20", ""},
		{"||", ""},
	} {
		if got, _ := pipeRow(tc.in); got != tc.want {
			t.Errorf("pipeRow(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRowCheck: a row is read against the cited row of the same label and
// as many cells; anything else is left to the windows.
func TestRowCheck(t *testing.T) {
	docs := []*prepared{prepare(poolHours.Title, poolHours.Text)}
	for _, tc := range []struct {
		claim  string
		ok     bool
		label  string
		reason string
	}{
		{"Saturday, 08:00 to 18:00, closed", true, Entailment, "covered"},
		{"Saturday, 08:00 to 19:00, closed", true, Contradiction, "number_mismatch"},
		{"Saturday, 08:00 to 18:00, 09:00 to 12:00", true, Contradiction, ReasonCellMismatch},
		{"Saturday, 08:00 to 18:00", false, "", ""},                                     // fewer cells
		{"Saturday, the main pool is busy and the learner pool is shut", false, "", ""}, // prose cells
		{"Wednesday, 06:30 to 22:00, 09:00 to 19:00", false, "", ""},                    // no row of that label
		{"Saturday, 08:00 to 18:00, closed!", false, "", ""},                            // a sentence
	} {
		v, ok := rowCheck(tc.claim, docs)
		if ok != tc.ok || v.Label != tc.label || v.Reason != tc.reason {
			t.Errorf("rowCheck(%q) = %v %s %s, want %v %s %s", tc.claim, ok, v.Label, v.Reason, tc.ok, tc.label, tc.reason)
		}
	}
}
