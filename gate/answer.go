package gate

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// The local answerability model: an estimate of the probability that a
// passage answers a question, from features that mean the same thing on
// every corpus and with every reranker (local or remote). It is a logistic
// model over the features below, fitted on labelled training data only
// (`guard bench quality --gate --fit` writes answermodel.json; the split is
// fixed by item id) and reported on data it never saw (docs/quality.md).
//
// The gate compares its output, not a reranker's raw score, with prefloor,
// bail_out_below, sufficient_max and good_enough_max; rerank scores only
// order the pool.

// The features of one (question, passage) pair.
const (
	FBias     = iota
	FRerank   // the reranker's score in [0,1] (local or remote; only its order is trusted, so it enters clipped)
	FCoverage // IDF-weighted share of the question's stemmed content terms found in the passage (title included)
	FRare     // share of the question's two highest-IDF terms found in the passage
	FBigram   // share of the question's adjacent term pairs found adjacent in the passage
	FTypeHit  // the question asks for an answer type (date, quantity, person, place, phone, email, address, hours) and the passage has one
	FTypeMiss // it asks for one and the passage has none
	FTop      // 1 for the candidate ranked first
	FMargin   // this candidate's coverage minus the best coverage among the other candidates
	FAddress  // found by the address lane (an exact address) or as a curated-memory reference
	FLanes    // share of the dense and lexical lanes that found it
	// The semantic features, 0 when the candidates carry none (the
	// lexical-only mode: the model's Lexical weights apply then).
	FSim       // the sentence encoder's cosine between question and passage
	FSimRel    // Sim minus the mean Sim of the candidates (relative to the pool, so a corpus's base level cancels)
	FSimMargin // Sim minus the best Sim among the other candidates
	FSoft      // word-vector soft coverage of the question's words by the passage's
	FSoftMin   // the word vectors' best cosine for the question's worst-covered word
	// The focus features (semantic too): what the passage offers the
	// question's rarest words (IDF in the queried partition).
	FFocus      // IDF-weighted soft coverage of the question's words (a stem match counts 1)
	FFocusMiss  // IDF-weighted share of the question's words with no match at cosine >= 0.5
	FFocusWorst // the lower best cosine of the question's two highest-IDF words
	FSent       // the best sentence's IDF-weighted soft coverage (title included)
	NumFeatures
)

// FeatureNames name the features in reports and in answermodel.json.
var FeatureNames = [NumFeatures]string{"bias", "rerank", "coverage", "rare", "bigram", "type_hit", "type_miss", "top", "margin", "address", "lanes",
	"sim", "sim_rel", "sim_margin", "soft", "soft_min", "focus", "focus_miss", "focus_worst", "sent"}

// semanticFeatures are the features only the semantic mode has.
var semanticFeatures = []int{FSim, FSimRel, FSimMargin, FSoft, FSoftMin, FFocus, FFocusMiss, FFocusWorst, FSent}

// Features are one pair's feature values.
type Features [NumFeatures]float64

// AnswerModel is a fitted logistic model over Features: the answerability
// model (does the passage answer the question) and, with other weights,
// the relevance model (is the passage about it; see RelevanceModel).
type AnswerModel struct {
	// Weights apply when the candidates carry semantic features.
	Weights Features `json:"weights"`
	// Lexical, when not all zero, are the weights of the lexical-only mode
	// (no sentence encoder or word vectors): the semantic features are 0
	// then and the other weights must make up for them.
	Lexical Features `json:"lexical"`
	// Scale and LexicalScale map the per-passage probability p onto the
	// question's scale, sigmoid(A*logit(p)+B) with [A, B]: fitted on the
	// best passage of each training question against the question's label
	// (the relevance model: is the question on the corpus's topic at all;
	// the answerability model: does the corpus answer it), classes
	// weighed equally. [0, 0] is the identity.
	Scale        [2]float64 `json:"scale"`
	LexicalScale [2]float64 `json:"lexical_scale"`
	// PoolScale, when not all zero, replaces Scale for semantic candidates
	// of a partition that keeps to one topic (OneTopic): sigmoid(A*logit(p)
	// + B + C*t) with [A, B, C], where t is the mean of the sentence
	// encoder's two best cosines between the question and a candidate
	// (PoolCosine). A paraphrase that shares no word with its passage gets
	// little from the per-passage features (its best passage's p is low,
	// as for an off-topic question), yet its meaning is close to the
	// corpus: in a corpus of one topic that closeness is what "about it"
	// means. A mixed archive's questions are close in meaning to some
	// entries whatever they ask, so there Scale applies (the relevance
	// model; docs/quality.md, Runs 7 and 8c).
	PoolScale [3]float64 `json:"pool_scale"`
	// Fit says how and on what it was fitted (for reports).
	Fit string `json:"fit"`
}

