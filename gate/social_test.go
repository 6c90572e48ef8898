package gate

import (
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/quotefold"
)

func TestFocus(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"hi there, can we bring our own snacks?", "can we bring our own snacks?"},
		{"Hello! What time do you open on Sunday? Thanks!", "What time do you open on Sunday?"},
		{"hiya i’m after a price for a double duvet ta", "i'm after a price for a double duvet"},
		{"hi sarah, is the car park free", "is the car park free"},
		{"hi can i bring my dog", "can i bring my dog"},
		{"Good morning team. Hope you're well. Do you sell gift vouchers?", "Do you sell gift vouchers?"},
		{"sorry to bother you but do you open on bank holidays", "do you open on bank holidays"},
		{"quick question: how much is parking?", "how much is parking?"},
		{"hi there, I booked for saturday with my two kids. can we bring our own snacks? thank you in advance :)", "I booked for saturday with my two kids. can we bring our own snacks?"},
		{"how much is it for kids please", "how much is it for kids"},
		{"what time do you close? cheers", "what time do you close?"},
		{"what time do you close? thx", "what time do you close?"},
		{"can I pay by card thanks xx", "can I pay by card"},
		{"is it open today? cheers :D", "is it open today?"},
		{"do you sell fresh pasta", "do you sell fresh pasta"},
		{"do you give to charity", "do you give to charity"},
		{"Many thanks", "Many thanks"},
		{"hi there", "hi there"},
		{"thanks for the help", "thanks for the help"},
		{"thanks! what's the capital of france?", "what's the capital of france?"},
		{"ok thanks, and on sunday?", "and on sunday?"},
		{"Great, thank you. How much is it for kids?", "How much is it for kids?"},
		{"thanks to your staff the party was great", "thanks to your staff the party was great"},
		// not a greeting or a courtesy: unchanged
		{"is there a hire charge for the hall?", "is there a hire charge for the hall?"},
		{"how do I say thank you to the staff", "how do I say thank you to the staff"},
		{"Heysham ferry times", "Heysham ferry times"},
		{"morning sessions for toddlers?", "morning sessions for toddlers?"},
		{"evening classes", "evening classes"},
		{"do you take tips", "do you take tips"},
		{"is the pool open on Christmas day", "is the pool open on Christmas day"},
		{"what does ta mean on my bill", "what does ta mean on my bill"},
	} {
		if got := Focus(tt.in); got != tt.want {
			t.Errorf("Focus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Focus never panics, and what it returns is the message or a part of it
// (typographic quotes read as ASCII, a question mark kept).
func FuzzFocus(f *testing.F) {
	for _, s := range []string{"hi there, can we bring snacks? thanks!", "thanks!", "Hope you’re well. Is it free?", "ok thanks, and on sunday?", "",
		"is it open? thx", "card ok thanks xx", "open today? cheers :D", "help me with the form, thank you so much for your help in advance :-)", "0 0 Cheers:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Focus(s)
		if ref := focusRef(s); got != ref {
			t.Errorf("Focus(%q) = %q, the patterns over the whole message give %q", s, got, ref)
		}
		if got == s {
			return
		}
		if !strings.Contains(quotefold.Fold(strings.TrimSpace(s)), strings.TrimSuffix(got, "?")) {
			t.Errorf("Focus(%q) = %q, not a part of it", s, got)
		}
	})
}

// BenchmarkFocus: a plain question (the common case: no search past the
// first word and the last) and a chat message with a greeting and thanks.
func BenchmarkFocus(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"plain", "how much does an allotment cost per year?"},
		{"chat", "hi there, I booked for saturday with my two kids. can we bring our own snacks? thank you in advance :)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				Focus(bc.q)
			}
		})
	}
}

// focusRef is Focus without its shortcuts (mayEndSocial, tailWindow): the
// patterns searched over the whole message.
func focusRef(q string) string {
	folded := quotefold.Fold(strings.TrimSpace(q))
	changed := false
	for range 3 {
		loc := socialLead.FindStringIndex(folded)
		if loc == nil || loc[1] == 0 {
			break
		}
		folded, changed = folded[loc[1]:], true
	}
	if loc := socialTail.FindStringIndex(folded); loc != nil && loc[0] > 0 {
		mark := strings.Contains(folded[loc[0]:], "?")
		folded = strings.TrimRight(folded[:loc[0]], " ,;:-")
		if mark && !strings.HasSuffix(folded, "?") {
			folded += "?"
		}
		changed = true
	}
	if !changed || len(strings.Fields(folded)) < 2 {
		return q
	}
	return folded
}
