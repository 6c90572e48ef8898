package judge

import "strings"

// Reason codes of the verdicts the money cues decide.
const (
	// ReasonPriceMismatch: the claim says free where the cited source
	// gives a price, or gives a price where the source says free.
	ReasonPriceMismatch = "price_mismatch"
	// ReasonMissingTerm: a term the claim says something about (a word of
	// a noun phrase) is nowhere in the cited source, not even as a
	// synonym; the claim is at most neutral (missing.go).
	ReasonMissingTerm = "missing_term"
	// ReasonOtherClass: the claim says of a class ("residents") what the
	// cited source says only of the others ("non-residents"), or the
	// reverse; the claim is at most neutral (otherclass.go).
	ReasonOtherClass = "other_class"
)

// A claim that says a thing is free is contradicted by a window that gives
// it a price and does not say it is free ("Parking is free for guests"
// against "Parking for guests is £12 a night"), and a claim that gives a
// price by a window that says free and gives none. The cues are read from
// the text after normPhrases, which has already made "at no cost", "free
// of charge" and the like "free".

// freeCue reports whether t (normPhrases applied) says something costs
// nothing: "free" or "gratis" or "complimentary" as a word of its own
// (not "gluten-free", not "feel free"), "no charge", "no fee".
func freeCue(t string) bool {
	for _, w := range []string{"free", "gratis", "complimentary"} {
		for i := 0; ; {
			s := indexFold(t, w, i)
			if s < 0 {
				break
			}
			e := s + len(w)
			i = e
			if s > 0 && (isWordByte(t[s-1]) || t[s-1] == '-') || e < len(t) && (isWordByte(t[e]) || t[e] == '-') {
				continue
			}
			if w == "free" && (s >= 5 && strings.EqualFold(t[s-5:s], "feel ") || freeAvailable(t, e)) {
				continue
			}
			return true
		}
	}
	for i := 0; ; {
		s := indexFold(t, "no", i)
		if s < 0 {
			return false
		}
		i = s + 2
		if s > 0 && isWordByte(t[s-1]) {
			continue
		}
		for _, p := range []string{"no charge", "no extra charge", "no fee", "no fees", "not charged", "no cost", "no extra cost"} {
			if e := s + len(p); e <= len(t) && strings.EqualFold(t[s:e], p) && (e == len(t) || !isWordByte(t[e])) {
				return true
			}
		}
	}
}

// freeAvailable reports whether the "free" that ends at t[e] says
// something is available, or says it only at a time, not that it costs
// nothing: a day or time after it ("free on Mondays", "free after 6pm",
// "free tomorrow"), or "to" and a verb ("free to talk", "free to book").
// A price verb after "to" ("free to join", "free to use") and a party
// ("free to members", "free to the public") keep it a price word. A
// free with a time is no plain price either way ("Entry is free on
// Mondays" may be one): the money cues leave it to the other checks.
func freeAvailable(t string, e int) bool {
	i := skipSpaceStr(t, e)
	w1 := strings.ToLower(wordAt(t, i))
	if freeTimeWords[w1] {
		return true
	}
	i = skipSpaceStr(t, i+len(w1))
	if w1 == "" || i >= len(t) {
		return false
	}
	if freeTimePreps[w1] {
		return t[i] >= '0' && t[i] <= '9' || freeTimeWords[strings.ToLower(wordAt(t, i))]
	}
	if w1 != "to" {
		return false
	}
	w2 := strings.ToLower(wordAt(t, i))
	switch {
	case w2 == "" || freePriceVerbs[w2] || freeParties[w2] || determiners[w2] || lexicon[w2].stop:
		return false
	case strings.HasSuffix(w2, "s") && !strings.HasSuffix(w2, "ss"):
		return false // a party: "free to residents"
	}
	return true
}

// freeTimePreps open a time after "free" ("on Mondays", "after 6pm").
var freeTimePreps = map[string]bool{"on": true, "from": true, "after": true, "before": true, "until": true, "till": true,
	"between": true, "at": true, "during": true, "every": true, "each": true, "all": true, "most": true, "in": true}

