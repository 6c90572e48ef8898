package judge

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A number belongs to the item it is stated for. A passage that gives
// numbers to several items in one sentence or list ("adults £18, students
// £14, children aged 3 to 15 £10"; "the pool opens at 9:30am, the gift shop
// at 11am"; a price list one line per item) holds the claim's number and
// its item's words, so the windows entail "Children aged 3 to 15 pay £14"
// though the source gives £14 to students. itemMismatch reads such lists
// item by item: the claim's number is another item's when every item that
// states it names something the claim does not, and another item, with
// another number of the same kind, names the claim's.

// itemVal is a number an item states: a quantity (t) or a clock time
// (clock, minutes after midnight, when isClock).
type itemVal struct {
	t       term
	clock   int
	isClock bool
}

// same reports whether a and b are the same value.
func (a itemVal) same(b itemVal) bool {
	if a.isClock || b.isClock {
		return a.isClock && b.isClock && a.clock == b.clock
	}
	return numEqual(a.t, b.t)
}

// sameKind reports whether b is a value of a's kind: two clock times, or
// two quantities of one dimension that are not a price and a count (an
// item may give its count bare: "the family tent 6").
func (a itemVal) sameKind(b itemVal) bool {
	if a.isClock || b.isClock {
		return a.isClock && b.isClock
	}
	return a.t.dim() == b.t.dim() && !otherKinds(a.t, b.t) && (a.t.kind == b.t.kind || a.t.kind == 0 || b.t.kind == 0)
}

// itemSeg is one item of an item group: its words and numbers.
type itemSeg struct {
	stems []string // the item's content stems
	vals  []itemVal
	text  string
	// bound: whether the item's time is where something begins
	// (boundStart: "opens at 9am") or ends (boundEnd: "closes at 5pm",
	// "open until 5pm"); 0 for neither
	bound uint8
	// days: the days of the week the item names (bit 0 Monday), a list
	// or range of them ("Monday, Wednesday, Thursday", "Friday to
	// Sunday", "weekends") read as the days it holds; 0 for none
	days uint8
	// col, colDays: for a table row's cell (rowCells), the cell's own
	// stems (its heading's and value's, not the row label's) and the days
	// they name; nil and 0 otherwise
	col     []string
	colDays uint8
}

// The bounds of a time (itemSeg.bound).
const (
	boundStart uint8 = 1 + iota
	boundEnd
)

// boundOf reads the bound of the one time of text (0 for none, or for
// more than one time: "open from 9am to 5pm").
func boundOf(text string, clocks int) uint8 {
	if clocks != 1 {
		return 0
	}
	var start, end bool
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		switch w {
		case "until", "till", "close", "closes", "closing", "closed", "shut", "shuts", "end", "ends", "finish", "finishes":
			end = true
		case "open", "opens", "opening", "start", "starts", "begin", "begins", "from":
			start = true
		}
	}
	switch {
	case end:
		return boundEnd // "open until" ends
	case start:
		return boundStart
	}
	return 0
}

// itemGroup is a sentence or a block of short lines that gives numbers to
// two or more items; disc counts, for each stem, the items that hold it (a
// stem in every item names none of them).
type itemGroup struct {
	segs []itemSeg
	disc map[string]int
}

// itemLists is what itemGroupsOf reads in a passage: its item groups, and
// the numbers it states outside them (loose).
type itemLists struct {
	groups []itemGroup
	loose  []itemVal
	clocks []int // the passage's clock times (cutClocks), for movedClock
}

type itemsOnce struct {
	once sync.Once
	l    itemLists
}

// itemLists returns p's item groups, made on first use.
func (p *prepared) itemLists() *itemLists {
	p.items.once.Do(func() {
		p.items.l = itemGroupsOf(p.text)
		_, p.items.l.clocks = cutClocks(p.text)
	})
	return &p.items.l
}

// itemBlockWords is the most words a line may have to be an item of a list
// of lines (a price list, a table turned into text).
const itemBlockWords = 16

