package judge

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index/encoder"
)

// Judge verifies the claims of an answer against the passages they cite.
// It is safe for concurrent use by many requests; remote judge calls share
// one semaphore of cfg.Concurrency slots.
type Judge struct {
	cfg   Config
	log   *zap.Logger
	local *Local
	llm   *LLM // nil when cfg.Verifier is local
	m     *Metrics
	cache prepCache
}

// Close closes the idle connections of the LLM verifier, if any; checks
// made after it still work.
func (j *Judge) Close() {
	if j.llm != nil {
		j.llm.client.Close()
	}
}

// New validates cfg and returns a Judge. log may be nil.
func New(cfg Config, log *zap.Logger) (*Judge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("verify config: %w", err)
	}
	if log == nil {
		log = zap.NewNop()
	}
	log = log.Named("judge")
	j := &Judge{cfg: cfg, log: log, local: NewLocal(cfg.Local), m: &Metrics{}}
	if cfg.Local.Encoder == "embedded" {
		enc, err := encoder.Default()
		if err != nil {
			return nil, fmt.Errorf("verify encoder: %w", err)
		}
		j.local = j.local.WithEncoder(enc)
	}
	if cfg.Verifier != "local" {
		j.llm = NewLLM(cfg.LLM, cfg.ChainPoll, make(chan struct{}, cfg.Concurrency), log)
		j.llm.metrics = j.m
	}
	return j, nil
}

// UseMetrics makes j count into m instead of its own counters, so that the
// Judges of successive configurations share one set of series. It must be
// called before j is used; it returns j.
func (j *Judge) UseMetrics(m *Metrics) *Judge {
	j.m = m
	if j.llm != nil {
		j.llm.metrics = m
	}
	return j
}

// Mode returns "report" or "strict".
func (j *Judge) Mode() string { return j.cfg.Mode }

// Reason texts, stable for clients.
const (
	reasonDegraded   = "llm judge unavailable: checked by the local verifier"
	reasonNotClaim   = "not checked: not a checkable claim"
	reasonUnresolved = "not checked: no cited passage resolves"
)

func reasonShortContext(chars, min int) string {
	return fmt.Sprintf("uncited; not checked against the turn's notes: their combined context is %d chars (< verify.min_context_chars %d)", chars, min)
}

// Turn is the judge's view of one chat turn: the notes handed to the model
// are the turn's combined context. Seed 000's 500-character rule applies
// where the seed applies it: to judging a sentence against that combined
// knowledge when it cites no specific evidence (the uncited-claim flagger,
// see Finish). A cited claim is always verified against its cited passages,
// whatever their length or the turn's. A Turn is safe for concurrent use.
type Turn struct {
	j     *Judge
	chars int // combined context
}

// Turn returns the checker of one turn whose combined context is notes.
func (j *Judge) Turn(notes []Passage) *Turn {
	return &Turn{j: j, chars: contextChars(notes)}
}

// Inline reports whether a claim's check is the local verifier's alone,
// without the sentence encoder: CPU only, tens of microseconds, cheap
// enough to run on the caller's goroutine instead of a goroutine of its
// own (whose stack the check grows, about a fifth of its cost).
func (t *Turn) Inline() bool { return t.j.llm == nil && t.j.local.enc == nil }

// Chars is the turn's combined context in characters.
func (t *Turn) Chars() int { return t.chars }

func contextChars(ps []Passage) int {
	n := 0
	for _, p := range ps {
		n += len(p.Text)
	}
	return n
}

// Check is Judge.Check within the turn.
func (t *Turn) Check(ctx context.Context, sentence string, cited map[int]Passage) (Claim, []int) {
	c, drop, _ := t.j.check(ctx, sentence, cited, t)
	if len(drop) > 0 {
		t.j.m.dropped.Add(int64(len(drop)))
	}
	return c, drop
}

// Claim is Judge.Claim within the turn.
func (t *Turn) Claim(ctx context.Context, sentence string, cited map[int]Passage) Claim {
	c, _, _ := t.j.check(ctx, sentence, cited, t)
	return c
}

