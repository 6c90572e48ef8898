package judge

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Verdict labels.
const (
	Entailment    = "entailment"
	Contradiction = "contradiction"
	Neutral       = "neutral"
	Opinion       = "opinion"
	NotChecked    = "not_checked"
)

// Severity levels.
const (
	Critical = "critical"
	Major    = "major"
	Minor    = "minor"
	Info     = "info"
)

// Verdict is what a Verifier says about one claim against its evidence.
type Verdict struct {
	Label      string  // Entailment, Contradiction, Neutral or Opinion
	Confidence float64 // in [0,1]: how sure the verifier is of Label
	Severity   string  // Critical, Major, Minor or Info
	Evidence   string  // the best-matching evidence span ("" when none)
	Method     string  // "local", "llm" or "chainpoll"
	Reason     string  // short machine-readable why (e.g. "number_mismatch")
	// Detail says in words what to do about it (may be empty).
	Detail string
}

// Verifier checks one claim against the passages it cites. Implementations
// must be safe for concurrent use and honour ctx.
type Verifier interface {
	Verify(ctx context.Context, claim string, evidence []Passage) (Verdict, error)
}

var citeRe = regexp.MustCompile(`\[(\d{1,4})\]`)

// citeAt returns the end of the citation citeRe matches at s[i] and its
// number, or -1: "[" then one to four ASCII digits then "]" (a longer run
// of digits is no citation).
func citeAt(s string, i int) (end, n int) {
	if s[i] != '[' {
		return -1, 0
	}
	j := i + 1
	for j < len(s) && j-i <= 5 && s[j] >= '0' && s[j] <= '9' {
		n = n*10 + int(s[j]-'0')
		j++
	}
	if d := j - i - 1; d < 1 || d > 4 || j >= len(s) || s[j] != ']' {
		return -1, 0
	}
	return j + 1, n
}

