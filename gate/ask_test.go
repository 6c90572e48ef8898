package gate

import (
	"strings"
	"testing"
)

func TestAskOf(t *testing.T) {
	tests := []struct {
		q    string
		want Ask
	}{
		{"whats your phone number", Ask{Type: "phone", Contact: true}},
		{"What’s your number?", Ask{Type: "phone", Contact: true}},
		{"do you have a phone number I can ring for help?", Ask{Type: "phone", Contact: true}},
		{"can i call you?", Ask{Type: "phone", Contact: true}},
		{"what is your email", Ask{Type: "email", Contact: true}},
		{"which email address do i write to you at", Ask{Type: "email", Contact: true}},
		{"where are you?", Ask{Type: "address", Contact: true}},
		{"what's your address", Ask{Type: "address", Contact: true}},
		{"what time do you close on sundays?", Ask{Type: "hours", Contact: true}},
		{"are you open on bank holidays", Ask{Type: "hours", Contact: true}},
		{"what are your opening hours", Ask{Type: "hours", Contact: true}},
		{"how can i contact you", Ask{Contact: true}},
		{"can I get in touch with you about a fee", Ask{Type: "cost", Contact: true}},
		// not the service's own contact details
		{"What is the phone number of the lost property office?", Ask{Type: "phone"}},
		{"What's the email address for complaints?", Ask{Type: "email"}},
		{"do you sell phone cases?", Ask{You: true}},
		{"how much does your phone insurance cost?", Ask{Type: "cost", You: true}},
		{"whats ur phone number", Ask{Type: "phone", Contact: true}},
		{"ur number?", Ask{Type: "phone", Contact: true}},
		{"where is the nearest station", Ask{Type: "place"}},
		{"when do the dahlias go out", Ask{Type: "time"}},
		{"how much is one driving lesson", Ask{Type: "cost"}},
		{"can i feed my dog bananas", Ask{}},
		{"do you sell christmas trees?", Ask{You: true}},
		{"", Ask{}},
	}
	for _, tt := range tests {
		if got := AskOf(tt.q); got != tt.want {
			t.Errorf("AskOf(%q) = %+v, want %+v", tt.q, got, tt.want)
		}
		pq := PrepareQuestion(strings.Fields, tt.q, nil)
		if got := pq.Ask(); got != tt.want {
			t.Errorf("PrepareQuestion(%q).Ask() = %+v, want %+v", tt.q, got, tt.want)
		}
	}
}

// contactPool is a pool for "whats your phone number": nothing in it is
// about the question by relevance (all below bail-out, most below the
// prefloor); withPhone says whether one passage holds a phone number.
func contactPool(withPhone bool) []Candidate {
	opening := Candidate{ID: "hours", Title: "Opening hours", Kind: "library", Rerank: 0.2, Relevance: 0.2,
		Text: "Open Monday to Saturday, 9am to 5pm."}
	prices := Candidate{ID: "prices", Title: "Prices", Kind: "library", Rerank: 0.1, Relevance: 0.05,
		Text: "A shirt costs 4 pounds."}
	contact := Candidate{ID: "contact", Title: "Contact us", Kind: "library", Rerank: 0.05, Relevance: 0.02,
		Text: "Ring the shop on 01632 960 123.", TypeHit: withPhone}
	if !withPhone {
		contact.Text = "Write to us through the form on the website."
	}
	return []Candidate{opening, prices, contact}
}

