package retrieve

import (
	"strings"
	"unicode"
)

// A chat's follow-up question leans on the turn before it: "what time do
// you open on saturday?" then "and on sunday?", "how much is it for
// kids?", "what about dogs?". Read alone it has no topic words of its own,
// falls below the gate's bail-out and gets a general-knowledge answer, or
// grounds on the wrong passage. FollowsUp tells such a message from a
// standalone one by English question forms only (never a corpus's words);
// FollowupQuery then retrieves for it together with the previous user
// message (and nothing older). A short question after a message that
// tells the customer's situation rather than asking ("I need two new
// tyres", then "is fitting extra?") is read with it too (Statement). The
// question's ask (a price, a time, a phone number) stays the last
// message's own: the caller reads it from that message alone.

// FollowupQuery is the retrieval query for last, a conversation's last
// user message, given prev, the user message before it ("" when none):
// prev and last joined by a newline when last follows up on prev
// (FollowsUp), or when prev is a Statement and last a short question about
// the customer's own case (shortQuestion), else last alone. followup says
// which.
func FollowupQuery(last, prev string) (query string, followup bool) {
	prev = strings.TrimSpace(prev)
	if prev == "" || !FollowsUp(last) && !(Statement(prev) && shortQuestion(last)) {
		return last, false
	}
	return prev + "\n" + last, true
}

// Context is the context a conversation's last user message is read
// against (FollowupQuery's prev), from the user message before it, prev,
// and the one before that, before: prev with before when prev follows up
// on it (FollowupQuery), or when prev is a Statement answering a question
// in before ("can I get a refund on a play session?" then "I booked for
// today"), else prev alone.
func Context(prev, before string) string {
	q, joined := FollowupQuery(prev, before)
	before = strings.TrimSpace(before)
	if joined || before == "" || !Statement(prev) || Statement(before) {
		return q
	}
	return before + "\n" + strings.TrimSpace(prev)
}

// Statement reports whether msg tells rather than asks: customers often
// give their situation in one message and ask in the next ("I need two
// new tyres" then "is fitting extra?"; "I've closed my account." then
// "how long do you keep my data?"), so a short question after such a
// message is read with it (FollowupQuery). A statement does not end with
// "?", does not open with a question word or an auxiliary ("can I ...",
// "is there ..."), and has a content word (not just "thanks" or "ok").
func Statement(msg string) bool {
	var buf [48]string
	toks := followupTokens(buf[:0], msg)
	if len(toks) == 0 || asks(msg, toks) {
		return false
	}
	for _, t := range toks {
		if !fillerWords[t] && !askWords[t] {
			return true
		}
	}
	return false
}

// shortQuestion reports whether msg asks something (it ends with "?" or
// opens with a question word or an auxiliary) in at most
// maxStatementContent content words, about the customer's own case: it
// does not ask for the service's own contact details and, when it
// addresses the service ("you"), it names the customer too ("I", "my").
func shortQuestion(msg string) bool {
	var buf [48]string
	toks := followupTokens(buf[:0], msg)
	if len(toks) == 0 || !asks(msg, toks) {
		return false
	}
	content, you, self := 0, false, false
	for _, t := range toks {
		switch {
		case contactWords[t]:
			return false
		case t == "you" || t == "your" || t == "u":
			you = true
		case firstPerson[t]:
			self = true
		case !fillerWords[t] && !askWords[t]:
			content++
		}
	}
	// "do you take cash?" asks about the service in general and stands
	// alone; "can you take deliveries for me?" asks about the customer's
	// own case, the one the statement told.
	return content <= maxStatementContent && (self || !you)
}

// asks reports whether msg, of tokens toks (not empty), has a question's
// form: it ends with "?" or opens with a question word, an existential
// ("is there") or an auxiliary ("do you").
func asks(msg string, toks []string) bool {
	return strings.HasSuffix(strings.TrimSpace(msg), "?") || askWords[toks[0]] || existential[toks[0]] || auxiliaries[toks[0]]
}

// maxStatementContent is the most content words a question after a
// statement may have and still be read with it.
const maxStatementContent = 2

// FollowsUp reports whether msg, a user message that is not the
// conversation's first, leans on the previous turn. It does when
//
//   - it opens with "and", "also", "but", "what about", "how about",
//     "what if", "same for" or "same with" (after an optional "ok",
//     "okay", "so", "oh" or "right": "ok and for kids?");
//   - it is short (at most maxReferContent content words) and refers back
//     with "it", "that", "this", "these", "those", "them", "they",
//     "one(s)" or "there" used as a place ("can I park there?", not "is
//     there parking?"); a dummy "it" ("is it possible to ...") does not
//     refer back;
//   - or it asks something (a question or ask word: "how much?",
//     "when?", "price?") and has no content word beyond the ask, unless
//     it asks for the service's own contact details ("what's your phone
//     number?", "when do you close?"), which stand alone.
//
// A standalone question ("is there parking?", a new topic, "thanks!
// what's the capital of france?") and a message that asks nothing
// ("thanks!", "ok") do not follow up.
func FollowsUp(msg string) bool {
	var buf [48]string
	toks := followupTokens(buf[:0], msg)
	if len(toks) == 0 {
		return false
	}
	if opensFollowup(toks) {
		return true
	}
	content, refer, ask, you, contact := 0, false, false, false, false
	for i, t := range toks {
		switch {
		case referBack(toks, i):
			refer = true
		case askWords[t]:
			ask = true
		case contactWords[t]:
			ask, contact = true, true
		case t == "you" || t == "your" || t == "yours" || t == "u":
			you = true
		case !fillerWords[t]:
			content++
		}
	}
	switch {
	case refer:
		return content <= maxReferContent
	case content == 0 && ask:
		return !(you || contact) // the service's own details stand alone
	}
	return false
}

