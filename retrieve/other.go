package retrieve

import (
	"strings"
	"unicode"

	"github.com/answer-guard/guard/index"
)

// A customer sometimes asks the service about another business: "how much
// does Specsavers charge for an eye test?", "how do I cancel my Sky TV
// subscription?", "what's BT's customer service number?", "is Monkey
// Business cheaper than you?". The question shares the corpus's trade, so
// its passages read as relevant (operator trials 10-15: eleven such
// questions grounded on the service's own prices), yet the corpus cannot
// answer for the other business. otherParty finds the name by the English
// form that makes it the business asked about, never by a corpus's words;
// the gate then handles the question as off-topic (gate.other_business).
//
// The forms, with X a word the partition never uses:
//   - "does|do X charge": X capitalised or rare in English;
//   - "my X subscription|account|contract|membership|plan|card|app": the
//     same;
//   - "X ... cheaper|better|... than": the same, within six words before;
//   - "X's", "at (the) X", "from (the) X": X capitalised (not the first
//     word) and rare, since "my spaniel's fur", "at yours", "from the
//     dealer" and "calls from the UK" are the service's business.
//
// A place ("in Plymouth") is no form of its own: "in Spain" and "in
// March" ask about the service as often as not.

// otherRare is the word vectors' frequency rank from which a word is rare
// in English (outside the 5,000 most frequent): a lower-case word counts
// as a name in the weaker forms (a chat's "monkey business in
// wolverhampton"), and a capitalised one must be this rare in the
// stronger forms ("the UK", 1,914th, is no business).
const otherRare = 5000

var (
	otherAccountNouns = map[string]bool{"subscription": true, "account": true, "contract": true,
		"membership": true, "plan": true, "card": true, "app": true}
	otherCompare = map[string]bool{"cheaper": true, "better": true, "closer": true, "bigger": true,
		"nicer": true, "dearer": true, "faster": true}
	// otherNotNames are words whose "'s" is a contraction, not a
	// possessive ("what's", "it's").
	otherNotNames = map[string]bool{"what": true, "it": true, "that": true, "there": true, "who": true,
		"where": true, "how": true, "let": true, "he": true, "she": true, "here": true, "when": true}
	// otherPronouns never name a business ("how much do you charge").
	otherPronouns = map[string]bool{"you": true, "your": true, "yours": true, "they": true, "them": true,
		"we": true, "us": true, "it": true, "i": true, "he": true, "she": true, "this": true, "that": true}
)

// otherParty is the name of another business that q asks about (see
// above), "" when it names none. knows reports a word the partition uses;
// rank is a word's frequency rank in English (-1 when unknown).
func otherParty(q string, knows func(string) bool, rank func(string) int) string {
	q = strings.ReplaceAll(q, "’", "'")
	ws := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	low := make([]string, len(ws))
	for i, w := range ws {
		low[i] = strings.ToLower(w)
	}
	// name reports whether ws[i] names something the partition does not
	// know: in a weak form capitalised (not the first word) or rare in
	// English, in a strong one both ("at the Odeon", not "from the UK").
	name := func(i int, weak bool) bool {
		if i <= 0 || i >= len(ws) {
			return false
		}
		w := strings.TrimSuffix(strings.TrimSuffix(low[i], "'s"), "'")
		if len(w) < 2 || otherPronouns[w] || knows(w) {
			return false
		}
		capital := unicode.IsUpper([]rune(ws[i])[0])
		r := rank(w)
		rare := r < 0 || r >= otherRare
		if weak {
			return capital || rare
		}
		return capital && rare
	}
	for i, w := range low {
		switch {
		case (w == "charge" || w == "charges") && i >= 2:
			for j := i - 1; j >= max(0, i-4); j-- {
				if low[j] != "does" && low[j] != "do" {
					continue
				}
				for k := j + 1; k < i; k++ {
					if name(k, true) {
						return ws[k]
					}
				}
				break
			}
		case w == "my":
			for k := i + 1; k < min(len(ws), i+4); k++ {
				if !otherAccountNouns[low[k]] {
					continue
				}
				for m := i + 1; m < k; m++ {
					if name(m, true) {
						return ws[m]
					}
				}
				break
			}
		case otherCompare[w] && i+1 < len(ws) && low[i+1] == "than":
			for j := i - 1; j >= max(0, i-6); j-- {
				if name(j, true) {
					return ws[j]
				}
			}
		case strings.HasSuffix(w, "'s") && !otherNotNames[strings.TrimSuffix(w, "'s")]:
			if name(i, false) {
				return ws[i]
			}
		case w == "at" || w == "from":
			k := i + 1
			if k < len(ws) && low[k] == "the" {
				k++
			}
			if name(k, false) {
				return ws[k]
			}
		}
	}
	return ""
}

// otherTerm is otherParty of q against p, with the word vectors' rank ("" without
// word vectors).
func (s *semantic) otherTerm(p *index.Partition, q string) string {
	rv, ok := s.wv.(rowVectors)
	if !ok {
		return ""
	}
	return otherParty(q, p.KnowsWord, func(w string) int {
		if id, ok := rv.ID(w); ok {
			return int(id)
		}
		return -1
	})
}
