package gate

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The detectors of a service's phone number, street address and opening
// hours: what a contact question for them (typePhone, typeAddress,
// typeHours) is grounded on. Each reads the shapes several countries write
// them in, and none fires on a price, an event's date, an order or account
// number or a version number alone.

var (
	// a house number before the street: "12 High Street", "1600
	// Pennsylvania Avenue NW", "12 rue de Rivoli", "4/21 George St"
	streetFirst = regexp.MustCompile(`(?:^|[^\p{L}\d£$€.,:/-])\d{1,5}[A-Za-z]?(?:/\d{1,4})?,?\s+` +
		`(?:(?:\p{Lu}[\p{L}'’.-]*|of|the|de|la|du|des)\s+){0,4}` +
		`(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way|Place|Court|Square|` +
		`Terrace|Crescent|Close|Gardens|Parade|Mews|Highway|Hwy\.?|Parkway|Quay|Wharf|Broadway)(?:$|[^\p{L}])` +
		`|(?:^|[^\p{L}\d£$€.,:/-])\d{1,4}(?:bis|ter)?,?\s+(?i:rue|avenue|boulevard|bd|place|quai|chemin|allée|impasse|cours)\s+\p{L}`)
	// a house number and a name before a street word that is also a
	// common noun: "12 Savile Row", "3 Brook Green", "7 Castle Wynd"; at
	// least one capitalised name word (no full stop in it), and after the
	// street word the end, punctuation, a capitalised word, a number or a
	// linking word, not "3 Hyde Park venues"
	streetNamed = regexp.MustCompile(`(?:^|[^\p{L}\d£$€.,:/-])\d{1,5}[A-Za-z]?(?:/\d{1,4})?,?\s+` +
		`(?:\p{Lu}[\p{L}'’-]*\s+){1,3}(?:Row|Hill|Green|Walk|Yard|Grove|Rise|View|Park|Circus|Wynd|Vale|Embankment)` +
		`(?:$|[,.;:)\n]|\s+(?:\p{Lu}|\d|(?:in|near|off|opposite|next|by|and|or|is|are)\b))`)
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
// street word on either side of the street's name (a street word that is
// also a common noun, "Row", "Park", "Green", only after a capitalised
// name), or a postcode. The
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
			if lo, hi := window(text, i, 60, len(w)+40); streetFirst.MatchString(text[lo:hi]) || streetLast.MatchString(text[lo:hi]) ||
				streetNamed.MatchString(text[lo:hi]) {
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
	"Rua", "Plaza", "Paseo", "Largo", "Praça", "Carrer", "Travessa", "Row", "Hill", "Green", "Walk", "Yard", "Grove",
	"Rise", "View", "Park", "Circus", "Wynd", "Vale", "Embankment"}

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

// hasPhoneNumber reports a phone number in text, read in the shapes phones
// are written in: an international number after "+" ("+44 20 7946 0958",
// "+33 1 23 45 67 89"), a national one opening with its trunk 0 in groups
// ("020 7946 0958", "0800 123 456", "(02) 9876 5432"), North American
// groups ("(555) 123-4567", "1-800-555-0199") or an Australian 1300/1800
// number. Any other 7 to 15 digits ("01614960000", "496 0000") count only
// after a phone word ("call", "tel", "WhatsApp", ...). None counts glued to
// letters (an order code, "v1.2.3456789"), a currency sign or a unit, as a
// date, a time range or a run of years, or after a reference word ("Ref",
// "ISBN", "policy", "account", ...): an order number, a price in pence or an
// account number does not ground "what's your phone number".
func hasPhoneNumber(text string) bool {
	for i := 0; i < len(text); {
		if !isDigit(text[i]) {
			i++
			continue
		}
		s := readPhoneSpan(text, i)
		if s.isPhone(text) {
			return true
		}
		i = s.end
	}
	return false
}

// maxPhoneGroups bounds the digit groups of one span: a longer run of
// numbers is a list, not a phone number.
const maxPhoneGroups = 8

// The separators between a phone number's groups.
const (
	sepSpace = 1 << iota
	sepDot
	sepDash
	sepSlash
	sepBracket
)

// phoneSpan is a run of digit groups joined by the separators phone
// numbers are written with.
type phoneSpan struct {
	start, end int  // text[start:end], from a leading "+" to the last digit
	plus       bool // it opens with "+"
	n          int  // groups; more than maxPhoneGroups counts as a list
	groups     [maxPhoneGroups]int
	seps       [maxPhoneGroups]uint8 // seps[k]: the separator before group k
}

// readPhoneSpan reads the span whose first digit is text[i].
func readPhoneSpan(text string, i int) phoneSpan {
	s := phoneSpan{start: i}
	if i > 0 && text[i-1] == '+' {
		s.start, s.plus = i-1, true
	}
	var sep uint8
	for j := i; ; {
		k := j
		for k < len(text) && isDigit(text[k]) {
			k++
		}
		if s.n < len(s.groups) {
			s.groups[s.n], s.seps[s.n] = k-j, sep
		}
		s.n++
		s.end = k
		var next int
		if next, sep = phoneSep(text, k); next == 0 {
			return s
		}
		j = next
	}
}

// phoneSep reads the separator at text[k] between two groups: a ".", or
// up to three of space, brackets and one "-" or "/" (" - ", ") ", " (",
// " / "), a "(" only when its group closes with ")". It returns the offset of the
// next group's first digit, or 0 when text[k] does not join two groups.
func phoneSep(text string, k int) (next int, kind uint8) {
	if k+1 >= len(text) {
		return 0, 0
	}
	if text[k] == '.' {
		if !isDigit(text[k+1]) {
			return 0, 0
		}
		return k + 1, sepDot
	}
	m, spaces, dashes, open := k, 0, 0, false
scan:
	for ; m < len(text) && m-k < 3; m++ {
		switch text[m] {
		case ' ':
			spaces++
			kind |= sepSpace
		case '-':
			dashes++
			kind |= sepDash
		case '/':
			dashes++
			kind |= sepSlash
		case '(':
			open = true
			kind |= sepBracket
		case ')':
			kind |= sepBracket
		default:
			break scan
		}
	}
	if m == k || spaces > 2 || dashes > 1 || m >= len(text) || !isDigit(text[m]) {
		return 0, 0
	}
	if open {
		e := m
		for e < len(text) && isDigit(text[e]) {
			e++
		}
		if e == len(text) || text[e] != ')' {
			return 0, 0
		}
	}
	return m, kind
}

// isPhone reports whether the span is a phone number in its context.
func (s *phoneSpan) isPhone(text string) bool {
	if s.n > maxPhoneGroups || !s.bounded(text) || s.dateOrYears(text) {
		return false
	}
	var all uint8
	for _, k := range s.seps[:s.n] {
		all |= k
	}
	if all&sepDot != 0 && all&(sepDash|sepSlash) != 0 || all&sepDash != 0 && all&sepSlash != 0 {
		return false // a time range ("09.00-17.30"), a version, a date
	}
	phone, ref := phoneContext(text, s.start) // at most one is found
	// A shape of its own, unless a reference word names it; trailing
	// groups after a space may be another number ("0161 496 0000 24
	// hours").
	if ref == 0 || ref > 2 {
		for n := s.n; n >= 2; n-- {
			if (n == s.n || s.seps[n]&sepSpace != 0) && s.shaped(text, n) {
				return true
			}
		}
		if s.plus && s.n == 1 && s.shaped(text, 1) {
			return true
		}
	}
	d := s.digits(s.n)
	return phone != 0 && d >= 7 && d <= 15
}

// digits counts the digits of the first n groups.
func (s *phoneSpan) digits(n int) int {
	d := 0
	for _, g := range s.groups[:n] {
		d += g
	}
	return d
}

// shaped reports whether the first n groups are written as a phone number
// is: international, national with a trunk 0, North American, or an
// Australian 1300/1800 number.
func (s *phoneSpan) shaped(text string, n int) bool {
	d := s.digits(n)
	if d < 7 || d > 15 {
		return false
	}
	singles := 0
	for _, g := range s.groups[:n] {
		if g == 1 {
			singles++
		}
	}
	if s.plus {
		return d >= 8 && singles <= 2 // "+44 (0)20 7946 0958", "+33 1 23 45 67 89"
	}
	g := s.groups[:n]
	first := s.start
	switch {
	case text[first] == '0' && n >= 2 && g[0] >= 2 && g[0] <= 5 && singles == 0 && d >= 8 && d <= 12:
		return true // "020 7946 0958", "01 23 45 67 89"
	case n == 3 && g[0] == 3 && g[1] == 3 && g[2] == 4, n == 4 && text[first] == '1' && g[0] == 1 && g[1] == 3 && g[2] == 3 && g[3] == 4:
		return true // "(555) 123-4567", "1-800-555-0199"
	case n == 3 && g[0] == 4 && g[1] == 3 && g[2] == 3 && (strings.HasPrefix(text[first:], "1300") || strings.HasPrefix(text[first:], "1800")):
		return true
	}
	return false
}

// bounded reports that the span stands alone: no letter, digit or code
// character glued to either end, no currency sign before it, no unit or
// currency after it.
func (s *phoneSpan) bounded(text string) bool {
	if s.start > 0 {
		r, w := utf8.DecodeLastRuneInString(text[:s.start])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Sc, r) || strings.ContainsRune("_#@&*=", r):
			return false
		case strings.ContainsRune("-./:,", r) && s.start-w > 0:
			// "AB-1234567", "v1.2.3456789", "1,250,000"; not "Tel:"
			if p, _ := utf8.DecodeLastRuneInString(text[:s.start-w]); unicode.IsDigit(p) || r != ':' && r != ',' && unicode.IsLetter(p) {
				return false
			}
		case r == ' ' && s.start-w > 0:
			if p, _ := utf8.DecodeLastRuneInString(text[:s.start-w]); unicode.Is(unicode.Sc, p) {
				return false // "£ 1250000"
			}
		}
	}
	if s.end < len(text) {
		r, _ := utf8.DecodeRuneInString(text[s.end:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Sc, r) || r == '%' || r == '_' ||
			(r == ',' || r == '.') && s.end+1 < len(text) && isDigit(text[s.end+1]) {
			return false
		}
		if r == ' ' {
			e := s.end + 1
			for e < len(text) && e-s.end <= 8 && (text[e] >= 'a' && text[e] <= 'z' || text[e] >= 'A' && text[e] <= 'Z' || text[e] == '%') {
				e++
			}
			if e > s.end+1 && phoneWordClass(text[s.end+1:e])&wordUnit != 0 {
				return false
			}
			if r, _ := utf8.DecodeRuneInString(text[s.end+1:]); unicode.Is(unicode.Sc, r) {
				return false // "1 250 000 €"
			}
		}
	}
	return true
}

