package mockllm

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The scripted synthesis planner: when the system prompt is the remote
// planner's (internal/remoteplan.Prompt opens with plannerOpening), the
// simulator replies as a planner would, with a JSON array of note numbers,
// so gate.planner {mode: remote, base_url: upstream, model: mock-1} runs
// end to end on loopback. The rule is the simulator's own and no model's:
// a note is kept when it has a sentence the simulator would quote (after
// dropping headings and a FAQ row's question, as its answers do) and
// shares a content word with the question (words of four or more letters,
// matched on their first five, stop words aside); the notes sharing most
// come first, ties in note order, at most max_sentences (the notes its
// answer would cite). No note kept: []. Its figures in the grounding suite
// are a simulation, labelled so.

const plannerOpening = "You plan an answer."

var plannerNote = regexp.MustCompile(`(?m)^(\d+)\. (.*)$`)

// scriptedPlanner returns the planner's reply, or false when the request
// is not a planner request.
func scriptedPlanner(system, user string, maxNotes int) (string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(system), plannerOpening) {
		return "", false
	}
	question, notes, _ := strings.Cut(user, "\n\nNotes:\n")
	asked := contentWords(strings.TrimPrefix(question, "Question: "))
	type kept struct{ n, shared int }
	var out []kept
	for _, m := range plannerNote.FindAllStringSubmatch(notes, -1) {
		if firstSentence(dropLead(dropHeadings(strings.TrimSpace(m[2])))) == "" {
			continue
		}
		shared := 0
		for w := range contentWords(m[2]) {
			if asked[w] {
				shared++
			}
		}
		if shared > 0 {
			n, _ := strconv.Atoi(m[1]) // \d+, as the prompt numbers its notes
			out = append(out, kept{n, shared})
		}
	}
	slices.SortStableFunc(out, func(a, b kept) int { return b.shared - a.shared })
	nums := []int{}
	for _, k := range out[:min(len(out), maxNotes)] {
		nums = append(nums, k.n)
	}
	b, _ := json.Marshal(nums)
	return string(b), true
}

// plannerStop are words of four or more letters that say nothing of a
// question's topic. It is the simulator's own list, not a copy of the
// product's: no stop-word list is exported (index, judge and operator keep
// theirs unexported, each for its own job), the simulator stands in for a
// remote model and imports none of index, retrieve, gate or judge, and
// this list holds the words of a customer's request ("want", "need",
// "know", "tell", "please") that index's retrieval list keeps. Changing
// it changes the simulated planner's figures in the grounding suite.
var plannerStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("what when where which while with that this these those have does doing your yours from there their they them then than " +
		"about will would could should much many into some also just like more most other only over such very been being were want need know tell " +
		"please here each every even ever after before again still") {
		m[w] = true
	}
	return m
}()

// contentWords are s's content words, lower-cased and cut to their first
// five letters (so "tickets" meets "ticket").
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 4 || plannerStop[w] {
			continue
		}
		if r := []rune(w); len(r) > 5 {
			w = string(r[:5])
		}
		out[w] = true
	}
	return out
}