// itemGroupsOf splits text into item groups: each block of two or more
// short lines with numbers is one (a line an item, a line without a number
// before the next its heading, left out), and each sentence of every line
// with two or more items separated by ",", ";", "and", "while", "whereas"
// or "but" is one (an item without a number goes with the next; one at the
// end, after the last number, is left out). A number of a sentence in
// neither is loose. A line's or sentence's bare answer word is left out
// (CheckedText), as it is of the claim.
func itemGroupsOf(text string) itemLists {
	var out itemLists
	var block []itemSeg
	var blockLoose []itemVal // the numbers of the block's lines outside their sentences' groups
	flush := func() {
		if len(block) >= 2 {
			out.groups = appendGroup(out.groups, block)
		} else {
			out.loose = append(out.loose, blockLoose...)
		}
		block, blockLoose = nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		seg := newItemSeg(CheckedText(t), false)
		row := rowLine(t)
		inBlock := len(seg.vals) > 0 && listLine(t) && (len(strings.Fields(t)) <= itemBlockWords || row)
		switch {
		case inBlock && row:
			// its cells are the block's items, bound to their row and
			// column at once: the sentence is not split again (a label
			// "Recliner seat (Screen 1, rows J and K)" is no list)
			block = append(block, rowCells(t)...)
			continue
		case inBlock:
			block = append(block, seg)
		case len(strings.Fields(t)) > itemBlockWords:
			flush()
		}
		for _, sent := range Split(t) {
			// a sentence's bare answer word ("Yes, on Fibre 500 and Fibre
			// 900 ... £5") is read as a claim's is (CheckedText): it names
			// no item, so a claim quoting the sentence binds as it is
			sent = CheckedText(sent)
			segs := itemSegs(sent)
			switch {
			case len(segs) >= 2:
				out.groups = appendGroup(out.groups, segs)
			case inBlock:
				blockLoose = append(blockLoose, newItemSeg(sent, false).vals...)
			default:
				out.loose = append(out.loose, newItemSeg(sent, false).vals...)
			}
		}
	}
	flush()
	return out
}

// listLine reports whether a line reads as an item of a list: a bullet,
// a table row, or a name and its value ("Canoe: £35").
func listLine(t string) bool {
	for _, b := range []string{"- ", "* ", "• ", "|"} {
		if strings.HasPrefix(t, b) {
			return true
		}
	}
	rest, _ := cutClocks(t)
	return strings.Contains(rest, ": ")
}

// rowLine reports whether a line reads as a table row written with its
// column headings, its cells after them ("Adult: Monday, Wednesday,
// Thursday £10.80; Friday to Sunday and bank holidays £12.40"; an
// operator's price list, or a Markdown reader that writes rows so, which
// table23 measured and did not keep): a label before ": "
// and two or more cells separated by "; ", each of at most itemSegWords
// words. Such a row is in its table's block whatever its length, one item
// a cell (rowCells).
func rowLine(t string) bool {
	k := strings.Index(t, ": ")
	if k < 0 || !strings.Contains(t[k:], "; ") {
		return false
	}
	for _, cell := range strings.Split(t[k+2:], "; ") {
		if len(strings.Fields(cell)) > itemSegWords {
			return false
		}
	}
	return true
}

// rowCells returns the items of a row line (rowLine): one a cell with a
// number, named by the row's label and the cell's heading, so that a
// number binds to its row and its column at once ("Child (3 to 15) Friday
// to Sunday and bank holidays £7.90" is no Wednesday's price).
func rowCells(t string) []itemSeg {
	k := strings.Index(t, ": ")
	label := t[:k]
	var out []itemSeg
	for _, cell := range strings.Split(t[k+2:], "; ") {
		if seg := newItemSeg(label+" "+cell, false); len(seg.vals) > 0 {
			c := newItemSeg(cell, false)
			seg.col, seg.colDays = c.stems, c.days
			out = append(out, seg)
		}
	}
	return out
}

// appendGroup appends the group of segs, with its stem counts.
func appendGroup(out []itemGroup, segs []itemSeg) []itemGroup {
	g := itemGroup{segs: segs, disc: map[string]int{}}
	for _, s := range segs {
		seen := map[string]bool{}
		for _, st := range s.stems {
			if !seen[st] {
				seen[st] = true
				g.disc[st]++
			}
		}
	}
	return append(out, g)
}