// scaled maps p through the scale of the semantic or lexical weights.
func (m *AnswerModel) scaled(p float64, semantic bool) float64 {
	s := m.Scale
	if !semantic && m.Lexical != (Features{}) {
		s = m.LexicalScale
	}
	if s == ([2]float64{}) {
		return p
	}
	return 1 / (1 + math.Exp(-(s[0]*logit(p) + s[1])))
}

// poolScaled maps p through PoolScale with the pool's cosine term t
// (PoolCosine).
func (m *AnswerModel) poolScaled(p, t float64) float64 {
	c := m.PoolScale
	return 1 / (1 + math.Exp(-(c[0]*logit(p) + c[1] + c[2]*t)))
}

// Raw is the per-passage probability of f before the question-level
// scale (the fit's input).
func (m AnswerModel) Raw(f Features, semantic bool) float64 { return prob(m.weights(semantic), &f) }

// weights returns the weights for candidates with or without semantic
// features.
func (m *AnswerModel) weights(semantic bool) *Features {
	if !semantic && m.Lexical != (Features{}) {
		return &m.Lexical
	}
	return &m.Weights
}

//go:embed answermodel.json
var answerModelJSON []byte

// DefaultAnswerModel is the shipped model (answermodel.json).
func DefaultAnswerModel() AnswerModel {
	var m AnswerModel
	if err := json.Unmarshal(answerModelJSON, &m); err != nil {
		panic(fmt.Sprintf("gate: embedded answermodel.json: %v", err))
	}
	return m
}

// Prob is the model's probability for f (semantic weights).
func (m AnswerModel) Prob(f Features) float64 { return prob(&m.Weights, &f) }

func prob(w, f *Features) float64 {
	var z float64
	for i := range w {
		z += w[i] * f[i]
	}
	return 1 / (1 + math.Exp(-z))
}

//go:embed relevancemodel.json
var relevanceModelJSON []byte

// RelevanceModel is the shipped relevance model (relevancemodel.json): the
// probability that a passage is about the question, fitted on the same
// features as the answerability model with the labels "answers it" or
// "is on its topic" (guard bench quality --gate --fit).
func DefaultRelevanceModel() AnswerModel {
	var m AnswerModel
	if err := json.Unmarshal(relevanceModelJSON, &m); err != nil {
		panic(fmt.Sprintf("gate: embedded relevancemodel.json: %v", err))
	}
	return m
}

// Rate sets every candidate's Relevance to m's probability on the
// Features Assess computed. oneTopic says the queried partition keeps to
// one topic (OneTopic): semantic candidates are then scaled with
// PoolScale, when the model has one. An exact address hit or a
// curated-memory reference keeps at least its rule score (its rerank
// relevance).
func (m AnswerModel) Rate(cands []Candidate, oneTopic bool) {
	pool := oneTopic && m.PoolScale != ([3]float64{})
	var t float64
	if pool {
		t = PoolCosine(cands)
	}
	for i := range cands {
		f := cands[i].Features
		p := prob(m.weights(cands[i].Semantic), &f)
		if pool && cands[i].Semantic {
			cands[i].Relevance = m.poolScaled(p, t)
		} else {
			cands[i].Relevance = m.scaled(p, cands[i].Semantic)
		}
		if f[FAddress] == 1 {
			cands[i].Relevance = max(cands[i].Relevance, min(cands[i].Rerank, 1))
		}
	}
}

// Question is a question prepared for feature extraction: its stemmed
// content terms with their IDF weights, adjacent pairs, and the answer type
// it asks for.
type Question struct {
	tok     Tokenizer
	terms   []string
	weights []float64
	total   float64
	rare    [2]int // indexes into terms of the two highest-IDF terms (-1 if absent)
	bigrams [][2]string
	// pairTerms are the indexes into terms of each bigram's two terms: a
	// passage holds the pair only if it holds both
	pairTerms [][2]int
	want      answerType
	// contact: the question asks for the service's own contact details
	// (Ask.Contact); want is then the detail's type.
	contact bool
	task    bool    // Ask.Task
	aside   bool    // Ask.Aside
	advice  bool    // Ask.Advice
	you     bool    // Ask.You
	general float64 // Ask.General
	names   string  // Ask.Names
	other   string  // Ask.Other
}

