package judge

import (
	"context"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Local is the no-network verifier: a heuristic NLI in the style of
// MiniCheck. The claim is compared with every sentence (and every pair of
// adjacent sentences) of the cited passages, the passage title counting as
// their first sentence, and the best window decides: weighted coverage of
// the claim's content terms (numbers and named entities weigh more), with
// numbers and dates compared by value, negation polarity (a negation counts
// only where it governs a claim term) and antonyms ("increase"/"decrease")
// turning a well-matched window into a contradiction. A window entails only
// if it states a change in each direction the claim states one ("reduces"
// needs a word of decrease). A claim spread over several sentences of one
// passage is entailed when they cover it together by a margin (Gather).
type Local struct {
	cfg   LocalConfig
	model *LocalModel // nil: the rule alone decides
	enc   SentenceEncoder
}

// SentenceEncoder embeds a sentence as an L2-normalised vector (the
// embedded Universal Sentence Encoder of index/encoder by default). It must
// be safe for concurrent use.
type SentenceEncoder interface {
	Embed(text string) []float32
}

// WithEncoder returns a copy of l that uses enc for the similarity feature
// (nil: none; the model's no-encoder variant decides).
func (l *Local) WithEncoder(enc SentenceEncoder) *Local {
	c := *l
	c.enc = enc
	return &c
}

// decider is the model that decides: the no-encoder variant when l has
// no encoder.
func (l *Local) decider() *LocalModel {
	if l.model != nil && l.enc == nil && l.model.NoEncoder != nil {
		return l.model.NoEncoder
	}
	return l.model
}

// similarity is the encoder cosine of claim and span (0 without an
// encoder or span).
func (l *Local) similarity(claim, span string) float64 {
	if l.enc == nil || span == "" {
		return 0
	}
	a, b := l.enc.Embed(claim), l.enc.Embed(span)
	if len(a) != len(b) {
		return 0
	}
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

var _ Verifier = (*Local)(nil)

// NewLocal returns a local verifier with the given thresholds; with
// cfg.Model "learned" (the default) the shipped fitted model decides.
func NewLocal(cfg LocalConfig) *Local {
	l := &Local{cfg: cfg}
	if cfg.Model != "rule" {
		m := DefaultLocalModel
		l.model = &m
	}
	return l
}

// NewLocalModel returns a local verifier deciding with m (nil: the rule
// alone), whatever cfg.Model says: for fitting and comparing models.
func NewLocalModel(cfg LocalConfig, m *LocalModel) *Local { return &Local{cfg: cfg, model: m} }

// Verify implements Verifier. It never fails.
func (l *Local) Verify(_ context.Context, claim string, evidence []Passage) (Verdict, error) {
	docs := make([]*prepared, len(evidence))
	for i, p := range evidence {
		docs[i] = prepare(p.Title, p.Text)
	}
	return l.verify(claim, docs), nil
}

// prepared is an analysed passage, reusable across claims.
type prepared struct {
	sents []evSent
	chars int
	// in maps each key of the sentences' stems sets to the sentences that
	// hold it (bit i: sents[i]), so a claim term is looked up once per
	// passage, not once per sentence; nil when the passage has more than
	// 64 sentences (then each sentence's set is read).
	in map[string]uint64
	// words and initials are the sentences' squashed words and initials
	// one after another: an entity not in them is in no sentence
	words, initials string
	// vocab is the passage's distinct words, for synonyms (vocabulary)
	vocab *passageVocab
	// listText is the passage's text as written when it holds a negated
	// list whose items are read after their lead, "" otherwise: a claim
	// quoting the list from its lead is part of no window (quotesListOpening)
	listText string
	// lists holds listText's windows for such a quote, made once on
	// first use (listWindows); nil without a listText
	lists *listOnce
	// text is the passage as read (normQuotes, normMeridiem); items its
	// item groups, made on first use (itemGroups)
	text  string
	items *itemsOnce
	// raw and rawTitle are the passage and its title as written when
	// normQuotes changed either, "" otherwise: an evidence quote is taken
	// from text and given back as written (evidenceAsWritten)
	raw, rawTitle string
	// lines is the passage's table and list lines (tableLines)
	lines *linesOnce
}

type listOnce struct {
	once sync.Once
	w    *listWindows
}

// listWindows returns the windows of p.listText (which must not be "")
// that a quote of its negated list is looked for in, made on first use.
func (p *prepared) listWindows() *listWindows {
	p.lists.once.Do(func() { p.lists.w = newListWindows(p.listText) })
	return p.lists.w
}

// holding returns the sentences whose stems set has key, as a bit set
// (p.in must not be nil).
func (p *prepared) holding(key string) uint64 { return p.in[key] }

type evSent struct {
	text  string
	stems map[string]struct{} // stems, plus "\x00"+5-char prefixes
	nums  []term
	neg   bool
	// negScope holds the stems a negation cue governs: the next negObjs
	// content terms of its clause; negEnds[i] is where cue i's end
	negScope []string
	negEnds  []int
	// leadNeg: the last leadNeg stems of negScope (its last cue) are an
	// item's that a negating list lead governs; except holds what the
	// item lets back in (lists.go)
	leadNeg int
	except  []string
	// inner: the item's stems its own negation governs ("not heated"),
	// under the lead's: a claim stating them plainly is outside the list
	inner []string
	// leadCues: the first leadCues cues are the lead's own ("not
	// cover"), governing negScope[:leadScope]
	leadCues, leadScope int
	// item: the sentence is a negated list's item read after its lead
	item bool
	dirs uint8 // dirUp, dirDown: the changes the sentence states
	// free: the sentence says something costs nothing; price: it states
	// a price (freeCue, priceCue)
	free, price bool
	// words and initials are the squashed sentence (see squash), for
	// entities written another way
	words, initials string
}

// negObjs is how many content terms after a negation cue it governs.
const negObjs = 4

// negNear is how many of them it governs closely: a term there that the
// evidence states without a negation is a changed polarity even where
// another negation of the claim matches the evidence's.
const negNear = 2

// prepare analyses a passage; a non-empty title is its first sentence.
func prepare(title, text string) *prepared {
	var raw, rawTitle string
	if nt, ntt := normQuotes(text), normQuotes(title); nt != text || ntt != title {
		raw, rawTitle, text, title = text, title, nt, ntt
	}
	title, text = normMeridiem(title), normMeridiem(text)
	p := &prepared{chars: len(text), vocab: new(passageVocab), text: text, items: new(itemsOnce), raw: raw, rawTitle: rawTitle, lines: new(linesOnce)}
	sents := onlyOthers(Split(text))
	if t := strings.TrimSpace(title); t != "" {
		sents = append([]string{t}, sents...)
	}
	var lists listReader
	for _, s := range sents {
		t := strings.TrimSpace(s)
		if t == "" {
			continue
		}
		// an item of a negated list is read with its lead, whose
		// negation governs the item's terms (lists.go)
		item, inList := lists.next(t)
		if inList {
			t = item.text
			if item.lead && p.listText == "" {
				p.listText, p.lists = text, new(listOnce)
			}
		}
		es := evSent{text: t, stems: map[string]struct{}{}}
		negs := 0
		norm := normPhrases(t)
		ts := analyse(norm)
		es.free, es.price = freeCue(norm), priceCue(norm)
		for i, tm := range ts {
			if !tm.neg {
				continue
			}
			n := 0
			for j := i + 1; j < len(ts) && n < negObjs && !ts[j].brk; j++ {
				if ts[j].lst {
					n = 0 // each item of a negated list, and negObjs after the last
				}
				if !ts[j].neg && !ts[j].isNum {
					es.negScope = append(es.negScope, ts[j].stem)
					if ts[j].raw == "closed" {
						es.negScope = append(es.negScope, closedState)
					}
					n++
				}
			}
			es.negEnds = append(es.negEnds, len(es.negScope))
		}
		if inList && len(item.excluded) > 0 {
			if c := min(item.leadCues, len(es.negEnds)); c > 0 {
				es.leadCues, es.leadScope = c, es.negEnds[c-1]
			}
			es.negScope = append(es.negScope, item.excluded...)
			es.negEnds = append(es.negEnds, len(es.negScope))
			es.leadNeg, es.except, es.inner = len(item.excluded), item.except, item.inner
			es.item = item.lead
			negs++
		}
		es.dirs = directions(ts)
		es.words, es.initials = squash(t)
		for _, tm := range ts {
			switch {
			case tm.neg:
				negs++
			case tm.isNum:
				es.nums = append(es.nums, tm)
			default:
				es.stems[tm.stem] = struct{}{}
				if tm.raw == "closed" {
					es.stems[closedState] = struct{}{}
				}
				if len(tm.stem) >= 6 {
					es.stems["\x00"+tm.stem[:5]] = struct{}{}
				}
			}
		}
		es.neg = negs > 0
		p.sents = append(p.sents, es)
	}
	var words, initials strings.Builder
	for i := range p.sents {
		words.WriteString(p.sents[i].words)
		initials.WriteString(p.sents[i].initials)
	}
	p.words, p.initials = words.String(), initials.String()
	if len(p.sents) <= 64 {
		p.in = map[string]uint64{}
		for i := range p.sents {
			for k := range p.sents[i].stems {
				p.in[k] |= 1 << i
			}
		}
	}
	return p
}

// claimTerm is one content term of the claim with its weight and antonyms.
type claimTerm struct {
	term
	w     float64
	anti  []string
	compl []string    // the antonyms whose negation states the term (complements)
	forms entityForms // entities only
}

const maxClaimTerms = 64

func (l *Local) verify(claim string, docs []*prepared) Verdict {
	text := normQuotes(StripCitations(claim))
	if lower := strings.ToLower(text); hasOpinionCue(lower) && !(onlyOwnAdvice(lower) && docsAdvise(docs)) {
		return Verdict{Label: Opinion, Confidence: 0.7, Severity: Info, Method: "local", Reason: "opinion"}
	}
	return l.verifyText(text, docs)
}

// docsAdvise reports whether a passage of docs gives advice (advises): a
// claim giving the business's own advice is then checked against it.
func docsAdvise(docs []*prepared) bool {
	for _, d := range docs {
		if advises(d.text) {
			return true
		}
	}
	return false
}

// verifyChecked is verify for a claim text that Judge.check has already
// stripped of citations (StripCitations) and found not to be an opinion:
// both again would find nothing to do, unless the text still holds a "["
// (stripping "[1[2]]" leaves "[1]"), where verify runs whole.
func (l *Local) verifyChecked(text string, docs []*prepared) Verdict {
	if strings.IndexByte(text, '[') >= 0 {
		return l.verify(text, docs)
	}
	return l.verifyText(text, docs)
}

// verifyText is verify after its opinion check; its evidence quote is
// as the passages write it.
func (l *Local) verifyText(text string, docs []*prepared) Verdict {
	v := l.verifyLines(normMeridiem(normQuotes(text)), docs)
	if v.Evidence != "" {
		v.Evidence = evidenceAsWritten(v.Evidence, docs)
	}
	return v
}

// verifyRead is verifyText of the claim as read (normQuotes,
// normMeridiem); its evidence quote is from the passages as read.
func (l *Local) verifyRead(text string, docs []*prepared) Verdict {
	sg, ok := l.signals(text, docs)
	if !ok {
		return Verdict{Label: Neutral, Confidence: 0.5, Severity: Minor, Method: "local", Reason: "no_content"}
	}
	if m := l.decider(); m != nil && m.Weights[FSim] != 0 {
		sg.sim = l.similarity(sg.claim, sg.simSpan())
	}
	v := l.decide(&sg)
	if v.Label == Entailment {
		// the windows hold the claim's number and its item's words, but
		// the source gives the number to another item of a list
		if f, ok := itemMismatch(sg.claim, sg.forms.terms, docs); ok {
			return itemVerdict(f, v.Confidence)
		}
	}
	if v.Label == Neutral || v.Label == Entailment {
		if w, ok := l.movedClock(text, docs, v); ok {
			return w
		}
	}
	return v
}

// Features returns the feature vector of claim against evidence (for
// fitting the model); ok is false for a claim with no content terms.
func (l *Local) Features(claim string, evidence []Passage) (Features, bool) {
	docs := make([]*prepared, len(evidence))
	for i, p := range evidence {
		docs[i] = prepare(p.Title, p.Text)
	}
	sg, ok := l.signals(normQuotes(StripCitations(claim)), docs)
	if !ok {
		return Features{}, false
	}
	sg.sim = l.similarity(sg.claim, sg.simSpan())
	return sg.features(l.cfg.Conflict), true
}

// signals analyses the claim text against the prepared evidence.
func (l *Local) signals(text string, docs []*prepared) (signals, bool) {
	text = stripLeadIn(text)
	claimNeg := false
	var total float64
	cf := newClaimForms(text)
	ats := cf.terms
	cts := make([]claimTerm, 0, min(len(ats), maxClaimTerms)) // one allocation, not a growth per doubling
	claimDirs := directions(ats)
	// claimCues counts the claim's negation cues that govern a content
	// term; nearStems are the first negNear terms each governs
	claimCues := 0
	var nearStems, claimNegStems []string
	// a cue whose first term has a complement ("not open") states the
	// complement ("closed"): against a sentence that states it plainly the
	// claim is read without those cues, its polarity then claimNegX,
	// claimCuesX and nearStemsX; complCue holds their first terms' stems,
	// complNear their parts of nearStems
	claimNegX, claimCuesX := false, 0
	var nearStemsX, complCue []string
	var complNear [][2]int
	for i, tm := range ats {
		if tm.neg {
			// as in the evidence, a negation counts when it governs a
			// content term of its clause ("leave undated only what will
			// not." negates nothing it names)
			governs, first, near0 := false, -1, len(nearStems)
			for j, n := i+1, 0; j < len(ats) && n < negObjs && !ats[j].brk; j++ {
				if ats[j].lst {
					n = 0
				}
				if !ats[j].neg && !ats[j].isNum {
					claimNeg, governs = true, true
					if first < 0 {
						first = j
					}
					if n < negNear {
						nearStems = append(nearStems, ats[j].stem)
					}
					claimNegStems = append(claimNegStems, ats[j].stem)
				}
				n++
			}
			if governs {
				claimCues++
				if _, compl := termOpposites(ats[first]); len(compl) > 0 {
					complCue = append(complCue, ats[first].stem)
					complNear = append(complNear, [2]int{near0, len(nearStems)})
				} else {
					claimNegX, claimCuesX = true, claimCuesX+1
				}
			}
			continue
		}
		if len(cts) == maxClaimTerms {
			break
		}
		dup := false
		for _, c := range cts {
			if !tm.isNum && !c.isNum && c.stem == tm.stem {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		ct := claimTerm{term: tm, w: 1}
		switch {
		case tm.isNum && tm.raw == "one":
			// "one guest": another count conflicts with it, but a source
			// saying "a guest" or "guests" states it as well as the word
			// did before it was a number; no anchor
		case tm.isNum:
			ct.w = 2
		case tm.entity:
			ct.w = 1.5
		}
		if !tm.isNum {
			ct.anti, ct.compl = termOpposites(tm)
		}
		if tm.entity {
			ct.forms = formsOf(tm.raw)
		}
		total += ct.w
		cts = append(cts, ct)
	}
	if len(cts) == 0 {
		return signals{}, false
	}
	// claimNear holds the claim terms a claim negation governs closely
	// (claimNearX: one of the cues complCue leaves); complMask the claim
	// terms complCue names; withCompl the claim terms that have a
	// complement
	var claimNear, claimNearX, complMask, withCompl, numTerms, refTerms uint64
	if len(complNear) > 0 {
		from := 0
		for _, r := range complNear {
			nearStemsX = append(nearStemsX, nearStems[from:r[0]]...)
			from = r[1]
		}
		nearStemsX = append(nearStemsX, nearStems[from:]...)
	}
	for k := range cts {
		if cts[k].isNum {
			numTerms |= 1 << k
			if cts[k].kind == numRef {
				refTerms |= 1 << k
			}
			continue
		}
		if stemIn(cts[k].stem, nearStems) {
			claimNear |= 1 << k
		}
		if stemIn(cts[k].stem, nearStemsX) {
			claimNearX |= 1 << k
		}
		if slices.Contains(complCue, cts[k].stem) && len(cts[k].compl) > 0 {
			complMask |= 1 << k
		}
		if len(cts[k].compl) > 0 {
			withCompl |= 1 << k
		}
	}

	type sentScore struct {
		covered, numConf, antiConf uint64
		hasFreeNum                 bool // a number in the sentence that no claim number matches
		dirs                       uint8
		w                          float64
		// negMask holds the claim terms a negation cue of the sentence
		// governs (neg: any)
		negMask uint64
		neg     bool
		negs    int // the sentence's negation cues that govern a claim term
		// free, price: the sentence's freeCue and priceCue
		free, price bool
		// outside: the sentence is a negated list's item whose own
		// negation the claim leaves out ("a heated garage" against "We do
		// not cover: ... garages that are not heated"): two negations, the
		// claim's case outside the exclusion; the window decides nothing
		outside bool
		// leadDropped: the claim negates what the item's own negation
		// does but not what its lead does
		leadDropped bool
		// claimNeg: the claim's polarity as read against the sentence; for
		// a negated list's item, a claim naming the exclusion ("Storm
		// damage to fences is excluded", "Exclusions: storm damage to
		// fences") states the lead's negation, and one negating it ("is
		// not excluded") does not
		claimNeg bool
		// item: the sentence is an item of a negated list (evSent.item)
		item bool
		// plainCompl: the sentence states plainly a complement of each
		// claim term a claim negation states the complement of (complCue:
		// "closed" against "not open"); the claim is read without those
		// negations (claimNegX)
		plainCompl bool
		text       string
	}
	var (
		bestE, bestC, bestAny float64
		bestDoc               float64 // best coverage of one passage by its entailing windows together
		docE                  uint64  // the claim terms the entailing windows of this passage cover
		eSpan, cSpan, cReason string
		anySpan               string
		prevOK                bool
		prevItem              bool   // prev is an item of a negated list (evSent.item)
		anyCov                uint64 // claim terms some sentence covers
		dirsAll               uint8  // changes some sentence states
		evChars               int
		prev                  sentScore
		// claimFree, claimPrice: the claim's freeCue and priceCue; money
		// holds its terms that state the price or its absence (numbers,
		// "free", "costs")
		claimFree, claimPrice bool
		money, allTerms       uint64
	)
	claimFree, claimPrice = freeCue(cf.norm), priceCue(cf.norm)
	if !claimFree && !claimPrice {
		// "There is a charge for parking", "You pay for parking": a word
		// of cost no negation of the claim governs says it is not free,
		// as a price does
		for k := range cts {
			if !cts[k].isNum && chargeStems[cts[k].stem] && !stemIn(cts[k].stem, claimNegStems) {
				claimPrice = true
			}
		}
	}
	allTerms = ^uint64(0) >> (64 - len(cts))
	if claimFree || claimPrice {
		for k := range cts {
			if cts[k].isNum && cts[k].kind != numRef || moneyStems[cts[k].stem] {
				money |= 1 << k
			}
		}
	}
	weigh := func(m uint64) float64 {
		var s float64
		for m != 0 {
			k := bits.TrailingZeros64(m)
			s += cts[k].w
			m &^= 1 << k
		}
		return s / total
	}
	// limits are the claim's numbers that set a limit of its own ("over
	// 20 kg", "under 12": scopeInfo conds), made on first use by
	// consider: a rule the window negates without one forbids each case
	// of what it names, so against it the claim's own limits are beside
	// the point ("Dogs over 20 kg are allowed" against "No pets are
	// allowed")
	limits, limitsMade := uint64(0), false
	claimLimits := func() uint64 {
		if !limitsMade {
			limits, limitsMade = limitTerms(cf, cts), true
		}
		return limits
	}
	// windowText is the text of the window of a, after b when b is not
	// nil; joined only for a window that is kept
	windowText := func(b, a *sentScore) string {
		if b == nil {
			return a.text
		}
		return b.text + " " + a.text
	}
	consider := func(a sentScore, b *sentScore) {
		covered := a.covered
		numConfl, antiConfl := a.numConf, a.antiConf
		free := a.hasFreeNum
		neg := a.neg
		negMask, negs := a.negMask, a.negs
		dirs := a.dirs
		saysFree, price := a.free, a.price
		if b != nil {
			saysFree, price = saysFree || b.free, price || b.price
			negMask |= b.negMask
			negs += b.negs
			dirs |= b.dirs
			covered |= b.covered
			numConfl |= b.numConf
			antiConfl |= b.antiConf
			free = free || b.hasFreeNum
			// a window is negated where one sentence negates a claim term
			// the other does not state plainly ("Arlo floor lamp, E27
			// fitting. A bulb is not included." against "a bulb is
			// included"); a term both state leaves the heavier one's word
			na, nb := a.negMask&^b.covered, b.negMask&^a.covered
			switch {
			case na != 0 || nb != 0:
				neg = true
			case b.w > a.w:
				neg = b.neg
			}
		}
		numConfl &^= covered
		antiConfl &^= covered
		if !free {
			numConfl = 0
		}
		// a price where the claim says free, or free where it gives one,
		// about the claim's thing (the window covers the rest of it)
		var priceConfl uint64
		if money != 0 && (claimFree && price && !saysFree || claimPrice && !claimFree && saysFree && (!price || a.free && a.price && freeClause(cts, money, a.text) || b != nil && b.free && b.price && freeClause(cts, money, b.text))) {
			if rest := weigh(allTerms &^ money); rest > 0 && weigh(covered&^money) >= priceMinCover*rest {
				priceConfl = money &^ covered
				if priceConfl == 0 {
					priceConfl = money
				}
			}
		}
		cov := weigh(covered)
		if cov > bestAny {
			bestAny, anySpan = cov, windowText(b, &a)
		}
		if a.outside || b != nil && b.outside {
			return
		}
		clNeg := a.claimNeg || b != nil && b.claimNeg
		cNeg, cCues, cNear := claimNeg, claimCues, claimNear
		if a.plainCompl || b != nil && b.plainCompl {
			clNeg = a.plainCompl && a.claimNeg || b != nil && b.plainCompl && b.claimNeg
			cNeg, cCues, cNear = claimNegX, claimCuesX, claimNearX
		}
		negMismatch := neg != clNeg || a.leadDropped || b != nil && b.leadDropped
		if !negMismatch && cNeg && cCues > negs && cNear&covered&^negMask != 0 {
			// the claim adds a negation to a term the window states
			// plainly, beside one both have ("If login fails, check that
			// the clock is not correct" against "... is correct")
			negMismatch = true
		}
		// one sentence of the window negates again what the claim negates
		// once: a restriction under a negated condition read as granted
		// ("Lessons missed without notice are made up" against "Lessons
		// missed without notice aren't made up"); an item of a negated
		// list is left out, as it counts its lead's cue as its own
		maxNegs := 0
		for _, x := range []*sentScore{&a, b} {
			if x != nil && !x.item {
				maxNegs = max(maxNegs, x.negs)
			}
		}
		if !negMismatch && cNeg && neg && maxNegs > cCues {
			negMismatch = true
		}
		if numConfl == 0 && antiConfl == 0 && priceConfl == 0 && !negMismatch {
			if claimDirs&^dirs != 0 {
				return // the claim states a change the window does not
			}
			if cov > bestE {
				bestE, eSpan = cov, windowText(b, &a)
			}
			docE |= covered
			return
		}
		found := covered | numConfl | antiConfl | priceConfl
		covC := weigh(found)
		if neg && !clNeg && numTerms&^found != 0 && covC > (1-weigh(numTerms&^found))*bestC {
			// the window negates what the claim grants: the claim's own
			// limits, which the window does not state, do not count (read
			// only where leaving out every number the window lacks would
			// make the window the best conflicting one)
			if lim := claimLimits() &^ found; lim != 0 {
				if rest := 1 - weigh(lim); rest > 0 {
					covC = min(1, covC/rest)
				}
			}
		}
		if covC > bestC {
			bestC, cSpan = covC, windowText(b, &a)
			switch {
			case numConfl&^refTerms != 0:
				cReason = "number_mismatch"
			case numConfl != 0:
				cReason = ReasonReferenceMismatch
			case priceConfl != 0:
				cReason = ReasonPriceMismatch
			case antiConfl != 0:
				cReason = "antonym"
			default:
				cReason = "negation"
			}
		}
		// the window still entails what it covers when only polarity differs
		// on a part the claim does not rest on: not modelled; treat as conflict.
	}
	// a claim number found anywhere in the evidence is not a mismatch, just
	// stated in another sentence
	var numSomewhere uint64
	for _, d := range docs {
		for si := range d.sents {
			for k := range cts {
				if !cts[k].isNum {
					continue
				}
				for _, n := range d.sents[si].nums {
					if numEqual(cts[k].term, n) {
						numSomewhere |= 1 << k
					}
				}
			}
		}
	}
	// entities and numbers of the claim that appear nowhere in the evidence:
	// a claim resting on them is not entailed, however much else matches;
	// the same holds for the words that make a claim exclusive ("solely")
	var anchors, anchorsFound uint64
	for k := range cts {
		if cts[k].isNum && cts[k].raw != "one" || cts[k].entity {
			anchors |= 1 << k
		} else if _, ok := exclusive[cts[k].stem]; ok {
			anchors |= 1 << k
		}
	}
	anchorsFound = numSomewhere
	for _, d := range docs {
		for k := range cts {
			if cts[k].isNum || anchors&(1<<k) == 0 || anchorsFound&(1<<k) != 0 {
				continue
			}
			if d.in != nil && d.holding(cts[k].stem) != 0 {
				anchorsFound |= 1 << k
				continue
			}
			inText := d.in == nil || cts[k].forms.inWords(d.words, d.initials)
			for si := range d.sents {
				if _, ok := d.sents[si].stems[cts[k].stem]; ok || inText && cts[k].forms.in(&d.sents[si]) {
					anchorsFound |= 1 << k
					break
				}
			}
		}
	}
	// an entity alone in brackets names what precedes it: it is no anchor,
	// and when the evidence never uses it, it does not count at all
	for st := range aliases(text) {
		for k := range cts {
			if !cts[k].entity || cts[k].stem != st {
				continue
			}
			anchors &^= 1 << k
			if anchorsFound&(1<<k) == 0 {
				total -= cts[k].w
				cts[k].w = 0
			}
		}
	}
	if total <= 0 {
		return signals{}, false
	}
	// claimExcl: the claim names an exclusion ("excluded", "Exclusions:");
	// exclNegated: a negation of the claim governs it ("not excluded")
	claimExcl, exclNegated := false, false
	for k := range cts {
		if !cts[k].isNum && exclusionStems[cts[k].stem] {
			claimExcl = true
			exclNegated = exclNegated || stemIn(cts[k].stem, claimNegStems)
		}
	}
	claimHas := func(st string) bool {
		for k := range cts {
			if !cts[k].isNum && (cts[k].stem == st || len(st) >= 6 && len(cts[k].stem) >= 6 && cts[k].stem[:5] == st[:5]) {
				return true
			}
		}
		return false
	}
	// the sentences of a passage that hold each claim term (its stem or
	// 5-character prefix) and an antonym of it, when the passage is indexed
	var hold, anti [maxClaimTerms]uint64
	var ent [maxClaimTerms]bool // the entity may be in the passage (prepared.words)
	var lists []*prepared       // the passages that have a listText
	for _, d := range docs {
		evChars += d.chars
		if d.listText != "" {
			lists = append(lists, d)
		}
		prevOK = false
		docE = 0
		if d.in != nil {
			for k := range cts {
				c := &cts[k]
				if c.isNum {
					continue
				}
				hold[k] = d.holding(c.stem)
				if len(c.stem) >= 6 {
					hold[k] |= d.holding("\x00" + c.stem[:5])
				}
				anti[k] = 0
				for _, a := range c.anti {
					anti[k] |= d.holding(a)
				}
				ent[k] = c.entity && c.forms.inWords(d.words, d.initials)
			}
		}
		for si := range d.sents {
			s := &d.sents[si]
			var sc sentScore
			sc.text, sc.dirs, sc.item = s.text, s.dirs, s.item || s.leadNeg > 0
			sc.free, sc.price = s.free, s.price
			// a negation counts where it governs a claim term ("but not
			// naive T cells" says nothing about the rest); a list lead's
			// not on an item's exception that an unnegated claim states
			negScope, negEnds, from0 := s.negScope, s.negEnds, 0
			if s.leadNeg > 0 && !claimNeg && statesException(s.except, claimHas) {
				from0 = s.leadScope
				negScope, negEnds = negScope[:len(negScope)-s.leadNeg], negEnds[s.leadCues:len(negEnds)-1]
			}
			sc.outside = s.leadNeg > 0 && len(s.inner) > 0 && statesOutside(s.inner, claimHas, claimNegStems)
			sc.plainCompl = complMask != 0 && statesComplements(s, cts, complMask)
			sc.claimNeg = claimNeg
			if sc.plainCompl {
				sc.claimNeg = claimNegX
			}
			if s.leadNeg > 0 && claimExcl {
				sc.claimNeg = !exclNegated
			}
			// each cue's part of the scope: a cue negating a complement of
			// a claim term ("not included" against "excluded") states the
			// term, it negates none of the claim's
			if s.neg {
				from := from0
				for _, end := range negEnds {
					part := negScope[from:end]
					from = end
					if withCompl != 0 && negatesComplement(part, cts, withCompl) {
						continue
					}
					counted := false
					for k := range cts {
						if !cts[k].isNum && stemIn(cts[k].stem, part) {
							sc.negMask |= 1 << k
							if !counted {
								sc.negs, counted = sc.negs+1, true
							}
						}
					}
				}
			}
			sc.neg = sc.negMask != 0
			// the claim keeps the item's own negation and drops the
			// lead's ("garages that are not heated are covered" against
			// "We do not cover: ... garages that are not heated"): the
			// lead's cue, the item's and its own each govern a claim term,
			// and the claim has fewer
			sc.leadDropped = sc.neg && claimNeg && len(s.inner) > 0 && sc.negs > claimCues+1 && !sc.outside && claimNegatesAll(s.inner, claimHas, claimNegStems)
			for k := range cts {
				c := &cts[k]
				if c.isNum {
					for _, n := range s.nums {
						if numEqual(c.term, n) {
							sc.covered |= 1 << k
							break
						}
					}
					if sc.covered&(1<<k) == 0 && numSomewhere&(1<<k) == 0 {
						// only a number of the same kind conflicts: "two
						// days" does not with "in 1897"
						for _, n := range s.nums {
							if n.dim() == c.dim() && !otherKinds(c.term, n) && periodsApart(c.term, n) {
								sc.numConf |= 1 << k
								break
							}
						}
					}
					continue
				}
				if d.in != nil {
					switch {
					case hold[k]&(1<<si) != 0 || ent[k] && c.forms.in(s):
						sc.covered |= 1 << k
					case sc.plainCompl && complMask&(1<<k) != 0:
						sc.covered |= 1 << k
					case anti[k]&(1<<si) != 0 && (negatesAny(s, c.compl) || dayHeld(c.stem, s.text)):
						sc.covered |= 1 << k
					case anti[k]&(1<<si) != 0:
						sc.antiConf |= 1 << k
					}
					continue
				}
				if _, ok := s.stems[c.stem]; ok {
					sc.covered |= 1 << k
					continue
				}
				if len(c.stem) >= 6 {
					if _, ok := s.stems["\x00"+c.stem[:5]]; ok {
						sc.covered |= 1 << k
						continue
					}
				}
				if c.entity && c.forms.in(s) || sc.plainCompl && complMask&(1<<k) != 0 {
					sc.covered |= 1 << k
					continue
				}
				for _, a := range c.anti {
					if _, ok := s.stems[a]; ok {
						if negatesAny(s, c.compl) || dayHeld(c.stem, s.text) {
							sc.covered |= 1 << k
						} else {
							sc.antiConf |= 1 << k
						}
						break
					}
				}
			}
			// a free number: one the claim does not mention, counted with
			// repeats ("SAML 2.0 ... SCIM 2.0" against "SAML 11 ... SCIM
			// 2.0" leaves one 2.0 free for the changed 11)
			var used uint64
			for _, n := range s.nums {
				if n.kind == numRef && refTerms == 0 {
					continue // the clause's name, which the claim does not cite
				}
				matched := false
				for k := range cts {
					if cts[k].isNum && used&(1<<k) == 0 && numEqual(cts[k].term, n) {
						used |= 1 << k
						matched = true
						break
					}
				}
				if !matched {
					sc.hasFreeNum = true
					break
				}
			}
			sc.w = weigh(sc.covered)
			anyCov |= sc.covered
			dirsAll |= s.dirs
			consider(sc, nil)
			// an item of a negated list, read with its lead, pairs only
			// with another: beside the lead or the prose after the list,
			// its lead's negation would go over to the other sentence
			if prevOK && prevItem == s.item {
				p := prev
				consider(sc, &p)
			}
			prev, prevOK, prevItem = sc, true, s.item
		}
		bestDoc = max(bestDoc, weigh(docE))
	}

	// Short claims must be covered in full; longer ones may miss up to
	// (1-Entail) of their weight beyond the first Strict units.
	need := 1.0
	if total > l.cfg.Strict {
		need = 1 - (1-l.cfg.Entail)*(total-l.cfg.Strict)/total
	}
	need -= 1e-9
	sg := signals{claim: text, forms: cf, anySpan0: anySpan, bestE: bestE, need: need, bestDoc: bestDoc, bestAny: bestAny, bestC: bestC,
		bag: weigh(anyCov), cReason: cReason, eSpan: eSpan, cSpan: cSpan, total: total, evChars: evChars, lists: lists}
	sg.claimFree = claimFree
	sg.missAnchor = weigh(anchors &^ anchorsFound)
	sg.missingAnchor = anchors&^anchorsFound != 0
	if sg.missingAnchor {
		for k := range cts {
			if anchors&^anchorsFound&(1<<k) != 0 {
				sg.missing = cts[k].raw
				break
			}
		}
	}
	sg.dirUnmet = claimDirs&^dirsAll != 0
	// a claim entity missing where the best window states everything else
	// and names an entity of its own instead: the name was changed
	if sg.missingAnchor && anySpan != "" && bestAny >= 0.6*(1-sg.missAnchor) {
		missingEntity := false
		for k := range cts {
			// a day or month is a date, which the antonyms compare, not a
			// name changed for another ("free on Mondays" against "Entry
			// costs £10")
			if anchors&^anchorsFound&(1<<k) != 0 && cts[k].entity && !calendar[cts[k].stem] {
				missingEntity = true
			}
		}
		if missingEntity {
			split := func(t string) []string {
				return strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
			}
			words := split(anySpan)
			// name: capitalised and not a stopword; inClaim: a claim entity
			name := func(w string) (isName, inClaim bool) {
				if len(w) < 2 || !unicode.IsUpper(rune(w[0])) {
					return false, false
				}
				ts := analyse("x " + w)
				if len(ts) != 1 || ts[0].isNum || ts[0].neg {
					return false, false
				}
				for k := range cts {
					if cts[k].entity && cts[k].stem == ts[0].stem {
						return true, true
					}
				}
				return true, false
			}
			// the claim's words beside its missing entities
			beside := map[string]bool{}
			cw := split(text)
			for i, w := range cw {
				if strings.EqualFold(w, sg.missing) {
					if i > 0 {
						beside[cw[i-1]] = true
					}
					if i+1 < len(cw) {
						beside[cw[i+1]] = true
					}
				}
			}
			for i, w := range words {
				if isName, in := name(w); !isName || in || classSwap(w, cts) {
					continue
				}
				// part of a longer name the claim gives in part ("Felix
				// Hoffmann" for "Hoffmann") is no other name, unless the
				// claim has its missing name in the same place
				near := false
				for _, j := range []int{i - 1, i + 1} {
					if j < 0 || j >= len(words) {
						continue
					}
					if isName, in := name(words[j]); isName && in && !beside[words[j]] {
						near = true
					}
				}
				if !near {
					sg.otherEntity, sg.anySpan = w, anySpan
					break
				}
			}
		}
	}
	// sentences of one passage that entail the claim together, with a
	// margin, when the best of them falls short by no more than it
	if g := l.cfg.Gather; g > 0 && bestE < need && bestE >= need-g && bestDoc >= need+g {
		sg.bestE = need
	}
	sg.rule = sg.bestE >= need && !(l.cfg.Anchors && sg.missingAnchor)
	if evChars <= missingTermMaxChars {
		sg.missingTerm = missingTerm(text, cts, anyCov, anchors, docs)
		if sg.missingTerm == "" {
			sg.missingTerm = otherModifier(text, cts, anyCov, anchors, docs)
		}
		sg.otherClass = otherClass(cts, docs)
	}
	if eSpan != "" {
		sg.wrongSubject, sg.other = wrongSubject(cts, eSpan)
		sg.swapped = swappedRoles(text, cts, eSpan)
	}
	return sg, true
}

// signals are what the best windows of the evidence say about a claim.
type signals struct {
	claim                                     string
	forms                                     *claimForms // of claim
	sim                                       float64     // encoder similarity of claim and simSpan
	bestE, need, bestDoc, bestAny, bestC, bag float64
	missAnchor                                float64
	total                                     float64
	evChars                                   int
	missingAnchor, dirUnmet, rule             bool
	claimFree                                 bool // the claim says something costs nothing (freeCue)
	wrongSubject, swapped                     bool
	missing                                   string // a claim anchor found nowhere
	missingTerm                               string // a noun-phrase word of the claim found nowhere, no synonym either
	otherClass                                string // a class of the claim ("residents") where the source names only the others ("non-residents"), or the reverse
	other                                     string // the subject the evidence says it of instead
	otherEntity, anySpan                      string // the entity the best window names instead of a missing one
	cReason, eSpan, cSpan                     string
	anySpan0                                  string      // the best-covering window
	lists                                     []*prepared // the cited passages that have a listText
}

// checkScope is s.forms.checkScope(span), except that a claim quoting a
// cited passage's negated list from its lead widens and drops nothing
// (quotesListOpening): the windows read each item after its lead, so the
// quote is part of none of them.
func (s *signals) checkScope(span string) (scopeFinding, bool) {
	f, ok := s.forms.checkScope(span)
	if !ok {
		return f, false
	}
	for _, d := range s.lists {
		if s.forms.quotesListIn(d.listWindows()) {
			return scopeFinding{}, false
		}
	}
	return f, true
}

// simSpan is the window the encoder similarity compares the claim with:
// the best entailing one, else the best-covering one.
func (s *signals) simSpan() string {
	if s.eSpan != "" {
		return s.eSpan
	}
	return s.anySpan0
}

func (s *signals) features(conflict float64) Features {
	var f Features
	f[FBias] = 1
	f[FSim] = s.sim
	f[FBestE] = s.bestE
	f[FGather] = s.bestDoc
	f[FBestAny] = s.bestAny
	f[FBag] = s.bag
	f[FMissAnchor] = s.missAnchor
	if s.bestC >= conflict && s.bestC >= s.bestE {
		if s.cReason == "number_mismatch" || s.cReason == ReasonPriceMismatch || s.cReason == ReasonReferenceMismatch {
			f[FNumConf] = s.bestC
		} else {
			f[FPolConf] = s.bestC
		}
	}
	f[FDirUnmet] = b2f(s.dirUnmet)
	f[FSubject] = b2f(s.wrongSubject)
	f[FRule] = b2f(s.rule)
	f[FSwap] = b2f(s.swapped)
	return f
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// decide turns the signals into a verdict: the fitted model (or the rule
// alone) decides entailment; a claim whose predicate the evidence states of
// another subject, or whose best-matching window states another number, a
// negation or an opposite, is a contradiction; the rest is neutral.
func (l *Local) decide(s *signals) Verdict {
	entail, conf := s.rule, 0.0
	if s.rule {
		conf = 0.6 + 0.4*(s.bestE-s.need)/(1-s.need+1e-9)
	}
	if m := l.decider(); m != nil {
		p := m.Prob(s.features(l.cfg.Conflict))
		entail = p >= m.Threshold
		if entail {
			conf = 0.5 + 0.5*(p-m.Threshold)/(1-m.Threshold+1e-9)
		} else {
			conf = 0.5 + 0.5*(m.Threshold-p)/(m.Threshold+1e-9)
		}
	}
	switch {
	case s.wrongSubject:
		return Verdict{Label: Contradiction, Confidence: round3(clamp01(0.4 + 0.6*s.bestE)), Severity: Major, Evidence: trimSpan(s.eSpan), Method: "local",
			Reason: "wrong_subject", Detail: fmt.Sprintf("the source says this of %q, not of the claim's subject", s.other)}
	case s.swapped:
		return Verdict{Label: Contradiction, Confidence: round3(clamp01(0.4 + 0.6*s.bestE)), Severity: Major, Evidence: trimSpan(s.eSpan), Method: "local",
			Reason: "swapped_roles", Detail: "the cited source names the same parties in the opposite roles"}
	case s.otherEntity != "":
		return Verdict{Label: Contradiction, Confidence: round3(clamp01(0.4 + 0.6*s.bestAny)), Severity: Major, Evidence: trimSpan(s.anySpan), Method: "local",
			Reason: "entity_mismatch", Detail: fmt.Sprintf("the cited source names %q where the claim names %q", s.otherEntity, s.missing)}
	case entail && s.missingTerm == "" && s.otherClass == "" && !(s.bestC >= l.cfg.Conflict && s.bestC > s.bestE+0.15):
		if l.cfg.Scope != "off" {
			if f, ok := s.checkScope(s.eSpan); ok {
				return scopeVerdict(f, s.bestE)
			}
		}
		return Verdict{Label: Entailment, Confidence: round3(clamp01(conf)), Severity: Info, Evidence: trimSpan(s.eSpan), Method: "local", Reason: "covered"}
	case s.bestC >= l.cfg.Conflict && s.bestC >= s.bestE && s.cReason == "number_mismatch" && l.cfg.Scope != "off" && s.forms.rangeContained(s.cSpan):
		return Verdict{Label: Entailment, Confidence: round3(clamp01(0.5 + 0.4*s.bestC)), Severity: Info, Evidence: trimSpan(s.cSpan), Method: "local", Reason: "covered",
			Detail: "the claim's range lies within the cited source's"}
	case s.bestC >= l.cfg.Conflict && s.bestC >= s.bestE:
		sev := Major
		reason, detail := s.cReason, ""
		if s.cReason == ReasonPriceMismatch {
			sev = Critical
			detail = "the cited source gives a price where the claim says it is free"
			if !s.claimFree {
				detail = "the cited source says it is free where the claim gives a price"
			}
		}
		if s.cReason == "number_mismatch" {
			sev = Critical
			// a bound or range of the claim that the source's does not hold
			if f, ok := s.checkScope(s.cSpan); ok && f.reason != ReasonConditionDropped && l.cfg.Scope != "off" {
				reason, detail = f.reason, scopeDetail(f)
			}
		}
		return Verdict{Label: Contradiction, Confidence: round3(clamp01(0.4 + 0.6*s.bestC)), Severity: sev, Evidence: trimSpan(s.cSpan), Method: "local", Reason: reason, Detail: detail}
	default:
		span := s.eSpan
		if span == "" {
			span = s.cSpan
		}
		if l.model == nil {
			conf = 1 - s.bestAny/2
		}
		// a claim that restates its best window but widens or drops a
		// condition the window excludes is a contradiction, not a miss:
		// "The car park is free all day" against "Parking is free for the
		// first 3 hours; after that it costs 2 euros an hour"
		if l.cfg.Scope != "off" && s.bestAny >= scopeNeutralCover {
			if f, ok := s.checkScope(s.anySpan0); ok && f.excluded && f.reason != ReasonConditionDropped {
				return scopeVerdict(f, s.bestAny)
			}
		}
		v := Verdict{Label: Neutral, Confidence: round3(clamp01(conf)), Severity: Minor, Evidence: trimSpan(span), Method: "local", Reason: "not_covered"}
		switch {
		case s.otherClass != "":
			v.Reason, v.Detail = ReasonOtherClass, fmt.Sprintf("the cited source says this of the others, not of %q", s.otherClass)
		case s.missingAnchor && s.missing != "":
			v.Reason, v.Detail = "missing_anchor", fmt.Sprintf("%q appears nowhere in the cited source", s.missing)
		case s.dirUnmet:
			v.Reason, v.Detail = "direction_unstated", "the claim states a change (increase or decrease) the cited source does not"
		case s.bag < 0.5:
			v.Reason, v.Detail = "low_overlap", "the cited source shares little with the claim: it is probably not the source of this"
		case s.missingTerm != "":
			v.Reason, v.Detail = ReasonMissingTerm, fmt.Sprintf("%q appears nowhere in the cited source, nor a synonym of it", s.missingTerm)
		}
		return v
	}
}

// scopeNeutralCover is the coverage of the claim by its best window above
// which a claim judged not entailed is still read for conditions.
const scopeNeutralCover = 0.5

// stemIn reports whether st is one of stems, or shares its 5-character
// prefix with one when both are long.
func stemIn(st string, stems []string) bool {
	for _, o := range stems {
		if o == st || (len(st) >= 6 && len(o) >= 6 && o[:5] == st[:5]) {
			return true
		}
	}
	return false
}

func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func trimSpan(s string) string {
	const max = 400
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// limitTerms returns the claim's number terms (a bit per index of cts)
// that are the limit of one of its bounds or ranges (scopeInfo conds:
// "over 20 kg", "under 12", "from 9am to 5pm"). The claim must have a
// number term.
func limitTerms(cf *claimForms, cts []claimTerm) uint64 {
	var m uint64
	for _, c := range cf.scopeInfo().conds {
		if c.dim == "day" || c.dim == "month" || c.univ {
			continue
		}
		for _, t := range scopeTokens(c.text) {
			if !t.isNum {
				continue
			}
			for k := range cts {
				if cts[k].isNum && cts[k].num == t.num {
					m |= 1 << k
				}
			}
		}
	}
	return m
}

// statesComplements reports whether s states plainly (no negation of it
// governing it) a complement of each claim term of mask.
func statesComplements(s *evSent, cts []claimTerm, mask uint64) bool {
	for k := range cts {
		if mask&(1<<k) == 0 {
			continue
		}
		plain := false
		for _, a := range cts[k].compl {
			if _, ok := s.stems[a]; ok && !(s.neg && slices.Contains(s.negScope, a)) {
				plain = true
				break
			}
		}
		if !plain {
			return false
		}
	}
	return true
}

// negatesComplement reports whether part (a cue's part of a negation
// scope) holds a complement of a claim term of mask.
func negatesComplement(part []string, cts []claimTerm, mask uint64) bool {
	for k := range cts {
		if mask&(1<<k) == 0 {
			continue
		}
		for _, a := range cts[k].compl {
			if slices.Contains(part, a) {
				return true
			}
		}
	}
	return false
}

// negatesAny reports whether a negation of s governs one of stems.
func negatesAny(s *evSent, stems []string) bool {
	for _, st := range stems {
		if s.neg && slices.Contains(s.negScope, st) {
			return true
		}
	}
	return false
}

// opposition is how the two words of an antonym pair oppose each other.
type opposition uint8

const (
	// contrary: each excludes the other, but the negation of one does not
	// state the other ("did not increase" does not say decreased)
	contrary opposition = iota
	// complementary: besides, the negation of either states the other
	// ("not included" is excluded, "not open" is closed)
	complementary
)

// opposedPair is two opposed words and how they oppose.
type opposedPair struct {
	a, b string
	opp  opposition
}

// antonymPairs is the one table of opposed words, as written (canonStem
// makes the keys); the days of the week and the months are added to it as
// contraries, and "closed" written as a state (closedState) is the
// complement of "open".
var antonymPairs = []opposedPair{
	{"increase", "decrease", contrary}, {"increase", "reduce", contrary}, {"increase", "lower", contrary}, {"increase", "decline", contrary},
	{"raise", "lower", contrary}, {"raise", "reduce", contrary}, {"rise", "fall", contrary}, {"rise", "decline", contrary},
	{"higher", "lower", contrary}, {"high", "low", contrary}, {"more", "less", contrary}, {"more", "fewer", contrary},
	{"greater", "smaller", contrary}, {"greater", "lesser", contrary}, {"larger", "smaller", contrary}, {"large", "small", contrary},
	{"longer", "shorter", contrary}, {"long", "short", contrary}, {"better", "worse", contrary}, {"improve", "worsen", contrary},
	{"improve", "impair", contrary}, {"enhance", "impair", contrary}, {"enhance", "reduce", contrary}, {"promote", "inhibit", contrary},
	{"promote", "suppress", contrary}, {"promote", "prevent", contrary}, {"activate", "inhibit", contrary},
	{"activate", "suppress", contrary}, {"activate", "deactivate", contrary}, {"stimulate", "inhibit", contrary},
	{"induce", "inhibit", contrary}, {"induce", "prevent", contrary}, {"upregulate", "downregulate", contrary},
	{"positive", "negative", contrary}, {"positively", "negatively", contrary}, {"gain", "loss", contrary}, {"gain", "lose", contrary},
	{"before", "after", contrary}, {"first", "last", contrary}, {"earliest", "latest", contrary}, {"early", "late", contrary},
	{"older", "younger", contrary}, {"old", "young", contrary}, {"benefit", "harm", contrary}, {"beneficial", "harmful", contrary},
	{"effective", "ineffective", contrary}, {"safe", "unsafe", contrary}, {"accept", "reject", contrary}, {"win", "lose", contrary},
	{"won", "lost", contrary}, {"alive", "dead", contrary}, {"north", "south", contrary}, {"east", "west", contrary},
	{"protect", "harm", contrary}, {"protective", "harmful", contrary}, {"risk", "protect", contrary}, {"above", "below", contrary},
	{"up", "down", contrary}, {"maximum", "minimum", contrary}, {"majority", "minority", contrary}, {"agonist", "antagonist", contrary},
	{"accelerate", "slow", contrary}, {"accelerate", "delay", contrary}, {"strengthen", "weaken", contrary},
	{"hyper", "hypo", contrary}, {"overexpress", "underexpress", contrary}, {"sensitive", "resistant", contrary},
	{"susceptible", "resistant", contrary}, {"common", "rare", contrary},
	{"male", "female", contrary}, {"men", "women", contrary}, {"boy", "girl", contrary},
	{"public", "private", contrary}, {"newer", "older", contrary}, {"new", "old", contrary},
	{"present", "absent", complementary}, {"exclude", "include", complementary}, {"exclude", "cover", complementary},
	{"correct", "incorrect", complementary}, {"true", "false", complementary}, {"legal", "illegal", complementary},
	{"allow", "forbid", complementary}, {"allowed", "forbidden", complementary}, {"enable", "disable", complementary},
	{"required", "optional", complementary},
}

// antonyms maps a stem to the stems that oppose it; complements maps it to
// those of them whose negation states it (antonymPairs).
var antonyms, complements = func() (anti, compl map[string][]string) {
	pairs := make([]opposedPair, 0, len(antonymPairs)+80)
	for _, p := range antonymPairs {
		pairs = append(pairs, opposedPair{canonStem(p.a), canonStem(p.b), p.opp})
	}
	for _, names := range []string{"january february march april june july august september october november december",
		"monday tuesday wednesday thursday friday saturday sunday"} {
		ws := strings.Fields(names)
		for i, a := range ws {
			for _, b := range ws[i+1:] {
				pairs = append(pairs, opposedPair{canonStem(a), canonStem(b), contrary})
			}
		}
	}
	pairs = append(pairs, opposedPair{"open", closedState, complementary})
	anti, compl = map[string][]string{}, map[string][]string{}
	for _, p := range pairs {
		if p.a == p.b || slices.Contains(anti[p.a], p.b) {
			continue // "enabled", "disabled" stem as "enable", "disable"
		}
		anti[p.a] = append(anti[p.a], p.b)
		anti[p.b] = append(anti[p.b], p.a)
		if p.opp == complementary {
			compl[p.a] = append(compl[p.a], p.b)
			compl[p.b] = append(compl[p.b], p.a)
		}
	}
	return anti, compl
}()

// closedState is the key of the word "closed" in a sentence's stems, beside
// its stem: the state opposes "open", where "closes" (the same stem) is
// when it begins ("open until 5pm" against "closes at 5pm").
const closedState = "\x01closed"

// termOpposites are the antonyms and complements of tm: those of its
// stem, or of closedState for a term written "closed".
func termOpposites(tm term) (anti, compl []string) {
	if tm.raw == "closed" {
		return antonyms[closedState], complements[closedState]
	}
	return antonyms[tm.stem], complements[tm.stem]
}

// canonStem is the stem analyse gives the word w.
func canonStem(w string) string {
	if c, ok := canon[w]; ok {
		return c
	}
	st := stem(w)
	if c, ok := canon[st]; ok {
		return c
	}
	return st
}

func stem(w string) string {
	if len(w) > 3 {
		return porterStem(w)
	}
	return w
}

// leadIns are discourse openers that say nothing about the world.
var leadIns = []string{"based on the notes", "based on the sources", "according to the notes",
	"according to the sources", "according to the source", "according to the handbook", "in short", "in summary"}

// stripLeadIn drops a discourse opener ("Based on the notes: ") from a claim.
func stripLeadIn(t string) string {
	l := strings.ToLower(t)
	for _, p := range leadIns {
		if strings.HasPrefix(l, p) {
			r := strings.TrimLeft(t[len(p):], ":, ")
			if r != "" {
				return r
			}
		}
	}
	return t
}

// anaphoric openers refer back to the subject of an earlier sentence.
var anaphoric = map[string]bool{"it": true, "its": true, "this": true, "these": true, "they": true,
	"their": true, "he": true, "she": true, "his": true, "her": true, "such": true, "that": true,
	"those": true, "the": true, "both": true, "each": true}

// subjectClauses are the clauses wrongSubject cuts an evidence span into
// and their analyses: they depend on the span's text alone (a passage's
// sentences, the spans of many claims), so they are kept across claims
// and turns. Shared read-only once made.
type subjectClauses struct {
	clauses []string
	terms   [][]term // analyse(clause)

	// the span's sentences for swappedIn, made on first use
	sentOnce sync.Once
	sents    []sentReading
}

// sentReading is one sentence of a span as swappedIn reads it.
type sentReading struct {
	terms   []term // analyse(sentence)
	passive bool   // passive(sentence)
}

// sentences returns the span's sentences (Split) as swappedIn reads them.
func (sc *subjectClauses) sentences(span string) []sentReading {
	sc.sentOnce.Do(func() {
		for _, sent := range Split(span) {
			sc.sents = append(sc.sents, sentReading{terms: analyse(sent), passive: passive(sent)})
		}
	})
	return sc.sents
}

// subjectSpans keeps the spans wrongSubject has read, keyed by their text;
// bounded: emptied when full.
var subjectSpans boundedMap[string, *subjectClauses]

const subjectSpansMax = 2048

func subjectClausesOf(span string) *subjectClauses {
	return subjectSpans.get(span, subjectSpansMax, func() *subjectClauses { return newSubjectClauses(span) })
}

// newSubjectClauses cuts span at sentence ends, semicolons, ", and",
// "while" and "whereas", and analyses each clause.
func newSubjectClauses(span string) *subjectClauses {
	var clauses []string
	for _, sent := range Split(span) {
		for _, part := range strings.Split(sent, ";") {
			rest := part
			for _, sep := range []string{", and ", " while ", " whereas ", ", while "} {
				var out []string
				for _, r := range []string{rest} {
					out = append(out, strings.Split(r, sep)...)
				}
				rest = strings.Join(out, "\x00")
			}
			clauses = append(clauses, strings.Split(rest, "\x00")...)
		}
	}
	sc := &subjectClauses{clauses: clauses, terms: make([][]term, len(clauses))}
	for i, c := range clauses {
		sc.terms[i] = analyse(c)
	}
	return sc
}

// wrongSubject reports whether span states the claim's predicate of
// another subject: the clause of span that covers most of the claim's
// other terms lacks the claim's subject (its first content term), and names
// before them a subject of its own, not a reference back ("it", "the
// drug"). "Dogs must travel in a closed carrier" against "Up to two dogs
// travel free ... Other small animals must travel in a closed carrier".
func wrongSubject(cts []claimTerm, span string) (bool, string) {
	subj := -1
	for k := range cts {
		if !cts[k].isNum && cts[k].w > 0 {
			subj = k
			break
		}
	}
	if subj < 0 || cts[subj].stem == "els" || subj+1 < len(cts) && cts[subj+1].stem == "els" {
		// "no one else", "nobody else", "anyone else": the others than
		// whom the source names, no subject of the claim's own
		return false, ""
	}
	var preds []string
	for k := range cts {
		if k != subj && !cts[k].isNum && cts[k].w > 0 {
			preds = append(preds, cts[k].stem)
		}
	}
	if len(preds) < 2 {
		return false, ""
	}
	sc := subjectClausesOf(span)
	clauses := sc.clauses
	bestI, bestN := -1, 0
	var bestTs []term
	for i := range clauses {
		ts := sc.terms[i]
		n := 0
		for _, p := range preds {
			for _, t := range ts {
				if !t.neg && !t.isNum && (t.stem == p || (len(p) >= 6 && len(t.stem) >= 6 && t.stem[:5] == p[:5])) {
					n++
					break
				}
			}
		}
		if n > bestN {
			bestI, bestN, bestTs = i, n, ts
		}
	}
	if bestI < 0 || bestN*2 < len(preds)+1 {
		return false, "" // no clause carries most of the predicate
	}
	s := cts[subj].stem
	for _, t := range bestTs {
		if t.stem == s || (cts[subj].entity && cts[subj].forms.word != "" && strings.Contains(" "+t.raw+" ", cts[subj].forms.word)) {
			return false, ""
		}
	}
	// the clause's own subject: its content terms before the first predicate term
	c := strings.TrimSpace(clauses[bestI])
	first := strings.ToLower(strings.TrimLeft(strings.Fields(c + " x")[0], "(\"'"))
	if anaphoric[first] {
		return false, ""
	}
	var own []string
	for _, t := range bestTs {
		isPred := false
		for _, p := range preds {
			isPred = isPred || t.stem == p
		}
		if isPred {
			break
		}
		if !t.neg && !t.isNum && len(own) < 3 {
			own = append(own, t.raw)
		}
	}
	if len(own) == 0 {
		return false, ""
	}
	// a subject set against others ("Other small animals must ...") is
	// not the claim's, wherever the claim's is
	lead := strings.Fields(strings.ToLower(c))
	for i := 0; i < len(lead) && i < 2; i++ {
		switch strings.Trim(lead[i], ",") {
		case "other", "except", "unlike", "besides", "only", "apart":
			return true, strings.Join(own, " ")
		}
	}
	// otherwise the claim's subject must be said elsewhere in the span, of
	// something else
	for i := range clauses {
		if i == bestI {
			continue
		}
		ts := sc.terms[i]
		if len(ts) < 3 {
			continue
		}
		for _, t := range ts {
			if t.stem == s {
				return true, strings.Join(own, " ")
			}
		}
	}
	return false, ""
}

// calendar are the stems of month and day names: dates, not parties.
var calendar = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday") {
		m[canonStem(w)] = true
	}
	return m
}()

// passive reports whether t reads in the passive voice ("was acquired by").
func passive(t string) bool {
	l := " " + strings.ToLower(t) + " "
	for _, aux := range []string{" is ", " are ", " was ", " were ", " been ", " being ", " be "} {
		for i := 0; ; {
			j := strings.Index(l[i:], aux)
			if j < 0 {
				break
			}
			rest := strings.Fields(l[i+j+len(aux):])
			// aux [adverb] participle ... by, within the clause
			for k := 0; k < len(rest) && k < 9; k++ {
				if rest[k] == "by" && k > 0 {
					return true
				}
				if strings.ContainsAny(rest[k], ",;:") {
					break
				}
			}
			i += j + 1
		}
	}
	return false
}

// swappedRoles reports whether span names the claim's first and last
// entities in the opposite roles: in the claim A ... V ... B, in the
// window B ... V ... A in the same voice (or A ... V ... B with the voice
// changed), V a content term of the claim between them. "Google acquired
// YouTube" against "YouTube acquired Google".
func swappedRoles(claim string, cts []claimTerm, span string) bool {
	a, b := -1, -1
	role := func(k int) bool {
		c := &cts[k]
		if c.isNum || c.w == 0 || calendar[c.stem] || clockCode(c.stem) {
			return false // a time ("2pm") says when, it plays no role
		}
		if c.entity {
			return true
		}
		// a name at the start of the claim, capitalised in the source
		return k == 0 && len(c.raw) > 1 && strings.Contains(span, strings.ToUpper(c.raw[:1])+c.raw[1:])
	}
	var roles []int
	for k := range cts {
		if role(k) {
			roles = append(roles, k)
		}
	}
	for i := 0; i+1 < len(roles); i++ {
		a, b = roles[i], roles[i+1]
		if cts[a].stem == cts[b].stem {
			continue
		}
		// V: the content terms of the claim between A and B
		var verbs []string
		for k := a + 1; k < b; k++ {
			if !cts[k].isNum && !cts[k].entity {
				verbs = append(verbs, cts[k].stem)
			}
		}
		if len(verbs) > 0 && swappedIn(claim, cts[a].stem, cts[b].stem, verbs, span) {
			return true
		}
	}
	return false
}

// freeClause reports, for a sentence that gives a price and says free,
// whether a clause of it (between ';') or an item of a list in it (between
// ", ", "and", ...: splitItems) that gives no price says free of the
// claim's thing: the content stems of the claim beside its money terms
// (money), and its numbers that are no price (an age: "children under 5").
// It names more of them than any clause giving a price, or as many and the
// first of them, which no such clause names. "The showers cost 50p"
// against "Lockers cost 50p a day; the showers are free", "Scanning costs
// 10p a page" against "Printing costs 10p a page; scanning is free", and
// "Children under 5 pay £4" against "adults £7, children £4, under 5s go
// free": the price is another thing's.
func freeClause(cts []claimTerm, money uint64, text string) bool {
	if strings.IndexByte(text, ';') < 0 && strings.IndexByte(text, ',') < 0 && !strings.Contains(text, " and ") {
		return false
	}
	first := ""
	for k := range cts {
		if money&(1<<k) == 0 && !cts[k].isNum && !cts[k].neg && cts[k].w > 0 {
			first = cts[k].stem
			break
		}
	}
	if first == "" {
		return false
	}
	// count is how many of the thing's stems and numbers ts names;
	// firstIn whether the first is one of them
	count := func(ts []term) (n int, firstIn bool) {
		for k := range cts {
			c := &cts[k]
			switch {
			case c.isNum && c.kind != numMoney && c.kind != numRef && c.raw != "one":
				if slices.ContainsFunc(ts, func(t term) bool { return t.isNum && numEqual(c.term, t) }) {
					n++
				}
			case money&(1<<k) != 0 || c.isNum || c.neg || c.w <= 0:
			case slices.ContainsFunc(ts, func(t term) bool { return t.stem == c.stem }):
				n++
				firstIn = firstIn || c.stem == first
			}
		}
		return n, firstIn
	}
	most, firstPriced := 0, false
	var free [][]term
	for clause := range strings.SplitSeq(text, ";") {
		for _, sp := range splitItems(clause) {
			norm := normPhrases(clause[sp[0]:sp[1]])
			switch {
			case priceCue(norm):
				n, f := count(analyse(norm))
				most, firstPriced = max(most, n), firstPriced || f
			case freeCue(norm):
				free = append(free, analyse(norm))
			}
		}
	}
	for _, ts := range free {
		if n, f := count(ts); n > most || n == most && n > 0 && f && !firstPriced {
			return true
		}
	}
	return false
}

// clockCode reports whether st is a clock time read as a code: digits,
// with minutes after ':' or '.', then "am" or "pm" ("2pm", "9.30am").
func clockCode(st string) bool {
	if len(st) < 3 || !strings.HasSuffix(st, "am") && !strings.HasSuffix(st, "pm") {
		return false
	}
	d := st[:len(st)-2]
	if d[0] < '0' || d[0] > '9' {
		return false
	}
	return strings.Trim(d, "0123456789:.") == ""
}

// swappedIn reports whether a sentence of span has a ... V ... b in the
// other order than the claim, voice considered.
func swappedIn(claim, sa, sb string, verbs []string, span string) bool {
	claimPassive, claimRead := false, false
	for _, sent := range subjectClausesOf(span).sentences(span) {
		ts := sent.terms
		pa, pb, pv := -1, -1, -1
		for i, t := range ts {
			switch {
			case t.stem == sa && pa < 0:
				pa = i
			case t.stem == sb && pb < 0:
				pb = i
			}
			for _, v := range verbs {
				if t.stem == v && pv < 0 {
					pv = i
				}
			}
		}
		if pa < 0 || pb < 0 || pv < 0 {
			continue
		}
		if !claimRead {
			claimPassive, claimRead = passive(claim), true
		}
		sameVoice := sent.passive == claimPassive
		between := func(x, y int) bool { return x < pv && pv < y }
		if (sameVoice && between(pb, pa)) || (!sameVoice && between(pa, pb)) {
			return true
		}
	}
	return false
}

// onlyRule matches a sentence restricting a permission to a class: "Only
// members may use the sauna." (one to three words for the class, "may" or
// "can", then the rest of the sentence without a negation of its own).
var onlyRule = regexp.MustCompile(`^Only ((?:[A-Za-z][\w'-]*\s+){0,2}[A-Za-z][\w'-]*)\s+(may|can)\s+([^;:!?]+?)[.!]?$`)

// underRule matches a sentence barring those under an age: "Nobody under
// 18 may book a room.", "No guests under 16 can use the spa." (no class,
// or one or two words of it; an age of one or two digits or a number word;
// "may", "can", "is allowed to" or "are allowed to"; then the rest of the
// sentence).
var underRule = regexp.MustCompile(`^(?:[Nn]obody|[Nn]o one|[Nn]o-one|[Nn]o ((?:[A-Za-z][\w'-]*\s+)?[A-Za-z][\w'-]*))\s+(?:under|below|younger than)\s+(\d{1,2}|[a-z]+)\s+(?:may|can|is allowed to|are allowed to)\s+([^;:!?]+?)[.!]?$`)

// onlyOthers returns sents with, after each sentence of the onlyRule form,
// what it implies of everyone else: "No one else may P." and, for a class
// of one word, "Non-members may not P." ("Only members may use the sauna"
// supports "No one else may use the sauna" and "Non-members may not use
// the sauna", as judge17 made "...; no one else may" do). A sentence that
// already says so, or negates P, is left as it is. After a sentence of the
// underRule form it adds the age it asks of the rest: "Nobody under 18 may
// book a room." supports "You must be 18 or over to book a room." (and "No
// guests under 16 may ..." "Guests must be 16 or over to ...").
func onlyOthers(sents []string) []string {
	var out []string
	for i, s := range sents {
		add := onlyReadings(strings.TrimSpace(s))
		if add == nil {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(sents)+2), sents[:i]...)
		}
		out = append(append(out, s), add...)
	}
	if out == nil {
		return sents
	}
	return out
}

// onlyReadings returns what onlyOthers adds after the sentence t, nil for
// nothing.
func onlyReadings(t string) []string {
	if m := onlyRule.FindStringSubmatch(t); m != nil {
		if strings.Contains(strings.ToLower(m[3]), " else") || cues(m[3]) > 0 {
			return nil
		}
		add := []string{"No one else " + m[2] + " " + m[3] + "."}
		if !strings.ContainsAny(m[1], " \t") && !strings.HasPrefix(strings.ToLower(m[1]), "non") {
			add = append(add, "Non-"+strings.ToLower(m[1])+" "+m[2]+" not "+m[3]+".")
		}
		return add
	}
	if len(t) < 3 || t[0] != 'N' && t[0] != 'n' || t[1] != 'o' {
		return nil // underRule opens with "No" or "Nobody"
	}
	m := underRule.FindStringSubmatch(t)
	if m == nil || cues(m[3]) > 0 || cues(m[1]) > 0 {
		return nil
	}
	if _, ok := numberWords[m[2]]; !ok && (m[2][0] < '0' || m[2][0] > '9') {
		return nil
	}
	who := "You"
	if m[1] != "" {
		who = strings.ToUpper(m[1][:1]) + m[1][1:]
	}
	return []string{who + " must be " + m[2] + " or over to " + m[3] + "."}
}
