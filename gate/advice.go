package gate

import (
	"regexp"
	"strings"
)

// A chat widget also gets requests for general advice in the service's
// trade: "what's the best way to get red wine out of a carpet?" at a
// laundrette, "any tips for packing glasses so they don't break?" at a
// removals firm, "whats the best way to get rid of slugs on my lettuces"
// at an allotment society. The corpus shares their words, so their
// relevance reaches good-enough and the turn grounds on passages that do
// not answer them (operator trials 20-27: 17 such questions grounded of
// 19). adviceRequest recognises the request by its English form, never by
// a corpus's words, and the gate handles it as off-topic (gate.off_topic),
// as it does a request to make something. Three forms are read:
//
//   - "what's the best way to V ...", unless V is a step of dealing with
//     the service ("the best way to book / contact / pay / get to ...",
//     adviceOwnSteps);
//   - "any tips for|on|to ...", "tips for|on ...ing";
//   - "how do|can|should I V ... myself|at home" (diyRe), V not such a
//     step.
//
// Neither is read when the message speaks to the service ("you", "your",
// "u", "ur": "what's the best way to get to you?", "any tips for parking
// near you?"), and a contact question is never advice. "what's the best
// package for a family?" and "is the excess waiver worth it?" ask about
// the service's own offer, and "which is better, X or Y" as often compares
// its plans as two phones: those forms are not read.
var adviceRe = regexp.MustCompile(`(?i)\b(?:what'?s|whats|what\s+is)\s+(?:the\s+|a\s+)?(?:best|easiest|quickest|safest|cheapest)\s+way\s+(?:to|of)\s+([\p{L}'’]+)(?:\s+([\p{L}'’]+))?` +
	`|\bany\s+(?:good\s+|quick\s+|top\s+)?tips\s+(?:for|on|to|about)\b|\btips\s+(?:for|on)\s+\p{L}+ing\b`)

// diyRe is the third form: "how do|can|should I V ... myself|at home" (a
// customer asking how to do the job without the service: "How do I fix a
// puncture myself at the side of the road?" at a bike shop, "How do I make
// pizza dough at home?" at a takeaway; operator trials 20-33's dev
// corpora). The clause runs to the first "?", "." or "!".
var diyRe = regexp.MustCompile(`(?i)\bhow\s+(?:do|can|could|should|would)\s+(?:i|we)\s+([\p{L}'’]+)[^?.!]*\b(?:myself|ourselves|at\s+home)\b`)

// adviceOwnSteps are the verbs of "the best way to V" that ask how to deal
// with the service, not for advice ("the best way to book").
var adviceOwnSteps = map[string]bool{"book": true, "contact": true, "reach": true, "pay": true, "apply": true,
	"order": true, "cancel": true, "complain": true, "return": true, "send": true, "find": true, "park": true,
	"arrive": true, "travel": true, "come": true, "visit": true, "join": true, "register": true, "renew": true,
	"collect": true, "drop": true, "ring": true, "call": true, "phone": true, "email": true, "message": true, "ask": true}

// adviceOwnGet are the words after "the best way to get" that make it a
// step of dealing with the service ("get to", "get in touch", "get here").
var adviceOwnGet = map[string]bool{"to": true, "in": true, "here": true, "there": true, "hold": true}

// adviceYou are the words that address the service.
var adviceYou = map[string]bool{"you": true, "your": true, "yours": true, "u": true, "ur": true, "you're": true, "youre": true}

// speaksToService reports whether q holds a word that addresses the
// service (adviceYou), in any case; a typographic apostrophe ends a word
// ("you’re" holds "you"). It reads every question, so it makes no copy.
func speaksToService(q string) bool {
	start := -1
	for i := 0; i <= len(q); i++ {
		if i < len(q) {
			c := q[i]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' {
				if start < 0 {
					start = i
				}
				continue
			}
		}
		if start >= 0 {
			w := q[start:i]
			start = -1
			if len(w) <= 6 {
				var buf [6]byte
				for j := 0; j < len(w); j++ {
					c := w[j]
					if c >= 'A' && c <= 'Z' {
						c += 'a' - 'A'
					}
					buf[j] = c
				}
				if adviceYou[string(buf[:len(w)])] { // no copy: the compiler reads the map with the bytes
					return true
				}
			}
		}
	}
	return false
}

// adviceRequest reports whether q asks for general advice (adviceForm)
// rather than about the service.
func adviceRequest(q string) bool { return adviceForm(q) && !speaksToService(q) }

// adviceForm reports whether q has one of adviceRe's forms, whether or not
// it speaks to the service (AskFrom reads that once, for Ask.You too).
func adviceForm(q string) bool {
	lower := strings.ToLower(q)
	if (strings.Contains(lower, "myself") || strings.Contains(lower, "ourselves") || strings.Contains(lower, "at home")) && strings.Contains(lower, "how") {
		if m := diyRe.FindStringSubmatch(lower); m != nil && !adviceOwnSteps[strings.ReplaceAll(m[1], "’", "'")] {
			return true
		}
	}
	if !strings.Contains(lower, "way") && !strings.Contains(lower, "tips") {
		return false // most messages hold neither: no search
	}
	m := adviceRe.FindStringSubmatch(lower)
	if m == nil {
		return false
	}
	v := strings.ReplaceAll(m[1], "’", "'")
	return !adviceOwnSteps[v] && !(v == "get" && adviceOwnGet[m[2]])
}