// Tokenizer splits a text into the index's stemmed content terms (stopwords
// dropped). The gate does no text analysis of its own: the caller hands it
// the index's tokenizer, so the gate's terms are the lexical lane's terms.
type Tokenizer func(text string) []string

// PrepareQuestion tokenizes q with tok and weighs each distinct term with
// idf; a nil idf weighs every term 1.
func PrepareQuestion(tok Tokenizer, q string, idf func(string) float64) Question {
	toks := tok(q)
	pq := Question{tok: tok, rare: [2]int{-1, -1}}
	pq.AskFrom(q)
	seen := make(map[string]int, len(toks)) // term -> its index in pq.terms
	for _, t := range toks {
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = len(pq.terms)
		w := 1.0
		if idf != nil {
			w = idf(t)
		}
		pq.terms = append(pq.terms, t)
		pq.weights = append(pq.weights, w)
		pq.total += w
	}
	for i, w := range pq.weights {
		switch {
		case pq.rare[0] < 0 || w > pq.weights[pq.rare[0]]:
			pq.rare[1] = pq.rare[0]
			pq.rare[0] = i
		case pq.rare[1] < 0 || w > pq.weights[pq.rare[1]]:
			pq.rare[1] = i
		}
	}
	for i := 1; i < len(toks); i++ {
		pq.bigrams = append(pq.bigrams, [2]string{toks[i-1], toks[i]})
		pq.pairTerms = append(pq.pairTerms, [2]int{seen[toks[i-1]], seen[toks[i]]})
	}
	return pq
}

// passageMatch is what a passage offers a question, before the
// pool-relative features (top, margin) are known.
type passageMatch struct {
	coverage, rare, bigram float64
	typeHit, typeMiss      bool
	// contactAny: a contact question of no type, and the passage holds a
	// phone number, an email address or a street address (contactMeans)
	contactAny bool
}

// PassageTerms is what the answerability model reads of a passage's words:
// its stemmed terms and adjacent term pairs (title included). It depends
// only on the passage, so a caller may keep it across turns (the proxy
// caches it by the passage's text) and share it between goroutines: it is
// never modified after NewPassageTerms.
type PassageTerms struct {
	set   map[string]struct{}
	pairs map[[2]string]struct{}
	// types has bit t set when the text holds an answer of type t
	// (hasType); typed says it was computed.
	types uint32
	typed bool
}

// NewPassageTerms tokenizes title and text with tok and notes which
// answer types the text holds, for reuse across questions (a cache's
// entry).
func NewPassageTerms(tok Tokenizer, title, text string) *PassageTerms {
	pt := newPassageTerms(tok, title, text)
	for t := typeNone + 1; t < numTypes; t++ {
		if hasType(t, text) {
			pt.types |= 1 << t
		}
	}
	pt.typed = true
	return pt
}

func newPassageTerms(tok Tokenizer, title, text string) *PassageTerms {
	toks := tok(title + " " + text)
	pt := &PassageTerms{set: make(map[string]struct{}, len(toks)), pairs: make(map[[2]string]struct{}, len(toks))}
	for i, t := range toks {
		pt.set[t] = struct{}{}
		if i > 0 {
			pt.pairs[[2]string{toks[i-1], t}] = struct{}{}
		}
	}
	return pt
}

// Size is the number of terms and pairs held (a cache's cost).
func (pt *PassageTerms) Size() int { return len(pt.set) + len(pt.pairs) }

