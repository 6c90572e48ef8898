package gate

import (
	"context"
	"math"
	"slices"
	"strings"
)

// Candidate is one retrieved passage as the proxy hands it to the gate.
type Candidate struct {
	ID, Title, Kind, Address, URL, Text string
	// Score is the calibrated retrieval relevance in [0,1]; Rerank is the
	// calibrated rerank relevance in [0,1], meaningful when a reranker ran.
	Score, Rerank float64
	// Forced marks lexical and address lane hits: they skip the prefloor.
	Forced bool
	// Lanes are the lanes that found it (dense, lexical, address, memory).
	Lanes []string
	// Answer is the answerability model's probability that the passage
	// answers the question, and Features its inputs; set by
	// AnswerModel.Assess before Decide.
	Answer   float64
	Features Features
	// TypeHit: the question asks for an answer type and the passage holds
	// one, or it is a contact question of no type ("how can i contact
	// you") and the passage holds a phone number, an email address or a
	// street address (set by Assess); Decide reads it for a contact
	// question (Ask.Contact) that asks for a contact detail or for none.
	TypeHit bool
	// Sim is the sentence encoder's cosine between the question and the
	// passage (title and text), Soft the word vectors' soft coverage of the
	// question's words by the passage's; both meaningful only when
	// Semantic is set (retrieve computed them).
	Sim, Soft float64
	// SoftMin is the word vectors' best cosine for the question's
	// worst-covered word (the one thing a passage on the topic may lack).
	SoftMin float64
	// Focus, FocusMiss, FocusWorst and SentSoft are the focus features
	// (see FFocus..FSent), meaningful only when Semantic is set.
	Focus, FocusMiss, FocusWorst, SentSoft float64
	Semantic                               bool
	// Coherence is the queried partition's topical coherence (the mean
	// cosine between two of its passages' encoder vectors relative to the
	// encoder's background, measured at index build), meaningful when
	// Semantic is set; 0 when the index keeps none (built before it was
	// measured). gate.on_topic_coherence compares it.
	Coherence float64
	// Relevance is the relevance model's calibrated probability that the
	// passage is about the question (set by RelevanceModel.Rate after
	// Assess); the coverage gate compares it with its thresholds.
	Relevance float64
	// Terms, when set, are the passage's prepared terms (NewPassageTerms
	// of Title and Text), so Assess need not tokenize it again; nil: Assess
	// computes them.
	Terms *PassageTerms
}

// Decision is what the gate decided for a turn.
type Decision string

// The three decisions of the gate, and the one a turn gets when the
// pipeline is switched off.
const (
	Ground      Decision = "ground"      // answer from the notes
	Refuse      Decision = "refuse"      // no upstream call; reply with the refusal text
	Fallback    Decision = "fallback"    // bail out to the fallback model, general knowledge + disclaimer
	Passthrough Decision = "passthrough" // no stage ran (pipeline.enabled: false); never returned by Decide
)

// Coverage summarises the surviving pool.
type Coverage struct {
	// Max is the highest calibrated relevance among the survivors.
	Max              float64 `json:"max"`
	PrimaryKindCount int     `json:"primary_kind_count"`
	// Outline is how many notes the synthesis planner kept.
	Outline int `json:"outline"`
}

// Note is one surviving passage minted as the footnote [^N] for this turn.
// N runs 1..k; the other fields are the server-side alias entry.
type Note struct {
	N                                   int
	ID, Title, Address, URL, Kind, Text string
}

// Outcome is the gate's result for one turn.
type Outcome struct {
	Decision Decision
	Coverage Coverage
	// Notes are the survivors minted as [^1]..[^k]; empty unless Ground.
	Notes []Note
	// Checks are the booleans the decision was made from, for the log:
	// rerank_active, empty, sufficient, good_enough, bail_out, between,
	// caveat, on_topic (below bail-out, yet close in meaning: refused),
	// off_topic; for a contact question (Ask.Contact) also contact,
	// contact_hit (grounded on the passages holding the phone number,
	// email, street address or opening hours asked for, or for a question
	// of no type any of the first three) and contact_gap
	// (refused as on-topic).
	Checks map[string]bool
	// Floored counts the candidates dropped by the prefloor.
	Floored int
	// Lowered is how far the general-question rule lowered every
	// candidate's relevance, in logit (Config.GeneralAbove); 0 when it did
	// not apply. Compared gives a candidate's relevance as compared.
	Lowered float64
	// Survivors are the candidates behind Notes, in the same order.
	Survivors []Candidate
	// Closest names the topics of the best surviving passages (their
	// titles, or a short lead of the text when untitled), best first, at
	// most cfg.ClosestTopics: what a refusal says the sources do cover.
	Closest []string
}