// Check verifies one sentence against the passages it cites and returns the
// claim and the citation numbers to drop before the sentence is emitted
// (strict mode): those that resolve to no passage, and all of them when the
// sentence is judged contradicted or unsupported (a missing citation is a
// safe failure). For a sentence that is not a claim (a heading, a question,
// filler) the returned Claim has an empty Verdict and nothing is dropped.
// An uncited factual sentence gets verdict neutral with Uncited "gap"
// (Finish or Report classify it against the pool).
func (j *Judge) Check(ctx context.Context, sentence string, cited map[int]Passage) (Claim, []int) {
	c, drop, _ := j.check(ctx, sentence, cited, nil)
	if len(drop) > 0 {
		j.m.dropped.Add(int64(len(drop)))
	}
	return c, drop
}

// Claim verifies one completed sentence of a report-mode answer as it
// streams: Check without dropping anything. Pass the claims, in answer
// order, to Finish.
func (j *Judge) Claim(ctx context.Context, sentence string, cited map[int]Passage) Claim {
	c, _, _ := j.check(ctx, sentence, cited, nil)
	return c
}

// check verifies one sentence (turn may be nil: a cited claim is checked
// whatever the turn's context).
func (j *Judge) check(ctx context.Context, sentence string, cited map[int]Passage, turn *Turn) (Claim, []int, bool) {
	text := StripCitations(sentence)
	cites := Citations(sentence)
	c := Claim{Text: text, Citations: cites}
	if c.Citations == nil {
		c.Citations = []int{}
	}
	// IsOpinion(text), and IsFactual(text) sharing its lowercasing, of
	// the text as read ("I don’t know" as "I don't know")
	read := normQuotes(text)
	lower := strings.ToLower(read)
	opinion := hasOpinionCue(lower)
	if opinion && onlyOwnAdvice(lower) {
		// the business's own advice is checked against a cited source
		// that gives advice
		for _, n := range cites {
			if p, ok := cited[n]; ok && (advises(p.Text) || advises(p.Title)) {
				opinion = false
				break
			}
		}
	}
	var factual bool
	if strings.IndexByte(read, '[') < 0 {
		factual = isFactualLower(read, lower, opinion) // StripCitations again would find nothing to do
	} else {
		factual = IsFactual(read)
	}
	switch {
	case opinion:
		c.Verdict, c.Severity, c.Method, c.Reason = Opinion, Info, "none", "opinion: not checked"
		j.m.verdict(Opinion)
		j.score(&c, 0)
		return c, nil, false
	case len(cites) == 0 && !factual:
		return Claim{Text: text, Citations: []int{}}, nil, false
	case len(cites) == 0:
		c.Verdict, c.Severity, c.Method, c.Reason = Neutral, Minor, "none", "uncited"
		c.Uncited = "gap"
		j.score(&c, 0)
		return c, nil, false
	}
	var drop []int
	var ps []Passage
	var preps []*prepared
	for _, n := range cites {
		p, ok := cited[n]
		if !ok {
			drop = append(drop, n)
			continue
		}
		p.N = n
		ps = append(ps, p)
		preps = append(preps, j.cache.get(p))
	}
	switch {
	case len(ps) == 0:
		c.Verdict, c.Severity, c.Method, c.Reason = NotChecked, Minor, "none", reasonUnresolved
	case !factual:
		c.Verdict, c.Severity, c.Method, c.Reason = NotChecked, Info, "none", reasonNotClaim
	}
	if c.Verdict != "" {
		j.m.verdict(NotChecked)
		j.score(&c, len(ps))
		return c, drop, false
	}
	// a bare answer word opening the claim ("Yes! 6.1 Pitches are ...")
	// answers the question; what follows it is checked
	vt := CheckedText(text)
	v, degraded := j.verify(ctx, vt, ps, preps)
	c.Verdict, c.Confidence, c.Severity, c.Method, c.Evidence = v.Label, round3(v.Confidence), v.Severity, v.Method, v.Evidence
	c.Reason = reasonText(v)
	if degraded {
		c.Reason = reasonDegraded
	}
	switch v.Label {
	case Contradiction:
		c.Suggestion = "the cited source says otherwise: " + quote(v.Evidence)
		c.ClaimReview = claimReview(c, ps)
		drop = appendResolved(drop, ps)
	case Neutral:
		c.Suggestion = "the cited source does not state this: rephrase, or cite a source that does"
		drop = appendResolved(drop, ps)
	case Entailment:
		if len(ps) > 1 {
			// keep only the sources that do not contradict the claim
			for i, p := range ps {
				if lv := j.local.verifyChecked(vt, preps[i:i+1]); lv.Label == Contradiction {
					drop = append(drop, p.N)
				}
			}
		}
	}
	j.score(&c, len(ps))
	return c, drop, degraded
}

