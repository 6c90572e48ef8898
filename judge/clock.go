package judge

import "strings"

// Clock times ("9:30am", "11 pm", "17:45") are read by analyse as a number
// and a code ("9" and "30am") or a code alone ("11am"); the item lists
// (itembind.go) and a moved time read them here, as minutes after
// midnight.

// movedClock is the contradiction of a claim (text) whose clock time the
// source states nowhere, where the claim without it is entailed by a
// window that gives another time ("The café opens at 8am" against "The
// café opens at 10am every day"; "at noon on Sundays" against "at 10am on
// weekdays and 1pm on Sundays", which the windows entail, as analyse reads
// no number in "noon"): v is the claim's verdict; ok is false when there is
// no such time.
func (l *Local) movedClock(text string, docs []*prepared, v Verdict) (Verdict, bool) {
	rest, clocks := cutClocks(text)
	if len(clocks) == 0 {
		return v, false
	}
	for _, d := range docs {
		for _, c := range clocks {
			for _, x := range d.itemLists().clocks {
				if c == x {
					return v, false // stated: the verdict rests on something else
				}
			}
		}
	}
	w := l.verifyText(rest, docs)
	if w.Label != Entailment {
		return v, false
	}
	if _, ec := cutClocks(w.Evidence); len(ec) == 0 {
		return v, false
	}
	return Verdict{Label: Contradiction, Confidence: w.Confidence, Severity: Critical, Evidence: w.Evidence, Method: "local",
		Reason: "number_mismatch", Detail: "the cited source gives another time for this"}, true
}

// mayHaveClock reports whether text may hold a clock time: a digit before
// "am" or "pm" (a space between or not) or before ':' and a digit, or a
// word of clockWords; false means cutClocks would find none.
func mayHaveClock(text string) bool {
	for i := 1; i < len(text); i++ {
		switch c := text[i]; {
		case c == 'm' || c == 'M':
			if j := i - 2; j >= 0 && (text[i-1]|0x20 == 'a' || text[i-1]|0x20 == 'p') {
				if text[j] == ' ' && j > 0 {
					j--
				}
				if text[j] >= '0' && text[j] <= '9' {
					return true
				}
			}
		case c == ':':
			if text[i-1] >= '0' && text[i-1] <= '9' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				return true
			}
		}
	}
	for w := range clockWords {
		if indexFold(text, w, 0) >= 0 {
			return true
		}
	}
	return false
}

// clockWords are the clock times written as a word.
var clockWords = map[string]int{"noon": 720, "midday": 720, "midnight": 0}

// cutClocks returns text without its clock times ("9:30am", "11 pm",
// "10.15am", "17:45", "noon") and the times, in minutes after midnight.
func cutClocks(text string) (string, []int) {
	if !mayHaveClock(text) {
		return text, nil
	}
	return scanClocks(text)
}

// scanClocks is cutClocks without its quick look (mayHaveClock).
func scanClocks(text string) (string, []int) {
	var out []int
	var b []byte
	last := 0
	digit := func(i int) bool { return i < len(text) && text[i] >= '0' && text[i] <= '9' }
	for i := 0; i < len(text); i++ {
		if isLetterByte(text[i]) && (i == 0 || !isLetterByte(text[i-1])) {
			w := wordAt(text, i)
			if c, ok := clockWords[strings.ToLower(w)]; ok {
				out = append(out, c)
				b = append(b, text[last:i]...)
				b = append(b, ' ')
				last = i + len(w)
			}
			i += len(w) - 1
			continue
		}
		if !digit(i) || i > 0 && (digit(i-1) || isLetterByte(text[i-1]) || text[i-1] == '.' || text[i-1] == ':') {
			continue
		}
		j, h := i, 0
		for digit(j) && j-i < 2 {
			h = h*10 + int(text[j]-'0')
			j++
		}
		if digit(j) {
			continue
		}
		m, colon := 0, false
		if j+2 < len(text) && (text[j] == ':' || text[j] == '.') && digit(j+1) && digit(j+2) && !digit(j+3) {
			m, colon = int(text[j+1]-'0')*10+int(text[j+2]-'0'), text[j] == ':'
			j += 3
		}
		k := j
		if k < len(text) && text[k] == ' ' {
			k++
		}
		half := ""
		if k+1 < len(text) && (text[k] == 'a' || text[k] == 'p' || text[k] == 'A' || text[k] == 'P') && (text[k+1] == 'm' || text[k+1] == 'M') && (k+2 == len(text) || !isLetterByte(text[k+2])) {
			half = strings.ToLower(text[k : k+1])
			j = k + 2
		}
		switch {
		case half != "" && h >= 1 && h <= 12 && m < 60:
			h %= 12
			if half == "p" {
				h += 12
			}
		case half == "" && colon && h < 24 && m < 60:
		default:
			continue
		}
		out = append(out, h*60+m)
		b = append(b, text[last:i]...)
		b = append(b, ' ')
		last, i = j, j-1
	}
	if out == nil {
		return text, nil
	}
	return string(append(b, text[last:]...)), out
}

// normMeridiem returns text with "a.m." and "p.m." after a number, and
// "am" and "pm" apart from it, written against the number ("3 p.m." and
// "3 pm" as "3pm"), as the clock readers and the word analysis read them
// ("pm" apart read as a word of its own, and "p.m." as an initialism); the
// dot that also ends a sentence ("... at 10 p.m. Guests ...", "at 7 a.m.")
// is kept.
func normMeridiem(text string) string {
	if !strings.Contains(text, "m") && !strings.Contains(text, "M") {
		return text
	}
	var b []byte
	last := 0
	for i := 1; i+1 < len(text); i++ {
		c := text[i] | 0x20
		if c != 'a' && c != 'p' || isLetterByte(text[i-1]) {
			continue
		}
		k := i // the number's end
		if text[k-1] == ' ' {
			k--
		}
		if k == 0 || text[k-1] < '0' || text[k-1] > '9' {
			continue
		}
		j := i + 1
		dots := j < len(text) && text[j] == '.'
		if dots {
			j++
		}
		if j >= len(text) || text[j]|0x20 != 'm' {
			continue
		}
		mc := text[j]
		j++
		if j < len(text) && isLetterByte(text[j]) || k == i && !dots {
			continue // "5 amps"; "5pm" as it is
		}
		end := ""
		if dots && j < len(text) && text[j] == '.' {
			j++
			if j == len(text) {
				end = "."
			} else if text[j] == ' ' || text[j] == '\t' || text[j] == '\n' {
				if r := strings.TrimLeft(text[j:], " \t"); r == "" || r[0] == '\n' || r[0] >= 'A' && r[0] <= 'Z' {
					end = "."
				}
			}
		}
		b = append(b, text[last:k]...)
		b = append(b, text[i], mc)
		b = append(b, end...)
		last, i = j, j-1
	}
	if b == nil {
		return text
	}
	return string(append(b, text[last:]...))
}
