package quotefold

import "testing"

func TestFold(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"don’t", "don't"},
		{"‘yes’ and “no”", `'yes' and "no"`},
		{"hotelʼs 5′ 6″", `hotel's 5' 6"`},
		{"£5 — no quote €", "£5 — no quote €"},
		{"", ""},
	} {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if MayHold(tt.in) != (tt.in != tt.want) {
			t.Errorf("MayHold(%q) = %v", tt.in, MayHold(tt.in))
		}
	}
	if n := testing.AllocsPerRun(100, func() { Fold("£5 — no quote €") }); n != 0 {
		t.Errorf("Fold of a text without quotes allocates %v times", n)
	}
}
