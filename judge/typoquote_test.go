package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// typographic returns s with every ASCII apostrophe written as ’ (U+2019)
// and its double quotes as “ and ” in turn, as answer models and pasted
// corpora write them.
func typographic(s string) string {
	s = strings.ReplaceAll(s, "'", "\u2019")
	var b strings.Builder
	open := true
	for _, r := range s {
		if r == '"' {
			if open {
				r = '\u201c'
			} else {
				r = '\u201d'
			}
			open = !open
		}
		b.WriteRune(r)
	}
	return b.String()
}

// contracted writes a text's negations and pronoun verbs as contractions
// with ASCII apostrophes ("do not" as "don't", "we are" as "we're"), so
// that the pairs that hold none are read with them too.
var contracted = strings.NewReplacer(
	"do not", "don't", "Do not", "Don't", "does not", "doesn't", "did not", "didn't",
	"is not", "isn't", "are not", "aren't", "was not", "wasn't", "were not", "weren't",
	"cannot", "can't", "Cannot", "Can't", "can not", "can't", "will not", "won't",
	"could not", "couldn't", "should not", "shouldn't", "would not", "wouldn't",
	"has not", "hasn't", "have not", "haven't", "need not", "needn't", "must not", "mustn't",
	"We are", "We're", "we are", "we're", "You are", "You're", "you are", "you're",
	"It is", "It's", "it is", "it's", "There is", "There's", "there is", "there's",
	"We will", "We'll", "we will", "we'll", "you will", "you'll", "You will", "You'll",
	"We have", "We've", "we have", "we've", "you would", "you'd", "You would", "You'd",
)

// pairFiles returns every claim/evidence pairs file of the bench: the
// judge pairs operators met and the trials' pairs.
func pairFiles(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob("../bench/testdata/judgepairs/*.jsonl")
	for _, tr := range []string{"trial5", "trial6", "trial7", "trial9", "trial10"} {
		name := filepath.Join("../bench/testdata", tr, "judge-pairs.jsonl")
		if _, err := os.Stat(name); err == nil {
			files = append(files, name)
		}
	}
	if len(files) < 12 {
		tb.Fatalf("only %d pairs files", len(files))
	}
	return files
}

// TestTypographicQuotesSameVerdict judges every pair of every pairs file,
// as written and with its negations contracted (contracted), each also
// with its apostrophes and double quotes typographic ("aren’t", “free”):
// the verdict (label and reason) must be the same. On main 5aaf16b, before
// the verifier read them, 55 of the 97 variants differed (8 of the 14
// pairs as written). The evidence quote must be the passage's words as
// written.
func TestTypographicQuotesSameVerdict(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	ctx := context.Background()
	n, changed, differ := 0, 0, 0
	for _, name := range pairFiles(t) {
		for _, p := range readPairs(t, name) {
			n++
			for k, rw := range []func(string) string{func(s string) string { return s }, contracted.Replace} {
				if all := p.Claim + "\n" + strings.Join(p.Evidence, "\n"); k == 1 && rw(all) == all {
					continue // no contraction to make: the pair as written
				}
				claim := rw(p.Claim)
				ev, tev := make([]Passage, len(p.Evidence)), make([]Passage, len(p.Evidence))
				same := typographic(claim) == claim
				for i, e := range p.Evidence {
					ev[i] = Passage{N: i + 1, ID: "p", Text: rw(e)}
					tev[i] = Passage{N: i + 1, ID: "p", Text: typographic(ev[i].Text)}
					same = same && tev[i].Text == ev[i].Text
				}
				if same {
					continue
				}
				changed++
				want, _ := l.Verify(ctx, claim, ev)
				got, _ := l.Verify(ctx, typographic(claim), tev)
				if got.Label != want.Label || got.Reason != want.Reason {
					differ++
					t.Errorf("%s %s (%s): typographic quotes give %s (%s), ASCII %s (%s)", filepath.Base(name), p.ID, [...]string{"as written", "contracted"}[k], got.Label, got.Reason, want.Label, want.Reason)
				}
				for i := range ev {
					if want.Evidence != "" && strings.Contains(ev[i].Text, want.Evidence) && !strings.Contains(tev[i].Text, got.Evidence) {
						t.Errorf("%s %s (%s): evidence %q is not in the passage as written", filepath.Base(name), p.ID, [...]string{"as written", "contracted"}[k], got.Evidence)
					}
				}
			}
		}
	}
	if changed < 90 {
		t.Fatalf("only %d variants of %d pairs hold a quote or apostrophe", changed, n)
	}
	t.Logf("%d pairs, %d variants with a quote or apostrophe, %d judged otherwise", n, changed, differ)
}

