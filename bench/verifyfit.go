package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/judge"
)

// VerifyFit makes the verify suite refit the local verifier's model on the
// training splits and write it to judge/localmodel.json (guard bench
// quality --verify --fit).
var VerifyFit bool

func localModelPath() string {
	if _, err := os.Stat("judge"); err == nil {
		return "judge/localmodel.json"
	}
	return "../judge/localmodel.json"
}

// VerifyFrozen makes the verify suite score the frozen test splits (the
// default). Development runs set it false (guard bench quality --verify
// --dev) so that nothing is tuned, even by looking, on those splits.
var VerifyFrozen = true

// verifyData is one data set cut into a training split (the only one any
// parameter of the logistic layer is fitted on), a dev split (hand-written
// rules and overrides are checked on it) and a frozen test split (only
// ever reported on).
type verifyData struct {
	name                         string
	train, dev, test             []VerifyItem
	trainName, devName, testName string
	// fit: the training split is a training set of the logistic layer
	// (the scope set's fit half is not: the scope rules were written on it)
	fit          bool
	trainF       map[string][]judge.Features // by rule key: features of train
	trainSupport []bool
}

// heldOut is the split of before issue 29: an FNV-32a hash of the group,
// odd = held out (its training halves are kept as they were).
func heldOut(group string) bool {
	h := fnv.New32a()
	h.Write([]byte(group))
	return h.Sum32()%2 == 1
}

// frozen cuts a held-out split in two, by another hash of the group: the
// top bit of a salted FNV-64a (its low bit would follow heldOut's: FNV-1a's
// low bit is the parity of the bytes' low bits) set = frozen test, clear =
// dev.
func frozen(group string) bool {
	h := fnv.New64a()
	h.Write([]byte("issue-29 frozen test/" + group))
	return h.Sum64()>>63 == 1
}

func splitItems(items []VerifyItem) (train, dev, test []VerifyItem) {
	for _, it := range items {
		switch {
		case !heldOut(it.Group):
			train = append(train, it)
		case frozen(it.Group):
			test = append(test, it)
		default:
			dev = append(dev, it)
		}
	}
	return train, dev, test
}

func splitDevTest(items []VerifyItem) (dev, test []VerifyItem) {
	for _, it := range items {
		if frozen(it.Group) {
			test = append(test, it)
		} else {
			dev = append(dev, it)
		}
	}
	return dev, test
}

// loadVerifyData loads SciFact (claims_train; claims_dev cut into dev and
// frozen test by claim), WiCE dev and HaluEval QA (the even-hash half to
// train; the odd-hash half cut into dev and frozen test) under dataDir,
// and the scope set (fit half; frozen half).
func loadVerifyData(dataDir string) ([]*verifyData, []string, error) {
	var out []*verifyData
	var skipped []string
	add := func(d *verifyData, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			skipped = append(skipped, d.name)
			return nil
		}
		if err != nil {
			return fmt.Errorf("load %s: %w", d.name, err)
		}
		out = append(out, d)
		return nil
	}
	sci := &verifyData{name: "scifact", trainName: "claims_train", devName: "claims_dev, even hash", testName: "claims_dev, odd hash (frozen)", fit: true}
	sciErr := func() error {
		tr, err := LoadSciFactClaims(dataDir, "claims_train.jsonl")
		if err != nil {
			return err
		}
		te, err := LoadSciFact(dataDir)
		sci.train = tr
		sci.dev, sci.test = splitDevTest(te)
		return err
	}()
	wice := &verifyData{name: "wice", trainName: "dev, even hash", devName: "dev, odd hash, even 2nd hash", testName: "dev, odd hash, odd 2nd hash (frozen)", fit: true}
	all, wiceErr := LoadWiCE(dataDir)
	wice.train, wice.dev, wice.test = splitItems(all)
	halu := &verifyData{name: "halueval", trainName: "qa, even hash", devName: "qa, odd hash, even 2nd hash", testName: "qa, odd hash, odd 2nd hash (frozen)", fit: true}
	all, haluErr := LoadHaluEval(dataDir)
	halu.train, halu.dev, halu.test = splitItems(all)
	scope := &verifyData{name: "scope", trainName: "fit half (the rules were written on it)", devName: "", testName: "frozen half"}
	scope.train, _ = LoadScope("fit")
	var scopeErr error
	scope.test, scopeErr = LoadScope("frozen")
	errs := errors.Join(add(sci, sciErr), add(wice, wiceErr), add(halu, haluErr), add(scope, scopeErr))
	return out, skipped, errs
}