func (q *Question) match(title, text string, pt *PassageTerms) passageMatch {
	var m passageMatch
	if pt == nil {
		pt = newPassageTerms(q.tok, title, text) // used once: answer types are checked below as needed
	}
	set := pt.set
	// each term looked up once; the rare terms and the pairs read the
	// answers (a pair is in the passage only if both its terms are)
	var inBuf [32]bool
	in := inBuf[:0]
	if len(q.terms) > len(inBuf) {
		in = make([]bool, 0, len(q.terms))
	}
	for _, t := range q.terms {
		_, ok := set[t]
		in = append(in, ok)
	}
	if q.total > 0 {
		var found float64
		for i := range q.terms {
			if in[i] {
				found += q.weights[i]
			}
		}
		m.coverage = found / q.total
	}
	var n, hit float64
	for _, r := range q.rare {
		if r < 0 {
			continue
		}
		n++
		if in[r] {
			hit++
		}
	}
	if n > 0 {
		m.rare = hit / n
	}
	if len(q.bigrams) > 0 {
		var b float64
		for k, bg := range q.bigrams {
			if pk := q.pairTerms[k]; !in[pk[0]] || !in[pk[1]] {
				continue
			}
			if _, ok := pt.pairs[bg]; ok {
				b++
			}
		}
		m.bigram = b / float64(len(q.bigrams))
	}
	if q.want != typeNone {
		has := pt.types&(1<<q.want) != 0
		if !pt.typed {
			has = hasType(q.want, text)
		}
		m.typeHit, m.typeMiss = has, !has
	} else if q.contact {
		m.contactAny = holdsContactMeans(pt, text)
	}
	return m
}

// contactMeans are the details a contact question of no type ("how can i
// contact you") is answered with: a way to reach the service. Opening
// hours are not one.
var contactMeans = [...]answerType{typePhone, typeEmail, typeAddress}

// holdsContactMeans reports whether text holds a phone number, an email
// address or a street address (pt's types when computed).
func holdsContactMeans(pt *PassageTerms, text string) bool {
	for _, t := range contactMeans {
		if pt.typed && pt.types&(1<<t) != 0 || !pt.typed && hasType(t, text) {
			return true
		}
	}
	return false
}

// Assess computes every candidate's features and sets its Answer to the
// model's probability. cands are in retrieve's order (rank 1 first).
func (m AnswerModel) Assess(q Question, cands []Candidate) {
	matches := make([]passageMatch, len(cands))
	best, second := -1.0, -1.0
	simBest, simSecond, simSum := -2.0, -2.0, 0.0
	for i := range cands {
		matches[i] = q.match(cands[i].Title, cands[i].Text, cands[i].Terms)
		switch c := matches[i].coverage; {
		case c > best:
			second, best = best, c
		case c > second:
			second = c
		}
		switch s := cands[i].Sim; {
		case s > simBest:
			simSecond, simBest = simBest, s
		case s > simSecond:
			simSecond = s
		}
		simSum += cands[i].Sim
	}
	for i := range cands {
		f := candidateFeatures(cands[i], matches[i], i == 0, best, second)
		if cands[i].Semantic {
			s := cands[i].Sim
			f[FSim] = s
			f[FSimRel] = s - simSum/float64(len(cands))
			other := simBest
			if s >= simBest {
				other = simSecond
			}
			if other < -1 {
				other = s // the only candidate
			}
			f[FSimMargin] = s - other
			f[FSoft] = cands[i].Soft
			f[FSoftMin] = cands[i].SoftMin
			f[FFocus] = cands[i].Focus
			f[FFocusMiss] = cands[i].FocusMiss
			f[FFocusWorst] = cands[i].FocusWorst
			f[FSent] = cands[i].SentSoft
		}
		cands[i].Features = f
		cands[i].TypeHit = matches[i].typeHit || matches[i].contactAny
		cands[i].Answer = m.scaled(prob(m.weights(cands[i].Semantic), &f), cands[i].Semantic)
		if strictType(q.want) && matches[i].typeMiss {
			// A passage without a phone number cannot support an answer to
			// "what is the phone number of ...", however close its topic.
			cands[i].Answer = 0
		}
		if f[FAddress] == 1 {
			// An exact address hit or a curated-memory reference is a rule,
			// not a guess: it keeps at least the rule score retrieve gave
			// it ("explain HB 5.3", "What does John 3:16 say?" name their
			// passage; the question's words need not be in it).
			cands[i].Answer = max(cands[i].Answer, min(cands[i].Rerank, 1))
		}
	}
}

