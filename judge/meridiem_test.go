package judge

import "testing"

func TestNormMeridiem(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"The bakery opens at 6 a.m.", "The bakery opens at 6am."},
		{"Quiet hours start at 10 p.m. and end at 7 a.m.", "Quiet hours start at 10pm and end at 7am."},
		{"Doors close at 11 P.M. Guests must leave.", "Doors close at 11PM. Guests must leave."},
		{"Doors close at 11 pm, not 10 am", "Doors close at 11pm, not 10am"},
		{"It draws 5 amps at 9pm", "It draws 5 amps at 9pm"},
		{"The 2 pm. slot", "The 2pm. slot"},
		{"from 9.30a.m. to 5p.m., daily", "from 9.30am to 5pm, daily"},
		{"Open 8 a.m.-6 p.m. on weekdays", "Open 8am-6pm on weekdays"},
		{"Ask for a.m. slots", "Ask for a.m. slots"},
		{"See p.m. or the map", "See p.m. or the map"},
		{"no clock here", "no clock here"},
	} {
		if got := normMeridiem(tt.in); got != tt.want {
			t.Errorf("normMeridiem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A time written "a.m."/"p.m." or apart from its number reads as a time,
// in the claim and in the source.
func TestMeridiemVerdicts(t *testing.T) {
	bakery := "The bakery opens at 6am and closes at 2pm."
	quiet := "Quiet hours start at 10 p.m. and end at 7 a.m."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{bakery, "The bakery opens at 6 a.m.", Entailment},
		{bakery, "The bakery closes at 4 p.m.", Contradiction},
		{quiet, "Quiet hours start at 10pm.", Entailment},
		{quiet, "Quiet hours start at 11pm.", Contradiction},
		{"Quiet hours start at 10 pm and end at 7 am.", "Quiet hours start at 10pm.", Entailment},
	})
}

// normMeridiem never panics, never lengthens its text, and is done in one
// pass.
func FuzzNormMeridiem(f *testing.F) {
	for _, s := range []string{"6 a.m.", "at 10 p.m. Guests", "5 amps", "9.30a.m.", "p.m.", "1 p", "2 a.", "3 pm.", "12 P.M.\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := normMeridiem(s)
		if len(got) > len(s) {
			t.Fatalf("normMeridiem(%q) = %q, longer", s, got)
		}
		if again := normMeridiem(got); again != got {
			t.Fatalf("normMeridiem(%q) = %q, then %q", s, got, again)
		}
	})
}