// fitSets are the sets whose training splits the logistic layer is fitted on.
func fitSets(sets []*verifyData) []*verifyData {
	var out []*verifyData
	for _, d := range sets {
		if d.fit {
			out = append(out, d)
		}
	}
	return out
}

// ruleGrid are the rule parameters the fit chooses among.
func ruleGrid() []judge.LocalConfig {
	var g []judge.LocalConfig
	for _, e := range []float64{0.3, 0.4, 0.5} {
		for _, st := range []float64{0, 1, 2} {
			for _, ga := range []float64{0, 0.1} {
				g = append(g, judge.LocalConfig{Entail: e, Strict: st, Gather: ga, Conflict: 0.5, Anchors: true, Model: "learned"})
			}
		}
	}
	return g
}

func ruleKey(c judge.LocalConfig) string {
	return fmt.Sprintf("e=%.2f s=%.0f g=%.2f c=%.2f", c.Entail, c.Strict, c.Gather, c.Conflict)
}

// trainFeatures returns (and caches) the features of d's training items
// under rule parameters c; items with no content get only the bias.
func (d *verifyData) trainFeatures(c judge.LocalConfig) []judge.Features {
	k := ruleKey(c)
	if f, ok := d.trainF[k]; ok {
		return f
	}
	if d.trainF == nil {
		d.trainF = map[string][]judge.Features{}
	}
	v := judge.NewLocalModel(c, nil).WithEncoder(suiteEncoder())
	fs := make([]judge.Features, len(d.train))
	d.trainSupport = make([]bool, len(d.train))
	for i, it := range d.train {
		f, ok := v.Features(it.Claim, it.Evidence)
		if !ok {
			f = judge.Features{judge.FBias: 1}
		}
		fs[i] = f
		d.trainSupport[i] = it.Support
	}
	d.trainF[k] = fs
	return fs
}

// FitLambda is the L2 penalty of the logistic layer (every weight but the bias).
const FitLambda = 1.0

// fitLocalModel fits the logistic layer and its threshold on the training
// splits of sets for every rule setting of the grid and keeps the one with
// the best mean training balanced accuracy. Each set weighs the same in the
// loss, and within a set each class weighs the same.
func fitLocalModel(sets []*verifyData) (judge.LocalModel, float64, error) {
	m, score, err := fitLocalModelWith(sets, true, ruleGrid())
	if err != nil {
		return m, score, err
	}
	// the same rule, so that one LocalConfig serves both
	plain, plainScore, err := fitLocalModelWith(sets, false, []judge.LocalConfig{m.Rule})
	if err != nil {
		return m, score, err
	}
	plain.Fit = fmt.Sprintf("the same fit without the encoder similarity, on the rule chosen with it (mean training balanced accuracy %.3f)", plainScore)
	m.NoEncoder = &plain
	return m, score, nil
}