// dateOrYears reports a span that is a date ("2024-11-28", "28.11.2024")
// or years ("2019-2024", "2019 2020 2021").
func (s *phoneSpan) dateOrYears(text string) bool {
	g, sp := s.groups[:s.n], s.seps[:s.n]
	if s.n >= 3 && sp[1] == sp[2] && sp[1]&(sepDot|sepDash|sepSlash) != 0 &&
		(g[0] <= 2 && g[1] <= 2 && g[2] == 4 || g[0] == 4 && g[1] <= 2 && g[2] <= 2) {
		return true
	}
	for i, at := 0, s.start; i < s.n; i++ {
		for at < len(text) && !isDigit(text[at]) {
			at++
		}
		if g[i] != 4 || !(strings.HasPrefix(text[at:], "19") || strings.HasPrefix(text[at:], "20")) {
			return false
		}
		at += g[i]
	}
	return true
}

// phoneContext reads up to four words back from text[at], within the
// sentence, for the first phone word ("call us on") or reference word
// ("order no."): its distance in words, 0 for none; the other is 0.
func phoneContext(text string, at int) (phone, ref int) {
	j := at
	for k := 1; k <= 4; k++ {
		e := j
		for e > 0 && !wordByte(text[e-1]) {
			if c := text[e-1]; c == '\n' || c == '!' || c == '?' || c == ';' || isDigit(c) {
				return 0, 0
			}
			e--
		}
		b := e
		for b > 0 && wordByte(text[b-1]) {
			b--
		}
		if b == e {
			return 0, 0
		}
		class := phoneWordClass(text[b:e])
		if strings.IndexByte(text[e:j], '.') >= 0 && class&(wordAbbrev|wordPhone) == 0 {
			return 0, 0 // a full stop after the word ends its sentence
		}
		switch {
		case class&wordPhone != 0:
			return k, 0
		case class&wordRef != 0:
			return 0, k
		}
		j = b
	}
	return 0, 0
}