// freeTimeWords are days and times, lowercase.
var freeTimeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday weekday weekend
	morning afternoon evening night noon midday midnight today tomorrow tonight now week day`) {
		m[w], m[w+"s"] = true, true
	}
	return m
}()

// freePriceVerbs after "free to" keep "free" a price word ("free to
// join", "free to use").
var freePriceVerbs = wordSet("join enter use attend download access play visit install watch stream read borrow park ride try register subscribe apply call ship return cancel change exchange hire rent keep take order send collect upgrade")

// freeParties after "free to" are people it costs nothing for.
var freeParties = wordSet("staff everyone everybody anyone anybody children people public all you them us guests")

// wordSet is the set of the space-separated words, as written (stemSet
// stems them).
func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// indexFold is the index of the first ASCII-case-insensitive match of
// the lowercase sub in s at or after from, -1 when none.
func indexFold(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// currencyWords are the words that make the number before them a price
// ("12 euros").
var currencyWords = map[string]bool{"euro": true, "euros": true, "eur": true, "dollar": true, "dollars": true,
	"usd": true, "gbp": true, "pound": true, "pounds": true, "pence": true, "cents": true, "chf": true,
	"francs": true, "yen": true, "kr": true, "sek": true, "nok": true, "dkk": true}

// costWords are the words that make a number within three words after
// them a price ("costs 12 a night", "a fee of 5").
var costWords = map[string]bool{"cost": true, "costs": true, "charge": true, "charges": true, "charged": true,
	"fee": true, "fees": true, "price": true, "priced": true, "pay": true, "pays": true, "paid": true}

// priceCue reports whether t states a price: a number after a currency
// sign (£12, $ 5, €3.50) or before a currency word (12 euros), or within
// three words after a word of cost (costs 12, a fee of 5).
func priceCue(t string) bool {
	if strings.IndexAny(t, "0123456789") < 0 {
		return false
	}
	for _, sign := range []string{"£", "$", "€", "¥"} {
		for i := 0; ; {
			j := strings.Index(t[i:], sign)
			if j < 0 {
				break
			}
			k := skipSpaceStr(t, i+j+len(sign))
			if k < len(t) && t[k] >= '0' && t[k] <= '9' {
				return true
			}
			i += j + len(sign)
		}
	}
	// words and numbers in order: a number after a cost word, or before a
	// currency word
	sinceCost := -1 // words since the last cost word (-1: none in reach)
	lastNum := false
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			for i < len(t) && (t[i] >= '0' && t[i] <= '9' || (t[i] == '.' || t[i] == ',') && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9') {
				i++
			}
			if sinceCost >= 0 {
				return true
			}
			lastNum = true
		case isLetterByte(c):
			w := wordAt(t, i)
			i += len(w)
			lw := strings.ToLower(w)
			if lastNum && currencyWords[lw] {
				return true
			}
			lastNum = false
			switch {
			case costWords[lw]:
				sinceCost = 0
			case sinceCost >= 0:
				sinceCost++
				if sinceCost > 3 {
					sinceCost = -1
				}
			}
		case c == '.' || c == ';' || c == '!' || c == '?':
			sinceCost, lastNum = -1, false
			i++
		default:
			i++
		}
	}
	return false
}

// moneyStems are the stems of the words a claim states a price or its
// absence with: with the claim's numbers, the terms a price conflict is
// about.
var moneyStems = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("free gratis complimentary cost costs price charge charges charged fee fees pay paid euro euros dollar dollars pound pounds pence cents") {
		m[canonStem(w)] = true
	}
	return m
}()

// chargeStems are the stems of the words that say a thing costs something
// without a number ("a charge for", "you pay for"), a claim's price cue
// where it gives none. "Fee", "cost" and "price" are left out: "The fee
// includes breakfast" says nothing against "Breakfast is free".
var chargeStems = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("charge charges charged pay pays paid") {
		m[canonStem(w)] = true
	}
	return m
}()

// priceMinCover is the share of a claim's terms other than its money terms
// that a window must cover for its price to be about the claim's thing.
const priceMinCover = 0.5
