package mockllm

import (
	"encoding/json"
	"strings"
	"testing"
)

// buildAnswer builds the fault-free answer to a system prompt and a user
// message, and returns its text and record.
func buildAnswer(t *testing.T, system, user string) (string, Record) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Pace = 0
	body, err := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
		{"role": "system", "content": system}, {"role": "user", "content": user}}})
	if err != nil {
		t.Fatal(err)
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	a := generator{cfg: cfg}.build(&req, body, "x")
	return strings.Join(a.pieces, ""), a.rec
}

// The sentence of a note that shares the question's words is quoted and
// cited, not the note's first one (operator trial 11: "3.1 The minimum
// age for ski lessons is 4" answered a question about group sizes).
func TestPickSentenceFitsQuestion(t *testing.T) {
	system := "Notes:\n[^1] (kind: library; address: Terms 2) 2.1 Bookings can be made online or by phone. " +
		"2.2 Full payment is due on booking, except for Courses. 2.4 Group lessons have a maximum of 8 Participants per instructor."
	for _, c := range []struct{ user, want string }{
		{"how many participants can be in a group lesson?", "2.4 Group lessons have a maximum of 8 Participants per instructor [^1]."},
		{"when is the payment due", "2.2 Full payment is due on booking, except for Courses [^1]."},
		// no word shared: the first sentence, as before
		{"can I bring my dog", "2.1 Bookings can be made online or by phone [^1]."},
	} {
		// the best sentence first, then (one note, three sentences
		// allowed) the others in note order
		got, rec := buildAnswer(t, system, c.user)
		if !strings.HasPrefix(got, "Based on the notes: "+c.want) {
			t.Errorf("%q: answer %q, want it to open with %q", c.user, got, c.want)
		}
		if len(rec.ValidCites) == 0 || rec.ValidCites[0] != 1 {
			t.Errorf("%q: valid cites %v, want note 1 first", c.user, rec.ValidCites)
		}
	}
}

// A line in capitals (a document's title, a section's heading) is never
// quoted, at a note's start or inside it.
func TestPickNeverQuotesCapsHeading(t *testing.T) {
	system := "Notes:\n[^1] (kind: library; address: Terms 1) SNOWLINE SKI AND SNOWBOARD SCHOOL: TERMS AND CONDITIONS OF BOOKING. " +
		"Version 3, in force from 1 October 2026. 11. PHOTOGRAPHS. 11.1 We may take photographs during lessons for our website. " +
		"BOOKING TERMS AND CONDITIONS. Booking means accepting these terms."
	for _, user := range []string{"ski school terms and conditions of booking", "can you take photographs of my son", "hello"} {
		got, _ := buildAnswer(t, system, user)
		for _, bad := range []string{"SNOWLINE", "PHOTOGRAPHS", "BOOKING TERMS"} {
			if strings.Contains(got, bad) {
				t.Errorf("%q: answer %q quotes the heading %q", user, got, bad)
			}
		}
	}
	got, _ := buildAnswer(t, system, "can you take photographs of my son")
	if want := "11.1 We may take photographs during lessons for our website [^1]."; !strings.Contains(got, want) {
		t.Errorf("answer %q, want it to hold %q", got, want)
	}
}

func TestIsTitleLead(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"SNOWLINE SKI AND SNOWBOARD SCHOOL: TERMS AND CONDITIONS OF BOOKING.", true},
		{"BOOKINGS AND PAYMENT.", true},
		{"Crag and Chalk: Terms of Membership.", true},
		{"NO SMOKING ON SITE.", false},
		{"WE ARE CLOSED.", false},
		{"Opening hours: Monday to Friday, 9am to 5pm.", false},
		{"Note: bring a towel.", false},
		{"The minimum age for ski lessons is 4.", false},
		{"OK.", false},
	} {
		if got := isTitleLead(c.in); got != c.want {
			t.Errorf("isTitleLead(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// The fallback answer names the question, not the greeting and context
// before it.
func TestFallbackNamesQuestion(t *testing.T) {
	for _, c := range []struct{ user, want string }{
		{"hiya my twins are 5 and going in the little kids group. how many kids are in each group",
			"Here is a general answer about how many kids are in each group. "},
		{"hi, my son is 3. Is he old enough? I hope so.", "Here is a general answer about Is he old enough. "},
		{"thanks! unrelated but could you help me write a birthday message for my sister",
			"Here is a general answer about unrelated but could you help me write a birthday message for my sister. "},
		{"Hello", "Here is a general answer about your question. "},
		// no question mark: the last sentence that opens as a question
		{"hi, a group of us are coming for a stag do. is it ok if we have a couple of pints before hand. just checkin",
			"Here is a general answer about is it ok if we have a couple of pints before hand. "},
		{"morning. my dog is very well behaved. he would just watch", "Here is a general answer about he would just watch. "},
		{"What is the capital of France?", "Here is a general answer about What is the capital of France. "},
		{"hey\nwhat's the weather going to be like this weekend", "Here is a general answer about what's the weather going to be like this weekend. "},
	} {
		got, rec := buildAnswer(t, "You are a helpful assistant.", c.user)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: answer %q, want it to open %q", c.user, got, c.want)
		}
		if len(rec.ValidCites) != 0 {
			t.Errorf("%q: valid cites %v, want none", c.user, rec.ValidCites)
		}
	}
}

// sharedWords counts what the intersection of contentWords sets counts.
func TestSharedWordsAsContentWords(t *testing.T) {
	qs := []string{"How many Participants can join a group lesson?", "Kann ich mein Fahrrad mitbringen? Größe Café", "what about 2026 tickets please", ""}
	ss := []string{"2.4 Group lessons have a maximum of 8 Participants per instructor; groups, groups.",
		"Fahrräder: Größe egal, im Café nicht erlaubt.", "Tickets for 2026 are sold out, about which more here.", "", "a b c",
		strings.Repeat("x", 70) + " lessons"}
	for _, q := range qs {
		asked := contentWords(q)
		for _, s := range ss {
			want := 0
			for w := range contentWords(s) {
				if asked[w] {
					want++
				}
			}
			if got := sharedWords(s, askedWords(q)); got != want {
				t.Errorf("sharedWords(%q, %q) = %d, want %d", s, q, got, want)
			}
		}
	}
}
