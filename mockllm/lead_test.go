package mockllm

import (
	"encoding/json"
	"strings"
	"testing"
)

// A note's unnumbered heading and a FAQ row's opening question are not
// claims the simulated model quotes: "What is the deposit?" in an answer
// read as a claim and a heading as an uncited one.
func TestDropLead(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// a Markdown page's heading, ended with a full stop by the prompt
		{"Opening hours. We are open Tuesday to Saturday, 9am to 5:30pm.", "We are open Tuesday to Saturday, 9am to 5:30pm."},
		{"Bike servicing. Hire bikes. A full service costs 60 pounds.", "A full service costs 60 pounds."},
		// a FAQ row: its question, with or without labels
		{"What is the deposit? The deposit is 50 pounds, paid when you book.", "The deposit is 50 pounds, paid when you book."},
		{"Q: Can I bring my dog? A: Dogs on a lead are welcome in the garden.", "Dogs on a lead are welcome in the garden."},
		// claims stay
		{"We are closed on Mondays. Call us on 0800 555 0142.", "We are closed on Mondays. Call us on 0800 555 0142."},
		{"Puncture repair costs 8 pounds per wheel.", "Puncture repair costs 8 pounds per wheel."},
		{"Seniors over 65 pay 4.50 euros. Children under 3 swim free.", "Seniors over 65 pay 4.50 euros. Children under 3 swim free."},
		{"It is free. Bring a towel.", "It is free. Bring a towel."},
		// a note that is only a heading or a question stays whole
		{"Opening hours.", "Opening hours."},
		{"What is the deposit?", "What is the deposit?"},
	} {
		if got := dropLead(c.in); got != c.want {
			t.Errorf("dropLead(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The answer to a prompt holding a Markdown note and a Q/A row quotes
// their claims, not the heading or the question.
func TestAnswerSkipsHeadingAndQuestion(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Pace = 0
	cfg.Faults = Faults{}
	body := `{"model":"m","messages":[{"role":"system","content":"Notes:\n` +
		`[^1] (kind: library; address: Prices) Swimming prices. Adults pay 5.20 euros and children under 16 pay 3 euros.\n` +
		`[^2] (kind: library; address: FAQ 2) What is the deposit? The deposit for a party booking is 50 euros."},` +
		`{"role":"user","content":"how much is it?"}]}`
	var req chatRequest
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	a := generator{cfg: cfg}.build(&req, []byte(body), "x")
	got := strings.Join(a.pieces, "")
	for _, bad := range []string{"Swimming prices", "What is the deposit"} {
		if strings.Contains(got, bad) {
			t.Errorf("answer %q quotes %q", got, bad)
		}
	}
	for _, want := range []string{"Adults pay 5.20 euros", "The deposit for a party booking is 50 euros"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer %q lacks %q", got, want)
		}
	}
}

// A heading that lists its topics with commas is a heading, not a claim
// ("Fires, barbecues and gas [1]." was quoted); a short claim with a comma
// is still a claim.
func TestDropLeadListHeading(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Fires, barbecues and gas. Open fires are not allowed on the plots.", "Open fires are not allowed on the plots."},
		{"Pets, bikes, and prams. Dogs must be kept on a lead.", "Dogs must be kept on a lead."},
		{"Sheds, greenhouses or polytunnels. Ask the committee before you build.", "Ask the committee before you build."},
		// claims with a comma stay
		{"Yes, dogs welcome. Keep them on a lead.", "Yes, dogs welcome. Keep them on a lead."},
		{"Sorry, closed. Come back on Monday.", "Sorry, closed. Come back on Monday."},
		{"Fires, barbecues and gas are banned. Ask the warden.", "Fires, barbecues and gas are banned. Ask the warden."},
		{"Fires and barbecues, gas heaters and open flames. See rule 4.", "Fires and barbecues, gas heaters and open flames. See rule 4."},
	} {
		if got := dropLead(c.in); got != c.want {
			t.Errorf("dropLead(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