// itemSegs splits a sentence into its items with numbers.
func itemSegs(sent string) []itemSeg {
	cuts := splitItems(sent)
	if len(cuts) < 2 {
		return nil
	}
	var segs []itemSeg
	from := -1
	numFirst := false
	for i, c := range cuts {
		if from < 0 {
			from = c[0]
		}
		seg := newItemSeg(strings.TrimSpace(sent[from:c[1]]), false)
		if len(seg.vals) == 0 {
			continue
		}
		if i > 0 && startsWithNumber(seg.text) {
			numFirst = true
		}
		segs = append(segs, seg)
		from = -1
	}
	if len(segs) < 2 {
		return nil
	}
	for _, sg := range segs {
		if len(strings.Fields(sg.text)) > itemSegWords {
			return nil // prose, not a list
		}
	}
	if numFirst {
		// "costs €15 for adults, €11 for students": the item follows its
		// number, what comes before the first one is the lead of them all
		for k := range segs {
			segs[k] = newItemSeg(segs[k].text, true)
		}
	} else if k := strings.Index(segs[0].text, ": "); k > 0 && len(newItemSeg(segs[0].text[:k], false).vals) == 0 {
		// "Entry: adults £18, ...": the heading is the lead of them all
		segs[0].stems = newItemSeg(segs[0].text[k+2:], false).stems
	}
	return segs
}

// itemSegWords is the most words an item of a sentence may have.
const itemSegWords = 14

// itemSeps are the words that separate the items of a list in a sentence.
var itemSeps = []string{" and ", " while ", " whereas ", " but "}

// splitItems returns the spans of sent between "," and ";" followed by a
// space and itemSeps.
func splitItems(sent string) [][2]int {
	var out [][2]int
	last := 0
	lower := lowerASCII(sent) // indexes into sent
	add := func(i, j int) {
		if strings.TrimSpace(sent[i:j]) != "" {
			out = append(out, [2]int{i, j})
		}
	}
	for i := 0; i < len(sent); i++ {
		skip := 0
		switch {
		case (sent[i] == ',' || sent[i] == ';') && i+1 < len(sent) && sent[i+1] == ' ':
			skip = 1
		case sent[i] == ' ':
			if i > 0 && sent[i-1] >= '0' && sent[i-1] <= '9' && (strings.HasPrefix(lower[i:], " and over") || strings.HasPrefix(lower[i:], " and under")) {
				break // "65 and over £6": one item, its age's open end
			}
			for _, w := range itemSeps {
				if strings.HasPrefix(lower[i:], w) {
					skip = len(w) - 1
					break
				}
			}
		}
		if skip > 0 {
			add(last, i)
			last = i + skip
			i = last - 1
		}
	}
	add(last, len(sent))
	return out
}

// startsWithNumber reports whether the first term of p, a clock time
// aside, is a number ("€11 for students"); not an age that names the item
// ("65+ £6").
func startsWithNumber(p string) bool {
	ts := analyseUpTo(normPhrases(p), 2)
	return len(ts) > 0 && ts[0].isNum && (len(ts) < 2 || !ageGroupTerm(ts[1]))
}

// newItemSeg analyses one item; after: only the words after its first
// number name it.
func newItemSeg(text string, after bool) itemSeg {
	s := itemSeg{text: text}
	rest, clocks := cutClocks(nameWords(text))
	for _, c := range clocks {
		s.vals = append(s.vals, itemVal{clock: c, isClock: true})
	}
	s.bound = boundOf(rest, len(clocks))
	seenNum := false
	// a date's day, a year and an ordinal are no item's value ("On August
	// 22, 2017, ...", "the 400th anniversary"): a number without a unit or
	// currency is one only where no month is named
	dated := hasMonth(rest)
	ts := analyse(normPhrases(cutOrdinals(rest)))
	for i, tm := range ts {
		switch {
		case tm.isNum && i+1 < len(ts) && ageGroupTerm(ts[i+1]):
			// "65+ £6", "65 and over: £6": the age names the item, its
			// class (ageGroup) after it; it is no value of the item
		case ageGroupTerm(tm):
			s.stems = append(s.stems, tm.stem)
		case tm.isNum:
			if plain := tm.kind != numMoney && tm.unit == ""; plain && (dated || isYear(tm.num)) {
				continue
			}
			if tm.kind != numRef {
				s.vals = append(s.vals, itemVal{t: tm})
				seenNum = true
			}
		case tm.neg:
		case !after || seenNum:
			s.stems = append(s.stems, tm.stem)
		}
	}
	if slices.ContainsFunc(s.stems, func(st string) bool { return dayStems[st] }) {
		s.days = daysOf(text)
	}
	return s
}