func candidateFeatures(c Candidate, pm passageMatch, top bool, best, second float64) Features {
	var f Features
	f[FBias] = 1
	f[FRerank] = min(max(c.Rerank, 0), 1)
	f[FCoverage] = pm.coverage
	f[FRare] = pm.rare
	f[FBigram] = pm.bigram
	if pm.typeHit {
		f[FTypeHit] = 1
	}
	if pm.typeMiss {
		f[FTypeMiss] = 1
	}
	if top {
		f[FTop] = 1
	}
	other := best
	if pm.coverage >= best {
		other = second
	}
	if other < 0 {
		other = 0
	}
	f[FMargin] = pm.coverage - other
	var lanes float64
	for _, l := range c.Lanes {
		switch l {
		case "address", "memory":
			f[FAddress] = 1
		case "dense", "lexical":
			lanes += 0.5
		}
	}
	f[FLanes] = lanes
	return f
}

// answerType is the kind of answer a question asks for.
type answerType int

const (
	typeNone answerType = iota
	typeTime
	typeCount
	typeCost
	typeDuration
	typeAge
	typeSpeed
	typeDistance
	typePerson
	typePlace
	typePhone
	typeEmail
	typeAddress // a contact question's street address or postcode (contactType)
	typeHours   // a contact question's opening hours (contactType)
	numTypes
)

// strictType reports an answer type whose absence from a passage rules
// the passage out as an answer (the planner keeps no such note): a phone
// number, an email address, a street address or opening hours are either
// in the text or not, where a time, a cost or a person may be said in
// words the detectors do not know.
func strictType(t answerType) bool {
	return t == typePhone || t == typeEmail || t == typeAddress || t == typeHours
}

// askedType reads the answer type off the question's wording: generic
// English question forms, not any corpus's vocabulary.
func askedType(q string) answerType {
	s := " " + strings.ToLower(q) + " "
	// A phrase with a pair of adjacent bytes the question lacks is not
	// in it: most of the phrases are passed over without a search.
	bs := newBigramSet(s)
	has := func(ws ...string) bool {
		for _, w := range ws {
			if bs.mayContain(w) && strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("phone number", "telephone number", " number to call", " number to ring", "contact number", " number do i call",
		" number do i ring", " number should i call", " number should i ring") &&
		!ownDetail(s, "phone number", "telephone number", "contact number"):
		return typePhone
	case has("email address", "e-mail address", " address to email", " address to e-mail", " what email", " which email") &&
		!ownDetail(s, "email address", "e-mail address"):
		return typeEmail
	case has(" how fast", " what speed", " top speed"):
		return typeSpeed
	case has(" how far", " what distance", " how close"):
		return typeDistance
	case has(" how old", " what age", " which age", " age limit", " minimum age"):
		return typeAge
	case has(" how much", " cost", " price", " fee ", " fee?", " fees", " charge", " how expensive", " how cheap",
		" penalty", " fine ", " fine?", " pay ", " pay?", " dearer", " cheaper"):
		return typeCost
	case has(" how long", " how soon", " how quickly", " how early", " how far ahead", " how much notice", " how much time", " how often"):
		return typeDuration
	case has(" how many", " how big", " how large", " what size", " what number"):
		return typeCount
	case has(" when ", " what time", " what date", " which day", " what day", " which date", " what year", " which year"):
		return typeTime
	case has(" who ", " whom ", " whose "):
		return typePerson
	case has(" where "):
		return typePlace
	}
	return typeNone
}

// ownDetail reports whether the first of phrases in s is the customer's
// own ("can i keep my home phone number", "change my email address"): "my"
// at most three words before it. Such a question asks about the number,
// not for one, so no passage is ruled out for lacking a phone number.
func ownDetail(s string, phrases ...string) bool {
	for _, p := range phrases {
		i := strings.Index(s, p)
		if i < 0 {
			continue
		}
		before := strings.Fields(s[:i])
		for k := len(before) - 1; k >= 0 && k >= len(before)-3; k-- {
			if before[k] == "my" {
				return true
			}
		}
		return false
	}
	return false
}

var (
	timeWords = []string{"january", "february", "march", "april", " may ", "june", "july", "august", "september",
		"october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
		"sunday", "weekday", "weekend", "noon", "midnight", "morning", "evening", "night", "daily", "weekly",
		"monthly", "annual", "yearly", "spring", "summer", "autumn", "winter", " am ", " pm ", "o'clock"}
	numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
		"twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "dozen", "half", "twice",
		"once", "single", "double", "several", "few"}
	costWords     = []string{"pound", "pence", "£", "$", "€", "dollar", "euro", "cent", "free", "no charge", "percent", "%", "price", "costs", "fee of", "charged at"}
	durationWords = []string{"second", "minute", "hour", "day", "week", "month", "year", "night", "term", "immediately", "at once", "same day"}
	ageWords      = []string{"years old", "aged", "age ", "under ", "over ", "adult", "child", "minor"}
	speedWords    = []string{"km/h", "kph", "mph", "per hour", "kilometres an hour", "miles an hour"}
	distanceWords = []string{"kilomet", " km", "metre", "meter", " mile", " yard", " feet", "walk"}
	personWords   = []string{"team", "office", "officer", "staff", "manager", "director", "service", "department",
		"desk", "council", "company", "master", "purser", "crew", "engineer", "mentor", "panel", "warden", "nurse",
		"doctor", "dentist", "reception", "support", "president", "founder", "chief", "head ", "board"}
	placeWords = []string{" at ", " in ", " on the ", "station", "terminal", "office", "hall", "room", "deck",
		"lounge", "store", "park", "library", "reception", "centre", "center", "court", "street", "road", "building",
		"city", "town", "campus", "port", "harbour", "floor", "entrance"}
)

