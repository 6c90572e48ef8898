package gate

import (
	"slices"
	"testing"
)

func TestTaskRequest(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"write me a short poem about autumn", true},
		{"Write a haiku about rain", true},
		{"thanks! unrelated but could you help me write a birthday message for my sister", true},
		{"hey can you tell me a joke while my washing finishes", true},
		{"translate good morning into German", true},
		{"translate 'good morning' into french", true},
		{"give me a recipe for lasagne", true},
		{"what's a good recipe for banana bread?", true},
		{"suggest a name for my cat", true},
		{"write me a short instagram caption for my salon’s summer offer", true},
		{"can you write a funny little leaving speech for my boss", true},
		{"could you draft a polite cover letter for a receptionist job", true},
		{"can you write a note on my booking saying it's for my mum's birthday", false},
		{"Write me a four-week workout plan for a beginner.", true},
		{"can you write me a party invite for my son’s 6th birthday? dinosaur theme", true},
		{"could you make me a meal plan for the week", true},
		{"can you make me an appointment for a swim lesson", false},
		{"do you make birthday cakes for parties?", false},
		{"can you write me a receipt for my membership?", false},
		{"do you have a payment plan?", false},
		{"can you write a short line on the invoice about the deposit?", false},
		{"can you write happy birthday on it", false},
		{"can you write the name on the cake?", false},
		{"do you have a recipe book for sale?", false},
		{"how do I get my certificate translated?", false},
		{"is the story time session free?", false},
		{"do you make birthday cakes?", false},
		{"can I write a review?", false},
		{"Write me a five-star review for a B&B we stayed at last month.", true},
		{"Write me a Google review for a phone repair shop.", true},
		{"can you write a short testimonial for my cleaner", true},
		{"Write me a LinkedIn post announcing that I've joined a coworking space.", true},
		{"can u write a limerick about a turnip", true},
		{"can u post my parcel today?", false},
		{"can u write my personal statement for uni", true},
		{"can u make me a spreadsheet template to track my household bills", true},
		{"do you do my homework with me or just explain it?", false},
		{"can you help me do my homework on fractions?", false},
		{"can you send me the booking template?", false},
		{"can you post the key back to me", false},
		{"where can I leave a review?", false},
		{"do you want me to write a review on google?", false},
		{"tell me about your opening hours", false},
		{"can you send me a copy of my invoice", false},
		{"could you write me a text to send my boss saying i’ll be late tomorrow", true},
		{"can you write an email to my landlord about the boiler", true},
		{"can you send a text to my mum when the car is ready?", false},
		{"can you email my insurer the invoice?", false},
		{"Write a letter to my landlord giving notice on my tenancy", true},
		{"Write me a letter to the council complaining about fly-tipping on our road.", true},
		{"Can you draw up a planting plan for a 5 rod plot with a four year crop rotation?", true},
		{"can you put together a meal plan for the week", true},
		{"can you write a letter confirming my booking for my employer", false},
		{"can you draw up a contract for the hire", false},
	} {
		if got := taskRequest(tt.q); got != tt.want {
			t.Errorf("taskRequest(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// A request to make something, or a message that says it is unrelated to
// the service, is handled as off-topic even when a word it shares with the
// corpus makes a passage look relevant: a fallback, or a refusal with
// gate.off_topic refuse; never grounded, never refused as on the corpus's
// topic. A contact question is never an aside.
func TestDecideOffTopicByForm(t *testing.T) {
	cands := []Candidate{
		{ID: "wash", Kind: "lecture", Rerank: 0.95, Semantic: true, Sim: 0.6},
		{ID: "dry", Kind: "lecture", Rerank: 0.9, Semantic: true, Sim: 0.5},
	}
	for _, tc := range []struct {
		q, check string
		is       func(Ask) bool
	}{
		{"hey can you tell me a joke while my washing finishes", "task", func(a Ask) bool { return a.Task && !a.Aside }},
		{"cheers. random q but whats a good family car under 10k", "aside", func(a Ask) bool { return a.Aside && !a.Task }},
		{"whats the best way to get red wine out of a carpet lol", "advice", func(a Ask) bool { return a.Advice && !a.Task && !a.Aside }},
	} {
		ask := AskOf(tc.q)
		if !tc.is(ask) {
			t.Fatalf("AskOf(%q) = %+v, want %s alone", tc.q, ask, tc.check)
		}
		cfg := rerankConfig()
		cfg.OnTopicSim = 0.3
		if o := Decide(cfg, cands, true, Ask{}); o.Decision != Ground {
			t.Fatalf("as a question: %v, want ground (the test would show nothing)", o.Decision)
		}
		if o := Decide(cfg, cands, true, ask); o.Decision != Fallback || len(o.Notes) != 0 || !o.Checks[tc.check] || o.Checks["on_topic"] {
			t.Errorf("%s: %v notes %d checks %v, want fallback without notes", tc.check, o.Decision, len(o.Notes), o.Checks)
		}
		cfg.OffTopic = OffTopicRefuse
		if o := Decide(cfg, cands, true, ask); o.Decision != Refuse || !o.Checks["off_topic"] {
			t.Errorf("%s, off_topic refuse: %v checks %v, want refused as off-topic", tc.check, o.Decision, o.Checks)
		}
		var pq Question
		pq.AskFrom(tc.q)
		if !tc.is(pq.Ask()) {
			t.Errorf("Question.AskFrom(%q).Ask() = %+v, want %s", tc.q, pq.Ask(), tc.check)
		}
	}
	if a := AskOf("unrelated, but what's your phone number?"); a.Aside || !a.Contact {
		t.Errorf("a contact question read as %+v, want a contact question and no aside", a)
	}
}

// BenchmarkTaskRequest: a question without a task verb (no search) and a
// request.
func BenchmarkTaskRequest(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"question", "what time do you close on sundays"},
		{"request", "hey can you tell me a joke while my washing finishes"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				taskRequest(bc.q)
			}
		})
	}
}

