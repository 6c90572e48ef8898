package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/answer-guard/guard/index"
)

// A customer sometimes asks the service about another business: "how much
// does Specsavers charge for an eye test?", "how do I cancel my Sky TV
// subscription?", "what's BT's customer service number?", "is Monkey
// Business cheaper than you?". The question shares the corpus's trade, so
// its passages read as relevant (operator trials 10-15: ten such
// questions grounded on the service's own prices), yet the corpus cannot
// answer for the other business. otherParty finds the name by the English
// form that makes it the business asked about, never by a corpus's words;
// the gate then handles the question as off-topic (gate.other_business).
//
// The forms, with X a word the partition never uses:
//   - "does|do|would|will X charge": X capitalised or rare in English;
//   - "my X subscription|membership": the same;
//   - "X ... cheaper|better|... (value) than": the same, within six words
//     before;
//   - "compare(d) with|to|against X": the same, within three words after;
//   - "is|are X open": X capitalised and rare ("Is RHS Garden Harlow
//     Carr open on Mondays?", not "is the shop open");
//   - "X's": X capitalised (not the first word) and rare, since "my
//     spaniel's fur" is the service's business;
//   - "at (the) X" in a clause that asks "how much" or "what time" and
//     names neither the customer nor the service ("how much are tickets
//     at the Odeon?", not "how much do you charge at the Kirkstall
//     shop?"): the same.
//
// Forms that name another business as the customer's past or present
// supplier ask the service about itself, and are not read: "can I keep my
// number when I switch from Vodafone?", "can you adjust glasses I bought
// at Specsavers?", "can I pay with my Amex card?", "I'm still in my
// Virgin contract, will you pay the exit fee?", "can I link my Google
// account?". Nor is a place ("in Plymouth"): "in Spain" and "in March"
// ask about the service as often as not.

// otherRare is the word vectors' frequency rank from which a word is rare
// in English (outside the 5,000 most frequent): a lower-case word counts
// as a name in the weaker forms (a chat's "monkey business in
// wolverhampton"), and a capitalised one must be this rare in the
// stronger forms ("the UK", 1,914th, is no business).
const otherRare = 5000

var (
	otherAccountNouns = map[string]bool{"subscription": true, "membership": true}
	// otherAsks open a clause that asks another business's price or time.
	otherAsks = [][2]string{{"how", "much"}, {"what", "time"}, {"whats", "time"}, {"what's", "time"}}
	// otherOwn are the customer's and the service's own words: a clause
	// with one tells what the customer did or has ("glasses I bought at
	// ...") or asks the service ("how much do you charge at the Kirkstall
	// shop?"), not another business's price.
	otherOwn = map[string]bool{"i": true, "i'm": true, "im": true, "i've": true, "me": true, "my": true,
		"we": true, "we're": true, "our": true, "us": true, "you": true, "your": true, "u": true, "ur": true}
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
		capital := capitalised(ws[i])
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
				if low[j] != "does" && low[j] != "do" && low[j] != "would" && low[j] != "will" {
					continue
				}
				for k := j + 1; k < i; k++ {
					if name(k, true) {
						return otherName(ws, k)
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
						return otherName(ws, m)
					}
				}
				break
			}
		case otherCompare[w] && (i+1 < len(ws) && low[i+1] == "than" || i+2 < len(ws) && low[i+2] == "than"):
			// a name not after "in" first: "the Instituto Cervantes course
			// in London", not London
			for pass := range 2 {
				for j := i - 1; j >= max(0, i-6); j-- {
					if name(j, true) && (pass == 1 || low[j-1] != "in") {
						return otherName(ws, j)
					}
				}
			}
		case (w == "compare" || w == "compared") && i+1 < len(ws) && (low[i+1] == "with" || low[i+1] == "to" || low[i+1] == "against"):
			for k := i + 2; k < min(len(ws), i+5); k++ {
				if name(k, true) {
					return otherName(ws, k)
				}
			}
		case w == "open" && i >= 2:
			for j := i - 1; j >= max(0, i-6); j-- {
				if low[j] != "is" && low[j] != "are" {
					continue
				}
				for k := j + 1; k < i; k++ {
					if name(k, false) {
						return otherName(ws, k)
					}
				}
				break
			}
		case strings.HasSuffix(w, "'s") && !otherNotNames[strings.TrimSuffix(w, "'s")]:
			if name(i, false) {
				return otherName(ws, i)
			}
		case w == "at" && otherAskClause(low, i):
			k := i + 1
			if k < len(ws) && low[k] == "the" {
				k++
			}
			if name(k, false) {
				return otherName(ws, k)
			}
		}
	}
	return ""
}

// otherName is the name ws[i] belongs to: with the capitalised words
// next to it ("Black Rose Ink" for "Black"), a possessive's "'s" dropped.
func otherName(ws []string, i int) string {
	capital := func(j int) bool { return j > 0 && j < len(ws) && capitalised(ws[j]) }
	from, to := i, i+1
	if capital(i) {
		for capital(from - 1) {
			from--
		}
		for capital(to) && !strings.HasSuffix(ws[to-1], "'s") {
			to++
		}
	}
	return strings.TrimSuffix(strings.Join(ws[from:to], " "), "'s")
}

// capitalised reports whether w opens with an upper-case letter.
func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// otherAskClause reports whether the words before low[at] (up to 12)
// ask "how much" or "what time", with none of the customer's own words
// (otherOwn) between.
func otherAskClause(low []string, at int) bool {
	for j := at - 1; j >= max(0, at-12); j-- {
		if otherOwn[low[j]] {
			return false
		}
		if j+1 < at {
			for _, a := range otherAsks {
				if low[j] == a[0] && low[j+1] == a[1] {
					return true
				}
			}
		}
	}
	return false
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
