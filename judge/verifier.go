package judge

import (
	"context"
	"regexp"
	"strconv"
	"strings"
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

// Citations returns the citation numbers "[N]" in s, in order, without
// repeats.
func Citations(s string) []int {
	if strings.IndexByte(s, '[') < 0 {
		return nil
	}
	var out []int
	for _, m := range citeRe.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
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
		s = citeRe.ReplaceAllString(s, "")
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, " .", ".")
	s = strings.ReplaceAll(s, " ,", ",")
	return s
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

// IsOpinion reports whether a sentence states an opinion or advice rather
// than a checkable fact.
func IsOpinion(s string) bool {
	return hasOpinionCue(strings.ToLower(s))
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
// or conversational filler.
func IsFactual(s string) bool {
	t := strings.TrimSpace(StripCitations(s))
	if t == "" || strings.HasPrefix(t, "#") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, ":") {
		return false
	}
	t = strings.TrimLeft(t, "-*+> 0123456789.)")
	l := strings.ToLower(t)
	for _, p := range metaPrefixes {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	if hasOpinionCue(l) { // IsOpinion(t)
		return false
	}
	n := 0
	for _, tm := range analyseUpTo(t, 2) {
		if !tm.neg {
			n++
		}
	}
	return n >= 2
}
