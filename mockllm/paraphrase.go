package mockllm

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// Paraphrase mode (Faults.Paraphrase, Faults.Alter): instead of copying a
// note's sentence, the simulated model rewrites it the way models do, and
// sometimes changes a fact while doing so. Every rewritten sentence is
// recorded (Record.Sentences) with what was done to it, so the quality
// bench can score the verifier on faithful paraphrase (should be
// entailment) and altered facts (should be contradiction).
//
// Faithful rewrites: a small number as a word ("7" -> "seven"), a duration
// in other units ("90 minutes" -> "1.5 hours", "2 days" -> "48 hours"), a
// date in another order ("14 March 1887" -> "March 14, 1887"), "twice" /
// "2 times", synonyms (its own table, not the verifier's), a hedge
// ("Typically, ..."), a leading phrase moved to the end ("On Debian, add X"
// -> "Add X on Debian"). Alterations (one per altered sentence): a number
// changed, a month or weekday changed, a negation added, a word replaced
// by its opposite, two names swapped, a name replaced by another.

// Sentence is what the simulated model did to one cited sentence.
type Sentence struct {
	Note     int      `json:"note"`
	Source   string   `json:"source"`   // the note's sentence
	Text     string   `json:"text"`     // what the answer says (without citation)
	Faithful bool     `json:"faithful"` // no fact changed
	How      []string `json:"how"`      // the rewrites applied, in order
	// Altered names the fact changed ("number", "date", "negation",
	// "antonym", "swap", "name"); "" when faithful.
	Altered string `json:"altered,omitempty"`
}

