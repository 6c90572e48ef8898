package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/corpuscal"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/proxy"
	"github.com/answer-guard/guard/retrieve"
)

// The answerability suite (guard bench quality --gate): does the gate
// ground the questions a corpus answers, with the right passage among the
// notes, and decline the on-topic questions it does not answer? Every
// fitted number is fitted on training sets and reported on sets it never
// saw: HaluEval QA's test half (fixed split by question hash), and each of
// the dev corpora under bench/testdata/gate left out in turn.

// GateSet is one labelled set: a corpus and questions about it.
type GateSet struct {
	Name      string
	Docs      []index.Doc
	Questions []GateQuestion
}

// GateQuestion is one question; AnswerIDs are the documents that answer it
// (none for an unanswerable question).
type GateQuestion struct {
	ID         string   `json:"id"`
	Question   string   `json:"question"`
	Answerable bool     `json:"answerable"`
	AnswerIDs  []string `json:"answer_ids"`
}

// DevGateSets reads the dev corpora in dir (bench/testdata/gate): one
// folder each with corpus.jsonl and questions.jsonl.
func DevGateSets(dir string) ([]GateSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var sets []GateSet
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		s := GateSet{Name: e.Name()}
		docs, _, err := index.ReadDocs([]string{filepath.Join(dir, e.Name(), "corpus.jsonl")}, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		s.Docs = docs
		err = scanJSONL(filepath.Join(dir, e.Name(), "questions.jsonl"), func(b []byte) error {
			var q GateQuestion
			if err := json.Unmarshal(b, &q); err != nil {
				return err
			}
			s.Questions = append(s.Questions, q)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// HaluEvalGateSets splits HaluEval QA by a hash of the question into a
// train and a test half. Within each half, the knowledge paragraphs of
// half the items (again by hash) are indexed: their questions are
// answerable, the others' are not.
func HaluEvalGateSets(dataDir string) (train, test GateSet, err error) {
	f, err := os.Open(filepath.Join(dataDir, "halueval", "qa_one-turn_data.json"))
	if err != nil {
		return train, test, err
	}
	defer f.Close()
	train.Name, test.Name = "halueval-train", "halueval-test"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var it struct {
			Knowledge string `json:"knowledge"`
			Question  string `json:"question"`
		}
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return train, test, fmt.Errorf("halueval line %d: %w", n+1, err)
		}
		n++
		id := fmt.Sprintf("halueval-%03d", n)
		h := fnv.New32a()
		h.Write([]byte(it.Question))
		v := h.Sum32()
		set := &train
		if v%2 == 1 {
			set = &test
		}
		q := GateQuestion{ID: id, Question: it.Question}
		if (v/2)%2 == 0 {
			set.Docs = append(set.Docs, index.Doc{ID: id, Text: it.Knowledge, Kind: "library"})
			q.Answerable, q.AnswerIDs = true, []string{id}
		}
		set.Questions = append(set.Questions, q)
	}
	return train, test, sc.Err()
}

// gateCase is one question with its retrieved candidates.
type gateCase struct {
	q      GateQuestion
	pq     gate.Question
	cands  []gate.Candidate
	docIDs []string
	rerank bool
	// asked is the set's corpus asked its own pseudo-questions (shared by
	// every case of the set), for the per-corpus calibration.
	asked *corpuscal.Asked
}

// prepareGateSet indexes the set's corpus and retrieves every question
// with the default retrieval configuration.
func prepareGateSet(ctx context.Context, s GateSet) ([]gateCase, error) {
	tmp, err := os.MkdirTemp("", "guard-gate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	def := proxy.DefaultConfig()
	ic, rc := def.Stages.Index, def.Stages.Retrieve
	dir := filepath.Join(tmp, "snap")
	if _, err := index.BuildDocs(ctx, ic, slices.Clone(s.Docs), nil, dir, zap.NewNop()); err != nil {
		return nil, fmt.Errorf("%s: build: %w", s.Name, err)
	}
	snap, err := index.Load(dir)
	if err != nil {
		return nil, err
	}
	e, err := retrieve.New(rc, ic, snap, zap.NewNop())
	if err != nil {
		snap.Close()
		return nil, err
	}
	defer e.Close()
	asked, err := corpuscal.Ask(ctx, e, snap, index.DefaultTenant, index.DefaultKB, corpuscal.DefaultQuestions)
	if err != nil {
		return nil, fmt.Errorf("%s: calibrate: %w", s.Name, err)
	}
	cases := make([]gateCase, 0, len(s.Questions))
	for _, q := range s.Questions {
		res, err := e.Retrieve(ctx, retrieve.Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q.Question})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Name, q.ID, err)
		}
		c := gateCase{q: q, pq: gatefeed.Question(q.Question, res), rerank: res.RerankActive, asked: asked}
		c.cands = gatefeed.Candidates(res.Candidates)
		for _, r := range res.Candidates {
			c.docIDs = append(c.docIDs, r.DocID)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// answers reports whether candidate i of c is an answer passage.
func (c gateCase) answers(i int) bool { return slices.Contains(c.q.AnswerIDs, c.docIDs[i]) }

// GateScore is one set's outcome under one system.
type GateScore struct {
	Answerable, Grounded   int // answerable questions; grounded with a right passage among the notes
	Unanswerable, Declined int // unanswerable questions; refused or sent to the fallback
	GroundedWrong          int // answerable, grounded, but no right passage among the notes
	Failures               []string
	// Calibration is the per-corpus calibration the system used, if any.
	Calibration index.AnswerCalibration
	// AnswerableMax and UnanswerableMax are the coverage max of each
	// answerable and unanswerable question (the gate report's histogram).
	AnswerableMax, UnanswerableMax []float64
}

// AnswerableRate is the share of answerable questions grounded with a
// right passage among the notes.
func (g GateScore) AnswerableRate() float64 { return ratio(g.Grounded, g.Answerable) }

// DeclinedRate is the share of unanswerable questions declined.
func (g GateScore) DeclinedRate() float64 { return ratio(g.Declined, g.Unanswerable) }

// Balanced is the mean of the two rates.
func (g GateScore) Balanced() float64 { return (g.AnswerableRate() + g.DeclinedRate()) / 2 }

// gateSystem decides a case.
type gateSystem struct {
	name  string
	cfg   gate.Config
	model gate.AnswerModel
	// corpusCal applies the per-corpus calibration fitted for model on the
	// case's corpus (pseudo-questions only: no label is used).
	corpusCal bool
}

func (sys gateSystem) decide(c gateCase, cal *index.AnswerCalibration) gate.Outcome {
	cands := slices.Clone(c.cands)
	if sys.cfg.Relevance == gate.RelevanceAnswerability {
		sys.model.Assess(c.pq, cands)
		gate.Recalibrate(gatefeed.Calibration(cal), cands)
	}
	o := gate.Decide(sys.cfg, cands, c.rerank)
	if sys.cfg.Relevance == gate.RelevanceAnswerability {
		o = gate.ApplyOutline(o, gate.LocalOutline(sys.cfg, o))
	}
	return o
}

func (sys gateSystem) score(cases []gateCase) GateScore {
	var g GateScore
	cals := map[*corpuscal.Asked]*index.AnswerCalibration{}
	for _, c := range cases {
		var cal *index.AnswerCalibration
		if sys.corpusCal && c.asked != nil {
			if cals[c.asked] == nil {
				fitted, err := c.asked.Fit(index.DefaultTenant, index.DefaultKB, sys.model, sys.cfg)
				if err != nil {
					g.Failures = append(g.Failures, "calibration: "+err.Error())
				}
				cals[c.asked] = &fitted
				g.Calibration = fitted
			}
			cal = cals[c.asked]
		}
		o := sys.decide(c, cal)
		if c.q.Answerable {
			g.Answerable++
			g.AnswerableMax = append(g.AnswerableMax, o.Coverage.Max)
			right := false
			for _, n := range o.Notes {
				for i, cand := range c.cands {
					if cand.ID == n.ID && c.answers(i) {
						right = true
					}
				}
			}
			switch {
			case o.Decision == gate.Ground && right:
				g.Grounded++
			case o.Decision == gate.Ground:
				g.GroundedWrong++
				g.Failures = append(g.Failures, fmt.Sprintf("answerable, grounded on the wrong notes (max %.2f): %s", o.Coverage.Max, c.q.Question))
			default:
				g.Failures = append(g.Failures, fmt.Sprintf("answerable, %s (max %.2f): %s", o.Decision, o.Coverage.Max, c.q.Question))
			}
			continue
		}
		g.Unanswerable++
		g.UnanswerableMax = append(g.UnanswerableMax, o.Coverage.Max)
		if o.Decision != gate.Ground {
			g.Declined++
		} else {
			g.Failures = append(g.Failures, fmt.Sprintf("unanswerable, grounded (max %.2f): %s", o.Coverage.Max, c.q.Question))
		}
	}
	return g
}

// FitAnswerModel fits the logistic answerability model on the candidates of
// cases (label: the candidate is an answer passage), with an L2 penalty
// lambda on every weight but the bias. only, when non-nil, restricts the
// features (the others stay 0): the simpler models it is compared with.
func FitAnswerModel(cases []gateCase, lambda float64, only []int) (gate.AnswerModel, error) {
	return fitAnswerModel(cases, lambda, only, FitTopK)
}

// FitTopK is how many of each question's top-ranked candidates the model
// is fitted on: the gate's decision rests on the best few, and the long
// tail of each pool (almost all negatives) would otherwise dominate.
var FitTopK = 16

func fitAnswerModel(cases []gateCase, lambda float64, only []int, topK int) (gate.AnswerModel, error) {
	var xs []gate.Features
	var ys []float64
	for _, c := range cases {
		cands := slices.Clone(c.cands)
		gate.AnswerModel{}.Assess(c.pq, cands)
		for i, cand := range cands {
			if i >= topK {
				break
			}
			f := cand.Features
			if only != nil {
				var g gate.Features
				g[gate.FBias] = 1
				for _, k := range only {
					g[k] = f[k]
				}
				f = g
			}
			xs = append(xs, f)
			y := 0.0
			if c.answers(i) {
				y = 1
			}
			ys = append(ys, y)
		}
	}
	if len(xs) == 0 {
		return gate.AnswerModel{}, errors.New("no training pairs")
	}
	rows := make([][]float64, len(xs))
	for i := range xs {
		rows[i] = xs[i][:]
	}
	w, err := fitLogistic(rows, ys, nil, lambda)
	if err != nil {
		return gate.AnswerModel{}, err
	}
	var m gate.AnswerModel
	copy(m.Weights[:], w)
	return m, nil
}

// GateReport is the outcome of the suite.
type GateReport struct {
	Rows  []GateRow
	Model gate.AnswerModel
	Extra []string // KJV and demo checks
}

// GateRow is one (system, set) figure.
type GateRow struct {
	System, Set, Fit string // Fit: "in-sample" or "out-of-sample"
	Score            GateScore
}

// GateQuality runs the suite. dataDir is ../shared/data (HaluEval; KJV for
// the address check), devDir bench/testdata/gate. With fit, the shipped
// model is refitted on every training set and written to modelPath.
func GateQuality(ctx context.Context, dataDir, devDir string, fit bool, modelPath string, w io.Writer) (GateReport, error) {
	var rep GateReport
	hTrain, hTest, err := HaluEvalGateSets(dataDir)
	if err != nil {
		return rep, fmt.Errorf("halueval (skip with no --data): %w", err)
	}
	dev, err := DevGateSets(devDir)
	if err != nil {
		return rep, fmt.Errorf("dev corpora: %w", err)
	}
	prepared := map[string][]gateCase{}
	for _, s := range append([]GateSet{hTrain, hTest}, dev...) {
		cs, err := prepareGateSet(ctx, s)
		if err != nil {
			return rep, err
		}
		prepared[s.Name] = cs
		fmt.Fprintf(w, "gate: %s: %d docs, %d questions\n", s.Name, len(s.Docs), len(s.Questions))
	}
	devNames := make([]string, 0, len(dev))
	for _, s := range dev {
		devNames = append(devNames, s.Name)
	}
	sort.Strings(devNames)
	cfg := gate.DefaultConfig()
	legacy := cfg
	legacy.Relevance = gate.RelevanceRerank
	const lambda = 1.0
	fitOn := func(names ...string) (gate.AnswerModel, gate.AnswerModel, error) {
		var cs []gateCase
		for _, n := range names {
			cs = append(cs, prepared[n]...)
		}
		full, err := FitAnswerModel(cs, lambda, nil)
		if err != nil {
			return full, full, err
		}
		rr, err := FitAnswerModel(cs, lambda, []int{gate.FRerank})
		return full, rr, err
	}
	add := func(sys gateSystem, set, fitLabel string) {
		rep.Rows = append(rep.Rows, GateRow{System: sys.name, Set: set, Fit: fitLabel, Score: sys.score(prepared[set])})
	}
	// The shipped model: every training set.
	trainAll := append([]string{hTrain.Name}, devNames...)
	shipped, shippedRR, err := fitOn(trainAll...)
	if err != nil {
		return rep, err
	}
	shipped.Fit = "logistic, L2 1.0, gonum BFGS; fitted on halueval-train + dev corpora " + strings.Join(devNames, ", ") + " (guard bench quality --gate --fit)"
	if fit {
		b, _ := json.MarshalIndent(shipped, "", "  ")
		if err := os.WriteFile(modelPath, append(b, '\n'), 0o644); err != nil {
			return rep, err
		}
		fmt.Fprintf(w, "gate: wrote the fitted model to %s\n", modelPath)
	}
	current := gate.DefaultAnswerModel()
	rep.Model = current
	// HaluEval: train in-sample, test out-of-sample, for each system.
	hFull, hRR, err := fitOn(hTrain.Name)
	if err != nil {
		return rep, err
	}
	for _, set := range []string{hTrain.Name, hTest.Name} {
		label := "in-sample"
		if set == hTest.Name {
			label = "out-of-sample"
		}
		add(gateSystem{"rerank score, fixed thresholds (before)", legacy, gate.AnswerModel{}, false}, set, "not fitted")
		add(gateSystem{"calibrated rerank only (fit: halueval-train)", cfg, hRR, false}, set, label)
		add(gateSystem{"answerability model (fit: halueval-train)", cfg, hFull, false}, set, label)
		add(gateSystem{"answerability model + corpus calibration (fit: halueval-train)", cfg, hFull, true}, set, label)
	}
	// Leave one dev corpus out: fit on HaluEval train + the others.
	for _, out := range devNames {
		var others []string
		for _, n := range devNames {
			if n != out {
				others = append(others, n)
			}
		}
		full, rr, err := fitOn(append([]string{hTrain.Name}, others...)...)
		if err != nil {
			return rep, err
		}
		add(gateSystem{"rerank score, fixed thresholds (before)", legacy, gate.AnswerModel{}, false}, out, "not fitted")
		add(gateSystem{"calibrated rerank only (leave this corpus out)", cfg, rr, false}, out, "out-of-sample")
		add(gateSystem{"answerability model (leave this corpus out)", cfg, full, false}, out, "out-of-sample")
		add(gateSystem{"answerability model + corpus calibration (leave this corpus out)", cfg, full, true}, out, "out-of-sample")
		add(gateSystem{"shipped model", cfg, current, false}, out, "in-sample")
		add(gateSystem{"shipped model + corpus calibration", cfg, current, true}, out, "in-sample")
	}
	add(gateSystem{"shipped model", cfg, current, false}, hTest.Name, "out-of-sample")
	add(gateSystem{"shipped model + corpus calibration", cfg, current, true}, hTest.Name, "out-of-sample")
	_ = shippedRR
	return rep, nil
}

// WriteGateReport writes the suite's tables.
func WriteGateReport(w io.Writer, rep GateReport) {
	fmt.Fprintln(w, "| set | system | fit | answerable grounded, right passage | unanswerable declined | balanced |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		s := r.Score
		fmt.Fprintf(w, "| %s | %s | %s | %d/%d (%.1f%%) | %d/%d (%.1f%%) | %.3f |\n", r.Set, r.System, r.Fit,
			s.Grounded, s.Answerable, 100*s.AnswerableRate(), s.Declined, s.Unanswerable, 100*s.DeclinedRate(), s.Balanced())
	}
	fmt.Fprintf(w, "\nShipped model: %s\n\n| feature | weight |\n|---|---|\n", rep.Model.Fit)
	for i, n := range gate.FeatureNames {
		fmt.Fprintf(w, "| %s | %.3f |\n", n, rep.Model.Weights[i])
	}
	writeCorpusCalibrations(w, rep)
	for _, e := range rep.Extra {
		fmt.Fprintln(w, e)
	}
}

// writeCorpusCalibrations lists the per-corpus calibration each set got
// with the shipped model (what guard index calibrate prints for a corpus).
func writeCorpusCalibrations(w io.Writer, rep GateReport) {
	fmt.Fprintln(w, "\nPer-corpus calibration of the shipped model (pseudo-questions from each corpus, no labels):")
	fmt.Fprintln(w, "\n| set | pseudo-questions (found own passage) | own passage p10/p50/p90 | best other p10/p50/p90 | a | b | raw cut: bail_out 0.40 / good_enough 0.65 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rep.Rows {
		c := r.Score.Calibration
		if !strings.HasPrefix(r.System, "shipped model +") || c.Questions == 0 {
			continue
		}
		q := func(v []float64) string {
			if len(v) < 5 {
				return "-"
			}
			return fmt.Sprintf("%.2f / %.2f / %.2f", v[0], v[2], v[4])
		}
		fmt.Fprintf(w, "| %s | %d (%d) | %s | %s | %.2f | %.2f | %.2f / %.2f |\n", r.Set, c.Questions, c.Found, q(c.Pos), q(c.Neg), c.A, c.B,
			c.CutPoints["bail_out_below"], c.CutPoints["good_enough_max"])
	}
}
