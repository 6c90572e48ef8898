package bench

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/wordvec"
)

// A prototype (docs/quality.md, Run 15; not kept, reverted in the next
// commit): a planner rule that keeps no note when the thing a question asks
// about is absent from the corpus. The asked words come from English
// question forms ("is there X", "do you sell X", "how much is the X");
// one counts as absent when no word of the corpus has its stem and no
// corpus word reaches cosine G13COS with it (the word vectors; frequency
// rank 300..50000). G13HEAD set: only the last asked word that is not a
// preposition (the head: "blue slug pellets" -> "pellets"). G13COS unset:
// off. The vocabulary keeps one surface form per stem (the first met).

var protoAskPats = []*regexp.Regexp{
	regexp.MustCompile(`is there (?:a |an |any |some )?(\w+)(?: (\w+))?`),
	regexp.MustCompile(`are there (?:any )?(\w+)`),
	regexp.MustCompile(`do you (?:sell|offer|have|do|clean|groom|give) (?:a |an |any |some )?(\w+)(?: (\w+))?`),
	regexp.MustCompile(`does (?:it|the \w+) (?:have|work with) (?:a |an )?(\w+)(?: (\w+))?`),
	regexp.MustCompile(`how (fast|big|heavy|old|far|tall|wide|long|many \w+|much (?:is|does|are|do) (?:a |an |the |my |your )?\w+)`),
	regexp.MustCompile(`what(?:'s| is) the (\w+)(?: (\w+))?`),
	regexp.MustCompile(`what (\w+) `),
	regexp.MustCompile(`can i (?:bring|keep|store|pay with|borrow|use) (?:a |an |my )?(\w+)(?: (\w+))?`),
}

var protoStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the any some your you my i it is are there do does can could will would to for of on in at with from by what's what whats which how much many long often big fast") {
		protoStop[w] = true
	}
}

func protoAsked(q string) []string {
	s := strings.ToLower(strings.ReplaceAll(q, "?", ""))
	s = strings.ReplaceAll(s, "'s", " 's")
	for _, p := range protoAskPats {
		m := p.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		var out []string
		for _, g := range m[1:] {
			for _, w := range strings.Fields(g) {
				if !protoStop[w] {
					out = append(out, w)
				}
			}
		}
		return out
	}
	return nil
}

var protoWV *wordvec.Vectors

func protoCos() float64 {
	v, err := strconv.ParseFloat(os.Getenv("G13COS"), 64)
	if err != nil {
		return 0
	}
	return v
}

// protoAbsent reports whether an asked word of q is absent from docs (no
// stem match) and has no vocabulary word at cosine >= minCos (frequency
// rank 300..50000).
func protoAbsent(docs []index.Doc, q string, minCos float64) bool {
	if minCos <= 0 {
		return false
	}
	if protoWV == nil {
		wv, err := wordvec.Default()
		if err != nil {
			return false
		}
		protoWV = wv
	}
	stems := map[string]bool{}
	var words []string
	for _, d := range docs {
		for _, w := range index.Words(d.Title + " " + d.Text) {
			if !stems[index.Stem(w)] {
				words = append(words, w)
			}
			stems[index.Stem(w)] = true
		}
	}
	asked := protoAsked(q)
	if os.Getenv("G13HEAD") != "" {
		asked = protoHead(asked)
	}
	for _, w := range asked {
		if stems[index.Stem(w)] {
			continue
		}
		id, ok := protoWV.ID(w)
		if !ok || id < 300 || id >= 50000 {
			continue
		}
		best := -1.0
		for _, v := range words {
			best = max(best, protoWV.Similarity(w, v))
		}
		if best < minCos {
			return true
		}
	}
	return false
}

var protoFunc = map[string]bool{"outside": true, "inside": true, "around": true, "about": true, "over": true, "under": true,
	"near": true, "before": true, "after": true, "up": true, "down": true, "off": true, "out": true, "here": true}

// protoHead keeps the last asked word that is not a preposition or
// adverb: the head of the asked phrase ("blue slug pellets" -> "pellets").
func protoHead(ws []string) []string {
	for i := len(ws) - 1; i >= 0; i-- {
		if !protoFunc[ws[i]] {
			return ws[i : i+1]
		}
	}
	return nil
}
