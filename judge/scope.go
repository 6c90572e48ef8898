package judge

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Conditions and scope. A claim can share every content word with its
// evidence and still say more than it: "The car park is free all day"
// against "Parking is free for the first 3 hours; after that it costs 2
// euros an hour". scope reads the conditions a text puts on what it says:
//
//   - bounds and ranges on a quantity: under / over N, up to N, at least N,
//     N and over, for the first N hours, within N days, from M to N,
//     between M and N, M to N (clock times, ages, amounts, durations);
//   - periods: days of the week (Monday to Thursday, weekdays, weekends,
//     on Tuesdays and Thursdays) and months (May to September);
//   - exclusive words (only, except, excluding, apart from, other than,
//     limited to) and conditions (if, unless, provided, when accompanied,
//     with approval, by appointment, after their probation);
//   - on the claim side, the words that widen: all, every, any, always,
//     never, everyone, unlimited, as many as, at any time, around the
//     clock, all year, every day.
//
// The evidence clause that carries the claim (the clause of the best
// window sharing most content stems with it) is compared with the claim,
// dimension by dimension: a condition of the clause the claim leaves out is
// condition_dropped, or scope_widened when the claim says all / every /
// always instead; a claim range the clause's ranges do not contain is
// range_mismatch (scope_widened when the claim's range is a universal one
// such as "all year"). It is a contradiction when the evidence excludes
// the rest (a bound, a range or a closed period, only / except, "after
// that", "otherwise") and neutral when it merely conditions it ("if",
// "unless", "with approval").

// Reason codes of scope findings.
const (
	ReasonScopeWidened     = "scope_widened"
	ReasonConditionDropped = "condition_dropped"
	ReasonRangeMismatch    = "range_mismatch"
)

// scopeCond is one condition on a dimension: an interval for quantities
// and clock times, a bit mask for days and months.
type scopeCond struct {
	dim    string // "time" (clock), "day", "month", "dur" (seconds), "mass" (grams), another unit ("euro"), "n" (no unit)
	lo, hi float64
	mask   uint16
	univ   bool // stated as all / every (all year, every day, around the clock)
	single bool // one day or month named alone: a date in the evidence, a condition in a claim
	plain  bool // a bare quantity range ("70 to 80 degrees", "for two to three minutes"): a detail more often than a limit
	text   string
}

// scopeWord is a non-numeric restriction: an exclusive word or a condition,
// with the content stems that follow it.
type scopeWord struct {
	excl  bool
	cue   string
	stems []string
}

type scopeInfo struct {
	conds  []scopeCond
	points []scopeCond // clock times without a cue: conditions of a claim, facts of the evidence
	words  []scopeWord
	univ   string // the first widening word of the text ("" none)
	after  bool   // "after that", "thereafter", "otherwise" opening a clause: the rest is excluded
	clause string
}

// scopeFinding is what scope concludes about a claim against a window.
type scopeFinding struct {
	reason   string // ReasonScopeWidened, ReasonConditionDropped, ReasonRangeMismatch
	excluded bool   // the evidence excludes what the claim adds: contradiction
	span     string // the evidence clause
	what     string // the condition, as the evidence states it
}

type stok struct {
	w     string  // lowercase word, or the number as written
	num   float64 // value when isNum
	isNum bool
	clock bool // a clock time (9:30)
	brk   bool // a clause boundary precedes it
}

var scopeNumWords = map[string]float64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
	"thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}

// scopeTokens splits text into lowercase words and numbers.
func scopeTokens(text string) []stok {
	out := make([]stok, 0, len(text)/6+1) // about a token per 6 bytes of prose: one allocation
	brk := false
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(text) && (text[j] >= '0' && text[j] <= '9' || (text[j] == ',' || text[j] == '.' || text[j] == ':') && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9') {
				j++
			}
			raw := text[i:j]
			t := stok{w: raw, isNum: true, brk: brk}
			if h, m, ok := strings.Cut(raw, ":"); ok {
				hv, _ := strconv.Atoi(h)
				mv, _ := strconv.Atoi(m)
				t.num, t.clock = float64(hv)+float64(mv)/60, true
			} else {
				t.num, _ = strconv.ParseFloat(strings.ReplaceAll(raw, ",", ""), 64)
			}
			// 9am, 5pm
			if j+1 < len(text) && (text[j:j+2] == "am" || text[j:j+2] == "pm") && (j+2 == len(text) || !isLetterByte(text[j+2])) {
				if text[j] == 'p' && t.num < 12 {
					t.num += 12
				}
				t.clock = true
				j += 2
			}
			out = append(out, t)
			brk = false
			i = j
		case isLetterByte(c):
			j := i
			for j < len(text) && (isLetterByte(text[j]) || text[j] >= '0' && text[j] <= '9' || text[j] == '\'' || text[j] == '-' && j+1 < len(text) && isLetterByte(text[j+1])) {
				j++
			}
			w := strings.ToLower(text[i:j])
			if v, ok := scopeNumWords[w]; ok {
				out = append(out, stok{w: w, num: v, isNum: true, brk: brk})
			} else {
				out = append(out, stok{w: w, brk: brk})
			}
			brk = false
			i = j
		default:
			switch c {
			case ',', ';', ':', '.', '(', ')', '!', '?':
				brk = true
			case '+':
				out = append(out, stok{w: "+"})
			case '/':
				out = append(out, stok{w: "/"})
			case '%':
				out = append(out, stok{w: "percent"})
			}
			i++
		}
	}
	return out
}

