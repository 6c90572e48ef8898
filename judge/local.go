package judge

import (
	"context"
	"math/bits"
	"strings"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
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
	cfg LocalConfig
}

var _ Verifier = (*Local)(nil)

// NewLocal returns a local verifier with the given thresholds.
func NewLocal(cfg LocalConfig) *Local { return &Local{cfg: cfg} }

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
}

type evSent struct {
	text  string
	stems map[string]struct{} // stems, plus "\x00"+5-char prefixes
	nums  []term
	neg   bool
	// negScope holds the stems a negation cue governs: the next negObjs
	// content terms of its clause
	negScope []string
	dirs     uint8 // dirUp, dirDown: the changes the sentence states
	// words and initials are the squashed sentence (see squash), for
	// entities written another way
	words, initials string
}

// negObjs is how many content terms after a negation cue it governs.
const negObjs = 4

// prepare analyses a passage; a non-empty title is its first sentence.
func prepare(title, text string) *prepared {
	p := &prepared{chars: len(text)}
	sents := Split(text)
	if t := strings.TrimSpace(title); t != "" {
		sents = append([]string{t}, sents...)
	}
	for _, s := range sents {
		t := strings.TrimSpace(s)
		if t == "" {
			continue
		}
		es := evSent{text: t, stems: map[string]struct{}{}}
		negs := 0
		ts := analyse(t)
		for i, tm := range ts {
			if !tm.neg {
				continue
			}
			n := 0
			for j := i + 1; j < len(ts) && n < negObjs && !ts[j].brk; j++ {
				if !ts[j].neg && !ts[j].isNum {
					es.negScope = append(es.negScope, ts[j].stem)
					n++
				}
			}
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
				if len(tm.stem) >= 6 {
					es.stems["\x00"+tm.stem[:5]] = struct{}{}
				}
			}
		}
		es.neg = negs > 0
		p.sents = append(p.sents, es)
	}
	return p
}

// claimTerm is one content term of the claim with its weight and antonyms.
type claimTerm struct {
	term
	w     float64
	anti  []string
	forms entityForms // entities only
}

const maxClaimTerms = 64