// dayStems are the stems of the words that name days of the week.
var dayStems = func() map[string]bool {
	out := map[string]bool{}
	for _, tm := range analyse("monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays sunday sundays weekday weekdays weekend weekends") {
		out[tm.stem] = true
	}
	return out
}()

// dayBits maps the stem of a day's name to its bit (daysOf).
var dayBits = func() map[string]uint8 {
	out := map[string]uint8{}
	for i, w := range strings.Fields("monday tuesday wednesday thursday friday saturday sunday") {
		for _, tm := range analyse(w + " " + w + "s") {
			out[tm.stem] = 1 << i
		}
	}
	return out
}()

// dayHeld reports whether the claim's day stem is one of the days a
// sentence's range or list holds: "Saturday" is in "Friday to Sunday",
// not its opposite (the days are antonyms of each other).
func dayHeld(stem, sentence string) bool {
	b, ok := dayBits[stem]
	return ok && daysOf(sentence)&b != 0
}

// daysOf returns the days of the week text names, lists and ranges read
// as scope reads them (analyseScope): bit 0 Monday, bit 6 Sunday.
func daysOf(text string) uint8 {
	var m uint8
	for _, c := range analyseScope(text).conds {
		if c.dim == "day" {
			m |= uint8(c.mask & 0x7f)
		}
	}
	return m
}

// cutOrdinals returns text without its ordinals ("5th", "400th", "1st").
func cutOrdinals(text string) string {
	for i := 0; i+2 < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			continue
		}
		j := i + 1
		sfx := strings.ToLower(text[j:min(j+2, len(text))])
		if (sfx == "st" || sfx == "nd" || sfx == "rd" || sfx == "th") && (j+2 == len(text) || !isLetterByte(text[j+2])) {
			k := i
			for k > 0 && text[k-1] >= '0' && text[k-1] <= '9' {
				k--
			}
			if k == 0 || !isLetterByte(text[k-1]) {
				text = text[:k] + strings.Repeat(" ", j+2-k) + text[j+2:]
			}
		}
	}
	return text
}

// monthWords are the names of the months as a date writes them, in
// full or cut short ("may" left out: more often the verb).
var monthWords = wordSet("january february march april june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec")

// hasMonth reports whether text names a month.
func hasMonth(text string) bool {
	for i := 0; i < len(text); i++ {
		if !isLetterByte(text[i]) || i > 0 && isLetterByte(text[i-1]) {
			continue
		}
		w := wordAt(text, i)
		if monthWords[strings.ToLower(w)] {
			return true
		}
		i += len(w)
	}
	return false
}

// itemNames are number words that name an item ("a double room", "a
// single ticket") rather than count it.
var itemNames = []string{"single", "double", "triple", "twin"}

// nameWords returns text with each word of itemNames written so that
// analyse reads it as a word ("xdouble"), not as a number, and the words
// of a compound joined ("check-in" as "checkin", which "check-out" is
// not: analyse drops "in" and "out").
func nameWords(text string) string {
	for i := strings.IndexByte(text, '-'); i > 0 && i+1 < len(text); {
		if isLetterByte(text[i-1]) && isLetterByte(text[i+1]) {
			text = text[:i] + text[i+1:]
		} else {
			i++
		}
		k := strings.IndexByte(text[i:], '-')
		if k < 0 {
			break
		}
		i += k
	}
	for _, w := range itemNames {
		for from := 0; ; {
			i := indexFold(text, w, from)
			if i < 0 {
				break
			}
			from = i + len(w)
			if i > 0 && isLetterByte(text[i-1]) || from < len(text) && isLetterByte(text[from]) {
				continue
			}
			text = text[:i] + "x" + text[i:]
			from++
		}
	}
	return text
}

// itemFinding is the item a claim's number belongs to and the one that
// states the claim's item.
type itemFinding struct {
	given, own string // the item the source gives the number to; the claim's item
	// head: the claim's item (its first word), where the cited passages
	// name it nowhere; own is then ""
	head string
}

