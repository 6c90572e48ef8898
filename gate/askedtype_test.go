package gate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAskedTypeAsSearch holds askedType, which passes over a phrase with a
// pair of adjacent bytes the question lacks, to askedTypeSearch, the
// search for every phrase it replaces: the same type for questions made
// of the phrases, their parts and other words, in any case.
func TestAskedTypeAsSearch(t *testing.T) {
	var phrases []string
	for _, w := range strings.Split(askedPhrases, "|") {
		phrases = append(phrases, w, strings.TrimSpace(w), strings.ToUpper(w))
		if len(w) > 3 {
			phrases = append(phrases, w[:len(w)/2], w[len(w)/2:])
		}
	}
	words := append(phrases, "my", "the", "bike", "how", "what", "is", "a", "number", "address", "?", "old", "fast", "when", "who", "e-mail", "Fee", "fine", "pay")
	r := rand.New(rand.NewPCG(5, 28))
	n := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			if r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		q := b.String()
		got, want := askedType(q), askedTypeSearch(q)
		if got != want {
			t.Fatalf("askedType(%q) = %d, want %d", q, got, want)
		}
		if want != typeNone {
			n++
		}
	}
	if n < 5000 {
		t.Fatalf("only %d of 20000 questions ask a type; the test no longer tries the phrases", n)
	}
}

// askedPhrases are askedTypeSearch's phrases.
const askedPhrases = "phone number|telephone number| number to call| number to ring|contact number| number do i call| number do i ring| number should i call| number should i ring|" +
	"email address|e-mail address| address to email| address to e-mail| what email| which email| how fast| what speed| top speed| how far| what distance| how close|" +
	" how old| what age| which age| age limit| minimum age| how much| cost| price| fee | fee?| fees| charge| how expensive| how cheap| penalty| fine | fine?| pay | pay?| dearer| cheaper|" +
	" how long| how soon| how quickly| how early| how far ahead| how much notice| how much time| how often| how many| how big| how large| what size| what number|" +
	" when | what time| what date| which day| what day| which date| what year| which year| who | whom | whose | where "

// askedTypeSearch is askedType as it was before the bigram filter.
func askedTypeSearch(q string) answerType {
	s := " " + strings.ToLower(q) + " "
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("phone number", "telephone number", " number to call", " number to ring", "contact number", " number do i call",
		" number do i ring", " number should i call", " number should i ring") &&
		!ownDetail(s, "phone number", "telephone number", "contact number"):
		return typePhone
	case has("email address", "e-mail address", " address to email", " address to e-mail", " what email", " which email") &&
		!ownDetail(s, "email address", "e-mail address"):
		return typeEmail
	case has(" how fast", " what speed", " top speed"):
		return typeSpeed
	case has(" how far", " what distance", " how close"):
		return typeDistance
	case has(" how old", " what age", " which age", " age limit", " minimum age"):
		return typeAge
	case has(" how much", " cost", " price", " fee ", " fee?", " fees", " charge", " how expensive", " how cheap",
		" penalty", " fine ", " fine?", " pay ", " pay?", " dearer", " cheaper"):
		return typeCost
	case has(" how long", " how soon", " how quickly", " how early", " how far ahead", " how much notice", " how much time", " how often"):
		return typeDuration
	case has(" how many", " how big", " how large", " what size", " what number"):
		return typeCount
	case has(" when ", " what time", " what date", " which day", " what day", " which date", " what year", " which year"):
		return typeTime
	case has(" who ", " whom ", " whose "):
		return typePerson
	case has(" where "):
		return typePlace
	}
	return typeNone
}