var (
	dayIdx   = map[string]int{"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
	monthIdx = map[string]int{"january": 0, "february": 1, "march": 2, "april": 3, "may": 4, "june": 5, "july": 6,
		"august": 7, "september": 8, "october": 9, "november": 10, "december": 11}
	upperCues = [][]string{{"under"}, {"below"}, {"less", "than"}, {"younger", "than"}, {"fewer", "than"}, {"up", "to"},
		{"at", "most"}, {"no", "more", "than"}, {"not", "more", "than"}, {"maximum", "of"}, {"max"}, {"maximum"}, {"within"}, {"until"}, {"till"},
		{"before"}, {"first"}, {"limited", "to"}, {"no", "later", "than"}}
	lowerCues = [][]string{{"over"}, {"above"}, {"more", "than"}, {"older", "than"}, {"at", "least"}, {"minimum", "of"},
		{"from", "age"}, {"from", "the", "age", "of"}, {"from"}, {"after"}, {"since"}, {"beyond"}, {"exceeding"}}
	upperTails = [][]string{{"and", "under"}, {"or", "under"}, {"or", "less"}, {"or", "younger"}, {"or", "fewer"}, {"and", "below"}, {"or", "below"}, {"and", "younger"}}
	lowerTails = [][]string{{"and", "over"}, {"or", "over"}, {"or", "more"}, {"or", "older"}, {"and", "older"}, {"and", "above"}, {"or", "above"}, {"+"}, {"and", "up"}}
	// units as a dimension ("3 hours" -> hour)
	unitDims = map[string]string{"hour": "dur", "hours": "dur", "h": "dur", "hr": "dur", "hrs": "dur",
		"minute": "dur", "minutes": "dur", "min": "dur", "mins": "dur", "second": "dur", "seconds": "dur", "sec": "dur", "secs": "dur",
		"day": "dur", "days": "dur", "week": "dur", "weeks": "dur", "month": "dur", "months": "dur",
		"year": "n", "years": "n", "year-old": "n", "year-olds": "n",
		"kg": "mass", "kilograms": "mass", "kilos": "mass", "g": "mass", "grams": "mass", "euro": "euro", "euros": "euro", "eur": "euro",
		"dollar": "dollar", "dollars": "dollar", "usd": "dollar", "percent": "percent", "gb": "gb", "mb": "mb", "km": "km", "m": "m",
		"metres": "m", "meters": "m", "nights": "night", "night": "night", "people": "people", "persons": "people", "guests": "people",
		"passengers": "people", "members": "people", "items": "item", "item": "item", "books": "book", "book": "book",
		"projects": "project", "project": "project", "doses": "dose", "dose": "dose", "times": "times", "requests": "request",
		"seats": "seat", "bags": "bag", "users": "user", "tickets": "ticket"}
	// unitScale converts a unit to its dimension's base (seconds, grams), so
	// that "within 900 seconds" is "within 15 minutes"
	unitScale = map[string]float64{"hour": 3600, "hours": 3600, "h": 3600, "hr": 3600, "hrs": 3600, "minute": 60, "minutes": 60,
		"min": 60, "mins": 60, "second": 1, "seconds": 1, "sec": 1, "secs": 1, "day": 86400, "days": 86400, "week": 604800,
		"weeks": 604800, "month": 2592000, "months": 2592000, "kg": 1000, "kilograms": 1000, "kilos": 1000, "g": 1, "grams": 1}
	// timeCues bound a time: without a unit their number is a count or a
	// date ("after ten failed attempts", "since 1989"), not a condition;
	// only a cue of one word is one ("from age 5" bounds an age)
	timeCues = map[string]bool{"after": true, "before": true, "since": true, "within": true, "until": true, "till": true,
		"from": true, "beyond": true, "exceeding": true}
	// widening words and phrases of a claim
	univPhrases = [][]string{{"all"}, {"every"}, {"any"}, {"always"}, {"never"}, {"everyone"}, {"everybody"}, {"anyone"},
		{"anybody"}, {"everything"}, {"anything"}, {"unlimited"}, {"whenever"}, {"as", "many"}, {"as", "much"}, {"as", "often"},
		{"as", "long", "as", "they", "like"}, {"as", "long", "as", "you", "like"}, {"as", "long", "as", "they", "want"},
		{"without", "limit"}, {"no", "limit"}, {"anytime"}, {"around", "the", "clock"}, {"year-round"}, {"including"},
		{"whole"}, {"entire"}, {"daily"}, {"without"}}
	exclCues = [][]string{{"only"}, {"except"}, {"excluding"}, {"apart", "from"}, {"other", "than"}, {"but", "not"},
		{"outside"}, {"exclusively"}, {"solely"}, {"restricted", "to"}, {"reserved", "for"}, {"not", "on"}}
	// conditions: only the cues that make a statement conditional in a
	// policy ("with", "when", "who" mostly describe, in encyclopedic text)
	condCues = [][]string{{"if"}, {"unless"}, {"provided"}, {"as", "long", "as"}, {"by", "appointment"},
		{"on", "request"}, {"subject", "to"}, {"after", "their"}, {"with", "their"}, {"with", "the", "approval"}, {"with", "approval"},
		{"with", "a", "prescription"}, {"when", "accompanied"}, {"accompanied", "by"}}
	afterCues = [][]string{{"after", "that"}, {"thereafter"}, {"afterwards"}, {"otherwise"}, {"beyond", "that"}}
)

// wordCueLeads are the first words of univPhrases, exclCues, condCues and
// afterCues: at a token that is none of them (or a number) no phrase of
// theirs starts, and analyseScope's word pass skips it.
var wordCueLeads = func() map[string]bool {
	m := map[string]bool{}
	for _, ps := range [][][]string{univPhrases, exclCues, condCues, afterCues} {
		for _, p := range ps {
			m[p[0]] = true
		}
	}
	return m
}()

// matchAt reports whether ts[i:] starts with phrase p.
func matchAt(ts []stok, i int, p []string) bool {
	if i+len(p) > len(ts) {
		return false
	}
	for k, w := range p {
		if ts[i+k].isNum || ts[i+k].w != w {
			return false
		}
	}
	return true
}

func matchAny(ts []stok, i int, ps [][]string) []string {
	for _, p := range ps {
		if matchAt(ts, i, p) {
			return p
		}
	}
	return nil
}

// endsWith reports whether ts[:i] ends with phrase p.
func endsWith(ts []stok, i int, p []string) bool {
	return i-len(p) >= 0 && matchAt(ts, i-len(p), p)
}

func dayOf(w string) (int, bool) {
	d, ok := dayIdx[strings.TrimSuffix(w, "s")]
	if !ok {
		d, ok = dayIdx[w]
	}
	return d, ok
}

// analyseScope reads the conditions of text.
func analyseScope(text string) scopeInfo {
	return analyseScopeNorm(text, normPhrases(text))
}

// analyseScopeNorm is analyseScope with norm, normPhrases(text), already
// made.
func analyseScopeNorm(text, norm string) scopeInfo {
	ts := scopeTokens(norm)
	si := scopeInfo{clause: text}
	used := make([]bool, len(ts))
	span := func(a, b int) string {
		var ws []string
		for k := max(a, 0); k < b && k < len(ts); k++ {
			ws = append(ws, ts[k].w)
		}
		return strings.Join(ws, " ")
	}
	// periods: day and month ranges and lists
	for i := 0; i < len(ts); i++ {
		if used[i] || ts[i].isNum {
			continue
		}
		w := ts[i].w
		if d, ok := dayOf(w); ok {
			c := scopeCond{dim: "day", mask: 1 << d}
			j := i + 1
			if j+1 < len(ts) && (ts[j].w == "to" || ts[j].w == "through" || ts[j].w == "until" || ts[j].w == "till") {
				if e, ok := dayOf(ts[j+1].w); ok {
					c.mask = 0
					for k := d; ; k = (k + 1) % 7 {
						c.mask |= 1 << k
						if k == e {
							break
						}
					}
					j += 2
				}
			}
			for j+1 < len(ts) && (ts[j].w == "and" || ts[j].w == "or") {
				e, ok := dayOf(ts[j+1].w)
				if !ok {
					break
				}
				c.mask |= 1 << e
				j += 2
			}
			c.text = span(i, j)
			// one day named once ("on Wednesday", a team called Wednesday)
			// is a date, not a period; "Tuesdays", lists and ranges are
			if j == i+1 && !strings.HasSuffix(w, "s") {
				c.single = true
			}
			// "the first Sunday of every month" is one day a month, not Sundays
			if i >= 2 && ts[i-1].w == "first" || i >= 1 && (ts[i-1].w == "first" || ts[i-1].w == "last") {
				c.dim, c.single = "nth-day", false
			}
			si.conds = append(si.conds, c)
			for k := i; k < j; k++ {
				used[k] = true
			}
			i = j - 1
			continue
		}
		if m, ok := monthIdx[w]; ok {
			isMonth := w != "may" && w != "march"
			j := i + 1
			c := scopeCond{dim: "month", mask: 1 << m}
			if j+1 < len(ts) && (ts[j].w == "to" || ts[j].w == "through" || ts[j].w == "until" || ts[j].w == "till") {
				if e, ok := monthIdx[ts[j+1].w]; ok {
					isMonth = true
					c.mask = 0
					for k := m; ; k = (k + 1) % 12 {
						c.mask |= 1 << k
						if k == e {
							break
						}
					}
					j += 2
				}
			}
			if i > 0 && (ts[i-1].w == "in" || ts[i-1].w == "from" || ts[i-1].w == "since" || ts[i-1].w == "until" || ts[i-1].w == "to" || ts[i-1].w == "between") {
				isMonth = true
			}
			if !isMonth {
				continue
			}
			c.text = span(i, j)
			c.single = j == i+1 // "born 2 June 1975", "in July 2017": a date
			si.conds = append(si.conds, c)
			for k := i; k < j; k++ {
				used[k] = true
			}
			i = j - 1
			continue
		}
		switch {
		case w == "weekdays" || w == "weekday" || matchAt(ts, i, []string{"working", "days"}) && (i == 0 || !ts[i-1].isNum):
			n := 1
			if w == "working" {
				n = 2
			}
			si.conds = append(si.conds, scopeCond{dim: "day", mask: 0x1f, univ: i > 0 && ts[i-1].w == "every", text: span(i, i+n)})
			used[i] = true
		case w == "weekends" || w == "weekend":
			si.conds = append(si.conds, scopeCond{dim: "day", mask: 0x60, univ: i > 0 && (ts[i-1].w == "every" || ts[i-1].w == "all"), text: w})
			used[i] = true
		case matchAt(ts, i, []string{"every", "day"}) || w == "daily" || matchAt(ts, i, []string{"days", "a", "week"}) && i > 0 && ts[i-1].isNum && ts[i-1].num == 7:
			si.conds = append(si.conds, scopeCond{dim: "day", mask: 0x7f, univ: true, text: w})
			used[i] = true
		case matchAt(ts, i, []string{"all", "year"}) || w == "year-round" || matchAt(ts, i, []string{"every", "month"}) || matchAt(ts, i, []string{"each", "month"}) || matchAt(ts, i, []string{"throughout", "the", "year"}):
			si.conds = append(si.conds, scopeCond{dim: "month", mask: 0xfff, univ: true, text: span(i, i+2)})
			used[i] = true
		case matchAt(ts, i, []string{"around", "the", "clock"}) || matchAt(ts, i, []string{"at", "any", "time"}) || matchAt(ts, i, []string{"at", "all", "times"}) || w == "anytime" || matchAt(ts, i, []string{"all", "day"}) || matchAt(ts, i, []string{"any", "time"}):
			si.conds = append(si.conds, scopeCond{dim: "time", lo: 0, hi: 24, univ: true, text: span(i, i+3)})
			if si.univ == "" {
				si.univ = span(i, i+3)
			}
			used[i] = true
		}
	}
	// numeric bounds and ranges
	scale := 1.0
	unitAfter := func(j int) (string, int) {
		scale = 1
		if j < len(ts) && !ts[j].isNum {
			if d, ok := unitDims[ts[j].w]; ok {
				if f, ok := unitScale[ts[j].w]; ok {
					scale = f
				}
				return d, j + 1
			}
		}
		return "n", j
	}
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		if !t.isNum || used[i] {
			continue
		}
		// "24/7"
		if t.num == 24 && i+2 < len(ts) && ts[i+1].w == "/" && ts[i+2].isNum && ts[i+2].num == 7 {
			si.conds = append(si.conds, scopeCond{dim: "time", lo: 0, hi: 24, univ: true, text: "24/7"}, scopeCond{dim: "day", mask: 0x7f, univ: true, text: "24/7"})
			if si.univ == "" {
				si.univ = "24/7"
			}
			i += 2
			continue
		}
		dimOf := func(t stok) string {
			if t.clock {
				return "time"
			}
			return ""
		}
		start := i
		// range: [from|between|aged] N (to|-|and|through|until) M [unit];
		// "aged 16 and 17", "aged 16 or 17" name the ages from one to the other
		if i+2 < len(ts) && ts[i+2].isNum && (ts[i+1].w == "to" || ts[i+1].w == "through" || ts[i+1].w == "until" || ts[i+1].w == "till" ||
			ts[i+1].w == "and" && i > 0 && ts[i-1].w == "between" || (ts[i+1].w == "and" || ts[i+1].w == "or") && i > 0 && ts[i-1].w == "aged") && ts[i+2].clock == t.clock {
			dim := dimOf(t)
			end := i + 3
			scale = 1
			if dim == "" {
				dim, end = unitAfter(i + 3)
				if dim == "n" {
					if d, e := unitAfter(i + 1); d != "n" && e == i+2 {
						dim = d
					} else {
						scale = 1
					}
				}
			}
			if i > 0 && (ts[i-1].w == "from" || ts[i-1].w == "between" || ts[i-1].w == "aged") {
				start = i - 1
			}
			lo, hi := t.num, ts[i+2].num
			if dim == "n" && (isYear(lo) && isYear(hi) || end < len(ts) && (ts[end].w == "bc" || ts[end].w == "ad" || ts[end].w == "bce" || ts[end].w == "ce")) {
				for k := start; k < end; k++ {
					used[k] = true
				}
				i = end - 1
				continue // "from 2011 to 2017", "from 305 to 30 BC": dates
			}
			if hi < lo && dim == "time" {
				hi += 24
			}
			lo, hi = lo*scale, hi*scale
			si.conds = append(si.conds, scopeCond{dim: dim, lo: lo, hi: hi, text: span(start, end), plain: start == i && dim != "time"})
			for k := start; k < end; k++ {
				used[k] = true
			}
			i = end - 1
			continue
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		found := false
		cue := ""
		for _, p := range upperCues {
			if endsWith(ts, i, p) {
				hi, found, start, cue = t.num, true, i-len(p), oneWord(p)
				break
			}
			// "the first 3 hours", "up to 10 books at a time": cue then "the"
			if i > 0 && ts[i-1].w == "the" && endsWith(ts, i-1, p) {
				hi, found, start, cue = t.num, true, i-1-len(p), oneWord(p)
				break
			}
		}
		if !found {
			for _, p := range lowerCues {
				if endsWith(ts, i, p) {
					lo, found, start, cue = t.num, true, i-len(p), oneWord(p)
					break
				}
			}
		}
		dim := dimOf(t)
		end := i + 1
		scale = 1
		if dim == "" {
			dim, end = unitAfter(i + 1)
		}
		if dim == "n" && timeCues[cue] {
			continue
		}
		if p := matchAny(ts, end, upperTails); p != nil {
			hi, found = t.num, true
			end += len(p)
		} else if p := matchAny(ts, end, lowerTails); p != nil {
			lo, found = t.num, true
			end += len(p)
		}
		// a year ("since 1989", "before 1900") dates a fact; it bounds no
		// quantity the claim could widen
		if !found || dim == "n" && !t.clock && isYear(t.num) {
			continue
		}
		// an upper cue means up to and including N for durations and
		// amounts; "under 5" excludes 5, which containment need not know
		if !math.IsInf(lo, 0) {
			lo *= scale
		}
		if !math.IsInf(hi, 0) {
			hi *= scale
		}
		si.conds = append(si.conds, scopeCond{dim: dim, lo: lo, hi: hi, text: span(start, end)})
		for k := max(start, 0); k < end; k++ {
			used[k] = true
		}
		i = end - 1
	}
	// a clock time with no cue ("opens at 10:00") is a point
	for i, t := range ts {
		if t.clock && !used[i] {
			si.points = append(si.points, scopeCond{dim: "time", lo: t.num, hi: t.num, text: t.w})
		}
	}
	// words
	for i := 0; i < len(ts); i++ {
		if ts[i].isNum || !wordCueLeads[ts[i].w] {
			continue // no phrase starts here (matchAny would find none)
		}
		if p := matchAny(ts, i, afterCues); p != nil && (i == 0 || ts[i].brk || ts[i-1].w == "and" || ts[i-1].w == "but") {
			si.after = true
		}
		if si.univ == "" && !used[i] {
			if p := matchAny(ts, i, univPhrases); p != nil {
				si.univ = span(i, i+len(p)+1)
			}
		}
		for _, set := range []struct {
			cues [][]string
			excl bool
		}{{exclCues, true}, {condCues, false}} {
			p := matchAny(ts, i, set.cues)
			if p == nil {
				continue
			}
			// "as long as they like" widens, it does not condition
			if p[0] == "as" && matchAny(ts, i, univPhrases) != nil {
				continue
			}
			var st []string
			for k := i + len(p); k < len(ts) && len(st) < 3 && !(k > i+len(p) && ts[k].brk); k++ {
				if ts[k].isNum {
					continue
				}
				if _, stop := stopwords[ts[k].w]; stop {
					continue
				}
				st = append(st, stem(ts[k].w))
			}
			si.words = append(si.words, scopeWord{excl: set.excl, cue: strings.Join(p, " "), stems: st})
		}
	}
	return si
}

// oneWord is the word of a cue of one word, "" for a longer cue.
func oneWord(p []string) string {
	if len(p) == 1 {
		return p[0]
	}
	return ""
}

// movedLimit finds the one-sided bound of es on the side of c, itself a
// one-sided bound (of a claim), whose limit c moves: "from age 5" against
// "from age 4", "over 18" against "over 16", "within 14 days" against
// "within 30 days". The narrower limit is another limit, as rangeContained
// reads it: only a two-sided range narrows. There is none where es has a
// bound on that side at c's limit ("18 or over" against "18+"), or no
// bound on that side.
func movedLimit(es []scopeCond, c scopeCond) (moved scopeCond, ok bool) {
	lower := !math.IsInf(c.lo, 0) && math.IsInf(c.hi, 1)
	upper := math.IsInf(c.lo, -1) && !math.IsInf(c.hi, 0)
	if c.univ || !lower && !upper {
		return scopeCond{}, false
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, e := range es {
		var at, lim float64
		switch {
		case e.univ || e.dim != c.dim:
			continue
		case lower && !math.IsInf(e.lo, 0) && math.IsInf(e.hi, 1):
			at, lim = e.lo, c.lo
		case upper && math.IsInf(e.lo, -1) && !math.IsInf(e.hi, 0):
			at, lim = e.hi, c.hi
		default:
			continue
		}
		if same(at, lim) {
			return scopeCond{}, false
		}
		if !ok {
			moved, ok = e, true
		}
	}
	return moved, ok
}

// contains reports whether every value of c lies within one of es.
func contains(es []scopeCond, c scopeCond) bool {
	var union uint16
	for _, e := range es {
		switch e.dim {
		case "day", "month":
			union |= e.mask
		default:
			if c.lo >= e.lo-1e-9 && c.hi <= e.hi+1e-9 {
				return true
			}
		}
	}
	if c.dim == "day" || c.dim == "month" {
		return c.mask&^union == 0
	}
	return false
}

// scopeRestate is the share of the carrying clause's content stems (beyond
// its conditions) a claim must name for its conditions to be compared.
const scopeRestate = 0.6

// scopeClauses cuts a window into clauses: sentences, their
// semicolon-separated parts, and a part's ", but" clause with a subject of
// its own ("There are no refunds on sale items, but they can be exchanged
// within 14 days": the period is the exchange's, not the refunds').
func scopeClauses(window string) []string {
	var out []string
	for _, s := range Split(window) {
		for _, part := range butClauses(strings.Split(s, ";")) {
			// "free for people aged 65 and over and for pregnant women": the
			// second group takes the head of the first
			qs := strings.Split(part, " and for ")
			head := ""
			if i := strings.Index(qs[0], " for "); len(qs) > 1 && i >= 0 {
				head = qs[0][:i+len(" for ")]
			}
			for k, q := range qs {
				if k > 0 {
					q = head + q
				}
				if p := strings.TrimSpace(q); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// butClauses returns parts with each cut before a ", but" that a subject
// pronoun follows (butSubjects); parts is returned as it is when none has
// one.
func butClauses(parts []string) []string {
	var out []string
	for i, p := range parts {
		cut := butCut(p)
		if cut < 0 && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(parts)+1), parts[:i]...)
		}
		for ; cut >= 0; cut = butCut(p) {
			out = append(out, p[:cut])
			p = p[cut+1:]
		}
		out = append(out, p)
	}
	if out == nil {
		return parts
	}
	return out
}

// butCut returns the index of the first ", but " in p that a subject
// pronoun follows, -1 for none.
func butCut(p string) int {
	for from := 0; ; {
		i := strings.Index(p[from:], ", but ")
		if i < 0 {
			return -1
		}
		i += from
		if butSubjects[strings.ToLower(wordAt(p, i+len(", but ")))] {
			return i
		}
		from = i + len(", but ")
	}
}

// butSubjects are the pronouns that open a clause of its own after ", but".
var butSubjects = wordSet("they it you we he she these those this there")

// checkScope compares the conditions of claim with those of the clause of
// window that carries it. ok is false when the claim keeps every condition.
func checkScope(claim, window string) (scopeFinding, bool) {
	return newClaimForms(claim).checkScope(window)
}

// claimForms are the forms of one claim that the verifier reads more than
// once (the analysis of its content terms, its scope conditions), made
// once per claim. It is not safe for concurrent use.
type claimForms struct {
	text, norm string     // the claim, normPhrases(text)
	terms      []term     // analyse(norm); read only
	scope      *scopeInfo // analyseScope(text), made on first use
	quote      string     // quoteForm(text), made on first use
	quoteFold  string     // foldLines(quote), made on first use by quotesPart
	listLead   int8       // quotesListLead: 0 not read yet, 1 yes, -1 no
}

func newClaimForms(text string) *claimForms {
	norm := normPhrases(text)
	return &claimForms{text: text, norm: norm, terms: analyse(norm)}
}

// scopeInfo is analyseScope(c.text).
func (c *claimForms) scopeInfo() scopeInfo {
	if c.scope == nil {
		si := analyseScopeNorm(c.text, c.norm)
		si.conds = append(si.conds, agedPoints(c.norm, si.conds)...)
		c.scope = &si
	}
	return *c.scope
}

// scopeDisjointCover is the share of the claim's content stems a clause
// must hold for a claim range that shares no value with the clause's to be
// read as a changed range where the claim does not restate the clause.
const scopeDisjointCover = 0.75

// disjointRange finds a range of evidence conds bounded on both sides, of
// no unit ("aged 16 and 17"), and a claim cond of the same dimension that
// shares no value with it and with no other evidence cond of that
// dimension ("under 16": "under" and "over" exclude their number).
func disjointRange(ev, claim []scopeCond) (e scopeCond, ok bool) {
	for _, c := range claim {
		if c.dim != "n" || c.univ {
			continue
		}
		lo, hi := c.lo, c.hi
		loOpen, hiOpen := strings.HasPrefix(c.text, "over ") || strings.HasPrefix(c.text, "above ") || strings.HasPrefix(c.text, "more than ") || strings.HasPrefix(c.text, "older than "),
			strings.HasPrefix(c.text, "under ") || strings.HasPrefix(c.text, "below ") || strings.HasPrefix(c.text, "less than ") || strings.HasPrefix(c.text, "younger than ") || strings.HasPrefix(c.text, "fewer than ")
		apart, found := true, false
		for _, x := range ev {
			if x.dim != "n" || x.univ {
				continue
			}
			below := hi < x.lo || hi == x.lo && hiOpen
			above := lo > x.hi || lo == x.hi && loOpen
			if !below && !above {
				apart = false
				break
			}
			if !found && !math.IsInf(x.lo, 0) && !math.IsInf(x.hi, 0) && x.lo < x.hi {
				e, found = x, true
			}
		}
		if apart && found {
			return e, true
		}
	}
	return scopeCond{}, false
}

// quantifies reports whether univ (scopeInfo.univ) opens with a word that
// quantifies over every case of a thing ("any", "all", "never"), not one
// that widens a time or amount ("daily", "without limit").
func quantifies(univ string) bool {
	w, _, _ := strings.Cut(univ, " ")
	switch w {
	case "any", "all", "every", "never", "always", "anything", "everything":
		return true
	}
	return false
}

// scopePreps join a qualifier to the noun before it ("damage to gates").
var scopePreps = map[string]bool{"to": true, "of": true, "in": true, "on": true, "for": true, "from": true, "at": true, "by": true, "with": true}

// qualifier returns the words from a preposition to the clause's next
// break where the preposition follows a word whose stem is in cs and the
// content word after it is not ("to gates" of "storm damage to gates,
// fences and hedges" for a claim of storm damage), "" where there is none.
func qualifier(clause string, cs map[string]bool) string {
	ts := scopeTokens(normPhrases(clause))
	for i := 1; i+1 < len(ts); i++ {
		if !scopePreps[ts[i].w] || ts[i].brk || ts[i-1].isNum || !cs[canonStem(ts[i-1].w)] {
			continue
		}
		j := i + 1
		for j < len(ts) && !ts[j].isNum && lexicon[ts[j].w].stop && !ts[j].brk {
			j++
		}
		if j == len(ts) || ts[j].brk || ts[j].isNum || cs[canonStem(ts[j].w)] {
			continue
		}
		end := j + 1
		for end < len(ts) && !ts[end].brk {
			end++
		}
		ws := make([]string, 0, end-i)
		for k := i; k < end; k++ {
			ws = append(ws, ts[k].w)
		}
		return strings.Join(ws, " ")
	}
	return ""
}

// agedPoints are the ages a claim names alone ("Climbers aged 17 may ..."),
// each a range of one age, where no condition of conds holds the number:
// read against "aged 16 and 17" they keep to it, where a claim naming no
// age drops it. Only a claim's: in the evidence "aged 17" would make every
// claim that leaves the age out drop a condition.
func agedPoints(norm string, conds []scopeCond) []scopeCond {
	var out []scopeCond
	ts := scopeTokens(norm)
	for i := 1; i < len(ts); i++ {
		if !ts[i].isNum || ts[i].clock || ts[i-1].w != "aged" {
			continue
		}
		in := false
		for _, c := range conds {
			in = in || c.dim == "n" && strings.Contains(c.text, "aged "+ts[i].w)
		}
		if !in {
			out = append(out, scopeCond{dim: "n", lo: ts[i].num, hi: ts[i].num, text: "aged " + ts[i].w})
		}
	}
	return out
}

// checkScope is checkScope(c.text, window).
func (c *claimForms) checkScope(window string) (scopeFinding, bool) {
	f, bad, _ := c.readScope(window)
	return f, bad
}

// readScope is checkScope; restated reports whether the claim restates
// the clause that carries it (only then are conditions compared).
func readScope(claim, window string) (f scopeFinding, bad, restated bool) {
	return newClaimForms(claim).readScope(window)
}

// contentStems is the set of the claim's content stems (neither a
// negation nor a number).
func (c *claimForms) contentStems() map[string]bool {
	cs := map[string]bool{}
	for _, t := range c.terms {
		if !t.neg && !t.isNum {
			cs[t.stem] = true
		}
	}
	return cs
}

// readScope is readScope(c.text, window).
func (c *claimForms) readScope(window string) (f scopeFinding, bad, restated bool) {
	w := scopeWindows.get(window)
	clauses := w.clauses
	if len(clauses) == 0 {
		return scopeFinding{}, false, false
	}
	cs := c.contentStems()
	if c.quote == "" {
		c.quote = quoteForm(c.text)
	}
	if q, ok := quotes(c.quote, w.sents); ok {
		// a claim that is a sentence of the window word for word keeps
		// every condition of that sentence; only a clause of another
		// sentence that sets its case against a widening claim is read
		if i := contrastClauseOutside(w, q, cs); i >= 0 && c.scopeInfo().univ != "" {
			return scopeFinding{reason: ReasonScopeWidened, excluded: true, span: window, what: clauses[i]}, true, true
		}
		return scopeFinding{span: window}, false, true
	}
	if q, ok := c.quotesPart(w); ok {
		// the opening items of a list, word for word: narrower, not wider
		if q != "" {
			if i := contrastClauseOutside(w, q, cs); i >= 0 && c.scopeInfo().univ != "" {
				return scopeFinding{reason: ReasonScopeWidened, excluded: true, span: window, what: clauses[i]}, true, true
			}
		}
		return scopeFinding{span: window}, false, true
	}
	best, bestN := 0, -1
	var seenBuf [16]string // a clause's claim stems counted so far (few: a slice, not a map per clause)
	for i := range clauses {
		n := 0
		seen := seenBuf[:0]
		for _, t := range w.terms[i] {
			if !t.isNum && cs[t.stem] && !slices.Contains(seen, t.stem) {
				seen = append(seen, t.stem)
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	carry := w.carrier(best)
	ev := carry.ev
	after := w.after
	f = scopeFinding{span: clauses[best]}
	// numeric and period dimensions
	// the claim must restate the clause: most of the clause's content stems
	// beyond its conditions (an answer naming one entity of a long
	// sentence drops nothing the sentence conditions)
	condStems := carry.cond
	have, need := 0, 0
	seen := seenBuf[:0]
	for _, t := range carry.content {
		if t.isNum || t.neg || condStems[t.stem] || slices.Contains(seen, t.stem) {
			continue
		}
		seen = append(seen, t.stem)
		need++
		if cs[t.stem] {
			have++
		}
	}
	if need == 0 || float64(have) < scopeRestate*float64(need) {
		// a long clause the claim restates in part may still set its case
		// apart: an age or count the claim bounds outside the clause's
		// range ("Children under 16 can climb without an adult" against
		// "Climbers aged 16 and 17 may ... climb without an adult"), or
		// whose limit it moves ("Visitors over 18 can rent a kayak" against
		// "Visitors over 16 can rent a kayak, a canoe or ...")
		if len(cs) > 0 && float64(bestN) >= scopeDisjointCover*float64(len(cs)) {
			if e, ok := disjointRange(ev.conds, c.scopeInfo().conds); ok {
				return scopeFinding{reason: ReasonRangeMismatch, excluded: true, span: f.span, what: e.text}, true, true
			}
			for _, cc := range c.scopeInfo().conds {
				if e, ok := movedLimit(ev.conds, cc); ok && cc.dim == "n" {
					return scopeFinding{reason: ReasonRangeMismatch, excluded: true, span: f.span, what: e.text}, true, true
				}
			}
		}
		// a claim saying "any" or "never" of a thing the clause names only
		// as qualified ("We do not cover any storm damage" against "We do
		// not cover: (b) storm or flood damage to gates, fences and
		// hedges"): wider than the clause, which says nothing of the rest
		if bestN == len(cs) && quantifies(c.scopeInfo().univ) {
			if q := qualifier(clauses[best], cs); q != "" {
				return scopeFinding{reason: ReasonScopeWidened, span: f.span, what: q}, true, true
			}
		}
		return scopeFinding{}, false, false
	}
	var dims, dates map[string][]scopeCond
	for _, c := range ev.conds {
		// "daily", "every month" in the evidence restrict nothing; a day or
		// month named alone there is a date
		if !c.univ && !c.single {
			if dims == nil {
				dims = map[string][]scopeCond{}
			}
			dims[c.dim] = append(dims[c.dim], c)
		} else if c.single {
			// a date sets no condition, but a claim naming the same day
			// keeps to the clause ("every Monday, Wednesday and Friday"
			// reads "Monday" alone)
			if dates == nil {
				dates = map[string][]scopeCond{}
			}
			dates[c.dim] = append(dates[c.dim], c)
		}
	}
	if len(dims) == 0 && len(ev.words) == 0 {
		// the clause sets no condition: only a widening claim against a
		// contrasting clause can be found, so the claim's own conditions
		// are read only when the window has such a clause
		i := contrastClause(w, best, cs)
		if i < 0 {
			return f, false, true
		}
		if c.scopeInfo().univ != "" {
			return scopeFinding{reason: ReasonScopeWidened, excluded: true, span: window, what: clauses[i]}, true, true
		}
		return f, false, true
	}
	cl := c.scopeInfo()
	widen := cl.univ != ""
	claimDims := map[string][]scopeCond{}
	for _, c := range append(cl.conds, cl.points...) {
		claimDims[c.dim] = append(claimDims[c.dim], c)
	}
	order := []string{"day", "month", "time", "nth-day"}
	var more []string // the other dimensions, sorted: the reported reason must not depend on map order
	for d := range dims {
		switch d {
		case "day", "month", "time", "nth-day":
		default:
			more = append(more, d)
		}
	}
	slices.Sort(more)
	order = append(order, more...)
	for _, d := range order {
		es := dims[d]
		if len(es) == 0 {
			continue
		}
		ccs := claimDims[d]
		if d == "nth-day" && len(ccs) == 0 {
			ccs = claimDims["day"]
		}
		if len(ccs) == 0 {
			// a universal claim over a related dimension: "all day" against "the first 3 hours"
			var rel []scopeCond
			switch d {
			case "dur", "night":
				rel = append(claimDims["time"], claimDims["month"]...)
			}
			for _, c := range rel {
				if c.univ {
					return scopeFinding{reason: ReasonScopeWidened, excluded: true, span: f.span, what: es[0].text}, true, true
				}
			}
			if d == "nth-day" {
				continue
			}
			if !widen {
				// a bare range the claim leaves out is a detail it skips
				lim := false
				for _, e := range es {
					lim = lim || !e.plain
				}
				if !lim {
					continue
				}
			}
			f.what = es[0].text
			if widen {
				f.reason = ReasonScopeWidened
			} else if f.reason == "" {
				f.reason = ReasonConditionDropped
			}
			f.excluded = true
			continue
		}
		// a universal the claim limits itself, with a limit the clause
		// holds, widens nothing: "any time ..., as long as you do it
		// before 9am" against the same words
		limited := false
		for _, c := range ccs {
			limited = limited || !c.univ && contains(es, c)
		}
		for _, c := range ccs {
			if c.univ && limited {
				continue
			}
			in := contains(es, c)
			if !in && d == "time" && slices.Contains(cl.points, c) && contains(ev.points, c) {
				// a clock time without a cue that the clause states as
				// one too ("must be vacated by 10am" beside "available
				// from 2pm"): the clause's fact, not a time outside its
				// range
				continue
			}
			if !in && (d == "day" || d == "month") {
				in = contains(append(slices.Clip(es), dates[d]...), c)
			}
			if d == "nth-day" {
				in = c.dim == "nth-day" && c.mask&^es[0].mask == 0
			}
			if in {
				if e, ok := movedLimit(es, c); ok {
					f.what, f.excluded, f.reason = e.text, true, ReasonRangeMismatch
					return f, true, true
				}
				continue
			}
			f.what = es[0].text
			f.excluded = true
			if c.univ || widen {
				f.reason = ReasonScopeWidened
			} else {
				f.reason = ReasonRangeMismatch
			}
			return f, true, true
		}
	}
	if f.reason != "" {
		return f, true, true
	}
	// exclusive words and conditions
	for _, w := range ev.words {
		// the claim keeps the condition when it names what follows the
		// cue, or has a cue of the same kind and names part of it
		sameKind := false
		for _, cw := range cl.words {
			sameKind = sameKind || cw.excl == w.excl
		}
		n := 0
		for _, st := range w.stems {
			if cs[st] {
				n++
			}
		}
		matched := len(w.stems) > 0 && (n == len(w.stems) || sameKind && n > 0)
		for _, cw := range cl.words {
			matched = matched || len(w.stems) == 0 && cw.cue == w.cue
		}
		// an exception left out matters only to a claim that widens ("any
		// item" against "except sale items"); "memory CD4 T cells" against
		// "memory, but not naive, CD4 T cells" keeps to the included part
		if matched || w.excl && !widen {
			continue
		}
		f.what = w.cue
		if len(w.stems) > 0 {
			f.what += " " + strings.Join(w.stems, " ")
		}
		if widen {
			f.reason = ReasonScopeWidened
		} else {
			f.reason = ReasonConditionDropped
		}
		f.excluded = w.excl || after
		if w.excl {
			return f, true, true
		}
	}
	if f.reason != "" {
		return f, true, true
	}
	// a widening claim against a window whose other clause says the
	// opposite of part of the claim's subject: "free at any cash machine"
	// against "free at our own machines; other banks' machines charge 2 euros"
	if widen {
		if i := contrastClause(w, best, cs); i >= 0 {
			return scopeFinding{reason: ReasonScopeWidened, excluded: true, span: window, what: clauses[i]}, true, true
		}
	}
	return f, false, true
}

// quotes returns the sentence of sents (a window's sentences) that a claim
// whose quoteForm is cl is word for word (case, spacing, citation markers
// and the closing punctuation aside); ok is false for none.
func quotes(cl string, sents []string) (sent string, ok bool) {
	if cl == "" {
		return "", false
	}
	for _, s := range sents {
		// a sentence much longer or shorter is no quote: its form is not made
		if n := len(strings.TrimSpace(s)); n < len(cl) || n > 2*len(cl)+16 {
			continue
		}
		if strings.EqualFold(quoteForm(s), cl) {
			return s, true
		}
	}
	return "", false
}

// quotesPart reports whether the claim (its quoteForm) quotes, word for
// word, a window's text from a sentence's or a line's start up to the end of
// a list item (a ";" the window goes on after, with another item that sets
// no limit on the ones quoted): "Tell us if: A; B; C" of "Tell us if: A; B;
// C; D", or a "We do not cover:" list's first items across its lines. Such a
// claim drops items of an enumeration, which narrows it; a cut before
// ", as long as ..." or "; but ..." is no part quote. sent is the sentence
// of w.sents the quote starts in ("" for none), for the contrast check.
func (c *claimForms) quotesPart(w *scopeWindow) (sent string, ok bool) {
	if len(c.quote) < 40 || !strings.Contains(w.folded, ";") {
		return "", false
	}
	if c.quoteFold == "" {
		c.quoteFold, _ = foldLines(c.quote)
	}
	lc := c.quoteFold
	i := strings.Index(w.folded, lc)
	if i < 0 {
		return "", false
	}
	if i > 0 && !(w.folded[i-1] == ' ' && (w.lineAt[i-1] || i >= 2 && strings.IndexByte(".!?", w.folded[i-2]) >= 0)) {
		return "", false
	}
	after := strings.TrimLeft(w.folded[i+len(lc):], "\"'")
	if !strings.HasPrefix(after, ";") {
		return "", false
	}
	rest := strings.TrimLeft(after, "; ")
	if len(rest) > 3 && rest[0] == '(' && rest[2] == ')' {
		rest = strings.TrimLeft(rest[3:], " ")
	}
	first, _, _ := strings.Cut(rest, " ")
	if limitOpeners[strings.Trim(first, ",:")] || strings.HasPrefix(rest, "as long as") || strings.HasPrefix(rest, "so long as") {
		return "", false
	}
	head := lc[:min(len(lc), 30)]
	for _, s := range w.sents {
		if f, _ := foldLines(s); strings.Contains(f, head) {
			return s, true
		}
	}
	return "", true
}

// quotesListOpening reports whether the claim quotes, word for word, a
// negated list of text (a passage as written) from its lead on: "We do not
// cover: (a) ...; (b) ...; (c) ..." of a longer lettered list, up to an
// item's ";" as quotesPart reads it, or the whole list to its end; the
// items' markers may be left out ("We do not cover: wear and tear; storm
// damage to fences"). The verifier reads each item after its lead
// (lists.go), so no window it reads holds such a quote, while the quote
// keeps the lead's negation and drops items: narrower, not wider. A quote
// without its lead ("(b) storm or flood damage ...") is not one.
func (c *claimForms) quotesListOpening(text string) bool {
	return c.quotesListIn(newListWindows(text))
}

// listWindows are the windows of a passage's text that a quote of its
// negated list is looked for in: the text as written, and without the
// list markers its lines open with (nil when it has none). They depend on
// the passage alone: prepared keeps them (prepared.listWindows).
type listWindows struct {
	text, bare *scopeWindow
}

func newListWindows(text string) *listWindows {
	lw := &listWindows{text: scopeWindows.get(text)}
	if bare := unmarkLines(text); bare != text {
		lw.bare = scopeWindows.get(bare)
	}
	return lw
}

// quotesListIn is quotesListOpening for the windows lw of a passage.
func (c *claimForms) quotesListIn(lw *listWindows) bool {
	if !c.quotesListLead() {
		return false
	}
	return c.quotesList(lw.text) || lw.bare != nil && c.quotesList(lw.bare)
}

// quotesListLead reports whether the claim's quote opens with a lead that
// negates and a colon with something after it ("We do not cover: ..."),
// read once per claim.
func (c *claimForms) quotesListLead() bool {
	if c.listLead == 0 {
		if c.quote == "" {
			c.quote = quoteForm(c.text)
		}
		c.listLead = -1
		if lead, items, ok := strings.Cut(c.quote, ":"); ok && strings.TrimSpace(items) != "" && negatingLead(lead) {
			c.listLead = 1
		}
	}
	return c.listLead > 0
}

// quotesList is quotesListOpening for the window of one form of the text.
func (c *claimForms) quotesList(w *scopeWindow) bool {
	q, ok := c.quotesPart(w)
	if !ok {
		return c.quotesToListEnd(w)
	}
	if q != "" && c.scopeInfo().univ != "" {
		return contrastClauseOutside(w, q, c.contentStems()) < 0
	}
	return true
}

// quotesToListEnd reports whether the claim's quote is w's text from a
// line's start to the end of a list: the window's end, or a line that is
// no item and sets no limit on the quoted ones ("unless ...").
func (c *claimForms) quotesToListEnd(w *scopeWindow) bool {
	if c.quoteFold == "" {
		c.quoteFold, _ = foldLines(c.quote)
	}
	lc := c.quoteFold
	i := strings.Index(w.folded, lc)
	if lc == "" || i < 0 || i > 0 && !(w.folded[i-1] == ' ' && w.lineAt[i-1]) {
		return false
	}
	after := strings.TrimLeft(w.folded[i+len(lc):], ".\"'")
	if after == "" {
		return true
	}
	k := len(w.folded) - len(after)
	if after[0] != ' ' || !w.lineAt[k] {
		return false
	}
	next := after[1:]
	first, _, _ := strings.Cut(next, " ")
	return listMarker(next) == 0 && !limitOpeners[strings.Trim(first, ",:")]
}

// unmarkLines returns text with the list marker each line opens with
// ("(b) ", "2. ", "- ") taken out.
func unmarkLines(text string) string {
	lines := strings.Split(text, "\n")
	changed := false
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if n := listMarker(t); n > 0 {
			lines[i], changed = strings.TrimLeft(t[n:], " \t"), true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\n")
}

// limitOpeners are words that open a clause limiting the ones before it.
var limitOpeners = map[string]bool{
	"but": true, "unless": true, "except": true, "excluding": true, "provided": true,
	"providing": true, "only": true, "if": true, "however": true, "subject": true, "when": true,
	"where": true, "otherwise": true, "after": true, "before": true, "until": true,
}

// foldLines returns s lower-cased with each run of white space one ' ', and
// for each byte of the result whether it is a space that held a line break.
func foldLines(s string) (string, []bool) {
	var b []byte
	var at []bool
	space, line := false, false
	for _, f := range strings.ToLower(s) {
		if unicode.IsSpace(f) {
			space, line = true, line || f == '\n'
			continue
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
			at = append(at, line)
		}
		space, line = false, false
		n := len(b)
		b = utf8.AppendRune(b, f)
		for range len(b) - n {
			at = append(at, false)
		}
	}
	return string(b), at
}

// quoteForm is s for comparing quotes (with strings.EqualFold): without
// citation markers, single-spaced, without closing punctuation, without the
// clause number it opens with ("6.1 Pitches ..." quotes the clause "6.1
// Pitches ..." and a claim may keep or drop the number).
func quoteForm(s string) string {
	t := strings.TrimSpace(StripCitations(s))
	t = t[clauseMarker(t):]
	return strings.TrimRight(t, ".!?;:,\"' ")
}

// contrastClause returns the first clause of w but best that shares a
// claim stem (cs) and sets its case against another's (a negation or a
// contrastStems word), or -1.
func contrastClause(w *scopeWindow, best int, cs map[string]bool) int {
	for i := range w.clauses {
		if i != best && contrasts(w.terms[i], cs) {
			return i
		}
	}
	return -1
}

// contrasts reports whether a clause (its terms) shares a claim stem (cs)
// and sets its case against another's (a negation or a contrastStems word).
func contrasts(terms []term, cs map[string]bool) bool {
	shared, contrast := false, false
	for _, t := range terms {
		if t.neg {
			contrast = true
		}
		if !t.isNum && cs[t.stem] {
			shared = true
		}
		if contrastStems[t.stem] {
			contrast = true
		}
	}
	return shared && contrast
}

// contrastClauseOutside is contrastClause for a claim that quotes sent, a
// sentence of w: the first clause outside sent that shares a claim stem
// and sets its case against another's, or -1.
func contrastClauseOutside(w *scopeWindow, sent string, cs map[string]bool) int {
	for i := range w.clauses {
		if !strings.Contains(sent, w.clauses[i]) && contrasts(w.terms[i], cs) {
			return i
		}
	}
	return -1
}

// contrastStems are the words of a clause that set its case against
// another's: a price, a closure, another group.
var contrastStems = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("pay pays charge charges charged cost costs fee fees closed other others larger smaller older younger extra") {
		m[canonStem(w)] = true
	}
	return m
}()

// rangeContained reports whether every condition of the claim is a
// two-sided range inside a range of the same dimension in the clause of
// window that carries it, and the claim has at least one: "children aged 5 to 12
// pay half fare" against "children aged 5 to 15 pay half fare" names other
// numbers without contradicting.
func rangeContained(claim, window string) bool {
	return newClaimForms(claim).rangeContained(window)
}

// rangeContained is rangeContained(c.text, window).
func (c *claimForms) rangeContained(window string) bool {
	cl := c.scopeInfo()
	if len(cl.conds) == 0 {
		return false
	}
	if _, bad, restated := c.readScope(window); bad || !restated {
		return false
	}
	var ev []scopeCond
	for _, c := range scopeClauses(window) {
		ev = append(ev, analyseScope(c).conds...)
	}
	// every claim number the window does not state must be an end of one
	// of the claim's ranges: "83 metres tall ... from 22 nautical miles"
	// against "38 metres tall ... from 22 nautical miles" changes a fact
	evNums := map[float64]bool{}
	for _, t := range scopeTokens(normPhrases(window)) {
		if t.isNum {
			evNums[t.num] = true
		}
	}
	for _, t := range scopeTokens(c.norm) {
		if !t.isNum || evNums[t.num] {
			continue
		}
		end := false
		for _, c := range cl.conds {
			end = end || c.lo == t.num || c.hi == t.num
		}
		if !end {
			return false
		}
	}
	for _, c := range cl.conds {
		var same []scopeCond
		for _, e := range ev {
			if e.dim == c.dim {
				same = append(same, e)
			}
		}
		// only a two-sided range narrows: "after 67 minutes" is another
		// time than "after 30 minutes", "up to 10" another limit than "up to 20"
		if c.dim == "day" || c.dim == "month" || math.IsInf(c.lo, 0) || math.IsInf(c.hi, 0) || c.lo >= c.hi || len(same) == 0 || !contains(same, c) {
			return false
		}
	}
	return true
}

// scopeVerdict turns a scope finding on an otherwise entailed claim into
// its verdict: contradiction when the evidence excludes what the claim
// adds, neutral when it only conditions it.
func scopeVerdict(f scopeFinding, cov float64) Verdict {
	v := Verdict{Label: Neutral, Confidence: round3(clamp01(0.5 + 0.3*cov)), Severity: Minor, Evidence: trimSpan(f.span),
		Method: "local", Reason: f.reason, Detail: scopeDetail(f)}
	if f.excluded {
		v.Label, v.Severity = Contradiction, Major
	}
	return v
}

func scopeDetail(f scopeFinding) string {
	switch f.reason {
	case ReasonScopeWidened:
		return fmt.Sprintf("the cited source limits this (%q); the claim states it without that limit", f.what)
	case ReasonConditionDropped:
		return fmt.Sprintf("the cited source states a condition the claim leaves out (%q)", f.what)
	default:
		return fmt.Sprintf("the cited source states another range (%q)", f.what)
	}
}

const numAlt = `(\d|one\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|ten\b|twelve\b|twenty\b)`

// phraseNorms rewrite equivalent wordings of bounds, prices and periods
// to one form before the terms of a text are analysed, so that "no more
// than 8 kg" is not read as a negation, "less than 8 kg" not as a change
// down, and "Monday to Friday" matches "weekdays". Quoted spans keep the
// text as written.
//
// A rule's regexp runs only when the lowercased text has its key (see
// hasKey) and one of its need literals (allOf: all of them). Every match
// of the regexp contains a need literal, and each need literal contains
// the key, so on most texts no regexp runs at all.
var phraseNorms = []struct {
	key   string
	need  []string
	allOf bool
	re    *regexp.Regexp
	out   string
	scan  func(string) string // re's replacement by hand, for text without folds
}{
	{"than", []string{"no more than", "not more than"}, false, regexp.MustCompile(`(?i)\b(no|not) more than\b`), "at most", phraseScan("at most", "no more than", "not more than")},
	{"than", []string{"no less than", "not less than", "no fewer than", "not fewer than"}, false, regexp.MustCompile(`(?i)\b(no|not) (less|fewer) than\b`), "at least", phraseScan("at least", "no less than", "no fewer than", "not less than", "not fewer than")},
	{"than", []string{"less than ", "fewer than ", "younger than "}, false, regexp.MustCompile(`(?i)\b(less|fewer|younger) than ` + numAlt), "under $2", scanUnder},
	{"than", []string{"more than ", "older than "}, false, regexp.MustCompile(`(?i)\b(more|older) than ` + numAlt), "over $2", scanOver},
	{"later than", []string{"no later than"}, false, regexp.MustCompile(`(?i)\bno later than\b`), "by", phraseScan("by", "no later than")},
	{"c", []string{"at no cost", "at no charge", "at no extra cost", "at no extra charge", "free of charge", "without charge", "for free", "cost nothing", "costs nothing"}, false,
		regexp.MustCompile(`(?i)\b(at no (extra )?(cost|charge)|free of charge|without charge|for free|costs? nothing)\b`), "free", phraseScan("free", "at no extra cost", "at no extra charge", "at no cost", "at no charge", "free of charge", "without charge", "for free", "costs nothing", "cost nothing")},
	{"admission", []string{"no admission charge", "no admission fee"}, false, regexp.MustCompile(`(?i)\bno admission (charge|fee)\b`), "free admission", phraseScan("free admission", "no admission charge", "no admission fee")},
	{"friday", []string{"monday", "friday"}, true, regexp.MustCompile(`(?i)\bmondays? (to|through|until|-) fridays?\b`), "weekdays", phraseScan("weekdays", "mondays to fridays", "mondays to friday", "mondays through fridays", "mondays through friday", "mondays until fridays", "mondays until friday", "mondays - fridays", "mondays - friday", "monday to fridays", "monday to friday", "monday through fridays", "monday through friday", "monday until fridays", "monday until friday", "monday - fridays", "monday - friday")},
	{"week", []string{"every day of the week", "seven days a week", "7 days a week"}, false, regexp.MustCompile(`(?i)\b(every day of the week|seven days a week|7 days a week)\b`), "every day", phraseScan("every day", "every day of the week", "seven days a week", "7 days a week")},
	{"at once", []string{"at once"}, false, regexp.MustCompile(`(?i)\bat once\b`), "at a time", phraseScan("at a time", "at once")},
	{"one time", []string{"one time"}, false, regexp.MustCompile(`(?i)\bone time\b`), "once", phraseScan("once", "one time")},
	{" than", []string{"other than"}, false, regexp.MustCompile(`(?i)\bother than\b`), "except", phraseScan("except", "other than")},
	{"apart from", []string{"apart from"}, false, regexp.MustCompile(`(?i)\bapart from\b`), "except", phraseScan("except", "apart from")},
	{"o", []string{"or older", "or above", "and older", "and above", "or over"}, false, regexp.MustCompile(`(?i)\b(or|and) (older|above)\b|\bor over\b`), "and over", phraseScan("and over", "or older", "or above", "and older", "and above", "or over")},
	{"o", []string{"or younger", "or below", "and younger", "and below", "or under"}, false, regexp.MustCompile(`(?i)\b(or|and) (younger|below)\b|\bor under\b`), "and under", phraseScan("and under", "or younger", "or below", "and younger", "and below", "or under")},
	// a polarity in form only: "no charge for parking" is "free parking"
	// ("free for parking"), "must not be under 12" "must be at least 12",
	// "not possible before 3pm" "possible from 3pm", "under 5s" "children
	// under 5" (an age up to 18 with an s: a class, as "under-16s" is)
	{"no ", noChargeNeed, false, regexp.MustCompile(`(?i)\bno (extra |additional )?(charges?|fees?|costs?) (for|to)\b`), "free $3", scanNoCharge},
	{"not be ", notUnder, false, regexp.MustCompile(`(?i)\bnot be (under|below) ` + numAlt), "be at least $2", scanNotUnder},
	{"not ", notBeforeLeads, false, regexp.MustCompile(`(?i)\bnot (possible|available|allowed|permitted|open) (before|until) (\d|noon\b|midday\b)`), "$1 from $3", scanNotBefore},
	{"under", []string{"under ", "under-"}, false, regexp.MustCompile(`(?i)\bunder[ -]([1-9]|1[0-8])s\b`), "children under $1", scanUnderNs},
	// "do not pay for parking" is "free for parking", "no check-in before
	// 3pm" "check-in from 3pm" (formpolarity.go)
	{"pay ", notPayNeed, false, regexp.MustCompile(`(?i)\b(do not|does not|don't|doesn't)( have to| need to)? pay (for|to)\b`), "free $3", scanNotPay},
	{"no ", noBeforeNeed, false, regexp.MustCompile(`(?i)\bno ([a-z]+(-[a-z]+)?) (before|until) (\d|noon\b|midday\b)`), "$1 from $4", scanNoBefore},
}

// noChargeNeed are the need literals of the "no charge for" rule: each
// match holds one (the "not possible before" rule's are its scanner's
// leads, notBeforeLeads).
var noChargeNeed = func() (nc []string) {
	for _, x := range []string{"", "extra ", "additional "} {
		for _, w := range []string{"charge", "fee", "cost"} {
			nc = append(nc, "no "+x+w)
		}
	}
	return nc
}()

// notBeforeWords are the states "not ... before 3pm" says begin then.
var notBeforeWords = []string{"possible", "available", "allowed", "permitted", "open"}

// normPhrases applies phraseNorms to text.
//
// The need test is exact for text without U+017F (long s) and U+212A
// (Kelvin sign), the only non-ASCII runes that (?i) folds to ASCII
// letters; the patterns are otherwise ASCII, so a match is one of the
// need literals in some ASCII case, which strings.ToLower maps to the
// literal. Text with either rune is tested by key alone.
func normPhrases(text string) string {
	folds := strings.Contains(text, "\u017f") || strings.Contains(text, "\u212a")
	lower := strings.ToLower(text)
	// the pairs of adjacent bytes of lower: a literal with a pair it lacks
	// is not in it, and most literals are ruled out so, without a search
	var pairs pairSet
	if !folds {
		pairs.fill(lower)
	}
	for _, n := range phraseNorms {
		if folds {
			if !hasKey(lower, n.key) {
				continue
			}
		} else if (len(n.key) > 1 && !pairs.contains(lower, n.key)) || !pairs.hasNeed(lower, n.need, n.allOf) {
			// a literal key is one scan where the need literals are
			// several, and none is there without it
			continue
		}
		var t string
		if !folds {
			t = n.scan(text)
		} else {
			t = n.re.ReplaceAllString(text, n.out)
		}
		if t != text {
			text, lower = t, strings.ToLower(t)
			if !folds {
				pairs.fill(lower)
			}
		}
	}
	return text
}

// pairSet is a 1,024-bit filter of the pairs of adjacent bytes of a text:
// a string with a pair the set lacks is not in the text (a pair it has
// may be a collision, so a hit says nothing).
type pairSet [16]uint64

func pairOf(a, b byte) uint { return (uint(a)*37 ^ uint(b)) & 1023 }

// fill makes ps the set of s's pairs.
func (ps *pairSet) fill(s string) {
	*ps = pairSet{}
	for i := 0; i+1 < len(s); i++ {
		h := pairOf(s[i], s[i+1])
		ps[h>>6] |= 1 << (h & 63)
	}
}

// contains is strings.Contains(s, sub) for the s ps was filled from.
func (ps *pairSet) contains(s, sub string) bool {
	for i := 0; i+1 < len(sub); i++ {
		h := pairOf(sub[i], sub[i+1])
		if ps[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return strings.Contains(s, sub)
}

// hasNeed is hasNeed(lower, need, allOf) for the lower ps was filled from.
func (ps *pairSet) hasNeed(lower string, need []string, allOf bool) bool {
	for _, w := range need {
		if ps.contains(lower, w) != allOf {
			return !allOf
		}
	}
	return allOf
}

var (
	underLeads = []string{"less than ", "fewer than ", "younger than "}
	overLeads  = []string{"more than ", "older than "}
	notUnder   = []string{"not be under ", "not be below "}
	noonWords  = []string{"noon", "midday"}
	scanUnder  = func(s string) string { return replaceThanNum(s, underLeads, "under ") }
	scanOver   = func(s string) string { return replaceThanNum(s, overLeads, "over ") }
	// scanNotUnder is `(?i)\bnot be (under|below) ` + numAlt replaced by
	// "be at least" and the number
	scanNotUnder = func(s string) string {
		return replaceScan(s, func(i int) int { return matchLeadNum(s, i, notUnder, numWords) },
			func(m string) string { return "be at least " + m[strings.LastIndexByte(m, ' ')+1:] })
	}
	// scanNotBefore is `(?i)\bnot (possible|...) (before|until) (\d|noon\b|midday\b)`
	// replaced by "$1 from $3"
	scanNotBefore = func(s string) string {
		return replaceScan(s, func(i int) int { return matchLeadNum(s, i, notBeforeLeads, noonWords) },
			func(m string) string {
				f := strings.Fields(m) // "not", the state, "before" or "until", the time's start
				return f[1] + " from " + f[3]
			})
	}
	// scanUnderNs is `(?i)\bunder[ -]([1-9]|1[0-8])s\b` replaced by
	// "children under $1"
	scanUnderNs = func(s string) string {
		return replaceScan(s, func(i int) int { return matchUnderNs(s, i) }, func(m string) string { return "children under " + m[6:len(m)-1] })
	}
	// scanNoCharge is `(?i)\bno (extra |additional )?(charges?|fees?|costs?) (for|to)\b`
	// replaced by "free" and the preposition
	scanNoCharge = func(s string) string {
		return replaceScan(s, func(i int) int { return matchNoCharge(s, i) }, func(m string) string { return "free " + m[strings.LastIndexByte(m, ' ')+1:] })
	}
)

// notBeforeLeads are scanNotBefore's leads: "not <state> before|until ".
var notBeforeLeads = func() []string {
	var out []string
	for _, a := range notBeforeWords {
		out = append(out, "not "+a+" before ", "not "+a+" until ")
	}
	return out
}()

// matchUnderNs returns the end of a match of `\bunder[ -]([1-9]|1[0-8])s\b`
// starting at i, or -1.
func matchUnderNs(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) || i+8 > len(s) || !strings.EqualFold(s[i:i+5], "under") || s[i+5] != ' ' && s[i+5] != '-' {
		return -1
	}
	k := i + 6
	n := 0
	for k+n < len(s) && n < 3 && s[k+n] >= '0' && s[k+n] <= '9' {
		n++
	}
	if n == 0 || n > 2 || s[k] == '0' || n == 2 && (s[k] != '1' || s[k+1] > '8') {
		return -1
	}
	e := k + n
	if e >= len(s) || s[e]|0x20 != 's' || e+1 < len(s) && isWordByte(s[e+1]) {
		return -1
	}
	return e + 1
}

// matchNoCharge returns the end of a match of `\bno (extra |additional
// )?(charges?|fees?|costs?) (for|to)\b` starting at i, or -1.
func matchNoCharge(s string, i int) int {
	if i > 0 && isWordByte(s[i-1]) || i+3 > len(s) || !strings.EqualFold(s[i:i+3], "no ") {
		return -1
	}
	k := i + 3
	for _, x := range []string{"extra ", "additional "} {
		if k+len(x) <= len(s) && strings.EqualFold(s[k:k+len(x)], x) {
			k += len(x)
			break
		}
	}
	for _, w := range []string{"charge", "fee", "cost"} {
		e := k + len(w)
		if e > len(s) || !strings.EqualFold(s[k:e], w) {
			continue
		}
		if e < len(s) && s[e]|0x20 == 's' {
			e++
		}
		if e >= len(s) || s[e] != ' ' {
			return -1
		}
		e++
		for _, p := range []string{"for", "to"} {
			if f := e + len(p); f <= len(s) && strings.EqualFold(s[e:f], p) && (f == len(s) || !isWordByte(s[f])) {
				return f
			}
		}
		return -1
	}
	return -1
}

// numWords are numAlt's words.
var numWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty"}

// phraseScan returns `(?i)\b(phrases)\b` replaced by out, for text
// without the runes (?i) folds to ASCII letters. The phrases are a
// pattern's alternatives written out in its order of preference, each
// beginning and ending with a word byte.
func phraseScan(out string, phrases ...string) func(string) string {
	return func(s string) string {
		return replaceScan(s, func(i int) int {
			if i > 0 && isWordByte(s[i-1]) {
				return -1
			}
			for _, p := range phrases {
				e := i + len(p)
				if e <= len(s) && strings.EqualFold(s[i:e], p) && (e == len(s) || !isWordByte(s[e])) {
					return e
				}
			}
			return -1
		}, func(string) string { return out })
	}
}

// replaceThanNum is `(?i)\b(w1|w2...) than ` + numAlt replaced by out and
// the number, for text without the runes (?i) folds to ASCII letters:
// "Less than 5" is "under 5", "more than ten" "over ten". leads are the
// words with " than ".
func replaceThanNum(s string, leads []string, out string) string {
	return replaceScan(s, func(i int) int { return matchLeadNum(s, i, leads, numWords) }, func(m string) string {
		// the number is the match's tail after "<word> than "
		return out + m[strings.LastIndexByte(m, ' ')+1:]
	})
}

// replaceScan replaces the leftmost non-overlapping matches in s, as
// regexp's ReplaceAllString: match returns the end of the match starting
// at i or -1, repl a match's replacement.
func replaceScan(s string, match func(i int) int, repl func(m string) string) string {
	var b strings.Builder
	last := 0 // s[last:] is not yet written
	for i := 0; i < len(s); {
		end := match(i)
		if end < 0 {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl(s[i:end]))
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchLeadNum returns the end of a match of `\b(leads)(\d|tails\b)`
// starting at i, or -1: the first lead that s has at i decides (the
// leads are alternatives of a pattern in its order of preference, none
// a prefix of a later one), and a digit ends the match at once (numAlt's
// \d: the number's other digits stay after the replacement).
func matchLeadNum(s string, i int, leads, tails []string) int {
	if i > 0 && isWordByte(s[i-1]) {
		return -1
	}
	for _, l := range leads {
		k := i + len(l)
		if k > len(s) || !strings.EqualFold(s[i:k], l) {
			continue
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			return k + 1
		}
		for _, nw := range tails {
			e := k + len(nw)
			if e <= len(s) && strings.EqualFold(s[k:e], nw) && (e == len(s) || !isWordByte(s[e])) {
				return e
			}
		}
		return -1
	}
	return -1
}

// isWordByte is RE2's \w: an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// hasKey reports whether lower has a rule's key: "c" is free, cost or
// charge; "o" a word of a lower age bound.
func hasKey(lower, key string) bool {
	switch key {
	case "c":
		return strings.Contains(lower, "free") || strings.Contains(lower, "cost") || strings.Contains(lower, "charge")
	case "o":
		return strings.Contains(lower, "older") || strings.Contains(lower, "above") || strings.Contains(lower, "younger") ||
			strings.Contains(lower, "below") || strings.Contains(lower, " over") || strings.Contains(lower, " under")
	}
	return strings.Contains(lower, key)
}

// hasNeed reports whether lower contains one of need (allOf: all).
func hasNeed(lower string, need []string, allOf bool) bool {
	for _, w := range need {
		if strings.Contains(lower, w) != allOf {
			return !allOf
		}
	}
	return allOf
}

func isYear(v float64) bool { return v >= 1000 && v <= 2100 && v == math.Trunc(v) }

// unbracket drops bracketed asides ("(risk ratio 0.27 (0.11 to 0.67))",
// "(within 4 d)"): statistics and glosses, not conditions.
func unbracket(s string) string {
	if !strings.ContainsAny(s, "([") {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(' || r == '[':
			depth++
		case (r == ')' || r == ']') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
