package retrieve

import (
	"strings"
	"testing"
)

// otherParty finds another business by the form that makes it the one
// asked about, and only a word the corpus never uses; the service's own
// names, possessives of everyday words and places are not taken.
func TestOtherParty(t *testing.T) {
	corpus := map[string]bool{"eye": true, "test": true, "glasses": true, "brightsight": true, "plan": true, "escape": true}
	knows := func(w string) bool { return corpus[w] }
	common := map[string]int{"dealer": 3000, "yours": 900, "spaniel": 9000, "dad": 800, "mate": 4000, "sky": 2000,
		"tv": 1500, "monkey": 4500, "business": 300, "wolverhampton": 12000, "washing": 3500, "gp": 7000, "uk": 1914, "odeon": 46498, "bt": 7203, "vodafone": 15406, "virgin": 3000, "google": 4087, "boots": 6000, "amex": 40536,
		"the": 1, "apple": 2500, "store": 900, "rhs": 30000, "garden": 1200, "harlow": 25000, "carr": 14000, "shop": 700, "each": 300, "other": 80, "ticket": 2500, "adults": 3000, "two": 50, "london": 500, "course": 400, "value": 600,
		"units": 2000, "small": 400, "big": 500, "family": 300, "prices": 1500, "in": 5, "is": 8}
	rank := func(w string) int {
		if r, ok := common[w]; ok {
			return r
		}
		return -1
	}
	for _, tt := range []struct{ q, want string }{
		{"How much does Specsavers charge for an eye test?", "Specsavers"},
		{"how much does specsavers charge for an eye test", "specsavers"},
		{"How much does Escape Hunt charge for a team of four?", "Escape Hunt"},
		{"How much does Black Rose Ink charge for a small tattoo?", "Black Rose Ink"},
		{"How do I cancel my Sky TV subscription?", "Sky TV"},
		{"How much would the Apple Store charge to replace an iPhone 14 screen?", "Apple Store"},
		{"Is RHS Garden Harlow Carr open on Mondays?", "RHS Garden Harlow Carr"},
		{"is the shop open on bank holidays?", ""},
		{"Is Brightsight open on Sundays?", ""},
		{"how much would you charge for an eye test?", ""},
		{"How do I cancel my Fresha subscription?", "Fresha"},
		{"What's BT's customer service number?", "BT"},
		{"is monkey business in wolverhampton cheaper than you", "wolverhampton"},
		{"How much are tickets at the Odeon in Plymouth?", "Odeon"},
		{"How much is a membership at PureGym in Maidstone?", "PureGym"},
		{"Is the Instituto Cervantes course in London better value than yours?", "Instituto Cervantes"},
		{"How do your prices compare with Housekeep?", "Housekeep"},
		{"how does it compare to the Odeon", "Odeon"},
		{"how do the big and small units compare with each other?", ""},
		{"is the family ticket better value than two adults?", ""},
		// the service's own business
		{"How much does Brightsight charge for an eye test?", ""},
		{"can I cancel my plan?", ""},
		{"how much does a small spaniel's groom cost?", ""},
		{"Does my dad's carer have to pay?", ""},
		{"are you covered if my dog gets hurt at yours", ""},
		{"Will it mess up the warranty from the dealer?", ""},
		{"we have a note from the gp", ""},
		{"how much is it to use my phone in America?", ""},
		{"does my plan include calls to international numbers from the UK?", ""},
		{"What's the price of an eye test?", ""},
		{"How much do you charge for an eye test?", ""},
		// another business as the customer's own supplier: about the service
		{"can I keep my number when I switch from Vodafone?", ""},
		{"how much to adjust glasses I bought at Specsavers?", ""},
		{"can I pay with my Amex card?", ""},
		{"I'm still in my Virgin contract, will you pay the exit fee?", ""},
		{"can I link my Google account?", ""},
		{"do you accept prescriptions from Boots?", ""},
		{"How much do you charge at the Kirkstall shop?", ""},
	} {
		if got := otherParty(tt.q, knows, rank); !strings.EqualFold(got, tt.want) {
			t.Errorf("otherParty(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// BenchmarkOtherParty: a customer's question with no other business in it,
// and one with.
func BenchmarkOtherParty(b *testing.B) {
	knows := func(w string) bool { return len(w) > 6 }
	rank := func(w string) int { return len(w) * 1000 }
	for _, q := range []string{"hi, how much do you charge to fix a flat tyre on a kids bike?", "How much does Specsavers charge for an eye test?"} {
		b.Run(strings.Fields(q)[2], func(b *testing.B) {
			for b.Loop() {
				otherParty(q, knows, rank)
			}
		})
	}
}

// FuzzOtherParty: any text, no panic; a name found is made of the
// question's own words.
func FuzzOtherParty(f *testing.F) {
	for _, q := range []string{"How much does Specsavers charge for an eye test?", "What's BT's number?", "is X cheaper than you",
		"how much at the Odeon", "İİ \xff's at The", "my  subscription", "'s", "A's B's C's", "how much is it at"} {
		f.Add(q)
	}
	knows := func(w string) bool { return len(w)%3 == 0 }
	rank := func(w string) int { return len(w)*2000 - 3000 }
	f.Fuzz(func(t *testing.T, q string) {
		name := otherParty(q, knows, rank)
		for _, w := range strings.Fields(name) {
			if !strings.Contains(strings.ReplaceAll(q, "’", "'"), w) {
				t.Fatalf("otherParty(%q) = %q: %q is not the question's", q, name, w)
			}
		}
	})
}
