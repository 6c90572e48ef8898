package mockllm

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Which sentence of a note the simulated model quotes: as a model answers
// from the sentence that answers, not from the one a section opens with,
// each cited note's sentences are ranked by the content words they share
// with the user's message (contentWords, the planner's notion: words of
// four or more letters matched on their first five, stop words aside),
// most first, ties in note order; a note sharing none is quoted from its
// first sentence, as before (operator trial 11: of 31 answers citing the
// right section, 10 held the answer when the first sentence was quoted).
// A heading or a title is never a sentence to quote (dropHeadings,
// isTitleLead).

// noteSentences cuts a note's text (as parseNotes left it) into at most
// max sentences as firstSentence cuts them, dropping the numbered headings
// and title lines that open any of them ("12. COMPLAINTS. 12.1 ..."). A
// sentence after the first that is a heading alone is left out.
func noteSentences(text string, max int) []string {
	var out []string
	s := strings.TrimSpace(text)
	for len(out) < max && s != "" {
		if len(out) > 0 {
			s = dropTitleLeads(dropHeadings(s))
		}
		sent := firstSentence(s)
		if sent == "" {
			break
		}
		if len(out) == 0 || !headingOnly(sent) {
			out = append(out, sent)
		}
		rest := strings.TrimLeft(strings.TrimPrefix(s, sent), ".!? ")
		if len(rest) == len(s) {
			break
		}
		s = rest
	}
	return out
}

// dropTitleLeads removes the title lines (isTitleLead) that open s, unless
// nothing else is left.
func dropTitleLeads(s string) string {
	for {
		end := leadEnd(s)
		if end < 0 {
			return s
		}
		rest := strings.TrimSpace(s[end+1:])
		if rest == "" || !isTitleLead(s[:end+1]) {
			return s
		}
		s = rest
	}
}

// headingOnly reports whether a sentence (without its final stop) is a
// heading or a title and nothing else.
func headingOnly(sent string) bool {
	h := sent + "."
	if isTitleLead(h) {
		return true
	}
	if !mayHead(h) {
		return false
	}
	m := headingRe.FindStringIndex(h)
	return m != nil && m[1] == len(h) && !numberedClause(h)
}

// rankSentences returns the indexes of sents, those sharing the most of
// asked's content words first, ties (and sentences sharing none) in note
// order: with no word shared, the first sentence leads, as before.
func rankSentences(sents []string, asked map[string]int) []int {
	shared := make([]int, len(sents))
	idx := make([]int, len(sents))
	for i, s := range sents {
		idx[i] = i
		if len(asked) > 0 {
			shared[i] = sharedWords(s, asked)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return shared[b] - shared[a] })
	return idx
}

// maxNoteSentences bounds the sentences of one note ranked for a question.
const maxNoteSentences = 64

// greetings open a chat message without being its question.
var greetings = map[string]bool{"hi": true, "hiya": true, "hey": true, "hello": true, "thanks": true, "cheers": true}

// questionOpeners open a question typed without its mark ("is it ok if
// we have a couple of pints before hand. just checkin").
var questionOpeners = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("what when where which who whom whose why how is are am was were can could do does did " +
		"will would should shall may might have has any") {
		m[w] = true
	}
	return m
}()

// questionSentence is what a fallback answer names as its topic: the
// message's last sentence that ends with "?", else its last sentence that
// opens as a question does (questionOpeners), else its last sentence,
// without a greeting before it ("hiya my twins are 5 and going in the
// little kids group. how many are in a group" -> "how many are in a
// group"), trimmed as firstSentence trims and without its final mark; ""
// for an empty message.
func questionSentence(msg string) string {
	var sents []string
	start := 0
	for i := 0; i <= len(msg); i++ {
		end := i == len(msg) || msg[i] == '\n' ||
			((msg[i] == '?' || msg[i] == '!' || msg[i] == '.') && (i+1 == len(msg) || msg[i+1] == ' ' || msg[i+1] == '\n'))
		if !end {
			continue
		}
		if i < len(msg) && msg[i] != '\n' {
			i++ // keep the mark
		}
		if sent := dropGreeting(strings.TrimSpace(msg[start:min(i, len(msg))])); sent != "" {
			sents = append(sents, sent)
		}
		start = i
	}
	if len(sents) == 0 {
		return ""
	}
	asks := func(s string) bool { return strings.HasSuffix(s, "?") }
	opens := func(s string) bool { w, _, _ := strings.Cut(s, " "); return questionOpeners[strings.ToLower(w)] }
	q := sents[len(sents)-1]
	if i := lastIndexFunc(sents, asks); i >= 0 {
		q = sents[i]
	} else if i := lastIndexFunc(sents, opens); i >= 0 {
		q = sents[i]
	}
	return firstSentence(q)
}

// dropGreeting removes the greetings (greetings) that open s, with the
// punctuation after each ("hi, ", "thanks! ").
func dropGreeting(s string) string {
	for {
		word, rest, _ := strings.Cut(s, " ")
		if !greetings[strings.ToLower(strings.TrimRight(word, ",.!;:"))] {
			return s
		}
		s = strings.TrimSpace(rest)
	}
}

// lastIndexFunc is the index of the last s of ss for which f holds, -1
// when none does.
func lastIndexFunc(ss []string, f func(string) bool) int {
	for i := len(ss) - 1; i >= 0; i-- {
		if f(ss[i]) {
			return i
		}
	}
	return -1
}

// askedWords numbers the content words of a question (contentWords) for
// sharedWords.
func askedWords(q string) map[string]int {
	out := map[string]int{}
	for w := range contentWords(q) {
		out[w] = len(out)
	}
	return out
}

// sharedWords counts the content words of s (as contentWords reads them)
// that asked holds, each once, without building s's set: an ASCII word is
// lower-cased into a buffer on the stack.
func sharedWords(s string, asked map[string]int) int {
	var seen uint64 // asked's words 0..63 already counted
	n := 0
	var buf [64]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j, ascii := i, true
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			ascii = ascii && r < utf8.RuneSelf
			j += size
		}
		word := s[i:j]
		i = j
		var k int
		var ok bool
		if !ascii || len(word) > len(buf) {
			for w := range contentWords(word) {
				k, ok = asked[w]
			}
		} else if len(word) >= 4 {
			b := buf[:len(word)]
			for x := range len(word) {
				b[x] = byte(unicode.ToLower(rune(word[x])))
			}
			if !plannerStop[string(b)] {
				k, ok = asked[string(b[:min(5, len(b))])]
			}
		}
		if !ok {
			continue
		}
		if k < 64 {
			if seen&(1<<k) != 0 {
				continue
			}
			seen |= 1 << k
		}
		n++
	}
	return n
}
