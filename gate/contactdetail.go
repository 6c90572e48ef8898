package gate

import (
	"regexp"
	"strings"
)

// The detectors of a service's street address and opening hours: what a
// contact question for them (typeAddress, typeHours) is grounded on. Both
// read the shapes several countries write them in, and neither fires on a
// price, an event's date, a phone number or a version number alone.

var (
	// a house number before the street: "12 High Street", "1600
	// Pennsylvania Avenue NW", "12 rue de Rivoli", "4/21 George St"
	streetFirst = regexp.MustCompile(`(?:^|[^\p{L}\d£$€.,:/-])\d{1,5}[A-Za-z]?(?:/\d{1,4})?,?\s+` +
		`(?:(?:\p{Lu}[\p{L}'’.-]*|of|the|de|la|du|des)\s+){0,4}` +
		`(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way|Place|Court|Square|` +
		`Terrace|Crescent|Close|Gardens|Parade|Mews|Highway|Hwy\.?|Parkway|Quay|Wharf|Broadway)(?:$|[^\p{L}])` +
		`|(?:^|[^\p{L}\d£$€.,:/-])\d{1,4}(?:bis|ter)?,?\s+(?i:rue|avenue|boulevard|bd|place|quai|chemin|allée|impasse|cours)\s+\p{L}`)
	// the street before its number: "Hauptstraße 5", "Kerkstraat 12",
	// "Rua Augusta 24", "Calle Mayor, 5", "Via Roma 10"
	streetLast = regexp.MustCompile(`\p{L}(?:straße|strasse|str\.|weg|gasse|platz|allee|straat|laan|gracht|plein|vej|gade|gatan|vägen)\s+\d{1,4}[a-z]?(?:$|[^\p{L}\d])` +
		`|(?:Via|Viale|Piazza|Corso|Calle|Avenida|Av\.|Rua|Plaza|Paseo|Largo|Praça|Carrer|Travessa)\s+(?:[\p{L}'’.]+,?\s+){1,4}\d{1,4}(?:$|[^\p{L}\d.,:]|[.,:](?:\s|$))`)
	// postcodes in the shapes that do not pass for other numbers: UK
	// ("SW1A 1AA"), US state and ZIP ("CA 94105"), Canada ("K1A 0B1"),
	// Australia ("NSW 2000"), the Netherlands ("1012 AB Amsterdam"),
	// Portugal ("1100-148 Lisboa"), and the five digits before a town of
	// Germany, France, Spain or Italy (", 10115 Berlin")
	postcode = regexp.MustCompile(`\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b` +
		`|\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY)\s+\d{5}(?:-\d{4})?\b` +
		`|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b` +
		`|\b(?:NSW|VIC|QLD|TAS|ACT|NT|SA|WA)\s+\d{4}\b` +
		`|\b\d{4}\s?[A-Z]{2}\s+\p{Lu}\p{Ll}+` +
		`|\b\d{4}-\d{3}\s+\p{Lu}\p{Ll}+` +
		`|(?:^|,\s*|\n\s*)\d{5}\s+\p{Lu}\p{Ll}{2,}`)
)

// hasStreetAddress reports a street address in text: a house number with a
// street word on either side of the street's name, or a postcode. The
// patterns run only on short windows around a street word or a postcode's
// run of digits, so a passage with neither costs a few substring searches.
func hasStreetAddress(text string) bool {
	for _, w := range streetWords {
		for off := 0; ; {
			i := strings.Index(text[off:], w)
			if i < 0 {
				break
			}
			i += off
			if lo, hi := window(text, i, 60, len(w)+40); streetFirst.MatchString(text[lo:hi]) || streetLast.MatchString(text[lo:hi]) {
				return true
			}
			off = i + len(w)
		}
	}
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		n := j - i
		letterNext := i > 0 && isUpper(text[i-1]) || j < len(text) && isUpper(text[j])
		if n >= 4 && n <= 5 || n <= 2 && letterNext {
			if lo, hi := window(text, i, 12, n+30); postcode.MatchString(text[lo:hi]) {
				return true
			}
		}
		i = j
	}
	return false
}

// streetWords anchor the street patterns: every street pattern holds one.
var streetWords = []string{"Street", "St", "Road", "Rd", "Avenue", "Ave", "Lane", "Ln", "Drive", "Dr", "Boulevard",
	"Blvd", "Way", "Place", "Court", "Square", "Terrace", "Crescent", "Close", "Gardens", "Parade", "Mews", "Highway",
	"Hwy", "Parkway", "Quay", "Wharf", "Broadway", "rue", "Rue", "avenue", "boulevard", "bd", "place", "quai", "chemin",
	"allée", "impasse", "cours", "straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "straat", "laan",
	"gracht", "plein", "vej", "gade", "gatan", "vägen", "Via", "Viale", "Piazza", "Corso", "Calle", "Avenida", "Av.",
	"Rua", "Plaza", "Paseo", "Largo", "Praça", "Carrer", "Travessa"}