func TestDecideContact(t *testing.T) {
	phone := Ask{Type: "phone", Contact: true}
	for _, offTopic := range []string{OffTopicFallback, OffTopicRefuse} {
		cfg := DefaultConfig()
		cfg.OffTopic = offTopic

		// the thresholds alone bail out
		if o := Decide(cfg, contactPool(true), true, Ask{}); !o.Checks["bail_out"] || o.Checks["contact"] {
			t.Fatalf("%s: zero Ask: checks %v, want bail_out and no contact", offTopic, o.Checks)
		}

		o := Decide(cfg, contactPool(true), true, phone)
		if o.Decision != Ground || !o.Checks["contact_hit"] || o.Checks["contact_gap"] || o.Checks["off_topic"] {
			t.Fatalf("%s: with a phone number: %s %v, want ground on it", offTopic, o.Decision, o.Checks)
		}
		if len(o.Notes) == 0 || o.Notes[0].ID != "contact" {
			t.Fatalf("%s: notes %+v, want the contact passage first", offTopic, o.Notes)
		}
		o = ApplyOutline(o, LocalOutline(cfg, o))
		if o.Decision != Ground || len(o.Notes) != 1 || o.Notes[0].ID != "contact" {
			t.Fatalf("%s: after the local planner: %s %+v, want ground on the contact passage", offTopic, o.Decision, o.Notes)
		}

		o = Decide(cfg, contactPool(false), true, phone)
		if o.Decision != Refuse || !o.Checks["contact_gap"] || o.Checks["off_topic"] {
			t.Fatalf("%s: without a phone number: %s %v, want refused as on-topic", offTopic, o.Decision, o.Checks)
		}
		msg := RefusalMessage(cfg, o)
		if !strings.HasPrefix(msg, cfg.RefusalText) || !strings.Contains(msg, `"Opening hours"`) {
			t.Fatalf("%s: refusal %q, want the refusal naming the closest topics", offTopic, msg)
		}

		// opening hours asked: grounded on the passage that holds them,
		// refused as a gap where none does, however relevant the pool
		hours := Ask{Type: "hours", Contact: true}
		withHours := contactPool(true)
		withHours[0].TypeHit, withHours[2].TypeHit = true, false
		o = Decide(cfg, withHours, true, hours)
		if o.Decision != Ground || !o.Checks["contact_hit"] || len(o.Notes) == 0 || o.Notes[0].ID != "hours" {
			t.Fatalf("%s: hours asked, a passage holds them: %s %v %+v, want ground on it", offTopic, o.Decision, o.Checks, o.Notes)
		}
		noHours := contactPool(true)
		noHours[2].TypeHit = false
		noHours[0].Relevance = 0.9
		if o = Decide(cfg, noHours, true, hours); o.Decision != Refuse || !o.Checks["contact_gap"] {
			t.Fatalf("%s: hours asked, none held: %s %v, want refused as on-topic", offTopic, o.Decision, o.Checks)
		}

		// a contact question of no type ("how can i contact you"):
		// grounded on the passages that hold a way to reach the service
		// (TypeHit: a phone number, an email or a street address), first
		// and whatever their relevance; where none does, the thresholds
		// decide, but a bail-out is an on-topic refusal
		anyway := Ask{Contact: true}
		o = Decide(cfg, contactPool(true), true, anyway)
		if o.Decision != Ground || !o.Checks["contact_hit"] || o.Checks["contact_gap"] || len(o.Notes) == 0 || o.Notes[0].ID != "contact" {
			t.Fatalf("%s: contact, a passage holds a phone number: %s %v %+v, want ground on it first", offTopic, o.Decision, o.Checks, o.Notes)
		}
		if o = ApplyOutline(o, LocalOutline(cfg, o)); o.Decision != Ground || o.Notes[0].ID != "contact" {
			t.Fatalf("%s: contact, after the local planner: %s %+v, want ground on the contact passage", offTopic, o.Decision, o.Notes)
		}
		o = Decide(cfg, contactPool(false), true, anyway)
		if o.Decision != Refuse || !o.Checks["contact_gap"] || o.Checks["off_topic"] || o.Checks["contact_hit"] {
			t.Fatalf("%s: contact below bail-out, no contact detail: %s %v, want refused as on-topic", offTopic, o.Decision, o.Checks)
		}
		if msg := RefusalMessage(cfg, o); !strings.Contains(msg, `"Opening hours"`) {
			t.Fatalf("%s: contact gap refusal %q, want the closest topics named", offTopic, msg)
		}
		high := contactPool(false)
		high[0].Relevance = 0.9
		if o = Decide(cfg, high, true, anyway); o.Decision != Ground || o.Checks["contact_gap"] || o.Checks["contact_hit"] {
			t.Fatalf("%s: contact above good_enough, no contact detail: %s %v, want ground by the thresholds", offTopic, o.Decision, o.Checks)
		}
		// a phone question with relevance high but no phone number in the pool
		high = contactPool(false)
		high[0].Relevance = 0.9
		if o = Decide(cfg, high, true, phone); o.Decision != Refuse || !o.Checks["contact_gap"] {
			t.Fatalf("%s: phone, relevant pool without a number: %s %v, want refused as on-topic", offTopic, o.Decision, o.Checks)
		}
		// not the service's own number: the thresholds alone
		if o = Decide(cfg, contactPool(true), true, Ask{Type: "phone"}); o.Decision == Ground || o.Checks["contact"] {
			t.Fatalf("%s: a phone number, not the service's: %s %v, want the thresholds' decision", offTopic, o.Decision, o.Checks)
		}
	}
}