// hasType reports whether text holds an answer of type t.
func hasType(t answerType, text string) bool {
	switch t { // the contact details' detectors read text as written
	case typePhone:
		return hasPhoneNumber(text)
	case typeEmail:
		return hasEmailAddress(text)
	case typeAddress:
		return hasStreetAddress(text)
	case typeHours:
		return hasOpeningHours(text)
	}
	lower := " " + strings.ToLower(text) + " "
	containsAny := func(ws []string) bool {
		for _, w := range ws {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	digits := strings.ContainsFunc(text, unicode.IsDigit)
	quantity := digits || containsAny(numberWords)
	switch t {
	case typeTime:
		return digits || containsAny(timeWords)
	case typeCount:
		return quantity
	case typeCost:
		return containsAny(costWords)
	case typeDuration:
		return quantity && containsAny(durationWords) || containsAny([]string{"immediately", "at once", "same day"})
	case typeAge:
		return quantity && containsAny(ageWords)
	case typeSpeed:
		return containsAny(speedWords)
	case typeDistance:
		return quantity && containsAny(distanceWords)
	case typePerson:
		return containsAny(personWords) || hasName(text)
	case typePlace:
		return containsAny(placeWords)
	}
	return false
}

// hasEmailAddress reports an email address in text: a local part, "@", and
// a domain of dot-separated labels ending in a top-level label of two or
// more letters, not a documentation example's (example.com). A placeholder
// such as "lanternfish@HOST", "ana@example.com" or a handle such as "@shop"
// is not one (docwalk: "what's your email" was answered from a
// configuration page's placeholder sender).
func hasEmailAddress(text string) bool {
	for i := strings.IndexByte(text, '@'); i >= 0; {
		if i > 0 && emailByte(text[i-1]) {
			j := i + 1
			dots, label, tld := 0, 0, 0
			for ; j < len(text); j++ {
				c := text[j]
				if c == '.' && label > 0 && j+1 < len(text) && emailByte(text[j+1]) {
					dots++
					label, tld = 0, 0
					continue
				}
				if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
					break
				}
				label++
				if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
					tld++
				} else {
					tld = -1 << 20
				}
			}
			if dots > 0 && label >= 2 && tld == label && !placeholderDomain(text[i+1:j]) {
				return true
			}
		}
		k := strings.IndexByte(text[i+1:], '@')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// placeholderDomain reports the domains documentation uses in examples
// ("ana@example.com"), which are no one's address.
func placeholderDomain(d string) bool {
	d = strings.ToLower(d)
	for _, p := range []string{"example.com", "example.org", "example.net"} {
		if d == p || strings.HasSuffix(d, "."+p) {
			return true
		}
	}
	return false
}

// emailByte reports a byte that can end an email address's local part.
func emailByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '-' || c == '+' || c == '%'
}

// hasName reports a capitalised word that does not start a sentence.
func hasName(text string) bool {
	prevEnd := true
	for _, w := range strings.Fields(text) {
		r := []rune(w)
		if !prevEnd && len(r) > 1 && unicode.IsUpper(r[0]) {
			return true
		}
		prevEnd = strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!") || strings.HasSuffix(w, ":")
	}
	return false
}
