package gate

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/answer-guard/guard/internal/quotefold"
)

// Customers type into a chat widget as they would to a person: "hi there,
// ...", "... thanks!", "sorry to bother you, ...". The greeting and the
// thanks say nothing about what is asked, yet retrieval, the sentence
// encoder and the gate's features read every word, so a wrapped question
// scored lower than the same question bare (trial 11: "hiya, ..." fell
// back at relevance 0.25 and grounded at 1.00 without its greeting).
// Focus drops them; the context a customer gives ("I booked for saturday
// with my two kids.") stays, and the model still gets the message as
// written. English forms only, never a corpus's words.

// socialLead matches a greeting or a courtesy opening a message, with the
// punctuation after it: "hi there, ", "Hello team! ", "good morning. ",
// "hi Sarah, ", "sorry to bother you but ", "quick question: ", "ok
// thanks! " (thanks open a message when it follows an answer). A greeting
// followed by one more word needs punctuation after that word ("hi sarah,"),
// so "hi can I ..." loses "hi" only; "morning" alone needs punctuation
// ("morning sessions for toddlers?" is a question).
var socialLead = regexp.MustCompile(`^(?i:` +
	`(?:(?:morning|afternoon|evening)\s*[,!.:;]+\s*)` +
	`|(?:(?:hi|hello|hey|hiya|heya|hallo|howdy|greetings|good (?:morning|afternoon|evening|day)|dear)` +
	`(?:\s+(?:there|all|team|folks|guys|everyone|both|again))?(?:\s*[,!.:;]+\s*|\s+[\p{L}'-]+\s*[,!:;]+\s*|\s+)` +
	`|(?:(?:(?:ok|okay|great|perfect|brilliant|lovely|cool|super|nice|ah|oh)\s*[,!.]?\s+)?(?:thanks|thank\s+you|thx|cheers|ta)(?:\s+(?:so\s+much|a\s+lot|very\s+much))?\s*[,!.:;]+\s*)` +
	`|(?:(?:i\s+)?hope\s+(?:you(?:'re|\s+are)|all\s+is|everyone(?:'s|\s+is))\s+(?:well|ok|okay|good|having\s+a\s+good\s+(?:day|week))[^.!?]{0,20}[.!?,]+\s*)` +
	`|(?:(?:sorry\s+to\s+(?:bother|trouble)\s+you|(?:just\s+)?a\s+quick\s+question|quick\s+question|quick\s+one)(?:\s*[,!.:;-]+\s*|\s+but\s+|\s+))` +
	`))`)

// socialTail matches thanks or a courtesy closing a message, with the
// punctuation and emoticons around it, after a space or punctuation (not
// "ta" of "pasta", "ty" of "charity"): " thanks!", ", thank you in
// advance :)", ". Many thanks", " cheers", " please?".
var socialTail = regexp.MustCompile(`(?i:` +
	`[\s,.;:!-]+(?:` +
	`(?:(?:many|big|massive)\s+)?thanks?(?:\s+(?:a\s+lot|so\s+much|very\s+much|a\s+million|again|in\s+advance|for\s+(?:your|the|any)\s+help))*` +
	`|thank\s+(?:you|u)(?:\s+(?:so\s+much|very\s+much|in\s+advance|for\s+(?:your|the|any)\s+help))*` +
	`|thx|ty|tia|cheers|ta|much\s+appreciated|appreciate\s+it|any\s+help\s+(?:would\s+be\s+)?(?:much\s+)?appreciated|please|pls|plz` +
	`)[\s.!?,:;)(xX*]*(?::\)|:-\)|:D)?[\s.!]*)$`)

// tailLast are the words socialTail can end with (before its closing
// punctuation and emoticons).
var tailLast = setOf("thanks thank thx ty tia cheers ta appreciated it please pls plz advance much lot million again help you u")

// mayEndSocial reports whether s's last word, its closing punctuation and
// emoticons aside, is one socialTail can end with: a cheap test that spares
// most questions the search.
func mayEndSocial(s string) bool {
	var a, b [16]byte
	w1 := lastWord(strings.TrimRight(s, " \t\n\f\r.!?,:;)(*-"), &a)
	// "thx" ends in x; "thanks xx" and "thanks :D" (or ":d") end in kisses
	// and a grin, and "thxX" is "thx" and a kiss; a prefilter only, so
	// trimming more than a grin costs a search, never a miss
	w2 := lastWord(strings.TrimRight(s, " \t\n\f\r.!?,:;)(xX*Dd-"), &b)
	return tailLast[string(w1)] || tailLast[string(w2)] || len(w2) > 0 && len(w2) < len(b) && tailLast[string(append(w2, 'x'))]
}

// lastWord is s's trailing run of letters in buf, each folded as (?i)
// folds it ("thanK" with a Kelvin sign is "thank"), whatever separates it
// from the word before ("0-thank"); nil when it is longer than buf or
// folds to a letter outside ASCII (no courtesy word has one).
func lastWord(s string, buf *[16]byte) []byte {
	i := len(s)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(r) {
			break
		}
		i -= w
	}
	n := 0
	for _, r := range s[i:] {
		low := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			low = min(low, f)
		}
		low = unicode.ToLower(low)
		if low >= utf8.RuneSelf || n == len(buf) {
			return nil
		}
		buf[n] = byte(low)
		n++
	}
	return buf[:n]
}

// tailWindow bounds the closing courtesy socialTail can match, in bytes
// ("thank you so much for your help in advance :)" is 45).
const tailWindow = 64

// Focus returns q without the greetings and courtesies that open and close
// it (socialLead, socialTail); q itself when nothing is dropped, or when
// dropping would leave fewer than two words (a message that is only
// "thanks!" or "hi there" stays as written).
func Focus(q string) string {
	s := strings.TrimSpace(q)
	folded := quotefold.Fold(s) // "you’re" as a phone types it
	changed := false
	for range 3 {
		loc := socialLead.FindStringIndex(folded)
		if loc == nil || loc[1] == 0 {
			break
		}
		folded = folded[loc[1]:]
		changed = true
	}
	// The tail is sought in the last tailWindow bytes only: socialTail is
	// anchored at the end, and a search over the whole message tries every
	// start.
	off := max(0, len(folded)-tailWindow)
	for off > 0 && !utf8.RuneStart(folded[off]) {
		off--
	}
	if !mayEndSocial(folded) {
		off = len(folded) // most questions end in another word: no search
	}
	if loc := socialTail.FindStringIndex(folded[off:]); loc != nil && off+loc[0] > 0 {
		loc[0] += off
		// Keep a question mark the tail swallowed: "... on sunday? thanks".
		q := strings.Contains(folded[loc[0]:], "?")
		folded = strings.TrimRight(folded[:loc[0]], " ,;:-")
		if q && !strings.HasSuffix(folded, "?") {
			folded += "?"
		}
		changed = true
	}
	if !changed || len(strings.Fields(folded)) < 2 {
		return q
	}
	return folded
}