// window is the span of text from about before bytes ahead of i to about
// after bytes past it, widened to whole words so that a pattern's word
// boundaries hold at its ends.
func window(text string, i, before, after int) (lo, hi int) {
	lo, hi = max(i-before, 0), min(i+after, len(text))
	if lo > 0 {
		lo = strings.LastIndexAny(text[:lo], " \n\t") + 1
	}
	if hi < len(text) {
		if k := strings.IndexAny(text[hi:], " \n\t"); k >= 0 {
			hi += k
		} else {
			hi = len(text)
		}
	}
	return lo, hi
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

const (
	// clock is a time of day: "9am", "9:30 pm", "17:30", "noon"
	clock = `(?:(?:[01]?\d|2[0-4])(?:[:.][0-5]\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|(?:[01]?\d|2[0-4]):[0-5]\d|noon|midday|midnight)`
	// span is a range of times: "9am-5pm", "09:00–17:30", "9.00 to 17.30",
	// "between 10am and 4pm"
	span = `(?:(?:between\s+)?` + clock + `|(?:[01]?\d|2[0-4])\.[0-5]\d)\s*(?:-|–|—|to|until|till|til|and)\s*(?:` + clock + `|(?:[01]?\d|2[0-4])\.[0-5]\d)`
	// day is a day of the week or a holiday: "mon", "saturdays", "weekdays"
	day = `(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun)s?\.?|` +
		`weekdays?|weekends?|daily|every\s+day|` +
		`(?:bank|public)\s+holidays?)`
)

var (
	// days with times: "Monday to Friday 9am-5pm", "Mon–Fri: 09:00–17:30",
	// "Saturdays from 10am", "9am-5pm weekdays"
	daysTimes = regexp.MustCompile(`\b` + day + `(?:\s*(?:-|–|to|and|&|,)\s*` + day + `)*[\s,:]*(?:from\s+` + clock + `|` + span + `)` +
		`|` + span + `[\s,]*(?:on\s+|every\s+)?` + day + `\b`)
	// an opening word with a time: "open 9am-5pm", "opening hours:
	// 09:00-17:30", "we close at 5.30pm"
	openTimes = regexp.MustCompile(`(?:^|[^\p{L}])(?:open|opens|opening\s+(?:hours|times)|hours\s*:|closes|closing|close)\b[^.\n]{0,30}?` + clock)
	// "closed on sundays", "closed bank holidays", "open 24/7", "open daily"
	closedOpen = regexp.MustCompile(`\bclosed\s+(?:on\s+|every\s+|all\s+day\s+|over\s+|at\s+)?(?:` + day + `|christmas|easter|new\s+year)` +
		`|\bopen\s+(?:24\s+hours|24/7|daily|every\s+day|7\s+days|seven\s+days)`)
)

// hasOpeningHours reports opening hours in text: days with times, an
// opening or closing word with a time, or the days it is closed. Doors
// opening for an event ("doors open at 7pm") are not the service's hours.
// The time patterns run only on windows around a time of day.
func hasOpeningHours(text string) bool {
	lower := strings.ToLower(text)
	if (strings.Contains(lower, "closed") || strings.Contains(lower, "open")) && closedOpen.MatchString(lower) {
		return true
	}
	for i := 0; i < len(lower); i++ {
		if !clockAt(lower, i) {
			continue
		}
		lo, hi := window(lower, i, 70, 30)
		w := lower[lo:hi]
		if daysTimes.MatchString(w) {
			return true
		}
		for _, m := range openTimes.FindAllStringIndex(w, -1) {
			if !strings.HasSuffix(strings.TrimSpace(w[:m[0]+1]), "doors") {
				return true
			}
		}
		for i < len(lower) && (isDigit(lower[i]) || lower[i] >= 'a' && lower[i] <= 'z') {
			i++ // one window per time
		}
	}
	return false
}

// clockAt reports a time of day starting at lower[i]: a digit followed by
// "am", "pm", ":" or "." and a digit, or "noon", "midday", "midnight".
func clockAt(lower string, i int) bool {
	c := lower[i]
	if c == 'n' || c == 'm' {
		return strings.HasPrefix(lower[i:], "noon") || strings.HasPrefix(lower[i:], "midday") || strings.HasPrefix(lower[i:], "midnight")
	}
	if !isDigit(c) || i > 0 && isDigit(lower[i-1]) {
		return false
	}
	j := i
	for j < len(lower) && isDigit(lower[j]) {
		j++
	}
	if j-i > 2 || j == len(lower) {
		return false
	}
	rest := strings.TrimPrefix(lower[j:], " ")
	return strings.HasPrefix(rest, "am") || strings.HasPrefix(rest, "pm") || strings.HasPrefix(rest, "a.m") ||
		strings.HasPrefix(rest, "p.m") || (lower[j] == ':' || lower[j] == '.') && j+1 < len(lower) && isDigit(lower[j+1])
}
