package gate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/optimize"
)

// Calibration is one partition's calibration of the answerability model,
// measured on the corpus itself with pseudo-questions: calibrated =
// sigmoid(A*logit(p) + B). The index stores it (index.AnswerCalibration
// has the same fields, so the caller converts one into the other).
type Calibration struct {
	Tenant string  `json:"tenant"`
	KB     string  `json:"kb"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	// Questions is how many pseudo-questions were asked; Found how many
	// retrieved their own passage.
	Questions int `json:"questions"`
	Found     int `json:"found"`
	// Pos and Neg are quantiles (10, 25, 50, 75, 90%) of the model's
	// probability for a pseudo-question's own passage and for the best
	// other passage.
	Pos []float64 `json:"pos"`
	Neg []float64 `json:"neg"`
	// CutPoints maps each gate threshold name to the raw model
	// probability it corresponds to on this corpus.
	CutPoints map[string]float64 `json:"cut_points,omitempty"`
	Fit       string             `json:"fit"`
}

// Per-corpus calibration. The answerability model is fitted on labelled
// training sets; a new corpus has its own style (short FAQ entries, long
// policy pages, numbered rules) and so its own spread of scores. At index
// time each partition is asked pseudo-questions made from its own passages
// (a sentence's content words, about half of them, in a question frame):
// the model's probability for the passage a pseudo-question came from is a
// positive, its best probability among the other passages a negative. A
// one-dimensional logistic map (Platt scaling, shrunk toward the identity so
// a small corpus moves little) fitted on those pairs rescales the model's
// probabilities for that corpus, so the gate's thresholds keep their
// meaning. No label is needed: only the corpus text.

// PseudoSource is one passage pseudo-questions are made from.
type PseudoSource struct {
	// Key identifies the passage for the ask callback (e.g. its document
	// id: every chunk of the document counts as its own passage).
	Key, Title, Text string
}

// PseudoQuestion is a question made from Source's text.
type PseudoQuestion struct {
	Key  string
	Text string
}

// PseudoQuestions makes at most n pseudo-questions from srcs (content
// words as tok finds them), spread
// evenly over them (a small corpus gets up to pseudoRounds questions per
// passage); the same sources give the same questions.
func PseudoQuestions(tok Tokenizer, srcs []PseudoSource, n int) []PseudoQuestion {
	if n <= 0 || len(srcs) == 0 {
		return nil
	}
	step := max(1.0, float64(len(srcs))/float64(n))
	var out []PseudoQuestion
	seen := map[string]bool{}
	for round := 0; round < pseudoRounds && len(out) < n; round++ {
		for f := 0.0; int(f) < len(srcs) && len(out) < n; f += step {
			s := srcs[int(f)]
			if q := pseudoQuestion(tok, s, round); q != "" && !seen[s.Key+"\x00"+q] {
				seen[s.Key+"\x00"+q] = true
				out = append(out, PseudoQuestion{Key: s.Key, Text: q})
			}
		}
	}
	return out
}

// pseudoRounds bounds the questions made from one passage.
const pseudoRounds = 4

func pseudoQuestion(tok Tokenizer, s PseudoSource, round int) string {
	h := fnv.New64a()
	h.Write([]byte{byte(round)})
	h.Write([]byte(s.Key))
	h.Write([]byte(s.Text))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	// Sentences with at least four content words.
	var cands [][]string
	for _, sent := range splitSentences(s.Text) {
		var words []string
		for _, w := range strings.FieldsFunc(sent, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
			if len(tok(w)) > 0 {
				words = append(words, strings.ToLower(w))
			}
		}
		if len(words) >= 4 {
			cands = append(cands, words)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	words := cands[r.IntN(len(cands))]
	// A user's question shares only some of the passage's words: keep
	// about a third, two to four of them, in their order.
	var kept []string
	for _, w := range words {
		if r.IntN(3) == 0 {
			kept = append(kept, w)
		}
	}
	for i := 0; len(kept) < 2 && i < len(words); i++ {
		if !slices.Contains(kept, words[i]) {
			kept = append(kept, words[i])
		}
	}
	if len(kept) > 4 {
		kept = kept[:4]
	}
	frame := "what about "
	if strings.ContainsFunc(strings.Join(words, " "), unicode.IsDigit) {
		frame = "how much "
	}
	return frame + strings.Join(kept, " ") + "?"
}

func splitSentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if (text[i] == '.' || text[i] == '?' || text[i] == '!' || text[i] == '\n') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n') {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// CorpusAsk retrieves a pseudo-question against the corpus and returns the
// prepared question, the candidates in rank order, and for each whether it
// belongs to the passage the question was made from.
type CorpusAsk func(q PseudoQuestion) (Question, []Candidate, []bool, error)

// CalibrationShrink is the weight of the identity prior in the corpus fit:
// a corpus's pseudo-questions move the map only as far as their number and
// agreement carry it.
const CalibrationShrink = 2.0

// FitCorpusCalibration asks qs and fits the corpus's calibration map of
// m's probabilities. thresholds names the gate's thresholds whose raw cut
// points are reported.
func FitCorpusCalibration(m AnswerModel, qs []PseudoQuestion, ask CorpusAsk, thresholds map[string]float64) (Calibration, error) {
	cal := Calibration{A: 1, Questions: len(qs)}
	var pos, neg []float64
	for _, pq := range qs {
		q, cands, own, err := ask(pq)
		if err != nil {
			return cal, fmt.Errorf("pseudo-question %q: %w", pq.Text, err)
		}
		all := slices.Clone(cands)
		m.Assess(q, all)
		p, found := 0.0, false
		for i := range all {
			if own[i] {
				p, found = max(p, all[i].Answer), true
			}
		}
		if !found {
			continue // a retrieval miss says nothing about the gate's scale
		}
		cal.Found++
		pos = append(pos, p)
		var others []Candidate
		for i := range cands {
			if !own[i] {
				others = append(others, cands[i])
			}
		}
		m.Assess(q, others)
		best := 0.0
		for _, c := range others {
			best = max(best, c.Answer)
		}
		neg = append(neg, best)
	}
	cal.Pos, cal.Neg = quantiles(pos), quantiles(neg)
	if len(pos) < 5 {
		cal.Fit = fmt.Sprintf("identity: %d of %d pseudo-questions found their passage (need 5)", len(pos), len(qs))
		cal.CutPoints = cutPoints(cal, thresholds)
		return cal, nil
	}
	if auc := rankAUC(pos, neg); auc < MinCalibrationAUC {
		// The corpus's passages are too alike for its own pseudo-questions
		// to tell their source from the others (a handbook whose pages
		// overlap, templated entries): a fitted map would flatten every
		// probability toward one value. Keep the model's scale.
		cal.Fit = fmt.Sprintf("identity: pseudo-questions rank their own passage above the best other one with AUC %.2f (< %.2f)", auc, MinCalibrationAUC)
		cal.CutPoints = cutPoints(cal, thresholds)
		return cal, nil
	}
	a, b, err := fitPlatt(pos, neg, CalibrationShrink)
	if err != nil {
		// Passages too alike to tell apart (templated entries): say so
		// and keep the model's own scale rather than fail the build.
		cal.Fit = "identity: " + err.Error()
		cal.CutPoints = cutPoints(cal, thresholds)
		return cal, nil
	}
	cal.A, cal.B = a, b
	cal.Fit = fmt.Sprintf("platt on %d positive / %d negative pseudo-question pairs, identity prior %.1f", len(pos), len(neg), CalibrationShrink)
	cal.CutPoints = cutPoints(cal, thresholds)
	return cal, nil
}

// MinCalibrationAUC is the least separation (the probability that a
// pseudo-question's own passage outscores the best other one) at which a
// corpus map is fitted; below it the calibration is the identity.
const MinCalibrationAUC = 0.75

// rankAUC is the share of (positive, negative) pairs ordered correctly,
// ties counting half.
func rankAUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return 0.5
	}
	var s float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				s++
			case p == n:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

func logit(p float64) float64 {
	p = min(max(p, 1e-4), 1-1e-4)
	return math.Log(p / (1 - p))
}

// fitPlatt fits sigmoid(a*logit(p)+b) to positives (1) and negatives (0)
// with a penalty shrink*((a-1)^2 + b^2) toward the identity map.
func fitPlatt(pos, neg []float64, shrink float64) (a, b float64, err error) {
	xs := make([]float64, 0, len(pos)+len(neg))
	ys := make([]float64, 0, len(pos)+len(neg))
	for _, p := range pos {
		xs, ys = append(xs, logit(p)), append(ys, 1)
	}
	for _, p := range neg {
		xs, ys = append(xs, logit(p)), append(ys, 0)
	}
	f := func(w, grad []float64) float64 {
		var loss float64
		var ga, gb float64
		for i, x := range xs {
			q := 1 / (1 + math.Exp(-(w[0]*x + w[1])))
			q = min(max(q, 1e-12), 1-1e-12)
			loss -= ys[i]*math.Log(q) + (1-ys[i])*math.Log(1-q)
			ga += (q - ys[i]) * x
			gb += q - ys[i]
		}
		loss += shrink * ((w[0]-1)*(w[0]-1) + w[1]*w[1])
		if grad != nil {
			grad[0] = ga + 2*shrink*(w[0]-1)
			grad[1] = gb + 2*shrink*w[1]
		}
		return loss
	}
	res, err := optimize.Minimize(optimize.Problem{
		Func: func(w []float64) float64 { return f(w, nil) },
		Grad: func(g, w []float64) { f(w, g) },
	}, []float64{1, 0}, nil, &optimize.BFGS{})
	if res == nil {
		return 1, 0, fmt.Errorf("calibration fit: %w", err)
	}
	a, b = res.X[0], res.X[1]
	if a <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return 1, 0, errors.New("calibration fit: the corpus's pseudo-questions do not separate (slope <= 0)")
	}
	return a, b, nil
}

func quantiles(v []float64) []float64 {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	var out []float64
	for _, q := range []float64{0.10, 0.25, 0.50, 0.75, 0.90} {
		out = append(out, math.Round(s[int(q*float64(len(s)-1))]*1000)/1000)
	}
	return out
}

// cutPoints maps each threshold t to the raw probability p with
// Calibrate(p) == t.
func cutPoints(cal Calibration, thresholds map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(thresholds))
	for name, t := range thresholds {
		raw := 1 / (1 + math.Exp(-(logit(t)-cal.B)/cal.A))
		out[name] = math.Round(raw*1000) / 1000
	}
	return out
}

// CalibrationThresholds are the gate thresholds a calibration reports cut
// points for.
func CalibrationThresholds(c Config) map[string]float64 {
	return map[string]float64{"prefloor": c.Prefloor, "bail_out_below": c.BailOutBelow, "sufficient_max": c.SufficientMax,
		"good_enough_max": c.GoodEnoughMax, "planner.min_support": c.Planner.MinSupport,
		"planner.min_best": c.Planner.MinBest}
}

// Calibrate maps a raw answerability probability through cal.
func Calibrate(cal Calibration, p float64) float64 {
	if cal.A == 1 && cal.B == 0 {
		return p
	}
	return 1 / (1 + math.Exp(-(cal.A*logit(p) + cal.B)))
}

// Recalibrate applies cal to every candidate's Answer (after Assess). An
// exact address hit or memory reference keeps at least its rule score.
func Recalibrate(cal *Calibration, cands []Candidate) {
	if cal == nil {
		return
	}
	for i := range cands {
		p := Calibrate(*cal, cands[i].Answer)
		if cands[i].Features[FAddress] == 1 {
			p = max(p, min(cands[i].Rerank, 1))
		}
		cands[i].Answer = p
	}
}