// TestTypographicApostropheVerdicts: the lead's cases (main 5aaf16b,
// guard judge --pairs), each with ’, ʼ and ‘ as well as ASCII.
func TestTypographicApostropheVerdicts(t *testing.T) {
	var cases []verdictCase
	for _, ap := range []string{"'", "\u2019", "\u02bc", "\u2018"} {
		cases = append(cases,
			verdictCase{"Dogs are allowed on the beach.", "Dogs aren" + ap + "t allowed on the beach.", Contradiction},
			verdictCase{"We accept cheques.", "We don" + ap + "t accept cheques.", Contradiction},
			verdictCase{"Parking is free.", "You don" + ap + "t pay for parking.", Entailment},
			verdictCase{"Entry is \u201cfree\u201d for children under 5.", "Children under 5 don" + ap + "t pay for entry.", Entailment},
			verdictCase{"We don" + ap + "t accept cheques.", "We accept cheques.", Contradiction},
			verdictCase{"We can" + ap + "t take bookings by phone.", "We don't take phone bookings.", "!" + Contradiction},
		)
	}
	checkVerdicts(t, NewLocal(DefaultConfig().Local), cases)
}

func TestNormQuotes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"don\u2019t", "don't"},
		{"\u201cfree\u201d and \u2018open\u2019", `"free" and 'open'`},
		{"itʼs 5\u2032 10\u2033", `it's 5' 10"`},
		{"caf\u00e9 \u2014 \u20ac5", "caf\u00e9 \u2014 \u20ac5"}, // other runes with the lead bytes kept
		{"plain", "plain"},
	} {
		if got := normQuotes(tt.in); got != tt.want {
			t.Errorf("normQuotes(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQuoteAsWritten(t *testing.T) {
	src := "We don\u2019t accept cheques. Cards are \u201cfine\u201d \u2014 any\u2019s ok."
	for _, tt := range []struct {
		q, want string
		ok      bool
	}{
		{"We don't accept cheques.", "We don\u2019t accept cheques.", true},
		{`Cards are "fine" — any's ok.`, "Cards are \u201cfine\u201d \u2014 any\u2019s ok.", true},
		{`"fine"`, "\u201cfine\u201d", true},
		{"not there", "not there", false},
	} {
		got, ok := quoteAsWritten(tt.q, src)
		if got != tt.want || ok != tt.ok {
			t.Errorf("quoteAsWritten(%q) = %q, %v, want %q, %v", tt.q, got, ok, tt.want, tt.ok)
		}
	}
	// a passage with a quote the verdict names: the quote as written
	l := NewLocal(DefaultConfig().Local)
	v, _ := l.Verify(context.Background(), "We accept cheques.", []Passage{{N: 1, ID: "p", Title: "Payment\u2019s ways", Text: src}})
	if v.Label != Contradiction || !strings.Contains(src, v.Evidence) || v.Evidence == "" {
		t.Errorf("Verify = %s %q, want a contradiction quoting the passage as written", v.Label, v.Evidence)
	}
	// a negated list's item, quoted with its lead
	list := "We don\u2019t cover:\n(a) wear and tear;\n(b) storm damage to \u201cgates\u201d and fences."
	v, _ = l.Verify(context.Background(), "Storm damage to fences is covered.", []Passage{{N: 1, ID: "p", Text: list}})
	if want := "We don\u2019t cover: (b) storm damage to \u201cgates\u201d and fences."; v.Label != Contradiction || v.Evidence != want {
		t.Errorf("Verify = %s %q, want a contradiction quoting %q", v.Label, v.Evidence, want)
	}
}

// TestTypographicFiller: filler and opinion cues read with ’ as with '.
func TestTypographicFiller(t *testing.T) {
	for _, s := range []string{"I don\u2019t know the opening hours of the pool.", "I can\u2019t find the price of a locker in the sources."} {
		if IsFactual(s) {
			t.Errorf("IsFactual(%q) = true, want false (as with an ASCII apostrophe)", s)
		}
		if a := strings.ReplaceAll(s, "\u2019", "'"); IsFactual(a) {
			t.Errorf("IsFactual(%q) = true, want false", a)
		}
	}
}

// TestNormQuotesNoCopy: a text without a typographic quote is returned
// as it is, with no allocation, "€" and "—" (the same lead byte) or not.
func TestNormQuotesNoCopy(t *testing.T) {
	s := "Entry costs \u20ac5 \u2014 children go free, 9am\u20135pm."
	if n := testing.AllocsPerRun(100, func() { normQuotes(s) }); n != 0 {
		t.Errorf("normQuotes allocates %v times, want 0", n)
	}
}