// wordByte reports a byte of a word: an ASCII letter or part of a non-ASCII
// rune.
func wordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }

// The classes of phoneWords, bits of a word's class.
const (
	wordPhone  = 1 << iota // before a number: a phone number ("call", "tel")
	wordRef                // before a number: a reference ("order", "ISBN")
	wordUnit               // after a number: a quantity or a price ("kg", "pence")
	wordAbbrev             // a full stop after it does not end the sentence ("no.")
)

// phoneWordClass is w's class in phoneWords, case aside; a unit only in
// lower or upper case ("kg", "GB", not "Ms").
func phoneWordClass(w string) uint8 {
	if len(w) > 16 {
		return 0
	}
	var b [16]byte
	lower, upper := 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z':
			lower++
		}
		b[i] = c
	}
	class := phoneWords[string(b[:len(w)])]
	if lower > 0 && upper > 0 {
		class &^= wordUnit
	}
	return class
}

// phoneWords are the words that say what a number beside them is: a phone
// word before it makes it a phone number, a reference word before it an
// order, account or book number, a unit or currency after it a quantity.
var phoneWords = func() map[string]uint8 {
	m := map[string]uint8{}
	for _, c := range []struct {
		class uint8
		words string
	}{
		{wordPhone, `tel tele telephone phone phoned phoning call calling ring ringing text texting txt sms whatsapp mobile
			mob cell fax line helpline hotline landline freephone freefone dial contact enquiries inquiries care support
			service services helpdesk`},
		{wordRef, `ref refs reference order orders booking policy account acct invoice isbn issn sort serial id pin member
			membership customer tracking case ticket receipt transaction vat registration reg registered charity company
			licence license iban swift bic passport model part sku item product claim application code voucher coupon batch
			lot version build page pages population price total barcode ean upc postcode zip nhs ssn ein routing card
			confirmation parcel consignment shipment record file patent crn utr usd gbp eur aud cad chf inr rs`},
		{wordUnit, `p pence kg g mg km m mm cm mi miles ml l litres liters gb mb kb tb bytes kwh mph px ms pounds dollars
			euros percent % usd gbp eur`},
		{wordAbbrev, `no nr num tel mob`},
	} {
		for _, w := range strings.Fields(c.words) {
			m[w] |= c.class
		}
	}
	return m
}()