// stripCites is citeRe.ReplaceAllString(s, ""), by a scan.
func stripCites(s string) string {
	var b []byte
	last := 0
	for i := strings.IndexByte(s, '['); i >= 0 && i < len(s); {
		end, _ := citeAt(s, i)
		if end < 0 {
			k := strings.IndexByte(s[i+1:], '[')
			if k < 0 {
				break
			}
			i += 1 + k
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
		}
		b = append(b, s[last:i]...)
		last, i = end, end
		if k := strings.IndexByte(s[i:], '['); k >= 0 {
			i += k
		} else {
			break
		}
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// Citations returns the citation numbers "[N]" in s, in order, without
// repeats.
func Citations(s string) []int {
	if strings.IndexByte(s, '[') < 0 {
		return nil
	}
	var out []int
	for i := strings.IndexByte(s, '['); i >= 0; {
		end, n := citeAt(s, i)
		next := i + 1
		if end >= 0 {
			next = end
		}
		if k := strings.IndexByte(s[next:], '['); k >= 0 {
			i = next + k
		} else {
			i = -1
		}
		if end < 0 {
			continue
		}
		dup := false
		for _, x := range out {
			if x == n {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, n)
		}
	}
	return out
}

// StripCitations removes "[N]" markers and tidies the spaces they leave.
func StripCitations(s string) string {
	if strings.IndexByte(s, '[') >= 0 {
		s = stripCites(s)
	}
	if !singleSpaced(s) {
		s = joinFields(s)
	}
	if spacedPunct(s) {
		s = strings.ReplaceAll(s, " .", ".")
		s = strings.ReplaceAll(s, " ,", ",")
	}
	return s
}

// spacedPunct reports whether s has " ." or " ,": one pass, where the two
// ReplaceAll calls would count each (a search that stops at every space).
func spacedPunct(s string) bool {
	for i := 1; i < len(s); i++ {
		if (s[i] == '.' || s[i] == ',') && s[i-1] == ' ' {
			return true
		}
	}
	return false
}

// joinFields is strings.Join(strings.Fields(s), " "), written in one pass
// into one buffer (not a slice of fields and then their join).
func joinFields(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	gap := false // a space was seen since the last byte of a field
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		space := false
		if c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		if space {
			gap = true
		} else {
			if gap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			gap = false
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// singleSpaced reports whether strings.Join(strings.Fields(s), " ") is s
// for sure: no space at an end or twice, no other ASCII space, no byte
// that may start a non-ASCII space (false: it may not be).
func singleSpaced(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ") {
		return s == ""
	}
	for _, c := range [...]byte{'\t', '\n', '\v', '\f', '\r', 0xC2, 0xE1, 0xE2, 0xE3} {
		if strings.IndexByte(s, c) >= 0 {
			return false
		}
	}
	return true
}

var opinionCues = []string{
	"i think", "i believe", "i feel", "in my opinion", "in my view", "personally",
	"arguably", "i would", "i'd ", "i recommend", "we recommend", "you should",
	"it is best", "it's best", "beautiful", "wonderful", "amazing", "terrible",
	"i hope", "i suggest", "my favorite", "my favourite",
}

// opinionCuesByLead are opinionCues by their first byte.
var opinionCuesByLead = func() (out [256][]string) {
	for _, c := range opinionCues {
		out[c[0]] = append(out[c[0]], c)
	}
	return out
}()

var metaPrefixes = []string{
	"here is", "here are", "here's", "let me", "i hope", "feel free", "sure", "certainly",
	"great question", "good question", "i can", "i cannot", "i can't", "i don't know",
	"i do not know", "sources:", "references:", "note:", "hope this", "let us", "in summary:",
}

// ownAdvice is the opinion cue by which the business gives its own advice
// ("We recommend booking 2 weeks ahead"): checkable against a source that
// gives advice (advises), an opinion against one that does not.
const ownAdvice = "we recommend"

// onlyOwnAdvice reports whether the lowercased claim l is an opinion only
// by ownAdvice (l must have an opinion cue).
func onlyOwnAdvice(l string) bool {
	return strings.Contains(l, ownAdvice) && !hasOpinionCue(strings.ReplaceAll(l, ownAdvice, "we advise"))
}

// adviceWords are the words by which a source gives advice.
var adviceWords = []string{"recommend", "advise", "advisable", "suggest"}

// advises reports whether text gives advice (a word of adviceWords).
func advises(text string) bool {
	for _, w := range adviceWords {
		if indexFold(text, w, 0) >= 0 {
			return true
		}
	}
	return false
}

// IsOpinion reports whether a sentence states an opinion or advice rather
// than a checkable fact (typographic apostrophes read as ASCII ones).
func IsOpinion(s string) bool {
	return hasOpinionCue(strings.ToLower(normQuotes(s)))
}

// hasOpinionCue reports whether the lowercased text l has an opinion cue at
// its start or after a space: strings.Contains(" "+l, " "+c) for a cue c,
// in one pass over l.
func hasOpinionCue(l string) bool {
	for at := 0; at < len(l); {
		for _, c := range opinionCuesByLead[l[at]] {
			if strings.HasPrefix(l[at:], c) {
				return true
			}
		}
		sp := strings.IndexByte(l[at:], ' ')
		if sp < 0 {
			break
		}
		at += sp + 1
	}
	return false
}

// IsFactual reports whether a sentence makes a checkable factual claim: it
// has at least two content words, is not a question, a heading, an opinion
// or conversational filler ("I don’t know" as "I don't know").
func IsFactual(s string) bool {
	return isFactualStripped(normQuotes(StripCitations(s)))
}

// isFactualStripped is IsFactual of a text StripCitations leaves as it is
// (one it returned, holding no "[").
func isFactualStripped(s string) bool {
	return isFactualLower(s, "", false)
}

// isFactualLower is isFactualStripped(s); lower, when not "", is
// strings.ToLower(s) and opinion hasOpinionCue(lower), used when the
// trimmed text is s itself.
func isFactualLower(s, lower string, opinion bool) bool {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "#") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, ":") {
		return false
	}
	t = strings.TrimLeft(t, "-*+> 0123456789.)")
	var l string
	if lower != "" && len(t) == len(s) { // nothing trimmed: t is s
		l = lower
	} else {
		l = strings.ToLower(t)
		opinion = hasOpinionCue(l)
	}
	for _, p := range metaPrefixes {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	if opinion { // IsOpinion(t)
		return false
	}
	n := 0
	var buf [4]term // analyseUpTo's own first allocation for a limit of 2
	for _, tm := range analyseAppend(buf[:0], t, 2) {
		if !tm.neg {
			n++
		}
	}
	return n >= 2
}
