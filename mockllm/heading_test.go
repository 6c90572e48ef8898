package mockllm

import "testing"

// A Markdown chunk's numbered heading, joined to its clauses in the notes, is
// not what the simulated model quotes (operator trial 5: 85 of 117 policy
// claims were bare headings such as "2.2 The excess.").
func TestDropHeadings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"4. How to make a claim. 4.1 Call our claims line on 0800 555 0142, open 24 hours a day.",
			"4.1 Call our claims line on 0800 555 0142, open 24 hours a day."},
		{"Section 6: General conditions and exclusions. 6.1 Paying your premium. You pay monthly or yearly.",
			"You pay monthly or yearly."},
		{"2.2 The excess. The excess is the first part of each claim you pay.",
			"The excess is the first part of each claim you pay."},
		// No section label, or a long first sentence: kept.
		{"Puncture repair costs 8 pounds per wheel.", "Puncture repair costs 8 pounds per wheel."},
		{"4.1 Call our claims line on 0800 555 0142, open 24 hours a day.", "4.1 Call our claims line on 0800 555 0142, open 24 hours a day."},
		{"2.5 kg bags are sold at the counter by the front door of the shop.", "2.5 kg bags are sold at the counter by the front door of the shop."},
		{"2.5 kg bags cost 4 pounds. Ask at the counter.", "2.5 kg bags cost 4 pounds. Ask at the counter."},
		// A list's lead that ends in a colon is the clause, not a heading
		// (operator trial 6: the lead was dropped and "(a) anything
		// flammable, including petrol" quoted alone).
		{"4.1 You must not store: (a) anything flammable, including petrol; (b) food.",
			"4.1 You must not store: (a) anything flammable, including petrol; (b) food."},
		{"4. What you must not store. 4.1 You must not store: (a) petrol; (b) food.",
			"4.1 You must not store: (a) petrol; (b) food."},
		// A short numbered rule is a clause, not a heading (operator trial
		// 7: "12. Dogs must be kept on a lead." was dropped).
		{"12. Dogs must be kept on a lead. 13. No glass on the grass.",
			"12. Dogs must be kept on a lead. 13. No glass on the grass."},
		{"11. No ball games. 12. Dogs must be kept on a lead.",
			"11. No ball games. 12. Dogs must be kept on a lead."},
		{"10. Park rules. 11. No ball games.", "11. No ball games."},
		{"Rule 3: Bikes are not allowed. More text.", "Rule 3: Bikes are not allowed. More text."},
		// A note that is only a heading stays whole.
		{"3. Your right to cancel.", "3. Your right to cancel."},
	} {
		if got := dropHeadings(c.in); got != c.want {
			t.Errorf("dropHeadings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