// itemClaim is what the items are read against: the claim's stems, and
// the opposites of its words (termOpposites) and, for a claim with a word
// of boundWords, those words, which name no other item: "closes at 5pm"
// is the shop's, as "open until 5pm" is.
type itemClaim struct {
	stems, opp []string
	head       string // the claim's first word where no passage names it, else ""
	bound      uint8  // the bound of the claim's time (itemSeg.bound)
	days       uint8  // the days of the week the claim names (itemSeg.days)
}

// boundWords are the stems of the words that say where a time or period
// begins or ends: an item giving its opening and closing times is one item
// with two.
var boundWords = func() []string {
	var out []string
	for _, tm := range analyse("open opens close closes start starts begin begins end ends finish finishes") {
		if !slices.Contains(out, tm.stem) {
			out = append(out, tm.stem)
		}
	}
	return out
}()

// fit reads seg against the claim: cover counts its stems that name one
// item (not all) and the claim holds, misfit those it has and the claim
// lacks (an opposite of a claim word aside). Where seg's days hold one of
// the claim's, its day words count once as cover: a list or range of days
// is one item's alternatives ("Monday, Wednesday, Thursday £7.20" names
// "on a Wednesday"), not other items; and where a table cell's own words
// name the claim's day, the cell is the claim's column, its other words
// ("Friday to Sunday and bank holidays") qualifying its days, not naming
// another item.
func (g *itemGroup) fit(seg *itemSeg, c *itemClaim) (cover, misfit int) {
	dayHit, dayCounted := c.days&seg.days != 0, false
	colHit := c.days&seg.colDays != 0
	for _, st := range seg.stems {
		switch {
		case g.disc[st] >= len(g.segs):
		case dayHit && dayStems[st]:
			if !dayCounted {
				cover++
				dayCounted = true
			}
		case slices.ContainsFunc(c.stems, func(o string) bool { return sameItemWord(st, o) }):
			cover++
		case colHit && slices.Contains(seg.col, st):
		case !slices.Contains(c.opp, st):
			misfit++
		}
	}
	return cover, misfit
}

// sameItemWord reports whether stems a and b name the same thing: equal,
// or one a prefix of the other ("treat", "treatment"); not two words that
// only begin alike ("checkin", "checkout").
func sameItemWord(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || len(a) >= 4 && strings.HasPrefix(b, a)
}

// itemMismatch reports a number of the claim (text, its terms ts) that
// every item of docs stating it gives to another item than the claim's,
// where another item of the same list names the claim's and gives it
// another number of the same kind. A number stated outside any list, or
// by an item that names nothing the claim does not, belongs to the claim.
func itemMismatch(text string, ts []term, docs []*prepared) (itemFinding, bool) {
	nums := false
	for _, t := range ts {
		_, clock := clockWords[t.raw]
		nums = nums || t.isNum || clock || clockCode(t.raw)
	}
	if !nums || !slices.ContainsFunc(docs, func(d *prepared) bool { return len(d.itemLists().groups) > 0 }) {
		return itemFinding{}, false
	}
	c := newItemSeg(text, false)
	ic := itemClaim{stems: c.stems, days: c.days}
	if len(c.stems) > 0 && opensWith(text, c.stems[0]) && !namedIn(c.stems[0], docs) {
		ic.head = c.stems[0]
	}
	bound := false
	for _, t := range ts {
		if !t.isNum && !t.neg {
			anti, compl := termOpposites(t)
			ic.opp = append(append(ic.opp, anti...), compl...)
			bound = bound || slices.Contains(boundWords, t.stem)
		}
	}
	if bound {
		ic.opp = append(ic.opp, boundWords...)
	}
	for _, v := range c.vals {
		if !v.isClock && (v.t.raw == "one" || v.t.kind == numRef) {
			continue
		}
		if v.isClock {
			ic.bound = c.bound
		}
		if f, ok := itemMismatchOf(v, &ic, docs); ok {
			return f, true
		}
	}
	return itemFinding{}, false
}

