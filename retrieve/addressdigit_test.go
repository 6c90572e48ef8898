package retrieve

import (
	"regexp"
	"testing"
)

func TestNeedsDigit(t *testing.T) {
	for _, p := range DefaultConfig().AddressPatterns {
		if !needsDigit(p) {
			t.Errorf("needsDigit(%q) = false for a default address pattern", p)
		}
	}
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{`x\d`, true}, {`(a|b)\d`, true}, {`\d+`, true}, {`a1`, true}, {`(?i)A1`, true}, {`(\d|[0-9])`, true}, {`[0-5]{2,}`, true},
		{`\w+`, false}, {`a|\d`, false}, {`[a-z0-9]+`, false}, {`\d*`, false}, {`(?:\d)?`, false}, {`[^a]`, false}, {`\pN`, false},
		{`(`, false}, {``, false}, {`x{0}\d{0,2}`, false},
	} {
		if got := needsDigit(tc.p); got != tc.want {
			t.Errorf("needsDigit(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
	// a pattern said to need a digit matches no text without one
	texts := []string{"", "John three sixteen", "HB 1.2", "error LF-4002", "Mark 10:19", "lf-four", "①②", "٣ ٤", "John 3:16", "seats counted"}
	for _, p := range append(DefaultConfig().AddressPatterns, `x\d`, `\d+`, `(?i)a1`) {
		re := regexp.MustCompile(p)
		for _, s := range texts {
			if !hasDigit(s) && re.MatchString(s) {
				t.Errorf("%q matches %q, which has no digit", p, s)
			}
		}
	}
}

// BenchmarkAddressPatterns runs the default address patterns over the demo
// questions (one of eight has a digit), as the address lane did ("all")
// and with the digit test before each pattern ("digit").
func BenchmarkAddressPatterns(b *testing.B) {
	qs := []string{"How do I restore a backup?", "How do I set up OpenID Connect?", "Why does search return nothing?",
		"Can two people edit the same page at once?", "How do I encrypt off-site backups?", "What does error LF-4002 mean?",
		"Which database does Lanternfish need?", "What is the maximum attachment size?"}
	var res []*regexp.Regexp
	var digit []bool
	for _, p := range DefaultConfig().AddressPatterns {
		res, digit = append(res, regexp.MustCompile(p)), append(digit, needsDigit(p))
	}
	for _, filter := range []bool{false, true} {
		name := map[bool]string{false: "all", true: "digit"}[filter]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := qs[i%len(qs)]
				i++
				digits := hasDigit(q)
				for k, re := range res {
					if filter && digit[k] && !digits {
						continue
					}
					re.FindAllString(q, 8)
				}
			}
		})
	}
}