func (l *Local) verify(claim string, docs []*prepared) Verdict {
	text := StripCitations(claim)
	if IsOpinion(text) {
		return Verdict{Label: Opinion, Confidence: 0.7, Severity: Info, Method: "local", Reason: "opinion"}
	}
	var cts []claimTerm
	claimNeg := false
	var total float64
	ats := analyse(text)
	claimDirs := directions(ats)
	for i, tm := range ats {
		if tm.neg {
			// as in the evidence, a negation counts when it governs a
			// content term of its clause ("leave undated only what will
			// not." negates nothing it names)
			for j, n := i+1, 0; j < len(ats) && n < negObjs && !ats[j].brk && !claimNeg; j++ {
				if !ats[j].neg && !ats[j].isNum {
					claimNeg = true
				}
				n++
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
		case tm.isNum:
			ct.w = 2
		case tm.entity:
			ct.w = 1.5
		}
		if !tm.isNum {
			ct.anti = antonyms[tm.stem]
		}
		if tm.entity {
			ct.forms = formsOf(tm.raw)
		}
		total += ct.w
		cts = append(cts, ct)
	}
	if len(cts) == 0 {
		return Verdict{Label: Neutral, Confidence: 0.5, Severity: Minor, Method: "local", Reason: "no_content"}
	}

	type sentScore struct {
		covered, numConf, antiConf uint64
		hasFreeNum                 bool // a number in the sentence that no claim number matches
		dirs                       uint8
		w                          float64
		neg                        bool
		text                       string
	}
	var (
		bestE, bestC, bestAny float64
		bestDoc               float64 // best coverage of one passage by its entailing windows together
		docE                  uint64  // the claim terms the entailing windows of this passage cover
		eSpan, cSpan, cReason string
		prevOK                bool
		prev                  sentScore
	)
	weigh := func(m uint64) float64 {
		var s float64
		for m != 0 {
			k := bits.TrailingZeros64(m)
			s += cts[k].w
			m &^= 1 << k
		}
		return s / total
	}
	consider := func(a sentScore, b *sentScore) {
		covered := a.covered
		numConfl, antiConfl := a.numConf, a.antiConf
		free := a.hasFreeNum
		neg := a.neg
		span := a.text
		dirs := a.dirs
		if b != nil {
			dirs |= b.dirs
			covered |= b.covered
			numConfl |= b.numConf
			antiConfl |= b.antiConf
			free = free || b.hasFreeNum
			if b.w > a.w {
				neg = b.neg
			}
			span = b.text + " " + a.text
		}
		numConfl &^= covered
		antiConfl &^= covered
		if !free {
			numConfl = 0
		}
		cov := weigh(covered)
		if cov > bestAny {
			bestAny = cov
		}
		negMismatch := neg != claimNeg
		if numConfl == 0 && antiConfl == 0 && !negMismatch {
			if claimDirs&^dirs != 0 {
				return // the claim states a change the window does not
			}
			if cov > bestE {
				bestE, eSpan = cov, span
			}
			docE |= covered
			return
		}
		covC := weigh(covered | numConfl | antiConfl)
		if covC > bestC {
			bestC, cSpan = covC, span
			switch {
			case numConfl != 0:
				cReason = "number_mismatch"
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
		if cts[k].isNum || cts[k].entity {
			anchors |= 1 << k
		} else if _, ok := exclusive[cts[k].stem]; ok {
			anchors |= 1 << k
		}
	}
	anchorsFound = numSomewhere
	for _, d := range docs {
		for si := range d.sents {
			for k := range cts {
				if cts[k].isNum || anchors&(1<<k) == 0 {
					continue
				}
				if _, ok := d.sents[si].stems[cts[k].stem]; ok || cts[k].forms.in(&d.sents[si]) {
					anchorsFound |= 1 << k
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
		return Verdict{Label: Neutral, Confidence: 0.5, Severity: Minor, Method: "local", Reason: "no_content"}
	}
	missingAnchor := anchors&^anchorsFound != 0
	for _, d := range docs {
		prevOK = false
		docE = 0
		for si := range d.sents {
			s := &d.sents[si]
			var sc sentScore
			sc.text, sc.dirs = s.text, s.dirs
			// a negation counts where it governs a claim term ("but not
			// naive T cells" says nothing about the rest)
			for k := 0; s.neg && k < len(cts) && !sc.neg; k++ {
				sc.neg = !cts[k].isNum && stemIn(cts[k].stem, s.negScope)
			}
			for k := range cts {
				c := &cts[k]
				if c.isNum {
					for _, n := range s.nums {
						if numEqual(c.term, n) {
							sc.covered |= 1 << k
							break
						}
					}
					if sc.covered&(1<<k) == 0 && numSomewhere&(1<<k) == 0 && len(s.nums) > 0 {
						sc.numConf |= 1 << k
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
				if c.entity && c.forms.in(s) {
					sc.covered |= 1 << k
					continue
				}
				for _, a := range c.anti {
					if _, ok := s.stems[a]; ok {
						sc.antiConf |= 1 << k
						break
					}
				}
			}
			// a free number: one the claim does not mention, counted with
			// repeats ("SAML 2.0 ... SCIM 2.0" against "SAML 11 ... SCIM
			// 2.0" leaves one 2.0 free for the changed 11)
			var used uint64
			for _, n := range s.nums {
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
			consider(sc, nil)
			if prevOK {
				p := prev
				consider(sc, &p)
			}
			prev, prevOK = sc, true
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
	// sentences of one passage that entail the claim together, with a
	// margin, when the best of them falls short by no more than it
	if g := l.cfg.Gather; g > 0 && bestE < need && bestE >= need-g && bestDoc >= need+g {
		bestE = need
	}
	switch {
	case bestE >= need && !(l.cfg.Anchors && missingAnchor):
		conf := 0.6 + 0.4*(bestE-need)/(1-need+1e-9)
		return Verdict{Label: Entailment, Confidence: round3(clamp01(conf)), Severity: Info, Evidence: trimSpan(eSpan), Method: "local", Reason: "covered"}
	case bestC >= l.cfg.Conflict && bestC >= bestE:
		sev := Major
		if cReason == "number_mismatch" {
			sev = Critical
		}
		return Verdict{Label: Contradiction, Confidence: round3(clamp01(0.4 + 0.6*bestC)), Severity: sev, Evidence: trimSpan(cSpan), Method: "local", Reason: cReason}
	default:
		span := eSpan
		if span == "" {
			span = cSpan
		}
		return Verdict{Label: Neutral, Confidence: round3(clamp01(1 - bestAny/2)), Severity: Minor, Evidence: trimSpan(span), Method: "local", Reason: "not_covered"}
	}
}

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

// antonyms maps a stem to the stems that oppose it.
var antonyms = func() map[string][]string {
	pairs := [][2]string{
		{"increase", "decrease"}, {"increase", "reduce"}, {"increase", "lower"}, {"increase", "decline"},
		{"raise", "lower"}, {"raise", "reduce"}, {"rise", "fall"}, {"rise", "decline"},
		{"higher", "lower"}, {"high", "low"}, {"more", "less"}, {"more", "fewer"},
		{"greater", "smaller"}, {"greater", "lesser"}, {"larger", "smaller"}, {"large", "small"},
		{"longer", "shorter"}, {"long", "short"}, {"better", "worse"}, {"improve", "worsen"},
		{"improve", "impair"}, {"enhance", "impair"}, {"enhance", "reduce"}, {"promote", "inhibit"},
		{"promote", "suppress"}, {"promote", "prevent"}, {"activate", "inhibit"},
		{"activate", "suppress"}, {"activate", "deactivate"}, {"stimulate", "inhibit"},
		{"induce", "inhibit"}, {"induce", "prevent"}, {"upregulate", "downregulate"},
		{"positive", "negative"}, {"positively", "negatively"}, {"gain", "loss"}, {"gain", "lose"},
		{"before", "after"}, {"first", "last"}, {"earliest", "latest"}, {"early", "late"},
		{"older", "younger"}, {"old", "young"}, {"benefit", "harm"}, {"beneficial", "harmful"},
		{"effective", "ineffective"}, {"safe", "unsafe"}, {"accept", "reject"}, {"win", "lose"},
		{"won", "lost"}, {"alive", "dead"}, {"north", "south"}, {"east", "west"},
		{"protect", "harm"}, {"protective", "harmful"}, {"risk", "protect"}, {"above", "below"},
		{"up", "down"}, {"maximum", "minimum"}, {"majority", "minority"}, {"agonist", "antagonist"},
		{"accelerate", "slow"}, {"accelerate", "delay"}, {"strengthen", "weaken"},
		{"hyper", "hypo"}, {"overexpress", "underexpress"}, {"sensitive", "resistant"},
		{"susceptible", "resistant"}, {"present", "absent"}, {"common", "rare"},
		{"male", "female"}, {"men", "women"}, {"boy", "girl"}, {"exclude", "include"},
		{"correct", "incorrect"}, {"true", "false"}, {"legal", "illegal"},
	}
	m := map[string][]string{}
	add := func(a, b string) { m[a] = append(m[a], b) }
	for _, p := range pairs {
		a, b := stem(p[0]), stem(p[1])
		add(a, b)
		add(b, a)
	}
	return m
}()

func stem(w string) string {
	if len(w) > 3 {
		return porterstemmer.StemString(w)
	}
	return w
}
