package bench

// A probe (issue 28, docs/quality.md Run 11): a learned question-sentence
// interaction over the encoder's vectors as an answerability signal. A
// logistic model over [q*s, |q-s|] (the question's and a sentence's
// encoder vectors, whole or projected on the training corpora's top
// principal components) with a strong L2 penalty; a passage scores as its
// best sentence. Each dev corpus is left out in turn: the interaction is
// fitted on the other corpora and, for the answer model refitted with it
// as one more feature (gate.FInteract), the training corpora's own scores
// are cross-fitted (each scored by a model fitted without it), so the
// refit does not learn to trust an in-sample score.
//
// Run: INTERPROBE=1 go test -run TestInteractProbe -v -timeout 60m ./bench/
// (INTERPROBE_VARIANTS=pca32,full to choose; see variants below).
// HaluEval train enters only as the suite uses it (tuning
// on_topic_coherence); the frozen corpora are not opened.

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/internal/gatefeed"
)

// interVariant is one form of the interaction model.
type interVariant struct {
	name   string
	k      int     // principal components kept (0: the whole 512 dims)
	bag    bool    // positives: every sentence of an answer passage (weight 1/n); else its best by cosine
	lambda float64 // L2 on standardised features, with the rows' weights summing to the passages used
	halu   bool    // add HaluEval train's items (the sentence holding the right answer against the paragraph's others)
}

// haluItem is a HaluEval train item for the interaction's fit: the
// question's vector, its knowledge paragraph's sentence vectors, and the
// one sentence that holds the right answer.
type haluItem struct {
	q     []float64
	sents [][]float64
	pos   int
}

// haluItems reads HaluEval QA's train half (the split HaluEvalGateSets
// uses, by a hash of the question; every item of the half, indexed or
// not) and keeps the items whose right answer is in exactly one sentence
// of a paragraph of two or more.
func haluItems(dataDir string, embed func(string) []float64) ([]haluItem, error) {
	var out []haluItem
	err := scanJSONL(filepath.Join(dataDir, "halueval", "qa_one-turn_data.json"), func(b []byte) error {
		var it struct {
			Knowledge, Question string
			Right               string `json:"right_answer"`
		}
		if err := json.Unmarshal(b, &it); err != nil {
			return err
		}
		h := fnv.New32a()
		h.Write([]byte(it.Question))
		if h.Sum32()%2 == 1 {
			return nil // the test half
		}
		// HaluEval joins its two source paragraphs without a space
		k := it.Knowledge
		var fixed strings.Builder
		for i := 0; i < len(k); i++ {
			fixed.WriteByte(k[i])
			if k[i] == '.' && i+1 < len(k) && k[i+1] >= 'A' && k[i+1] <= 'Z' && i > 0 && k[i-1] >= 'a' && k[i-1] <= 'z' {
				fixed.WriteByte(' ')
			}
		}
		sents := probeSentences("", fixed.String())
		pos, n := -1, 0
		for i, st := range sents {
			if strings.Contains(strings.ToLower(st), strings.ToLower(it.Right)) {
				pos, n = i, n+1
			}
		}
		if n != 1 || len(sents) < 2 {
			return nil
		}
		item := haluItem{q: embed(it.Question), pos: pos}
		for _, st := range sents {
			item.sents = append(item.sents, embed(st))
		}
		out = append(out, item)
		return nil
	})
	return out, err
}

// interModel is one fitted interaction model.
type interModel struct {
	v      interVariant
	mean   []float64   // centre of the PCA
	pcs    [][]float64 // k principal directions
	mu, sd []float64   // standardisation of the feature vector
	w      []float64   // bias first
	proj   map[*float64][]float64
}

func (m *interModel) project(x []float64) []float64 {
	if m.v.k == 0 {
		return x
	}
	if p, ok := m.proj[&x[0]]; ok {
		return p // the embed cache hands out one slice per text
	}
	out := make([]float64, m.v.k)
	if m.proj == nil {
		m.proj = map[*float64][]float64{}
	}
	m.proj[&x[0]] = out
	for j, p := range m.pcs {
		var z float64
		for d := range x {
			z += p[d] * (x[d] - m.mean[d])
		}
		out[j] = z
	}
	return out
}