func itemMismatchOf(c itemVal, claim *itemClaim, docs []*prepared) (itemFinding, bool) {
	var f itemFinding
	found, best := false, -1
	unnamed := "" // an item stating c that names nothing of the claim's
	for _, d := range docs {
		l := d.itemLists()
		for _, v := range l.loose {
			if c.same(v) {
				return itemFinding{}, false // stated outside any list
			}
		}
		for gi := range l.groups {
			g := &l.groups[gi]
			for i := range g.segs {
				s := &g.segs[i]
				if !s.has(c) {
					continue
				}
				// the number's own item is the claim's where it names
				// nothing else, or over twice as many of the claim's words
				// as others (a heading's word: "CONCLUSIONS One in five
				// surgical trials ...")
				cover, misfit := g.fit(s, claim)
				// the other bound of the claim's time: "closes at 9am"
				// against "opens at 9am and closes at 5pm"
				other := c.isClock && claim.bound != 0 && s.bound != 0 && s.bound != claim.bound
				if !other && (misfit == 0 || cover > 2*misfit) {
					return itemFinding{}, false
				}
				if cover == 0 && unnamed == "" {
					unnamed = s.text
				}
				// the item that names the claim's best: one that names
				// nothing else first, then the most of the claim's words
				for j := range g.segs {
					o := &g.segs[j]
					if j == i || o.has(c) || !o.hasKind(c) {
						continue
					}
					// it names the claim's item: nothing else, or one word
					// else where it names more of the claim than the
					// number's own item does ("Garden suite" for "a suite")
					if other && o.bound != claim.bound {
						continue
					}
					oc, omis := g.fit(o, claim)
					score := 2 * oc
					if omis == 0 {
						score++
					}
					if oc >= 1 && (omis == 0 || omis == 1 && oc > cover) && score > best {
						f, found, best = itemFinding{given: s.text, own: o.text}, true, score
					}
				}
			}
		}
	}
	if !found && unnamed != "" && claim.head != "" && !c.isClock {
		// "Instructors pay €4" against "adults €9, children €4": the
		// number is another item's, and the claim's item is named nowhere
		return itemFinding{given: unnamed, head: claim.head}, true
	}
	return f, found
}

// opensWith reports whether text's first word, after a determiner ("the
// instructors"), has stem st: the claim's subject, not a verb ("It costs").
func opensWith(text, st string) bool {
	ws := strings.Fields(strings.ToLower(text))
	if len(ws) > 1 && determiners[ws[0]] {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return false
	}
	ts := analyseUpTo(ws[0], 1)
	return len(ts) == 1 && ts[0].stem == st
}

// namedIn reports whether a word of docs names stem (sameItemWord).
func namedIn(stem string, docs []*prepared) bool {
	for _, d := range docs {
		for _, w := range d.vocabulary() {
			if sameItemWord(w.stem, stem) {
				return true
			}
		}
	}
	return false
}

// has reports whether s states c.
func (s *itemSeg) has(c itemVal) bool {
	for _, v := range s.vals {
		if c.same(v) {
			return true
		}
	}
	return false
}

// hasKind reports whether s states a value of c's kind.
func (s *itemSeg) hasKind(c itemVal) bool {
	for _, v := range s.vals {
		if c.sameKind(v) && (c.isClock || periodsApart(c.t, v.t)) {
			return true
		}
	}
	return false
}

// itemVerdict is the contradiction itemMismatch finds, or, where the
// claim's item is named nowhere, a missing term (neutral).
func itemVerdict(f itemFinding, conf float64) Verdict {
	if f.own == "" {
		return Verdict{Label: Neutral, Confidence: round3(clamp01(conf)), Severity: Minor, Evidence: trimSpan(f.given), Method: "local",
			Reason: ReasonMissingTerm, Detail: fmt.Sprintf("the cited source gives this number to %q and names no %q", trimSpan(f.given), f.head)}
	}
	return Verdict{Label: Contradiction, Confidence: round3(clamp01(conf)), Severity: Critical, Evidence: trimSpan(f.given), Method: "local",
		Reason: "number_mismatch", Detail: fmt.Sprintf("the cited source gives this number to %q; for the claim's item it says %q", trimSpan(f.given), trimSpan(f.own))}
}

// ageGroupTerm reports whether t is the class term analyse adds after an
// age with an open end ("65+", "5 and under": ageGroup).
func ageGroupTerm(t term) bool {
	return !t.isNum && t.raw == t.stem && (t.stem == canon["senior"] || t.stem == canon["kid"])
}
