package index

import (
	"strings"
	"unicode"
)

// The ask slot: what a question asks *for*, usually one short phrase after
// the wh-phrase or the auxiliary ("what is the [phone number] of the
// workshop", "who is the [chief executive]", "is there a [weight limit]
// for riders", "can I [pay] with [cash]", "how many [bikes]"). A passage on
// the question's topic that does not answer it typically has the topic's
// words but not the slot's. The rules are generic English question forms,
// not any corpus's vocabulary.

// slotMaxWords bounds a slot's content words.
const slotMaxWords = 3

var (
	slotWh  = wordSet("what which who whom whose when where why how")
	slotAux = wordSet("is are was were be been am do does did can could will would should shall may might must have has had s")
	// slotSkip are the pronouns and determiners a slot never holds.
	slotSkip = wordSet("i you we they it he she me us them my your our their its his her the a an this that these those there any some one kind type sort")
	// slotStop ends a slot phrase: prepositions, conjunctions, and the
	// words that start a clause.
	slotStop = wordSet("of for in on at to with by from about during per into onto over under after before between than and or but if when while because so as like without within via near since until")
	// slotLight are verbs too general to be what is asked: a slot made
	// only of them reaches on into the next phrase ("how much does it
	// [cost] to [clean a rug]", "can I [pay] with [cash]").
	slotLight = wordSet("price fee get have take make go use pay cost charge claim need want find see put give keep bring buy do come happen mean work")
	// slotQuantity after "how" asks for a quantity; the word itself is
	// not the slot ("how long is the [waiting list]").
	slotQuantity = wordSet("much many long often far old fast big large soon early late quickly heavy tall wide deep expensive cheap high low")
	// slotTypeNoun after "what"/"which" names the type of answer, not the
	// slot ("what time does the [bar open]"); it makes a quantity question
	// when it is one.
	slotTypeNoun = map[string]bool{"time": true, "year": true, "date": true, "day": true, "age": true, "size": true, "price": true, "number": false}
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Slot is what a question asks for.
type Slot struct {
	// Words are the slot's words (lowercase, as Words gives them:
	// stopwords dropped), at most three; nil when no slot is found.
	Words []string
	// Quantity says the question asks for a quantity, a time or a date
	// ("how much/many/long/...", "what time", "when"); Count that it asks
	// how many of the slot's thing ("how many [bikes]").
	Quantity, Count bool
}

// AskSlot finds q's ask slot.
func AskSlot(q string) Slot {
	var words []string
	var quantity, count bool
	toks := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	i := 0
	// The wh-phrase.
	for i < len(toks) && slotWh[toks[i]] {
		switch toks[i] {
		case "when":
			quantity = true
		case "how":
			if i+1 < len(toks) && slotQuantity[toks[i+1]] {
				quantity = true
				count = toks[i+1] == "many"
				i++
			}
		case "what", "which":
			if i+1 < len(toks) {
				if q, ok := slotTypeNoun[toks[i+1]]; ok {
					quantity = quantity || q
					i++
				}
			}
		}
		i++
	}
	// Auxiliaries, pronouns and determiners before the slot.
	for i < len(toks) && (slotAux[toks[i]] || slotSkip[toks[i]] || slotWh[toks[i]]) {
		i++
	}
	phrase := func() (out []string) {
		for ; i < len(toks) && len(out) < slotMaxWords; i++ {
			t := toks[i]
			switch {
			case slotStop[t] || slotAux[t] || slotWh[t]:
				return out
			case slotSkip[t] || stopwords[t] || len(t) == 1 && !unicode.IsDigit(rune(t[0])):
				continue
			}
			out = append(out, t)
		}
		return out
	}
	yesNo := len(toks) > 0 && slotAux[toks[0]]
	words = phrase()
	if yesNo && i < len(toks) && slotAux[toks[i]] {
		// "does [the site] have a [shared compost heap]": the phrase was
		// the subject; what is asked follows the verb.
		for i < len(toks) && (slotAux[toks[i]] || slotSkip[toks[i]]) {
			i++
		}
		if rest := phrase(); len(rest) > 0 {
			words = rest
		}
	}
	light := len(words) > 0
	for _, w := range words {
		light = light && (slotLight[w] || slotLight[stem(w)])
	}
	if light || len(words) == 0 {
		// Past the preposition or auxiliary that ended the phrase.
		for i < len(toks) && (slotStop[toks[i]] || slotAux[toks[i]] || slotSkip[toks[i]] || slotWh[toks[i]]) {
			i++
		}
		for _, w := range phrase() {
			if len(words) < slotMaxWords {
				words = append(words, w)
			}
		}
	}
	return Slot{Words: words, Quantity: quantity, Count: count && len(words) > 0}
}