func appendResolved(drop []int, ps []Passage) []int {
	for _, p := range ps {
		drop = append(drop, p.N)
	}
	return drop
}

// verify runs the configured verifier(s) on one claim within
// cfg.SentenceTimeout; a failing LLM degrades to the local verdict.
func (j *Judge) verify(ctx context.Context, text string, ps []Passage, preps []*prepared) (Verdict, bool) {
	start := time.Now()
	defer func() { j.m.observe(time.Since(start)) }()
	if j.llm == nil {
		v := j.local.verifyChecked(text, preps)
		j.m.verdict(v.Label)
		return v, false
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.SentenceTimeout)
	defer cancel()
	type res struct {
		v   Verdict
		err error
	}
	ch := make(chan res, 1)
	go func() {
		defer func() {
			// a bug reading the judge model's answer is a failed call
			// (the local verdict, degraded), not the end of the server: a
			// panic on this goroutine is out of the request's recover
			if v := recover(); v != nil {
				ch <- res{err: fmt.Errorf("judge: the LLM verifier panicked: %v", v)}
			}
		}()
		v, err := j.llm.Verify(ctx, text, ps)
		ch <- res{v, err}
	}()
	var local Verdict
	if j.cfg.Verifier == "both" {
		local = j.local.verifyChecked(text, preps) // concurrently with the LLM call
	}
	r := <-ch
	if r.err == nil {
		j.m.verdict(r.v.Label)
		return r.v, false
	}
	j.m.degraded.Add(1)
	if c := j.log.Check(zap.WarnLevel, "llm judge failed, using local verifier"); c != nil {
		c.Write(zap.Error(r.err))
	}
	if j.cfg.Verifier != "both" {
		local = j.local.verifyChecked(text, preps)
	}
	j.m.verdict(local.Label)
	return local, true
}

// score fills Reliability and Risk:
// 0.30*has_source + 0.30*source_resolves + 0.40*confidence + multi-source
// bonus (0.05 per extra supporting source, at most 0.10). has_source: a
// citation resolves to a passage; source_resolves: the cited source backs
// the claim (entailment; 0.5 when not checked); confidence: the verifier's
// confidence that the claim is supported (entailment: its confidence;
// neutral: half the doubt left; contradiction: 0; not checked: 0.5).
// Uncited claims score only the confidence of the best pool support.
func (j *Judge) score(c *Claim, resolved int) {
	if c.Verdict == Opinion {
		c.Reliability, c.Risk = 0, "n/a"
		return
	}
	w := j.cfg.Reliability
	var has, res, conf, bonus float64
	if resolved > 0 {
		has = 1
	}
	switch c.Verdict {
	case Entailment:
		res, conf = 1, c.Confidence
		if resolved > 1 {
			bonus = min(w.BonusMax, w.BonusPerSource*float64(resolved-1))
		}
	case Neutral:
		conf = 0.5 * (1 - c.Confidence)
		if len(c.Citations) == 0 {
			conf = 0
		}
	case NotChecked:
		res, conf = 0.5, 0.5
		if resolved == 0 {
			res, conf = 0, 0
		}
	}
	r := min(1, w.HasSource*has+w.Resolves*res+w.Confidence*conf+bonus)
	c.Reliability = round3(r)
	c.Risk = j.riskOf(r)
}