// Caveat reports whether the turn was grounded from the in-between band
// (between: ground), so the prompt should carry the caveat.
func (o Outcome) Caveat() bool { return o.Checks["caveat"] }

// relevance is the score the thresholds are compared against.
// Compared is c's relevance as Decide compares it with the thresholds:
// the score cfg.Relevance names, lowered by lower in logit (the
// outcome's Lowered).
func Compared(cfg Config, c Candidate, rerankActive bool, lower float64) float64 {
	return lowered(relevance(cfg, c, rerankActive), lower)
}

func relevance(cfg Config, c Candidate, rerankActive bool) float64 {
	switch {
	case cfg.Relevance == RelevanceModel:
		return c.Relevance
	case cfg.Relevance == RelevanceAnswerability:
		return c.Answer
	case rerankActive:
		return c.Rerank
	}
	return c.Score
}

// Decide applies the prefloor and the coverage gate to cands (in retrieve's
// order) and mints the notes of a grounded turn. It never modifies cands.
//
// ask is what the question asks for (AskOf). A question for the service's
// own phone number, email address, street address or opening hours
// (Ask.Contact) is grounded on the candidates that hold one (TypeHit),
// first and whatever their relevance, and refused as a gap of the corpus
// when none does. A contact question of no type ("how can i contact you")
// is grounded likewise on the candidates that hold any way to reach the
// service (a phone number, an email address or a street address: TypeHit);
// where none does, the thresholds decide, but refuse as on-topic (naming
// the closest topics) where they would bail out. The zero Ask decides by
// the thresholds alone.
func Decide(cfg Config, cands []Candidate, rerankActive bool, ask Ask) Outcome {
	floor := cfg.PrefloorNoRerank
	if rerankActive {
		floor = cfg.Prefloor
	}
	o := Outcome{Checks: make(map[string]bool, 12)}
	strict := ask.Contact && ask.strict()
	contactHit := false
	if strict || ask.Contact && ask.Type == "" { // a contact question of no type: any contact detail
		for _, c := range cands {
			contactHit = contactHit || c.TypeHit
		}
	}
	// A general-knowledge question on a one-topic corpus: every passage's
	// relevance is lowered (Config.GeneralAbove).
	general := ask.General > cfg.GeneralAbove && cfg.GeneralWeight > 0 && !ask.Contact && ask.Names == "" && OneTopic(cfg, cands)
	lower := 0.0
	if general {
		lower = cfg.GeneralWeight * (ask.General - cfg.GeneralAbove)
	}
	survivors := make([]Candidate, 0, len(cands))
	for pass := range 2 { // with a contact hit, the passages that hold it first
		if pass == 1 && !contactHit {
			break
		}
		for _, c := range cands {
			hit := contactHit && c.TypeHit
			if contactHit && hit != (pass == 0) {
				continue
			}
			r := Compared(cfg, c, rerankActive, lower)
			if !hit && !c.Forced && !(r >= floor) { // NaN is below every floor
				o.Floored++
				continue
			}
			survivors = append(survivors, c)
			if r > o.Coverage.Max {
				o.Coverage.Max = r
			}
			if cfg.PrimaryKind == "" || c.Kind == cfg.PrimaryKind {
				o.Coverage.PrimaryKindCount++
			}
		}
	}
	max := o.Coverage.Max
	sufficient := max >= cfg.SufficientMax && o.Coverage.PrimaryKindCount >= cfg.PrimaryMin
	goodEnough := sufficient || max >= cfg.GoodEnoughMax
	bailOut := max < cfg.BailOutBelow
	// "write me a poem", "unrelated, but ...", "how much does Specsavers
	// charge?": off-topic by its form, whatever a shared word scored
	byForm := ask.Task || ask.Aside || ask.Advice // AskOf never sets them for a contact question
	other := cfg.OtherBusiness && ask.Other != "" && !ask.Contact && !byForm && OneTopic(cfg, cands)
	if byForm || other {
		sufficient, goodEnough, bailOut = false, false, true
		switch {
		case ask.Task:
			o.Checks["task"] = true
		case ask.Aside:
			o.Checks["aside"] = true
		case ask.Advice:
			o.Checks["advice"] = true
		default:
			o.Checks["other_business"] = true
		}
	}
	between := !goodEnough && !bailOut
	if general && between { // middling evidence for a general question: per off_topic, as below bail-out
		bailOut, between = true, false
	}
	caveat := between && cfg.Between == BetweenGround
	bySim := cfg.OnTopicSim > 0 && BestSim(cands) >= cfg.OnTopicSim
	onTopic := bailOut && !goodEnough && !byForm && !other && !general && (bySim || cfg.OnTopicYou && ask.You && Coherence(cands) > 0) && OneTopic(cfg, cands)
	// contactGap: a contact question the corpus cannot answer (no passage
	// holds the contact detail asked for, or nothing clears
	// bail-out): refused as on-topic, never answered from general knowledge
	contactGap := ask.Contact && (strict && !contactHit || bailOut && !goodEnough && !contactHit)
	if (onTopic || contactGap) && len(survivors) == 0 {
		o.Closest = closest(cfg, cands, rerankActive) // what the refusal names: the nearest passages, floored or not
	} else {
		o.Closest = closest(cfg, survivors, rerankActive)
	}

	o.Checks["rerank_active"] = rerankActive
	o.Checks["empty"] = len(survivors) == 0
	o.Checks["sufficient"] = sufficient
	o.Checks["good_enough"] = goodEnough
	o.Checks["bail_out"] = bailOut
	o.Checks["between"] = between
	o.Checks["caveat"] = caveat
	o.Checks["on_topic"] = onTopic
	o.Checks["on_topic_you"] = onTopic && !bySim
	o.Checks["general"] = general
	o.Lowered = lower
	o.Checks["off_topic"] = bailOut && !goodEnough && !onTopic && !contactGap && !contactHit && cfg.OffTopic == OffTopicRefuse
	if ask.Contact {
		o.Checks["contact"] = true
		o.Checks["contact_hit"] = contactHit
		o.Checks["contact_gap"] = contactGap
	}

	switch { // good_enough wins over bail_out should the thresholds overlap
	case contactHit:
		o.Decision = Ground
	case contactGap:
		o.Decision = Refuse
	case goodEnough || caveat:
		o.Decision = Ground
	case onTopic:
		o.Decision = Refuse
	case bailOut && cfg.OffTopic == OffTopicRefuse:
		o.Decision = Refuse
	case bailOut:
		o.Decision = Fallback
	default:
		o.Decision = Refuse
	}
	if o.Decision != Ground {
		return o
	}
	k := min(len(survivors), cfg.MaxNotes)
	if cfg.MaxNotes <= 0 {
		k = len(survivors)
	}
	o.Survivors = survivors[:k]
	o.Notes = make([]Note, k)
	for i, c := range survivors[:k] {
		o.Notes[i] = Note{N: i + 1, ID: c.ID, Title: c.Title, Address: c.Address, URL: c.URL, Kind: c.Kind, Text: c.Text}
	}
	return o
}