var (
	smallNumRe = regexp.MustCompile(`(^|[\s(])([2-9]|1[0-2])(\s)`)
	durRe      = regexp.MustCompile(`\b(\d+(?:\.\d+)?) (seconds|minutes|hours|days)\b`)
	dateDMYRe  = regexp.MustCompile(`\b([1-9]|[12]\d|3[01]) (January|February|March|April|May|June|July|August|September|October|November|December) (\d{4})\b`)
	dateMDYRe  = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December) ([1-9]|[12]\d|3[01]), (\d{4})\b`)
	monthRe    = regexp.MustCompile(`\b(January|February|March|April|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b`)
	leadRe     = regexp.MustCompile(`^(On|In|For|With|After|Before|During|From) ([^,]{3,60}), (.+)$`)
	swapRe     = regexp.MustCompile(`[a-z,] ([A-Z][A-Za-z0-9]+) ((?:[a-z]+ ){0,2}[a-z]{4,}(?: [a-z]+){0,2}) (?:the )?([A-Z][A-Za-z0-9]+)\b`)
	nameRe     = regexp.MustCompile(`\b([A-Z][a-zA-Z]+[A-Z0-9][A-Za-z0-9]*|[A-Z][a-z]{2,}(?:[A-Z][a-z]+)*)\b`)
)

var numWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

// synonyms are the paraphraser's own word swaps (whole words, as written).
var synonyms = [][2]string{
	{"uses", "utilises"}, {"use", "utilise"}, {"starts", "begins"}, {"needs", "requires"},
	{"allows", "permits"}, {"large", "big"}, {"small", "little"}, {"keeps", "retains"},
	{"removes", "deletes"}, {"shows", "displays"}, {"creates", "makes"}, {"quickly", "rapidly"},
	{"automatically", "by itself"}, {"every", "each"}, {"runs", "executes"}, {"stores", "saves"},
	{"checks", "verifies"}, {"lists", "shows"}, {"anyone", "any person"}, {"people", "persons"},
}

// antonymSwaps are opposites the alteration may put in place of a word.
var antonymSwaps = [][2]string{
	{"before", "after"}, {"more", "less"}, {"increases", "decreases"}, {"minimum", "maximum"},
	{"enabled", "disabled"}, {"required", "optional"}, {"Public", "Private"}, {"public", "private"},
	{"always", "never"}, {"higher", "lower"}, {"first", "last"}, {"can", "cannot"}, {"older", "newer"},
	{"longer", "shorter"}, {"larger", "smaller"}, {"included", "excluded"}, {"allowed", "forbidden"},
}

var otherNames = []string{"Kestrel", "Marlowe", "Ostrava", "Quillon", "Vantage", "Zephyrine"}

// paraphrase rewrites sent faithfully and, when alter, changes one fact.
func paraphrase(sent string, alter bool, r *rand.Rand) (out Sentence) {
	out = Sentence{Source: sent, Faithful: true}
	s := sent
	apply := func(name string, f func(string) (string, bool)) {
		if t, ok := f(s); ok && t != s {
			s = t
			out.How = append(out.How, name)
		}
	}
	// faithful rewrites, each when it applies (synonyms and hedges at random)
	apply("number_word", func(s string) (string, bool) {
		m := smallNumRe.FindStringSubmatchIndex(s)
		if m == nil {
			return s, false
		}
		n, _ := strconv.Atoi(s[m[4]:m[5]])
		return s[:m[4]] + numWords[n] + s[m[5]:], true
	})
	apply("unit", func(s string) (string, bool) {
		m := durRe.FindStringSubmatchIndex(s)
		if m == nil {
			return s, false
		}
		v, _ := strconv.ParseFloat(s[m[2]:m[3]], 64)
		unit := s[m[4]:m[5]]
		var nv float64
		var nu string
		switch unit {
		case "minutes":
			nv, nu = v/60, "hours"
			if v < 60 {
				nv, nu = v*60, "seconds"
			}
		case "hours":
			nv, nu = v*60, "minutes"
		case "days":
			nv, nu = v*24, "hours"
		case "seconds":
			if v < 60 {
				return s, false
			}
			nv, nu = v/60, "minutes"
		}
		return s[:m[2]] + strconv.FormatFloat(nv, 'f', -1, 64) + " " + nu + s[m[5]:], true
	})
	apply("date_format", func(s string) (string, bool) {
		if m := dateDMYRe.FindStringSubmatch(s); m != nil {
			return strings.Replace(s, m[0], m[2]+" "+m[1]+", "+m[3], 1), true
		}
		if m := dateMDYRe.FindStringSubmatch(s); m != nil {
			return strings.Replace(s, m[0], m[2]+" "+m[1]+" "+m[3], 1), true
		}
		return s, false
	})
	apply("times", func(s string) (string, bool) {
		if strings.Contains(s, "twice") {
			return strings.Replace(s, "twice", "2 times", 1), true
		}
		return s, false
	})
	apply("synonym", func(s string) (string, bool) {
		n := 0
		for _, i := range r.Perm(len(synonyms)) {
			sy := synonyms[i]
			if t, ok := replaceWord(s, sy[0], sy[1]); ok {
				s, n = t, n+1
				if n == 2 {
					break
				}
			}
		}
		return s, n > 0
	})
	apply("reorder", func(s string) (string, bool) {
		m := leadRe.FindStringSubmatch(s)
		if m == nil {
			return s, false
		}
		rest := strings.TrimRight(m[3], ".")
		return upperFirst(rest) + " " + strings.ToLower(m[1]) + " " + m[2], true
	})
	hedge := r.IntN(3) == 0
	hedgeWith := []string{"Typically, ", "In general, ", "As a rule, "}[r.IntN(3)]
	defer func() {
		if hedge {
			out.Text = hedgeWith + lowerFirst(out.Text)
			out.How = append(out.How, "hedge")
		}
	}()
	if !alter {
		out.Text = s
		return out
	}
	// one alteration, the first that applies in a random order
	alts := []struct {
		name string
		f    func(string) (string, bool)
	}{
		{"number", func(s string) (string, bool) {
			m := numberRe.FindStringSubmatchIndex(s)
			if m == nil {
				return s, false
			}
			old := s[m[2]:m[3]]
			v, _ := strconv.ParseFloat(strings.ReplaceAll(old, ",", ""), 64)
			return s[:m[2]] + strconv.FormatFloat(v*2+7, 'f', -1, 64) + s[m[3]:], true
		}},
		{"number", func(s string) (string, bool) { // a number written as a word
			for n := 12; n >= 2; n-- {
				if t, ok := replaceWord(s, numWords[n], numWords[(n+3)%10+2]); ok && (n+3)%10+2 != n {
					return t, true
				}
			}
			return s, false
		}},
		{"date", func(s string) (string, bool) {
			m := monthRe.FindString(s)
			if m == "" {
				return s, false
			}
			all := strings.Fields("January February March April June July August September October November December")
			if strings.HasSuffix(m, "day") {
				all = strings.Fields("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
			}
			for _, i := range r.Perm(len(all)) {
				if all[i] != m {
					return strings.Replace(s, m, all[i], 1), true
				}
			}
			return s, false
		}},
		{"negation", func(s string) (string, bool) {
			for _, v := range []string{"is", "are", "must", "will", "can", "should"} {
				neg := v + " not"
				if v == "can" {
					neg = "cannot"
				}
				if t, ok := replaceWord(s, v, neg); ok && !strings.Contains(s, " not ") && !strings.Contains(s, "cannot") {
					return t, true
				}
			}
			return s, false
		}},
		{"antonym", func(s string) (string, bool) {
			for _, i := range r.Perm(len(antonymSwaps)) {
				a := antonymSwaps[i]
				if t, ok := replaceWord(s, a[0], a[1]); ok {
					return t, true
				}
				if t, ok := replaceWord(s, a[1], a[0]); ok {
					return t, true
				}
			}
			return s, false
		}},
		{"swap", func(s string) (string, bool) {
			// two names with a verb between them ("Google acquired YouTube")
			m := swapRe.FindStringSubmatch(s)
			if m == nil || m[1] == m[3] || monthRe.MatchString(m[1]) || monthRe.MatchString(m[3]) {
				return s, false
			}
			a, b := m[1], m[3]
			t := replaceAllWords(s, a, "\x00")
			t = replaceAllWords(t, b, a)
			return strings.ReplaceAll(t, "\x00", b), true
		}},
		{"name", func(s string) (string, bool) {
			names := distinctNames(s)
			if len(names) == 0 {
				return s, false
			}
			n := names[r.IntN(len(names))]
			return replaceAllWords(s, n, otherNames[r.IntN(len(otherNames))]), true
		}},
	}
	for _, i := range r.Perm(len(alts)) {
		if t, ok := alts[i].f(s); ok && t != s {
			s = t
			out.Faithful, out.Altered = false, alts[i].name
			out.How = append(out.How, "altered:"+alts[i].name)
			break
		}
	}
	out.Text = s
	return out
}

// distinctNames returns the capitalised names of s that are not its first
// word, in order, without repeats.
func distinctNames(s string) []string {
	var out []string
	for _, m := range nameRe.FindAllStringIndex(s, -1) {
		if m[0] == 0 {
			continue
		}
		// a capital after a colon, a semicolon, a backtick or a bracket
		// starts a phrase; it is no name
		if prev := strings.TrimRight(s[:m[0]], " "); prev == "" || strings.ContainsAny(prev[len(prev)-1:], ":;`([.") {
			continue
		}
		w := s[m[0]:m[1]]
		if monthRe.MatchString(w) {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == w || strings.Contains(o, w) || strings.Contains(w, o)
		}
		if !dup {
			out = append(out, w)
		}
	}
	return out
}

// replaceWord replaces the first whole-word occurrence of w in s.
func replaceWord(s, w, by string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return s, false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return s[:a] + by + s[b:], true
		}
		i = a + 1
	}
}

// replaceAllWords replaces every whole-word occurrence of w in s.
func replaceAllWords(s, w, by string) string {
	for {
		t, ok := replaceWord(s, w, by)
		if !ok || strings.Contains(by, w) {
			return t
		}
		s = t
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// lowerFirst lowercases a leading determiner or pronoun, not a name.
func lowerFirst(s string) string {
	w, _, _ := strings.Cut(s, " ")
	switch w {
	case "The", "A", "An", "Each", "Every", "This", "These", "It", "Its", "Only", "All", "No", "Some", "When", "If", "After", "Before", "On", "In", "For", "With", "From", "During",
		"Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve":
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}