func (j *Judge) riskOf(r float64) string {
	switch {
	case r < j.cfg.Reliability.HighBelow:
		return "high"
	case r < j.cfg.Reliability.LowFrom:
		return "medium"
	default:
		return "low"
	}
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

func quote(s string) string {
	if s == "" {
		return "(no span)"
	}
	return "\"" + s + "\""
}

// claimReview returns a Schema.org ClaimReview JSON-LD object for a
// contradicted claim.
func claimReview(c Claim, ps []Passage) map[string]any {
	var apps []any
	for _, p := range ps {
		apps = append(apps, map[string]any{"@type": "CreativeWork", "identifier": p.ID, "name": p.Title})
	}
	return map[string]any{
		"@context":      "https://schema.org",
		"@type":         "ClaimReview",
		"claimReviewed": c.Text,
		"author":        map[string]any{"@type": "Organization", "name": "answer-guard"},
		"reviewRating": map[string]any{
			"@type": "Rating", "ratingValue": 1, "bestRating": 5, "worstRating": 1,
			"alternateName": "Contradicted by the cited source",
		},
		"itemReviewed": map[string]any{"@type": "Claim", "appearance": apps},
		"reviewBody":   "The cited source states: " + c.Evidence,
	}
}

// Summarize counts claims: every claim with a verdict except opinions;
// verified = entailment; miscited = cited and judged contradiction or
// neutral; uncited = factual sentences without citation; gaps = uncited ones
// no source supports.
func (j *Judge) Summarize(claims []Claim) Summary {
	var s Summary
	for _, c := range claims {
		if c.Verdict == "" || c.Verdict == Opinion {
			continue
		}
		s.Claims++
		switch {
		case len(c.Citations) == 0:
			s.Uncited++
			if c.Uncited == "gap" {
				s.Gaps++
			}
		case c.Verdict == Entailment:
			s.Verified++
		case c.Verdict == Contradiction || c.Verdict == Neutral:
			s.Miscited++
		}
	}
	return s
}

// Report verifies a whole answer (report mode): every sentence against the
// passages it cites (by output number), every uncited factual sentence
// against this turn's pool and the other KBs (other may be nil). The pool
// (the cited passages when it is empty) is the turn's combined context for
// the minimum-context rule of the flagger (see Finish). Remote calls run concurrently,
// bounded by the judge's semaphore.
func (j *Judge) Report(ctx context.Context, answer string, cited map[int]Passage, pool []Passage, other OtherKBs) Report {
	sents := Split(answer)
	claims := make([]Claim, len(sents))
	degraded := make([]bool, len(sents))
	ctxt := pool
	if len(ctxt) == 0 {
		for _, p := range cited {
			ctxt = append(ctxt, p)
		}
	}
	turn := j.Turn(ctxt)
	if len(pool) == 0 {
		pool = ctxt
	}
	if j.llm == nil {
		for i, s := range sents {
			claims[i], _, degraded[i] = j.check(ctx, s, cited, turn)
		}
	} else {
		var wg sync.WaitGroup
		for i, s := range sents {
			wg.Go(func() { claims[i], _, degraded[i] = j.check(ctx, s, cited, turn) })
		}
		wg.Wait()
	}
	out := make([]Claim, 0, len(claims))
	deg := false
	for i, c := range claims {
		if c.Verdict != "" {
			out = append(out, c)
		}
		deg = deg || degraded[i]
	}
	return j.finish(ctx, out, pool, other, deg)
}

// Finish builds the report from the claims Check (strict) or Claim (report
// mode, verified as the answer streamed) returned:
// it classifies the uncited ones against the pool and the other KBs, counts
// them and writes the footer. The pool is the turn's combined context: when
// it totals fewer than verify.min_context_chars characters, an uncited
// claim is not judged against it (seed 000's rule): verdict not_checked,
// uncited "not_checked", and the reason says so.
func (j *Judge) Finish(ctx context.Context, claims []Claim, pool []Passage, other OtherKBs) Report {
	out := make([]Claim, 0, len(claims))
	deg := false
	for _, c := range claims {
		if c.Verdict != "" {
			out = append(out, c)
		}
		deg = deg || c.Reason == reasonDegraded
	}
	return j.finish(ctx, out, pool, other, deg)
}

func (j *Judge) finish(ctx context.Context, claims []Claim, pool []Passage, other OtherKBs, degraded bool) Report {
	chars := contextChars(pool)
	short := chars < j.cfg.MinContextChars
	for i := range claims {
		c := &claims[i]
		if len(c.Citations) != 0 || c.Uncited == "" {
			continue
		}
		if short {
			c.Verdict, c.Severity, c.Uncited = NotChecked, Info, UncitedNotChecked
			c.Reason = reasonShortContext(chars, j.cfg.MinContextChars)
			c.Suggestion = "cite the note this comes from, or treat it as unverified"
			continue
		}
		j.classifyUncited(ctx, c, pool, other)
	}
	r := Report{Claims: claims, Summary: j.Summarize(claims)}
	if degraded {
		r.Degraded = []string{"judge"}
	}
	if j.cfg.Footer {
		r.Footer = footer(r.Summary, degraded)
	}
	return r
}

// classifyUncited decides whether an uncited factual claim is supported by
// a passage of this turn's pool (likely_missed), by another KB (other_kb),
// or by nothing (gap). Support is judged by the local verifier.
func (j *Judge) classifyUncited(ctx context.Context, c *Claim, pool []Passage, other OtherKBs) {
	best, bestConf := -1, 0.0
	for i, p := range pool {
		v := j.local.verify(c.Text, []*prepared{j.cache.get(p)})
		if v.Label == Entailment && v.Confidence > bestConf {
			best, bestConf = i, v.Confidence
			c.Evidence = v.Evidence
		}
	}
	if best >= 0 {
		p := pool[best]
		c.Uncited, c.Confidence = "likely_missed", round3(bestConf)
		c.Suggestion = fmt.Sprintf("likely from %s: cite it", passageName(p))
		c.Reliability = round3(j.cfg.Reliability.Confidence * bestConf)
		c.Risk = j.riskOf(c.Reliability)
		return
	}
	if other != nil {
		if kb, p, ok := other.Find(ctx, c.Text); ok {
			v := j.local.verify(c.Text, []*prepared{j.cache.get(p)})
			if v.Label == Entailment {
				c.Uncited, c.Confidence, c.Evidence = "other_kb", round3(v.Confidence), v.Evidence
				c.Suggestion = fmt.Sprintf("found in knowledge base %q: %s", kb, passageName(p))
				c.Reliability = round3(j.cfg.Reliability.Confidence * v.Confidence)
				c.Risk = j.riskOf(c.Reliability)
				return
			}
		}
	}
	c.Uncited = "gap"
	c.Suggestion = "no source in the knowledge base supports this: treat it as unverified"
}

func passageName(p Passage) string {
	var b strings.Builder
	if p.N > 0 {
		fmt.Fprintf(&b, "[%d] ", p.N)
	}
	if p.Title != "" {
		fmt.Fprintf(&b, "%q ", p.Title)
	}
	fmt.Fprintf(&b, "(%s)", p.ID)
	return b.String()
}

func footer(s Summary, degraded bool) string {
	f := fmt.Sprintf("Trust check: %d claims, %d verified, %d miscited, %d uncited (%d with no source).",
		s.Claims, s.Verified, s.Miscited, s.Uncited, s.Gaps)
	if degraded {
		f += " LLM judge unavailable: local checks only."
	}
	return f
}

// prepCache keeps analysed passages so a passage cited by many sentences
// (or many requests) is analysed once.
type prepCache struct {
	m boundedMap[prepKey, *prepared]
}

type prepKey struct {
	id    string
	n     int
	h, th uint64 // the text's and the title's hashes (prepare reads both)
}

const prepCacheMax = 1024

func (pc *prepCache) get(p Passage) *prepared {
	k := prepKey{id: p.ID, n: len(p.Text), h: maphash.String(prepSeed, p.Text), th: maphash.String(prepSeed, p.Title)}
	return pc.m.get(k, prepCacheMax, func() *prepared { return prepare(p.Title, p.Text) })
}

// boundedMap is a cache of values made on a miss, safe for concurrent
// use; it is bounded: when it holds max entries it is emptied.
type boundedMap[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// reset empties the map.
func (b *boundedMap[K, V]) reset() {
	b.mu.Lock()
	b.m = nil
	b.mu.Unlock()
}

// get returns k's value, made by mk (outside the lock) and kept on a miss.
func (b *boundedMap[K, V]) get(k K, max int, mk func() V) V {
	b.mu.Lock()
	v, ok := b.m[k]
	b.mu.Unlock()
	if ok {
		return v
	}
	v = mk()
	b.mu.Lock()
	if b.m == nil || len(b.m) >= max {
		b.m = make(map[K]V)
	}
	b.m[k] = v
	b.mu.Unlock()
	return v
}

// prepSeed seeds the hashes of prepCache's keys (the runtime's AES hash:
// a 700-byte passage in tens of nanoseconds, where FNV took a
// microsecond).
var prepSeed = maphash.MakeSeed()

// reasonActions say what to do about each machine-readable reason.
var reasonActions = map[string]string{
	"covered":               "the cited source states this",
	"number_mismatch":       "the cited source gives another number or date: correct it from the evidence",
	"negation":              "the cited source states the negation: correct the claim or drop it",
	"antonym":               "the cited source says the opposite: correct the claim or drop it",
	"wrong_subject":         "the cited source says this of something else",
	"swapped_roles":         "the cited source names the same parties in the opposite roles",
	"entity_mismatch":       "the cited source names someone or something else",
	"missing_anchor":        "a name or number of the claim is not in the cited source",
	ReasonMissingTerm:       "a thing the claim names is not in the cited source",
	ReasonOtherClass:        "the cited source says this of the others (non-members where the claim says members, or the reverse)",
	ReasonPriceMismatch:     "the cited source gives another price: correct it from the evidence",
	ReasonReferenceMismatch: "the cited source names another clause or section for this: correct the reference from the evidence",
	"direction_unstated":    "the cited source does not state this change (increase or decrease)",
	"low_overlap":           "the cited source shares little with the claim: cite the source it came from",
	"not_covered":           "the cited source does not state all of this: rephrase, or cite a source that does",
	ReasonScopeWidened:      "the claim widens a limit the cited source sets: restore the limit",
	ReasonConditionDropped:  "the claim leaves out a condition the cited source states: restore it",
	ReasonRangeMismatch:     "the cited source states another range or bound: correct it from the evidence",
	ReasonCellMismatch:      "the cited table gives another value in this row: correct it from the evidence",
	ReasonVerbatim:          "the claim quotes the cited source word for word",
}

// reasonText is a claim's reason: the verifier's code, then what to do.
func reasonText(v Verdict) string {
	if v.Reason == "" {
		return ""
	}
	what := v.Detail
	if what == "" {
		what = reasonActions[v.Reason]
	} else if a := reasonActions[v.Reason]; a != "" && v.Reason != "wrong_subject" && v.Reason != "missing_anchor" && v.Reason != ReasonMissingTerm && v.Reason != ReasonOtherClass && v.Reason != "entity_mismatch" && v.Reason != ReasonScopeWidened && v.Reason != ReasonConditionDropped && v.Reason != ReasonRangeMismatch {
		what = a + " (" + what + ")"
	}
	if what == "" {
		return v.Reason
	}
	return v.Reason + ": " + what
}