// maxReferContent is the most content words (beyond question, filler and
// ask words) a message that refers back may have and still follow up: a
// longer one names its own topic ("does it matter if my dog has fleas and
// hates water and ...").
const maxReferContent = 3

// followupTokens appends msg's words to dst, lower case, split at every
// rune that is not a letter or digit ("what's" is "what", "s").
func followupTokens(dst []string, msg string) []string {
	start := -1
	for i, r := range msg {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, strings.ToLower(msg[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(msg[start:]))
	}
	return dst
}

// opensFollowup reports whether toks open with a follow-up opener, after
// at most one interjection.
func opensFollowup(toks []string) bool {
	if len(toks) > 1 && interjections[toks[0]] {
		toks = toks[1:]
	}
	switch toks[0] {
	case "and", "also", "but", "plus":
		return true
	case "what", "how":
		return len(toks) > 1 && (toks[1] == "about" || toks[1] == "if")
	case "same":
		return len(toks) > 1 && (toks[1] == "for" || toks[1] == "with")
	}
	return false
}

// referBack reports whether toks[i] is a word that refers to something
// named in the previous turn.
func referBack(toks []string, i int) bool {
	t := toks[i]
	next := ""
	if i+1 < len(toks) {
		next = toks[i+1]
	}
	switch t {
	case "that", "this", "these", "those":
		// "this weekend", "that morning" point at a time, not back at the turn before
		return !timeWords[next]
	case "them", "they", "ones", "he", "she", "him", "her", "his", "hers":
		// "she", "his" name a person the turn before did ("my daughter is 12")
		return true
	case "it":
		return !dummyIt[next]
	case "one":
		// "which one", "can I get one?", not "one day" (a number)
		return next == "" || fillerWords[next] || askWords[next] && next != "day" && next != "days" || i > 0 && (toks[i-1] == "which" || toks[i-1] == "that" || toks[i-1] == "this" || toks[i-1] == "another" || toks[i-1] == "other")
	case "there":
		// a place, not the existential "is there", "there are"
		prev := ""
		if i > 0 {
			prev = toks[i-1]
		}
		return !existential[prev] && !existential[next] && next != "s"
	}
	return false
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(s) {
		m[w] = true
	}
	return m
}

var (
	interjections = wordSet("ok okay so oh right cool great thanks thank ah hmm well")
	// dummyIt are the words after an "it" that refers to nothing ("is it
	// possible to pay by card?").
	dummyIt = wordSet("possible okay ok necessary true likely worth raining")
	// existential are the words beside an existential "there".
	existential = wordSet("is are was were be been isn aren wasn weren will would can could might may must should has have had")
	// timeWords after "this" or "that" name a time ("what's on this
	// weekend?"), not something the previous turn named.
	timeWords = wordSet(`week weekend weekends morning afternoon evening night month year time summer winter spring autumn
		monday tuesday wednesday thursday friday saturday sunday`)
	// firstPerson are the customer's words for themselves.
	firstPerson = wordSet("i me my mine we us our ours im ive")
	// auxiliaries open a yes/no question ("do you ...", "does it ...").
	auxiliaries = wordSet("do does did shall")
	// askWords ask for an answer of a type without naming a topic.
	// "what days?", "which day?", "what age?" ask for a day or an age of
	// what the turn before named (trial 18: "Do you do swimming?" then
	// "What days?").
	askWords = wordSet("what whats which who whom whose when where why how much many long far old big price prices cost costs fee fees charge charges pay rate rates time times date dates day days age ages")
	// contactWords ask for the service's own contact details.
	contactWords = wordSet("phone number email mail address contact reach call hours opening open close closing located location")
	// fillerWords are function words, interjections and courtesy: not
	// content.
	fillerWords = wordSet(`a an the of to in on at for from by with about into over under up down out off as
		is are was were be been being am do does did done doing have has had having can could will would shall should
		may might must need needs get got i me my mine we us our ours he him his she her hers it its their theirs
		s t d ll m re ve not no yes any some there here then than too also just only very really still ever
		and or but if so because please pls thanks thank ok okay oh well hi hello hey cool great right sure yeah
		tell know want like let way kind sort bit`)
)