// raw is the feature vector of a projected question and sentence: their
// elementwise product, their absolute difference and their cosine.
func interRaw(qp, sp []float64, cos float64) []float64 {
	out := make([]float64, 0, 2*len(qp)+1)
	for d := range qp {
		out = append(out, qp[d]*sp[d])
	}
	for d := range qp {
		out = append(out, math.Abs(qp[d]-sp[d]))
	}
	return append(out, cos)
}

func (m *interModel) logit(raw []float64) float64 {
	z := m.w[0]
	for d, x := range raw {
		z += m.w[d+1] * (x - m.mu[d]) / m.sd[d]
	}
	return z
}

// interData is what the probe reads of one case: the question's vector
// and each candidate's sentence vectors (title first when there is one).
type interData struct {
	q     []float64
	sents [][][]float64
}

func cos64(a, b []float64) float64 {
	var d, na, nb float64
	for i := range a {
		d += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return d / math.Sqrt(na*nb+1e-12)
}

// interNegTop is how many top-ranked non-answer passages of a question
// give negatives.
const interNegTop = 3

// fitInter fits an interaction model on the cases of the named sets.
func fitInter(v interVariant, names []string, prepared map[string][]gateCase, data map[string][]interData, halu []haluItem) (*interModel, error) {
	m := &interModel{v: v}
	if v.k > 0 {
		// PCA on the training questions and sentences.
		var vecs [][]float64
		seen := map[*float64]bool{}
		for _, n := range names {
			for ci := range prepared[n] {
				d := data[n][ci]
				vecs = append(vecs, d.q)
				for _, ss := range d.sents {
					for _, s := range ss {
						if !seen[&s[0]] {
							seen[&s[0]] = true
							vecs = append(vecs, s)
						}
					}
				}
			}
		}
		dims := len(vecs[0])
		m.mean = make([]float64, dims)
		for _, x := range vecs {
			for d := range x {
				m.mean[d] += x[d] / float64(len(vecs))
			}
		}
		cov := mat.NewSymDense(dims, nil)
		for _, x := range vecs {
			c := make([]float64, dims)
			for d := range x {
				c[d] = x[d] - m.mean[d]
			}
			cov.SymRankOne(cov, 1/float64(len(vecs)), mat.NewVecDense(dims, c))
		}
		var es mat.EigenSym
		if !es.Factorize(cov, true) {
			return nil, fmt.Errorf("pca: eigen decomposition failed")
		}
		var ev mat.Dense
		es.VectorsTo(&ev)
		for j := range v.k {
			col := dims - 1 - j // ascending eigenvalues
			p := make([]float64, dims)
			for d := range dims {
				p[d] = ev.At(d, col)
			}
			m.pcs = append(m.pcs, p)
		}
	}
	var rows [][]float64
	var ys, ws []float64
	add := func(q []float64, ss [][]float64, y float64, best bool) {
		qp := m.project(q)
		if best {
			bi, bc := 0, -2.0
			for i, s := range ss {
				if c := cos64(q, s); c > bc {
					bi, bc = i, c
				}
			}
			ss = ss[bi : bi+1]
		}
		for _, s := range ss {
			rows = append(rows, interRaw(qp, m.project(s), cos64(q, s)))
			ys = append(ys, y)
			ws = append(ws, 1/float64(len(ss)))
		}
	}
	for _, n := range names {
		for ci, c := range prepared[n] {
			d := data[n][ci]
			neg := 0
			for i := range c.cands {
				if i >= FitTopK || len(d.sents[i]) == 0 {
					continue
				}
				switch {
				case c.q.Answerable && c.answers(i):
					add(d.q, d.sents[i], 1, !v.bag)
				case c.q.class() != classOffTopic && neg < interNegTop:
					neg++
					add(d.q, d.sents[i], 0, false)
				}
			}
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows")
	}
	if v.halu {
		// HaluEval train weighs as one mean dev corpus
		var devW float64
		for _, w := range ws {
			devW += w
		}
		devW /= float64(len(names))
		start := len(rows)
		for _, it := range halu {
			qp := m.project(it.q)
			for i, s := range it.sents {
				y, w := 0.0, 1/float64(len(it.sents)-1)
				if i == it.pos {
					y, w = 1, 1
				}
				rows = append(rows, interRaw(qp, m.project(s), cos64(it.q, s)))
				ys = append(ys, y)
				ws = append(ws, w)
			}
		}
		var hw float64
		for _, w := range ws[start:] {
			hw += w
		}
		for i := start; i < len(ws); i++ {
			ws[i] *= devW / hw
		}
	}
	// balance the classes; the weights sum to the number of passages used
	var pos, total float64
	for i, y := range ys {
		total += ws[i]
		pos += ws[i] * y
	}
	for i, y := range ys {
		if y == 1 {
			ws[i] *= total / (2 * pos)
		} else {
			ws[i] *= total / (2 * (total - pos))
		}
	}
	dims := len(rows[0])
	m.mu, m.sd = make([]float64, dims), make([]float64, dims)
	for _, r := range rows {
		for d, x := range r {
			m.mu[d] += x / float64(len(rows))
		}
	}
	for _, r := range rows {
		for d, x := range r {
			m.sd[d] += (x - m.mu[d]) * (x - m.mu[d]) / float64(len(rows))
		}
	}
	xs := make([][]float64, len(rows))
	for d := range m.sd {
		m.sd[d] = math.Sqrt(m.sd[d]) + 1e-9
	}
	for i, r := range rows {
		x := make([]float64, dims+1)
		x[0] = 1
		for d, v := range r {
			x[d+1] = (v - m.mu[d]) / m.sd[d]
		}
		xs[i] = x
	}
	w, err := fitLogistic(xs, ys, ws, v.lambda)
	if err != nil {
		return nil, err
	}
	m.w = w
	return m, nil
}

// scoreInter is each candidate's score under m: its best sentence's
// probability (0 for a candidate with no sentence).
func scoreInter(m *interModel, d interData) []float64 {
	qp := m.project(d.q)
	out := make([]float64, len(d.sents))
	for i, ss := range d.sents {
		best := math.Inf(-1)
		for _, s := range ss {
			best = max(best, m.logit(interRaw(qp, m.project(s), cos64(d.q, s))))
		}
		if len(ss) > 0 {
			out[i] = 1 / (1 + math.Exp(-best))
		}
	}
	return out
}

// withInter copies cases with each semantic candidate's Interact set from
// scores.
func withInter(cases []gateCase, scores [][]float64) []gateCase {
	out := make([]gateCase, len(cases))
	for ci, c := range cases {
		c.cands = slices.Clone(c.cands)
		for i := range c.cands {
			if c.cands[i].Semantic && scores != nil {
				c.cands[i].Interact = scores[ci][i]
			}
		}
		out[ci] = c
	}
	return out
}

func TestInteractProbe(t *testing.T) {
	if os.Getenv("INTERPROBE") == "" {
		t.Skip("set INTERPROBE=1")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	hTrain, _, err := HaluEvalGateSets("../../shared/data")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string][]float64{}
	embed := func(s string) []float64 {
		if v, ok := cache[s]; ok {
			return v
		}
		f := enc.Embed(s)
		v := make([]float64, len(f))
		for i, x := range f {
			v[i] = float64(x)
		}
		cache[s] = v
		return v
	}
	prepared := map[string][]gateCase{}
	terms := map[string]*gate.PassageTerms{}
	data := map[string][]interData{}
	var names []string
	for _, s := range append(slices.Clone(dev), hTrain) {
		cs, err := prepareGateSet(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		// the passages' terms once, not at every decision of the tuning
		for _, c := range cs {
			for i := range c.cands {
				key := c.cands[i].Title + "\x00" + c.cands[i].Text
				if terms[key] == nil {
					terms[key] = gate.NewPassageTerms(gatefeed.Tokenize, c.cands[i].Title, c.cands[i].Text)
				}
				c.cands[i].Terms = terms[key]
			}
		}
		prepared[s.Name] = cs
		if s.Name != hTrain.Name {
			names = append(names, s.Name)
		}
		for _, c := range cs {
			d := interData{q: embed(c.q.Question)}
			for _, cand := range c.cands {
				var ss [][]float64
				if cand.Title != "" {
					ss = append(ss, embed(cand.Title))
				}
				for _, st := range probeSentences(cand.Title, cand.Text) {
					ss = append(ss, embed(st))
				}
				d.sents = append(d.sents, ss)
			}
			data[s.Name] = append(data[s.Name], d)
		}
	}
	sort.Strings(names)
	halu, err := haluItems("../../shared/data", embed)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("encoded %d distinct texts; %d HaluEval train items", len(cache), len(halu))

	variants := []interVariant{
		{"pca32 bag L10", 32, true, 10, false},
		{"pca64 bag L10", 64, true, 10, false},
		{"pca16 bag L10", 16, true, 10, false},
		{"pca32 bag L100", 32, true, 100, false},
		{"pca32 best L10", 32, false, 10, false},
		{"halu pca32 bag L10", 32, true, 10, true},
		{"halu pca64 bag L10", 64, true, 10, true},
		{"full bag L100", 0, true, 100, false},
		{"full bag L30", 0, true, 30, false},
		{"full bag L300", 0, true, 300, false},
		{"halu full bag L100", 0, true, 100, true},
	}
	if sel := os.Getenv("INTERPROBE_VARIANTS"); sel != "" {
		var keep []interVariant
		for _, v := range variants {
			for _, s := range strings.Split(sel, ",") {
				if strings.HasPrefix(v.name, s) {
					keep = append(keep, v)
					break
				}
			}
		}
		variants = keep
	}
	noRefit := os.Getenv("INTERPROBE_NOREFIT") != ""
	cfg := gate.DefaultConfig()
	var b strings.Builder
	// report runs one system over every fold; scoresFor gives the
	// interaction scores of a set's cases for the fold that leaves out
	// out (nil: none).
	type foldOut struct {
		sep            separation
		def, tuned     GateScore
		tunedMS        []string
		weights        []string
		alonePos, aNeg []float64
	}
	run := func(label string, scoresFor func(out, set string) [][]float64) foldOut {
		var fo foldOut
		for _, out := range names {
			var train []gateCase
			for _, n := range names {
				if n != out {
					train = append(train, withInter(prepared[n], scoresFor(out, n))...)
				}
			}
			mixed := withInter(prepared[hTrain.Name], scoresFor(out, hTrain.Name))
			left := withInter(prepared[out], scoresFor(out, out))
			loo, err := fitGateModels(train)
			if err != nil {
				t.Fatal(err)
			}
			tuned := tuneGate(cfg, loo, train, mixed)
			fo.sep.add(loo, left)
			fo.def.add(gateSystem{cfg: cfg, models: loo, semantic: true}.score(left))
			fo.tuned.add(gateSystem{cfg: tuned, models: loo, semantic: true}.score(left))
			fo.tunedMS = append(fo.tunedMS, fmt.Sprintf("%s %.2f/%s", out, tuned.Planner.MinSupport, tuned.Between))
			fo.weights = append(fo.weights, fmt.Sprintf("%.2f", loo.answer.Weights[gate.FInteract]))
			for _, c := range left {
				if c.q.class() == classOffTopic {
					continue
				}
				best := 0.0
				for _, cand := range c.cands {
					best = max(best, cand.Interact)
				}
				if c.q.Answerable {
					fo.alonePos = append(fo.alonePos, best)
				} else {
					fo.aNeg = append(fo.aNeg, best)
				}
			}
		}
		row := func(g GateScore) string {
			return fmt.Sprintf("%s, %s, %s", frac(g.Grounded, g.Answerable), frac(g.Refused, g.OnTopic), frac(g.OffHandled, g.OffTopic))
		}
		fmt.Fprintf(&b, "\n== %s\nanswer-model AUC left out (answerable vs on-topic unanswerable): %.3f\n", label, auc(fo.sep.ans, fo.sep.onTopic))
		if label != "baseline" {
			fmt.Fprintf(&b, "interaction alone, max over the pool, AUC left out: %.3f\n", auc(fo.alonePos, fo.aNeg))
		}
		fmt.Fprintf(&b, "default thresholds: answerable grounded, on-topic refused, off-topic: %s\n", row(fo.def))
		fmt.Fprintf(&b, "tuned thresholds:   answerable grounded, on-topic refused, off-topic: %s\n", row(fo.tuned))
		fmt.Fprintf(&b, "tuned min_support/between per fold: %s\n", strings.Join(fo.tunedMS, "; "))
		fmt.Fprintf(&b, "FInteract weight per fold: %s\n", strings.Join(fo.weights, " "))
		t.Log(b.String())
		return fo
	}
	if os.Getenv("INTERPROBE_NOBASE") == "" {
		run("baseline", func(out, set string) [][]float64 { return nil })
	}

	for _, v := range variants {
		// outer[out]: fitted without out; inner[out][n]: without out and n.
		outer := map[string]*interModel{}
		for _, out := range names {
			var tr []string
			for _, n := range names {
				if n != out {
					tr = append(tr, n)
				}
			}
			m, err := fitInter(v, tr, prepared, data, halu)
			if err != nil {
				t.Fatal(err)
			}
			outer[out] = m
		}
		scoreSet := func(m *interModel, set string) [][]float64 {
			var s [][]float64
			for _, d := range data[set] {
				s = append(s, scoreInter(m, d))
			}
			return s
		}
		// the score alone, and on the labelled passages
		var pos, neg, lp, ln []float64
		for _, out := range names {
			sc := scoreSet(outer[out], out)
			for ci, c := range prepared[out] {
				if c.q.class() == classOffTopic {
					continue
				}
				best := 0.0
				for i := range c.cands {
					best = max(best, sc[ci][i])
					switch {
					case c.q.Answerable && c.answers(i):
						lp = append(lp, sc[ci][i])
					case c.q.class() == classOnTopic && c.about(i):
						ln = append(ln, sc[ci][i])
					}
				}
				if c.q.Answerable {
					pos = append(pos, best)
				} else {
					neg = append(neg, best)
				}
			}
		}
		fmt.Fprintf(&b, "\n== %s: the score alone, left out: max over the pool AUC %.3f; answer passage (%d) vs near-miss passage (%d) AUC %.3f\n",
			v.name, auc(pos, neg), len(lp), len(ln), auc(lp, ln))
		t.Log(b.String())
		if noRefit {
			continue
		}
		t.Logf("%s: outer fits and scores done at %s", v.name, time.Now().Format(time.TimeOnly))
		inner := map[string]map[string][][]float64{}
		for _, out := range names {
			inner[out] = map[string][][]float64{}
			for _, n := range names {
				if n == out {
					continue
				}
				var tr []string
				for _, o := range names {
					if o != out && o != n {
						tr = append(tr, o)
					}
				}
				m, err := fitInter(v, tr, prepared, data, halu)
				if err != nil {
					t.Fatal(err)
				}
				inner[out][n] = scoreSet(m, n)
			}
		}
		t.Logf("%s: inner fits done at %s", v.name, time.Now().Format(time.TimeOnly))
		halu := map[string][][]float64{}
		for _, out := range names {
			halu[out] = scoreSet(outer[out], hTrain.Name)
		}
		run("refit with "+v.name, func(out, set string) [][]float64 {
			switch {
			case set == out:
				return scoreSet(outer[out], out)
			case set == hTrain.Name:
				return halu[out]
			}
			return inner[out][set]
		})
	}
}

// probeSentences cuts a passage's text into sentences as Run 8's probe did
// (at . ? ! ; or a newline followed by a space or the end).
func probeSentences(title, text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '?' && c != '!' && c != ';' && c != '\n' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' {
			continue
		}
		if s := strings.TrimSpace(text[start : i+1]); len(index.Words(s)) > 0 {
			out = append(out, s)
		}
		start = i + 1
	}
	if s := strings.TrimSpace(text[start:]); len(index.Words(s)) > 0 {
		out = append(out, s)
	}
	return out
}