// lowered is relevance r lowered by d in logit (r itself when d is 0; r
// is read in [1e-6, 1-1e-6], so a saturated 1 is lowered too).
func lowered(r, d float64) float64 {
	if d == 0 || math.IsNaN(r) {
		return r
	}
	r = min(max(r, 1e-6), 1-1e-6)
	return 1 / (1 + math.Exp(math.Log(1-r)-math.Log(r)+d))
}

// BestSim is the sentence encoder's best cosine between the question and
// a candidate with semantic features (-1 when none has them).
func BestSim(cands []Candidate) float64 {
	best := -1.0
	for _, c := range cands {
		if c.Semantic && c.Sim > best {
			best = c.Sim
		}
	}
	return best
}

// OneTopic reports whether the queried partition keeps to one topic, so
// that a question close in meaning to it is on its topic: its coherence
// reaches cfg.OnTopicCoherence (or that check is off, 0, or the index
// keeps no coherence, when on_topic_sim alone decides, as before the
// coherence was measured). A mixed archive (an encyclopedia's paragraphs)
// falls below: a question close to some of its passages is as likely
// about something else of the same kind. The relevance model's pool
// scale (AnswerModel.Rate) applies only where it holds.
func OneTopic(cfg Config, cands []Candidate) bool {
	coh := Coherence(cands)
	return cfg.OnTopicCoherence <= 0 || coh == 0 || coh >= cfg.OnTopicCoherence
}