// Assess marks, for a contact question of no type, the passages that hold
// a way to reach the service (a phone number, an email address or a
// street address), and not opening hours alone; a typed contact question
// keeps its own type's mark, and a question that is not a contact
// question marks none.
func TestAssessContactAny(t *testing.T) {
	texts := map[string]string{
		"phone":   "Call the shop on 0161 496 0123 if your bike is not ready.",
		"email":   "Write to service@bikeshop.co.uk with your order number.",
		"address": "The workshop is at 14 Mill Road, Cambridge.",
		"hours":   "Open Tuesday to Saturday 9am-5:30pm, closed on Sundays.",
		"refund":  "Refunds are paid within 14 days of the return.",
	}
	ids := []string{"phone", "email", "address", "hours", "refund"}
	for _, tt := range []struct {
		q    string
		want []string // ids with TypeHit
	}{
		{"how can i contact you", []string{"phone", "email", "address"}},
		{"can i speak to someone", []string{"phone", "email", "address"}},
		{"whats your email", []string{"email"}},
		{"can i get a refund", nil},
	} {
		for _, cached := range []bool{false, true} {
			cands := make([]Candidate, len(ids))
			for i, id := range ids {
				cands[i] = Candidate{ID: id, Text: texts[id], Rerank: 0.1}
				if cached {
					cands[i].Terms = NewPassageTerms(strings.Fields, "", texts[id])
				}
			}
			DefaultAnswerModel().Assess(PrepareQuestion(strings.Fields, tt.q, nil), cands)
			var got []string
			for _, c := range cands {
				if c.TypeHit {
					got = append(got, c.ID)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%q (terms cached %v): TypeHit on %v, want %v", tt.q, cached, got, tt.want)
			}
		}
	}
}

// A follow-up's question is the previous user message and the last one
// together; its ask is the last one's alone (AskFrom).
func TestAskFromLastMessage(t *testing.T) {
	for _, tt := range []struct {
		prev, last string
		want       Ask
	}{
		{"what time do you open on saturday?", "how much is it for kids?", Ask{Type: "cost"}},
		{"how much is a cat groom?", "and on sunday?", Ask{}},
		{"what's your phone number?", "and your email?", Ask{Type: "email", Contact: true}},
	} {
		pq := PrepareQuestion(strings.Fields, tt.prev+"\n"+tt.last, nil)
		pq.AskFrom(tt.last)
		if got := pq.Ask(); got != tt.want {
			t.Errorf("AskFrom(%q) after %q = %+v, want %+v", tt.last, tt.prev, got, tt.want)
		}
	}
	// Without AskFrom the joined text would ask the earlier question's time.
	joined := PrepareQuestion(strings.Fields, "what time do you open on saturday?\nhow much is it for kids?", nil)
	if got := joined.Ask(); got == (Ask{Type: "cost"}) {
		t.Errorf("the joined text alone asks %+v: the test does not show AskFrom's effect", got)
	}
}
