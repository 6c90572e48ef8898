package judge

import (
	"bufio"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
)

// normPhrasesRegexp is normPhrases as it was before the need literals:
// every rule whose key the lowercased text contains runs its regexp. The
// reference TestNormPhrasesSameAsRegexp compares against.
func normPhrasesRegexp(text string) string {
	lower := strings.ToLower(text)
	for i, n := range phraseNorms {
		key := oldPhraseKeys[i]
		switch key {
		case "c":
			if !strings.Contains(lower, "free") && !strings.Contains(lower, "cost") && !strings.Contains(lower, "charge") {
				continue
			}
		case "o":
			if !strings.Contains(lower, "older") && !strings.Contains(lower, "above") && !strings.Contains(lower, "younger") &&
				!strings.Contains(lower, "below") && !strings.Contains(lower, " over") && !strings.Contains(lower, " under") {
				continue
			}
		default:
			if !strings.Contains(lower, key) {
				continue
			}
		}
		text = oldPhraseRes[i].ReplaceAllString(text, n.out)
		lower = strings.ToLower(text)
	}
	return text
}

// oldPhraseKeys and oldPhraseRes are the keys and patterns phraseNorms had,
// in its order, written out again so that a change to a pattern in
// phraseNorms shows here as a difference.
var (
	oldPhraseKeys = []string{"than", "than", "than", "than", "later than", "c", "admission", "friday", "week", "at once", "one time", " than", "apart from", "o", "o", "no ", "not be ", "not ", "under", "pay ", "no "}
	oldPhraseRes  = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(no|not) more than\b`),
		regexp.MustCompile(`(?i)\b(no|not) (less|fewer) than\b`),
		regexp.MustCompile(`(?i)\b(less|fewer|younger) than ` + numAlt),
		regexp.MustCompile(`(?i)\b(more|older) than ` + numAlt),
		regexp.MustCompile(`(?i)\bno later than\b`),
		regexp.MustCompile(`(?i)\b(at no (extra )?(cost|charge)|free of charge|without charge|for free|costs? nothing)\b`),
		regexp.MustCompile(`(?i)\bno admission (charge|fee)\b`),
		regexp.MustCompile(`(?i)\bmondays? (to|through|until|-) fridays?\b`),
		regexp.MustCompile(`(?i)\b(every day of the week|seven days a week|7 days a week)\b`),
		regexp.MustCompile(`(?i)\bat once\b`),
		regexp.MustCompile(`(?i)\bone time\b`),
		regexp.MustCompile(`(?i)\bother than\b`),
		regexp.MustCompile(`(?i)\bapart from\b`),
		regexp.MustCompile(`(?i)\b(or|and) (older|above)\b|\bor over\b`),
		regexp.MustCompile(`(?i)\b(or|and) (younger|below)\b|\bor under\b`),
		regexp.MustCompile(`(?i)\bno (extra |additional )?(charges?|fees?|costs?) (for|to)\b`),
		regexp.MustCompile(`(?i)\bnot be (under|below) ` + numAlt),
		regexp.MustCompile(`(?i)\bnot (possible|available|allowed|permitted|open) (before|until) (\d|noon\b|midday\b)`),
		regexp.MustCompile(`(?i)\bunder[ -]([1-9]|1[0-8])s\b`),
		regexp.MustCompile(`(?i)\b(do not|does not|don't|doesn't)( have to| need to)? pay (for|to)\b`),
		regexp.MustCompile(`(?i)\bno ([a-z]+(-[a-z]+)?) (before|until) (\d|noon\b|midday\b)`),
	}
)

// phraseWords are the words the rules are made of, near misses and
// runes (?i) folds to ASCII letters, for generated texts.
var phraseWords = []string{
	"no", "not", "more", "less", "fewer", "younger", "older", "than", "later", "at", "extra", "cost", "costs",
	"charge", "free", "of", "without", "for", "nothing", "admission", "fee", "monday", "mondays", "friday",
	"fridays", "to", "through", "until", "-", "every", "day", "the", "week", "seven", "7", "days", "a", "once",
	"one", "time", "other", "apart", "from", "or", "and", "above", "below", "over", "under", "two", "twelve",
	"twenty", "ten", "8", "18", "kg", "ages", "nor", "another", "onetime", "thane", "coſt", "\u212aids", "caf\u00e9",
	"MORE", "Than", "Free", "(", ")", ",", ".", "\"", "'", "x1", "eleven", "tenth", "1st",
	"charges", "fees", "additional", "be", "below", "possible", "available", "allowed", "permitted", "open",
	"before", "noon", "midday", "5s", "18s", "19s", "10s", "0s", "under-5s", "12S", "3pm",
	"pay", "do", "does", "don't", "doesn't", "did", "have", "need", "check-in", "check-", "entry", "in-", "pays", "tomorrow",
}

// phraseRuns are the rules' wordings whole, and near misses.
var phraseRuns = []string{
	"no more than", "not more than", "no fewer than", "not less than", "less than 5", "fewer than two", "younger than twelve",
	"more than 3", "older than ten", "more than tens", "no later than", "at no cost", "at no extra charge", "free of charge",
	"without charge", "for free", "costs nothing", "cost nothing", "no admission fee", "no admission charge",
	"monday to friday", "mondays through fridays", "monday - friday", "monday until friday", "every day of the week",
	"seven days a week", "7 days a week", "at once", "one time", "other than", "apart from", "or older", "and above",
	"or over", "or younger", "and below", "or under", "or overs", "anor older", "no morethan",
	"no charge for", "no extra fee to", "no additional costs for", "no charges towards", "no fee", "not be under 12",
	"not be below five", "not be under", "not possible before 3pm", "not open until noon", "not available until midday",
	"not allowed before", "not permitted until 10", "under 5s", "under-16s", "Under 18s", "under 19s", "under 5sx",
	"do not pay for", "does not pay to", "don't have to pay for", "doesn't need to pay to", "do not have to pay", "did not pay for",
	"don't pay tomorrow", "do not pay fort", "no check-in before 3pm", "no entry until noon", "no deliveries before 8",
	"no check-in-out before 3", "no before 3", "no check- before 3", "no entry before midday", "no entry until noons",
}

// Texts seeded from phraseWords, the scope tests' sentences and, when the
// shared data is present, SciFact abstracts: normPhrases gives what the
// regexp-only version gives.
func TestNormPhrasesSameAsRegexp(t *testing.T) {
	texts := []string{
		"Puncture repair costs 8 pounds per wheel, including a new inner tube, and the shop is open Tuesday to Saturday.",
		"Children under 5 travel free; children aged 5 to 15 pay half fare.",
		"The sauna is open to guests aged 18 and over.",
		"The reading room is open Monday to Thursday from 9:00 to 20:00.",
		"Open Mondays through Fridays, seven days a week, at no extra charge.",
		"Bags of no more than 8 kg; no fewer than two guests; less than ten minutes; Older than 12 or older.",
	}
	r := rand.New(rand.NewPCG(28, 1))
	for range 20000 {
		var b strings.Builder
		for k := range 3 + r.IntN(14) {
			if k > 0 {
				b.WriteString([]string{" ", " ", " ", "  ", ", ", "-"}[r.IntN(6)])
			}
			w := phraseWords[r.IntN(len(phraseWords))]
			if r.IntN(4) == 0 {
				w = phraseRuns[r.IntN(len(phraseRuns))]
			}
			switch r.IntN(6) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
		}
		texts = append(texts, b.String())
	}
	if f, err := os.Open("../../shared/data/scifact/corpus.jsonl"); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 0; n < 3000 && sc.Scan(); n++ {
			texts = append(texts, sc.Text())
		}
		f.Close()
	}
	changed := 0
	for _, s := range texts {
		got, want := normPhrases(s), normPhrasesRegexp(s)
		if got != want {
			t.Errorf("normPhrases(%q) = %q, want %q", s, got, want)
		}
		if want != s {
			changed++
		}
	}
	// the texts exercise the rewrites, not only their absence
	if changed < 1000 {
		t.Errorf("%d of %d texts rewritten, want at least 1000", changed, len(texts))
	}
}

// BenchmarkNormPhrases is the phrase rewrite of one answer sentence:
// plain, with none of the rules' wordings (the usual case), and bound,
// with one ("more than ten") rewritten.
func BenchmarkNormPhrases(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"plain", "Puncture repair costs 8 pounds per wheel, including a new inner tube, and the shop is open Tuesday to Saturday."},
		{"bound", "Puncture repair costs 8 pounds per wheel, including a new inner tube, and the shop has been open for more than ten years."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				normPhrases(bc.s)
			}
		})
	}
}

// A pair set finds what strings.Contains finds: every substring of its
// text, and nothing that is not one.
func TestPairSetContains(t *testing.T) {
	s := "puncture repair costs £8 per wheel, no more than 2 at once; mondays - fridays"
	var ps pairSet
	ps.fill(s)
	for i := range len(s) {
		for j := i; j <= len(s); j++ {
			if !ps.contains(s, s[i:j]) {
				t.Fatalf("contains(%q) = false for a substring", s[i:j])
			}
		}
	}
	for _, sub := range []string{"qqzz", "no less than", "free of charge", "apart from", "mondays to", "or older", "costs nothing"} {
		if got, want := ps.contains(s, sub), strings.Contains(s, sub); got != want {
			t.Errorf("contains(%q) = %v, want %v", sub, got, want)
		}
	}
}