// TestAdviceRequest: "what's the best way to V" and "any tips for" ask for
// general advice; a step of dealing with the service ("the best way to
// book", "to get to you"), a message that speaks to the service, and the
// forms that ask about its own offer do not.
func TestAdviceRequest(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"What's the best way to wrap wine glasses so they don't break?", true},
		{"whats the best way to get rid of slugs on my lettuces", true},
		{"what is the easiest way to get a dent out of my car door", true},
		{"any tips for packing glasses so they dont break? doing it ourselves", true},
		{"Actually, my cat keeps scratching the sofa, any tips to stop that?", true},
		{"hi, tips for keeping cut flowers fresh overnight?", true},
		{"whats the best way to book", false},
		{"what's the best way to get to the site by bus?", false},
		{"what's the best way to get in touch with the office", false},
		{"what's the best way to clean the machines before I use yours?", false},
		{"any tips for parking near you?", false},
		{"what's the best package for a family of four?", false},
		{"is the excess waiver worth it?", false},
		{"i'm driving it home myself, any tips", false},
		{"which way is the entrance?", false},
		{"How do I fix a puncture myself at the side of the road?", true},
		{"how do i lay a patio myself", true},
		{"How do I make pizza dough at home?", true},
		{"how can we keep the kids busy at home on a rainy day?", true},
		{"how do I book myself onto the course?", false},
		{"how do I pay for myself and a friend?", false},
		{"can I do the theory test at home?", false},
		{"how do I fit the seat you sold me myself?", false},
		{"I did it myself. How long is the warranty?", false},
	} {
		if got := adviceRequest(tt.q); got != tt.want {
			t.Errorf("adviceRequest(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if a := AskOf("what's the best way to reach you by phone?"); a.Advice || !a.Contact {
		t.Errorf("a contact question read as %+v", a)
	}
}

// BenchmarkAdviceRequest: a question without "way" or "tips" (no search),
// one with "way" that is no request, and a request.
func BenchmarkAdviceRequest(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"question", "what time do you close on sundays"},
		{"mark word", "which way is the entrance from the car park?"},
		{"advice", "whats the best way to get red wine out of a carpet lol"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				adviceRequest(bc.q)
			}
		})
	}
}

// BenchmarkAsideMark: a question with none of the marks (no search), one
// with a mark word that is no aside, and an aside.
func BenchmarkAsideMark(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"question", "what time do you close on sundays"},
		{"mark word", "do you do a different price for students?"},
		{"aside", "cheers. random q but whats a good family car under 10k"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				asideMark(bc.q)
			}
		})
	}
}

