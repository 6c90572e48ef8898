package judge

import "strings"

// Two wordings whose polarity differs from their source's in form only,
// rewritten by phraseNorms:
//
//   - "You do not pay for parking", "You don't have to pay for wifi" say
//     what "Parking is free" says: "free for parking". Past tense ("did
//     not pay") tells of an event, not a price, and is left alone. An
//     insurer's "We do not pay for storm damage" (an exclusion) reads as
//     "We free for storm damage" too; a claim "We pay for storm damage"
//     against it is then a price conflict (chargeStems) where it was a
//     negation one: a contradiction either way.
//   - "No check-in before 3pm", "There are no deliveries until 8am" say
//     what "Check-in is from 3pm" says: "check-in from 3pm", as "not
//     possible before 3pm" is "possible from 3pm". One word (hyphens
//     allowed) between "no" and "before|until", then a time.

// notPayLeads are the negations "... pay for|to" follows, each with its
// space; notPayMids the optional modal between.
var (
	notPayLeads = []string{"do not ", "does not ", "don't ", "doesn't "}
	notPayMids  = []string{"have to ", "need to "}
)

// notPayNeed and noBeforeNeed are the need literals of the rules: every
// match holds one of them.
var notPayNeed, noBeforeNeed = func() (np, nb []string) {
	for _, l := range notPayLeads {
		np = append(np, l+"pay ")
		for _, m := range notPayMids {
			np = append(np, l+m+"pay ")
		}
	}
	return np, []string{"before ", "until "}
}()

// scanNotPay is `(?i)\b(do not|does not|don't|doesn't)( have to| need
// to)? pay (for|to)\b` replaced by "free" and the preposition, for text
// without the runes (?i) folds to ASCII letters.
func scanNotPay(s string) string {
	return replaceScan(s, func(i int) int { return matchNotPay(s, i) }, func(m string) string { return "free " + m[strings.LastIndexByte(m, ' ')+1:] })
}

// matchNotPay returns the end of a match of scanNotPay's pattern starting
// at i, or -1.
func matchNotPay(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) {
		return -1
	}
	k := -1
	for _, l := range notPayLeads {
		if e := i + len(l); e <= len(s) && strings.EqualFold(s[i:e], l) {
			k = e
			break
		}
	}
	if k < 0 {
		return -1
	}
	for _, m := range notPayMids {
		if e := k + len(m); e <= len(s) && strings.EqualFold(s[k:e], m) {
			k = e
			break
		}
	}
	if e := k + 4; e > len(s) || !strings.EqualFold(s[k:e], "pay ") {
		return -1
	}
	k += 4
	for _, p := range []string{"for", "to"} {
		if e := k + len(p); e <= len(s) && strings.EqualFold(s[k:e], p) && (e == len(s) || !isWordByte(s[e])) {
			return e
		}
	}
	return -1
}

// scanNoBefore is `(?i)\bno ([a-z]+(-[a-z]+)?) (before|until)
// (\d|noon\b|midday\b)` replaced by "$1 from $4", for text without the
// runes (?i) folds to ASCII letters.
func scanNoBefore(s string) string {
	return replaceScan(s, func(i int) int { return matchNoBefore(s, i) }, func(m string) string {
		f := strings.Fields(m) // "no", the word, "before" or "until", the time's start
		return f[1] + " from " + f[3]
	})
}

// matchNoBefore returns the end of a match of scanNoBefore's pattern
// starting at i, or -1.
func matchNoBefore(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) || i+3 > len(s) || !strings.EqualFold(s[i:i+3], "no ") {
		return -1
	}
	letters := func(k int) int {
		for k < len(s) && isLetterByte(s[k]) {
			k++
		}
		return k
	}
	k := letters(i + 3)
	if k == i+3 {
		return -1
	}
	if k < len(s) && s[k] == '-' {
		e := letters(k + 1)
		if e == k+1 {
			return -1
		}
		k = e
	}
	if k >= len(s) || s[k] != ' ' {
		return -1
	}
	return matchLeadNum(s, k+1, []string{"before ", "until "}, noonWords)
}