// fitLocalModelWith fits the layer with or without the encoder similarity
// (without: its column is zero, so its weight is too).
func fitLocalModelWith(sets []*verifyData, withEnc bool, grid []judge.LocalConfig) (judge.LocalModel, float64, error) {
	var best judge.LocalModel
	bestScore := -1.0
	for _, c := range grid {
		var xs []judge.Features
		var ys, ws []float64
		type span struct{ from, to int }
		var spans []span
		for _, d := range sets {
			fs := d.trainFeatures(c)

			pos := 0
			for _, s := range d.trainSupport {
				if s {
					pos++
				}
			}
			neg := len(fs) - pos
			from := len(xs)
			for i, f := range fs {
				if !withEnc {
					f[judge.FSim] = 0
				}
				xs = append(xs, f)
				w := 0.0
				if d.trainSupport[i] {
					ys = append(ys, 1)
					w = 0.5 / float64(max(pos, 1))
				} else {
					ys = append(ys, 0)
					w = 0.5 / float64(max(neg, 1))
				}
				ws = append(ws, w*1000/float64(len(sets)))
			}
			spans = append(spans, span{from, len(xs)})
		}
		if len(xs) == 0 {
			return best, 0, errors.New("no training items")
		}
		w, err := fitLogistic(featureRows(xs), ys, ws, FitLambda)
		if err != nil {
			return best, 0, err
		}
		m := judge.LocalModel{Rule: c}
		copy(m.Weights[:], w)
		probs := make([]float64, len(xs))
		for i, x := range xs {
			probs[i] = m.Prob(x)
		}
		// the threshold: best mean balanced accuracy over the sets
		bestT, bestTScore := 0.5, -1.0
		for t := 0.05; t < 0.951; t += 0.01 {
			var mean float64
			for _, sp := range spans {
				var tp, fn, tn, fp int
				for i := sp.from; i < sp.to; i++ {
					pred := probs[i] >= t
					switch {
					case ys[i] == 1 && pred:
						tp++
					case ys[i] == 1:
						fn++
					case pred:
						fp++
					default:
						tn++
					}
				}
				mean += (ratio(tp, tp+fn) + ratio(tn, tn+fp)) / 2 / float64(len(spans))
			}
			if mean > bestTScore+1e-9 {
				bestT, bestTScore = t, mean
			}
		}
		m.Threshold = math.Round(bestT*100) / 100
		if bestTScore > bestScore+1e-9 {
			best, bestScore = m, bestTScore
		}
	}
	var names []string
	for _, d := range sets {
		names = append(names, d.name+" "+d.trainName)
	}
	best.Fit = fmt.Sprintf("logistic over the heuristic features, L2 %.1f, class- and set-balanced, gonum BFGS; rule grid %d settings; threshold by mean training balanced accuracy (%.3f); fitted on %s (guard bench quality --verify --fit)",
		FitLambda, len(ruleGrid()), bestScore, strings.Join(names, " + "))
	return best, bestScore, nil
}

// VerifyRow is one (model, evaluation split) figure of the verify suite.
type VerifyRow struct {
	Set       string    `json:"set"`
	Model     string    `json:"model"`
	FittedOn  string    `json:"fitted_on"`
	Evaluated string    `json:"evaluated_on"`
	Sample    string    `json:"sample"` // in-sample | dev | frozen test
	Score     VerifySet `json:"score"`
}

// VerifySummary is one set's figures side by side.
type VerifySummary struct {
	Set                  string  `json:"set"`
	InSample, Dev, Test  float64 `json:"-"`
	HasDev, HasTest      bool    `json:"-"`
	AcrossDev, AcrossTst float64 `json:"-"`
	HasAcross            bool    `json:"-"`
	DevScopeOff          float64 `json:"-"`
	InScopeOff           float64 `json:"-"`
	DevNoEnc, TestNoEnc  float64 `json:"-"`
}

// VerifyFitReport is the outcome of the verify suite.
type VerifyFitReport struct {
	Rows    []VerifyRow      `json:"rows"`
	Summary []VerifySummary  `json:"summary"`
	Model   judge.LocalModel `json:"model"`
	Skipped []string         `json:"skipped,omitempty"`
	Frozen  bool             `json:"frozen"`
	// ByContext scores the shipped model on the dev splits by the length of
	// the cited context: does a per-claim minimum earn its place?
	ByContext []VerifyRow `json:"by_context"`
	Elapsed   time.Duration
}