// Coherence is the queried partition's coherence as its candidates with
// semantic features carry it (0 when none does, or the index keeps none).
func Coherence(cands []Candidate) float64 {
	for _, c := range cands {
		if c.Semantic && c.Coherence != 0 {
			return c.Coherence
		}
	}
	return 0
}

// closest names the topics of the best survivors by relevance.
func closest(cfg Config, survivors []Candidate, rerankActive bool) []string {
	if cfg.ClosestTopics <= 0 || len(survivors) == 0 {
		return nil
	}
	idx := make([]int, len(survivors))
	rel := make([]float64, len(survivors))
	for i := range idx {
		idx[i] = i
		rel[i] = relevance(cfg, survivors[i], rerankActive)
	}
	// the order sort.SliceStable gives with "a before b when rel[a] >
	// rel[b]" (the same stable insertion and merge steps), without its
	// reflection
	slices.SortStableFunc(idx, func(a, b int) int { return byHigher(rel[a], rel[b]) })
	var out []string
	for _, i := range idx {
		t := topicOf(survivors[i])
		// A title several survivors share (an untitled plain-text file's
		// name, a long section cut in two) says too little alone, and so
		// does a file name standing for a title ("staying-with-us"): such
		// a topic adds the passage's first words.
		if titleShared(survivors, t) || fileSlug(t) {
			if lead := leadWords(survivors[i].Text); lead != "" {
				t += ": " + lead
			}
		}
		if t == "" || slices.Contains(out, t) {
			continue
		}
		out = append(out, t)
		if len(out) == cfg.ClosestTopics {
			break
		}
	}
	return out
}

// titleShared reports whether two or more of survivors carry the title t.
// It runs only for the few topics a refusal names, so closest, which every
// turn calls, keeps no per-turn count of titles.
func titleShared(survivors []Candidate, t string) bool {
	if t == "" {
		return false
	}
	n := 0
	for _, c := range survivors {
		if collapseSpace(c.Title) == t {
			if n++; n > 1 {
				return true
			}
		}
	}
	return false
}

// fileSlug reports whether title t reads as a file's name rather than
// a title a writer gave: one lowercase word of letters and digits joined
// by '-' or '_' ("staying-with-us", "price_list"), as the index titles a
// file in which no line reads as a title.
func fileSlug(t string) bool {
	joined := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == '-' || c == '_':
			joined = joined || i > 0 && i < len(t)-1
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return joined
}

// byHigher orders a before b when a > b (NaN ties with everything, as
// with a "less" of a > b).
func byHigher(a, b float64) int {
	switch {
	case a > b:
		return -1
	case b > a:
		return 1
	}
	return 0
}

// topicLeadWords is how many words of an untitled passage name its topic.
const topicLeadWords = 8

// topicOf is a passage's title, or the first words of its text.
func topicOf(c Candidate) string {
	if t := collapseSpace(c.Title); t != "" {
		return t
	}
	return leadWords(c.Text)
}

// leadWords is the first topicLeadWords words of text, " …" after them
// when more follow.
func leadWords(text string) string {
	// the first words are all it reads: Fields' first topicLeadWords+1
	var lead [topicLeadWords + 1]string
	words := lead[:0]
	for w := range strings.FieldsSeq(text) {
		words = append(words, w)
		if len(words) > topicLeadWords {
			break
		}
	}
	if len(words) <= topicLeadWords {
		return strings.TrimRight(strings.Join(words, " "), ".,;:")
	}
	return strings.TrimRight(strings.Join(words[:topicLeadWords], " "), ".,;:") + " …"
}

