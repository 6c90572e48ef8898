package gate

import "testing"

// An email address has a domain with a top-level label; a placeholder sender
// or a social handle is none, so "what's your email" is not grounded on it.
func TestHasEmailAddress(t *testing.T) {
	for text, want := range map[string]bool{
		"Write to bookings@harbourside-mutual.example any time.": true,
		"Email us at hello@kettle.co.uk.":                        true,
		"contact: a.b+c@mail.harbourside.org.uk":                 true,
		"The sender is lanternfish@HOST by default.":             false,
		"Follow us @kettleroasters for new roasts.":              false,
		"Set from: to ops@localhost":                             false,
		"user@host.1":                                            false,
		"no address here":                                        false,
		"x@y.z":                                                  false,
		"for example ana@example.com or wiki@mail.example.org":   false,
		"first@nowhere then mail@shop.example":                   true,
	} {
		if got := hasEmailAddress(text); got != want {
			t.Errorf("hasEmailAddress(%q) = %v, want %v", text, got, want)
		}
	}
}