// VerifyQualityFit runs the verify suite: the shipped model (or, with fit,
// a model refitted on the training splits and written to modelPath) scored
// in-sample on each training split, on each dev split and (VerifyFrozen)
// on each frozen test split; across data sets, a model fitted on the other
// two training splits scored on dev and frozen test; the hand-written
// scope rules switched off, on the training and dev splits (what they
// earn); and the dev splits by the length of the cited context.
func VerifyQualityFit(ctx context.Context, dataDir string, fit bool, modelPath string, w io.Writer) (VerifyFitReport, error) {
	t0 := time.Now()
	rep := VerifyFitReport{Frozen: VerifyFrozen}
	sets, skipped, err := loadVerifyData(dataDir)
	rep.Skipped = skipped
	if err != nil {
		return rep, err
	}
	if len(fitSets(sets)) == 0 {
		return rep, fmt.Errorf("no verifier data set under %s: %w", dataDir, os.ErrNotExist)
	}
	model := judge.DefaultLocalModel
	fittedOn := "shipped (judge/localmodel.json)"
	if fit {
		m, _, err := fitLocalModel(fitSets(sets))
		if err != nil {
			return rep, err
		}
		model = m
		fittedOn = "refitted now"
		b, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return rep, err
		}
		if err := os.WriteFile(modelPath, append(b, '\n'), 0o644); err != nil {
			return rep, fmt.Errorf("write model: %w", err)
		}
	}
	rep.Model = model
	score := func(name string, m *judge.LocalModel, rule judge.LocalConfig, items []VerifyItem) (VerifySet, error) {
		return ScoreVerifier(ctx, name, judge.NewLocalModel(rule, m).WithEncoder(suiteEncoder()), items)
	}
	scorePlain := func(name string, m *judge.LocalModel, rule judge.LocalConfig, items []VerifyItem) (VerifySet, error) {
		return ScoreVerifier(ctx, name, judge.NewLocalModel(rule, m), items)
	}
	var fitNames []string
	for _, d := range fitSets(sets) {
		fitNames = append(fitNames, d.name)
	}
	all := strings.Join(fitNames, " + ") + " training splits, " + fittedOn
	off := model.Rule
	off.Scope = "off"
	for _, d := range sets {
		sum := VerifySummary{Set: d.name}
		in, err := score(d.name, &model, model.Rule, d.train)
		if err != nil {
			return rep, err
		}
		sum.InSample = in.BalancedAccuracy
		rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules", FittedOn: all, Evaluated: d.trainName, Sample: "in-sample", Score: in})
		inOff, err := score(d.name, &model, off, d.train)
		if err != nil {
			return rep, err
		}
		sum.InScopeOff = inOff.BalancedAccuracy
		rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned, scope rules off", FittedOn: all, Evaluated: d.trainName, Sample: "in-sample", Score: inOff})
		if len(d.dev) > 0 {
			dv, err := score(d.name, &model, model.Rule, d.dev)
			if err != nil {
				return rep, err
			}
			dvOff, err := score(d.name, &model, off, d.dev)
			if err != nil {
				return rep, err
			}
			sum.Dev, sum.HasDev, sum.DevScopeOff = dv.BalancedAccuracy, true, dvOff.BalancedAccuracy
			rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules", FittedOn: all, Evaluated: d.devName, Sample: "dev", Score: dv},
				VerifyRow{Set: d.name, Model: "learned, scope rules off", FittedOn: all, Evaluated: d.devName, Sample: "dev", Score: dvOff})
		}
		if len(d.dev) > 0 {
			dv, err := scorePlain(d.name, &model, model.Rule, d.dev)
			if err != nil {
				return rep, err
			}
			sum.DevNoEnc = dv.BalancedAccuracy
			rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules, no encoder", FittedOn: all, Evaluated: d.devName, Sample: "dev", Score: dv})
		}
		if VerifyFrozen && len(d.test) > 0 {
			te, err := score(d.name, &model, model.Rule, d.test)
			if err != nil {
				return rep, err
			}
			sum.Test, sum.HasTest = te.BalancedAccuracy, true
			rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules", FittedOn: all, Evaluated: d.testName, Sample: "frozen test", Score: te})
			tp, err := scorePlain(d.name, &model, model.Rule, d.test)
			if err != nil {
				return rep, err
			}
			sum.TestNoEnc = tp.BalancedAccuracy
			rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules, no encoder", FittedOn: all, Evaluated: d.testName, Sample: "frozen test", Score: tp})
		}
		rep.Summary = append(rep.Summary, sum)
	}
	if fs := fitSets(sets); len(fs) > 1 {
		for i, d := range sets {
			if !d.fit {
				continue
			}
			var others []*verifyData
			var names []string
			for _, o := range fs {
				if o != d {
					others = append(others, o)
					names = append(names, o.name)
				}
			}
			m, _, err := fitLocalModel(others)
			if err != nil {
				return rep, err
			}
			dv, err := score(d.name, &m, m.Rule, d.dev)
			if err != nil {
				return rep, err
			}
			rep.Summary[i].AcrossDev, rep.Summary[i].HasAcross = dv.BalancedAccuracy, true
			rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules", FittedOn: strings.Join(names, " + ") + " (training splits)",
				Evaluated: d.devName, Sample: "dev (across data sets)", Score: dv})
			if VerifyFrozen {
				te, err := score(d.name, &m, m.Rule, d.test)
				if err != nil {
					return rep, err
				}
				rep.Summary[i].AcrossTst = te.BalancedAccuracy
				rep.Rows = append(rep.Rows, VerifyRow{Set: d.name, Model: "learned + scope rules", FittedOn: strings.Join(names, " + ") + " (training splits)",
					Evaluated: d.testName, Sample: "frozen test (across data sets)", Score: te})
			}
		}
	}
	// per-claim minimum: dev items by cited context length
	for _, lim := range []struct {
		name   string
		lo, hi int
	}{{"< 500 chars", 0, 500}, {">= 500 chars", 500, math.MaxInt}} {
		var items []VerifyItem
		var names []string
		for _, d := range sets {
			if !d.fit {
				continue
			}
			n := 0
			for _, it := range d.dev {
				c := 0
				for _, p := range it.Evidence {
					c += len(p.Text)
				}
				if c >= lim.lo && c < lim.hi {
					items = append(items, it)
					n++
				}
			}
			names = append(names, fmt.Sprintf("%s %d", d.name, n))
		}
		s, err := score("cited context "+lim.name, &model, model.Rule, items)
		if err != nil {
			return rep, err
		}
		rep.ByContext = append(rep.ByContext, VerifyRow{Set: "cited context " + lim.name, Model: "learned + scope rules", Evaluated: "dev splits: " + strings.Join(names, ", "), Sample: "dev", Score: s})
		// per set too: the bins above mix data sets (short contexts are
		// mostly HaluEval's); the scope set's notes are all short
		for _, d := range sets {
			var its []VerifyItem
			for _, it := range append(append([]VerifyItem{}, d.dev...), d.train...) {
				c := 0
				for _, p := range it.Evidence {
					c += len(p.Text)
				}
				if c >= lim.lo && c < lim.hi {
					its = append(its, it)
				}
			}
			if len(its) < 20 {
				continue
			}
			s, err := score(d.name, &model, model.Rule, its)
			if err != nil {
				return rep, err
			}
			rep.ByContext = append(rep.ByContext, VerifyRow{Set: d.name + ", cited context " + lim.name, Model: "learned + scope rules",
				Evaluated: "training + dev splits", Sample: "in-sample and dev", Score: s})
		}
	}
	rep.Elapsed = time.Since(t0)
	if w != nil {
		writeVerifyFit(w, rep)
	}
	return rep, nil
}