// RefusalMessage is the assistant message of a refused turn: for a
// question outside the corpus (off_topic: refuse) cfg.OffTopicText; else
// cfg.RefusalText followed by cfg.TopicsText naming the closest topics,
// when any passage came near.
func RefusalMessage(cfg Config, o Outcome) string {
	if o.Checks["off_topic"] {
		return cfg.OffTopicText
	}
	if len(o.Closest) == 0 || cfg.TopicsText == "" {
		return cfg.RefusalText
	}
	quoted := make([]string, len(o.Closest))
	for i, t := range o.Closest {
		quoted[i] = "\"" + t + "\""
	}
	return cfg.RefusalText + " " + strings.ReplaceAll(cfg.TopicsText, "{topics}", strings.Join(quoted, "; "))
}

// LocalOutline is the local synthesis planner: the indexes into
// o.Survivors of the notes whose answerability reaches
// cfg.Planner.MinSupport, best first, at most cfg.Planner.MaxOutline,
// or none when no note's answerability reaches cfg.Planner.MinBest (the
// corpus does not answer the question; see WeakBest). A note that holds
// the contact detail a contact question asks for (Checks["contact_hit"])
// supports the answer by rule, as a passage without one cannot
// (strictType).
func LocalOutline(cfg Config, o Outcome) []int {
	var idx []int
	hit := o.Checks["contact_hit"]
	if WeakBest(cfg, o) {
		return nil
	}
	for i, c := range o.Survivors {
		if c.Answer >= cfg.Planner.MinSupport || hit && c.TypeHit {
			idx = append(idx, i)
		}
	}
	key := func(i int) float64 { // a contact hit first (answerability is at most 1)
		if hit && o.Survivors[i].TypeHit {
			return o.Survivors[i].Answer + 2
		}
		return o.Survivors[i].Answer
	}
	slices.SortStableFunc(idx, func(a, b int) int { return byHigher(key(a), key(b)) })
	if len(idx) > cfg.Planner.MaxOutline {
		idx = idx[:cfg.Planner.MaxOutline]
	}
	return idx
}

// WeakBest reports whether the local planner refuses o because its best
// note's answerability is below the floor (MinBestFor; never for a contact
// question whose contact detail a note holds).
func WeakBest(cfg Config, o Outcome) bool {
	floor := MinBestFor(cfg, o)
	if floor <= 0 || o.Checks["contact_hit"] || len(o.Survivors) == 0 {
		return false
	}
	for _, c := range o.Survivors {
		if c.Answer >= floor {
			return false
		}
	}
	return true
}

// MinBestFor is the best note's least answerability the local planner
// needs to outline o: cfg.Planner.MinBest, or MinBestBetween when higher
// and o grounds from the between band (Checks["caveat"]).
func MinBestFor(cfg Config, o Outcome) float64 {
	if o.Checks["caveat"] {
		return cfg.Planner.BetweenFloor()
	}
	return cfg.Planner.MinBest
}

// ApplyOutline keeps the outlined notes of a grounded outcome, in outline
// order, renumbered [^1]..[^k]; an empty outline turns the decision into a
// refusal (Checks["empty_outline"]), so no answer model runs.
func ApplyOutline(o Outcome, outline []int) Outcome {
	if o.Decision != Ground {
		return o
	}
	o.Coverage.Outline = len(outline)
	o.Checks["empty_outline"] = len(outline) == 0
	if len(outline) == 0 {
		o.Decision = Refuse
		o.Notes, o.Survivors = nil, nil
		return o
	}
	notes := make([]Note, 0, len(outline))
	surv := make([]Candidate, 0, len(outline))
	for _, i := range outline {
		if i < 0 || i >= len(o.Notes) {
			continue
		}
		n := o.Notes[i]
		n.N = len(notes) + 1
		notes = append(notes, n)
		surv = append(surv, o.Survivors[i])
	}
	o.Notes, o.Survivors = notes, surv
	o.Coverage.Outline = len(notes)
	if len(notes) == 0 {
		o.Decision = Refuse
		o.Checks["empty_outline"] = true
	}
	return o
}

// Planner is a remote synthesis planner: given the question and the notes
// that survived the gate, it returns the indexes of the notes that support
// an answer, in outline order. The proxy hands one in when
// gate.planner.mode is remote; the gate itself does no I/O.
type Planner interface {
	Outline(ctx context.Context, question string, notes []Note) ([]int, error)
}
