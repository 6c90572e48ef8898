package mockllm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// The scripted pairwise judge: when the system prompt is the offline
// pairwise judge's (judge.PairwiseSystem opens with judgeOpening), the
// simulator answers as that judge would, by fixed rules on the two answers
// in <answer_1> and <answer_2>, so tests and demos run the whole pairwise
// path on loopback. The rules look only at content, never at position:
//   - faithfulness: more citations [n] wins (the notes back a cited claim);
//   - completeness: at least 20% more content words wins;
//   - structure: more sentences wins;
//   - balance: a tie.

const judgeOpening = "You are a blind pairwise judge"

var (
	answerTagRe = regexp.MustCompile(`(?s)<answer_([12])>\n?(.*?)\n?</answer_[12]>`)
	citeMarkRe  = regexp.MustCompile(`\[\d+\]`)
)

// scriptedJudge returns the judge's JSON reply, or false when the request
// is not a pairwise judge request.
func scriptedJudge(system, user string) (string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(system), judgeOpening) {
		return "", false
	}
	var ans [3]string
	for _, m := range answerTagRe.FindAllStringSubmatch(user, -1) {
		ans[m[1][0]-'0'] = m[2]
	}
	type pref struct {
		Winner string `json:"winner"`
		Reason string `json:"reason"`
	}
	more := func(x, y float64, margin float64, what string) pref {
		switch {
		case x > y*margin && x > y:
			return pref{"1", fmt.Sprintf("Answer 1 has more %s (%g vs %g).", what, x, y)}
		case y > x*margin && y > x:
			return pref{"2", fmt.Sprintf("Answer 2 has more %s (%g vs %g).", what, y, x)}
		}
		return pref{"tie", fmt.Sprintf("Both have about the same %s.", what)}
	}
	count := func(re *regexp.Regexp, s string) float64 { return float64(len(re.FindAllString(s, -1))) }
	words := func(s string) float64 { return float64(len(strings.Fields(s))) }
	sentences := func(s string) float64 {
		return float64(strings.Count(s, ". ") + strings.Count(s, ".\n") + map[bool]int{true: 1}[strings.HasSuffix(strings.TrimSpace(s), ".")])
	}
	out := map[string]pref{
		"faithfulness": more(count(citeMarkRe, ans[1]), count(citeMarkRe, ans[2]), 1, "claims cited to the notes"),
		"completeness": more(words(ans[1]), words(ans[2]), 1.2, "content"),
		"structure":    more(sentences(ans[1]), sentences(ans[2]), 1, "sentences"),
		"balance":      {"tie", "Both are measured."},
	}
	b, _ := json.Marshal(out)
	return string(b), true
}
