package gate

import "testing"

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
		{"Many thanks", "Many thanks"},
		{"hi there", "hi there"},
		{"thanks for the help", "thanks for the help"},
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