// A question about another business (Ask.Other) is handled as off-topic on a
// one-topic partition, whatever its passages' relevance; with
// other_business off, or on a mixed archive, the thresholds decide.
func TestDecideOtherBusinessOffTopic(t *testing.T) {
	cands := []Candidate{
		{ID: "tests", Kind: "lecture", Rerank: 0.95, Semantic: true, Sim: 0.6, Coherence: 0.6},
		{ID: "prices", Kind: "lecture", Rerank: 0.9, Semantic: true, Sim: 0.5, Coherence: 0.6},
	}
	cfg := rerankConfig()
	cfg.OnTopicSim = 0.3
	ask := Ask{Type: "cost", Other: "Specsavers"}
	if o := Decide(cfg, cands, true, Ask{Type: "cost"}); o.Decision != Ground {
		t.Fatalf("without the name: %v, want ground (the test would show nothing)", o.Decision)
	}
	o := Decide(cfg, cands, true, ask)
	if o.Decision != Fallback || len(o.Notes) != 0 || !o.Checks["other_business"] || o.Checks["on_topic"] {
		t.Errorf("other business: %v notes %d checks %v, want fallback without notes", o.Decision, len(o.Notes), o.Checks)
	}
	cfg.OffTopic = OffTopicRefuse
	if o := Decide(cfg, cands, true, ask); o.Decision != Refuse || !o.Checks["off_topic"] {
		t.Errorf("off_topic refuse: %v checks %v, want refused as off-topic", o.Decision, o.Checks)
	}
	cfg.OffTopic = OffTopicFallback
	if o := Decide(cfg, cands, true, Ask{Contact: true, Type: "phone", Other: "BT"}); o.Checks["other_business"] {
		t.Errorf("a contact question: other_business applied")
	}
	mixed := slices.Clone(cands)
	for i := range mixed {
		mixed[i].Coherence = 0.1
	}
	if o := Decide(cfg, mixed, true, ask); o.Decision != Ground {
		t.Errorf("mixed archive: %v, want ground (the rule keeps to one-topic partitions)", o.Decision)
	}
	cfg.OtherBusiness = false
	if o := Decide(cfg, cands, true, ask); o.Decision != Ground {
		t.Errorf("other_business off: %v, want ground", o.Decision)
	}
	var pq Question
	pq.SetOther("Specsavers")
	if pq.Ask().Other != "Specsavers" {
		t.Errorf("Question.SetOther: Ask().Other = %q", pq.Ask().Other)
	}
}

func TestAsideMark(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"thanks! unrelated but whats the weather going to be like in loughford next tuesday", true},
		{"cheers. random q but whats a good family car under 10k", true},
		{"Great. Unrelated, but how do I get my kids to eat more vegetables?", true},
		{"ok thanks. unrelated, whats a good recipe for a sunday roast", true},
		{"totally unrelated but how do i get rid of hiccups", true},
		{"ok ta. random q, how tall is the eiffel tower", true},
		{"off topic: what's the best phone to buy?", true},
		{"slightly off-topic, but do you know a good pub nearby?", true},
		{"random question - who won the match last night", true},
		{"not related but what's a good film this weekend", true},
		{"on a different note, how do I fix a dripping tap?", true},
		{"btw do you do gift vouchers?", false},
		{"by the way can I bring my dog?", false},
		{"are the two bookings related?", false},
		{"is there a discount for unrelated adults sharing a room?", false},
		{"can I book a random slot on saturday?", false},
		{"what topics does the course cover?", false},
		{"do you do a different price for students?", false},
		{"my question is about the subject of refunds", false},
		{"how much is it for a group of unrelated people", false},
	} {
		if got := asideMark(tt.q); got != tt.want {
			t.Errorf("asideMark(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// BenchmarkSpeaksToService: every question is read for a word that
// addresses the service (Ask.You).
func BenchmarkSpeaksToService(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"none", "How much is a new screen for an iPhone 11 with the battery too?"},
		{"you", "hi do u do a discount for students?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				speaksToService(bc.q)
			}
		})
	}
}