func writeVerifyFit(w io.Writer, rep VerifyFitReport) {
	var b strings.Builder
	b.WriteString("## Verifier quality (local)\n\n")
	b.WriteString("Binary task: supported (verdict entailment) vs not supported (any other verdict). Balanced accuracy is the mean of the two recalls.\n")
	b.WriteString("Splits: the logistic layer (weights, threshold, rule grid) is fitted on the training splits only (SciFact claims_train, the even-hash halves of WiCE dev and HaluEval QA). ")
	b.WriteString("The held-out data is cut in two by a second hash: a dev split (the hand-written scope rules and overrides were checked on it) and a frozen test split nothing is tuned on. ")
	b.WriteString("The scope set: its fit half is where the scope rules were written (in-sample), its frozen half was written at the same time and is only reported on.\n\n")
	if !rep.Frozen {
		b.WriteString("**Development run (--dev): frozen test splits not scored.**\n\n")
	}
	b.WriteString("| set | in-sample | dev | frozen test | across data sets: dev | across data sets: frozen test | scope rules off: in-sample | scope rules off: dev | no encoder: dev | no encoder: frozen test |\n|---|---|---|---|---|---|---|---|---|---|\n")
	f := func(v float64, ok bool) string {
		if !ok {
			return "—"
		}
		return fmt.Sprintf("%.3f", v)
	}
	var meanT, meanD float64
	n := 0
	for _, s := range rep.Summary {
		fmt.Fprintf(&b, "| %s | %.3f | %s | %s | %s | %s | %.3f | %s | %s | %s |\n", s.Set, s.InSample, f(s.Dev, s.HasDev), f(s.Test, s.HasTest && rep.Frozen),
			f(s.AcrossDev, s.HasAcross), f(s.AcrossTst, s.HasAcross && rep.Frozen), s.InScopeOff, f(s.DevScopeOff, s.HasDev), f(s.DevNoEnc, s.HasDev), f(s.TestNoEnc, s.HasTest && rep.Frozen))
		if s.HasAcross {
			meanT += s.AcrossTst
			meanD += s.AcrossDev
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(&b, "\nAcross data sets (each fitted on the other two), mean: dev %.3f", meanD/float64(n))
		if rep.Frozen {
			fmt.Fprintf(&b, ", frozen test %.3f", meanT/float64(n))
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n| set | model | fitted on | evaluated on | sample | n | balanced acc | P supported | R supported | P not | R not | time/claim |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(r VerifyRow) {
		s := r.Score
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n", r.Set, r.Model, r.FittedOn, r.Evaluated, r.Sample, s.N, s.BalancedAccuracy,
			s.Classes[0].Precision, s.Classes[0].Recall, s.Classes[1].Precision, s.Classes[1].Recall, s.PerSentence.Round(time.Microsecond))
	}
	for _, r := range rep.Rows {
		row(r)
	}
	// the scope set by kind: which verdict each kind of pair gets
	for _, r := range rep.Rows {
		if r.Set != "scope" || r.Model != "learned + scope rules" {
			continue
		}
		fmt.Fprintf(&b, "\nScope set, %s (%s): rows gold kind/label, columns verdict\n\n| gold | entailment | contradiction | neutral |\n|---|---|---|---|\n", r.Evaluated, r.Sample)
		golds := make([]string, 0, len(r.Score.Confusion))
		for g := range r.Score.Confusion {
			golds = append(golds, g)
		}
		sort.Strings(golds)
		for _, g := range golds {
			c := r.Score.Confusion[g]
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", g, c[judge.Entailment], c[judge.Contradiction], c[judge.Neutral])
		}
	}
	b.WriteString("\nPer-claim minimum context? The learned model on the dev splits, by the length of the claim's cited passages:\n\n")
	b.WriteString("| set | model | fitted on | evaluated on | sample | n | balanced acc | P supported | R supported | P not | R not | time/claim |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.ByContext {
		row(r)
	}
	b.WriteString("\nShipped model (judge/localmodel.json): threshold " + fmt.Sprintf("%.2f", rep.Model.Threshold) + ", rule " + ruleKey(rep.Model.Rule) + "; weights")
	for k, v := range rep.Model.Weights {
		fmt.Fprintf(&b, " %s %.2f", judge.FeatureNames[k], v)
	}
	b.WriteString(".\n")
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(&b, "\nSkipped (data absent): %s\n", strings.Join(rep.Skipped, ", "))
	}
	fmt.Fprintf(&b, "\n(verify suite in %s, %s)\n", rep.Elapsed.Round(time.Millisecond), "2 shared CPUs")
	io.WriteString(w, b.String()) //nolint:errcheck // the caller's writer reports its own errors
}

// featureRows views fixed-size feature arrays as rows for fitLogistic.
func featureRows[F ~[judge.NumFeatures]float64](xs []F) [][]float64 {
	rows := make([][]float64, len(xs))
	for i := range xs {
		rows[i] = xs[i][:]
	}
	return rows
}

// cachedEncoder memoises the embedded sentence encoder's vectors: the
// suite compares the same claims and windows under every rule setting.
type cachedEncoder struct {
	enc *encoder.Encoder
	mu  sync.Mutex
	m   map[string][]float32
}

func (c *cachedEncoder) Embed(text string) []float32 {
	c.mu.Lock()
	v, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = c.enc.Embed(text)
	c.mu.Lock()
	c.m[text] = v
	c.mu.Unlock()
	return v
}

var (
	suiteEncOnce sync.Once
	suiteEnc     judge.SentenceEncoder
)

// suiteEncoder is the verify suite's (cached) embedded sentence encoder;
// nil when it cannot be loaded.
func suiteEncoder() judge.SentenceEncoder {
	suiteEncOnce.Do(func() {
		if e, err := encoder.Default(); err == nil {
			suiteEnc = &cachedEncoder{enc: e, m: map[string][]float32{}}
		}
	})
	return suiteEnc
}
