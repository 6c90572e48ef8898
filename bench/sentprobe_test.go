package bench

// A probe (issue 28, docs/quality.md Run 8): sentence-level encoder
// features for answerability, their single-feature AUC on each dev
// question's best note and refitted per fold, each dev corpus left out.
// Run: SENTPROBE=1 go test -run TestSentenceProbe -v ./bench/ (about 75 s
// of CPU). Committed once for the record and reverted: nothing was kept.

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
)

// sentence features of one candidate
type sentFeat struct {
	best, bestText, second float64
	title                  bool
	n                      int
	pair                   float64 // best cosine of two adjacent sentences joined
	ctr, z, ctrZ           float64 // centred best cosine; z of best against all corpus sentences; z of centred
}

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

func TestSentenceProbe(t *testing.T) {
	if os.Getenv("SENTPROBE") == "" {
		t.Skip("set SENTPROBE=1")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string][]float32{}
	embed := func(s string) []float32 {
		if v, ok := cache[s]; ok {
			return v
		}
		v := enc.Embed(s)
		cache[s] = v
		return v
	}
	prepared := map[string][]gateCase{}
	var names []string
	sf := map[string][][]sentFeat{} // set -> case -> cand
	for _, s := range dev {
		cs, err := prepareGateSet(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		prepared[s.Name] = cs
		names = append(names, s.Name)
		var all [][]float32
		for _, d := range s.Docs {
			if d.Title != "" {
				all = append(all, embed(d.Title))
			}
			for _, st := range probeSentences(d.Title, d.Text) {
				all = append(all, embed(st))
			}
		}
		cen := make([]float32, len(all[0]))
		for _, v := range all {
			for k := range v {
				cen[k] += v[k] / float32(len(all))
			}
		}
		centre := func(v []float32) []float32 {
			o := make([]float32, len(v))
			var n float64
			for k := range v {
				o[k] = v[k] - cen[k]
				n += float64(o[k]) * float64(o[k])
			}
			for k := range o {
				o[k] /= float32(math.Sqrt(n))
			}
			return o
		}
		allC := make([][]float32, len(all))
		for k, v := range all {
			allC[k] = centre(v)
		}
		stats := func(q []float32, vs [][]float32) (float64, float64) {
			var m, m2 float64
			for _, v := range vs {
				x := encoder.Cosine(q, v)
				m += x
				m2 += x * x
			}
			m /= float64(len(vs))
			return m, math.Sqrt(max(m2/float64(len(vs))-m*m, 1e-9))
		}
		for _, c := range cs {
			qv := embed(c.q.Question)
			qc := centre(qv)
			mu, sd := stats(qv, all)
			muC, sdC := stats(qc, allC)
			var row []sentFeat
			for _, cand := range c.cands {
				f := sentFeat{best: -2, bestText: -2, second: -2, ctr: -2}
				var coss []float64
				if cand.Title != "" {
					x := encoder.Cosine(qv, embed(cand.Title))
					coss = append(coss, x)
					f.best, f.title = x, true
					f.ctr = encoder.Cosine(qc, centre(embed(cand.Title)))
				}
				sents := probeSentences(cand.Title, cand.Text)
				for _, st := range sents {
					f.ctr = max(f.ctr, encoder.Cosine(qc, centre(embed(st))))
				}
				f.n = len(sents)
				f.pair = -2
				for j, st := range sents {
					x := encoder.Cosine(qv, embed(st))
					coss = append(coss, x)
					f.bestText = max(f.bestText, x)
					if x > f.best {
						f.best, f.title = x, false
					}
					if j+1 < len(sents) {
						f.pair = max(f.pair, encoder.Cosine(qv, embed(st+" "+sents[j+1])))
					}
				}
				if f.pair < -1 {
					f.pair = f.bestText
				}
				sort.Float64s(coss)
				if len(coss) >= 2 {
					f.second = coss[len(coss)-2]
				} else {
					f.second = f.best
				}
				if f.bestText < -1 {
					f.bestText = f.best
				}
				f.z = (f.best - mu) / sd
				f.ctrZ = (f.ctr - muC) / sdC
				row = append(row, f)
			}
			sf[s.Name] = append(sf[s.Name], row)
		}
	}
	sort.Strings(names)
	t.Logf("encoded %d distinct texts", len(cache))

	// per-candidate extra features
	const nx = 11
	xnames := [nx]string{"s_best", "s_best-sim", "s_best-poolmean", "s_best-otherbest", "s_gap12", "s_is_title", "s_besttext", "s_pair", "s_ctr", "s_z", "s_ctr_z"}
	extra := func(set string, ci int, c gateCase) [][nx]float64 {
		row := sf[set][ci]
		out := make([][nx]float64, len(row))
		var mean float64
		b1, b2 := -2.0, -2.0
		for _, f := range row {
			mean += f.best
			switch {
			case f.best > b1:
				b2, b1 = b1, f.best
			case f.best > b2:
				b2 = f.best
			}
		}
		mean /= float64(max(len(row), 1))
		for i, f := range row {
			other := b1
			if f.best >= b1 {
				other = b2
			}
			if other < -1 {
				other = f.best
			}
			t := 0.0
			if f.title {
				t = 1
			}
			out[i] = [nx]float64{f.best, f.best - c.cands[i].Sim, f.best - mean, f.best - other, f.best - f.second, t, f.bestText, f.pair, f.ctr, f.z, f.ctrZ}
		}
		return out
	}

	type qrow struct {
		y     bool
		bestP float64 // fold model's best answerability
		note  gate.Features
		noteX [nx]float64
		maxX  [nx]float64
		extP  map[string]float64
		set   string
	}
	var rows []qrow
	combos := map[string][]int{
		"all8":         {0, 1, 2, 3, 4, 5, 6, 7},
		"ctr,z":        {8, 9, 10},
		"all11":        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		"best,rel":     {0, 2, 3},
		"best-sim,gap": {1, 4},
		"best,title":   {0, 5},
	}
	for _, out := range names {
		var train []gateCase
		var trainX [][][nx]float64
		for _, n := range names {
			if n == out {
				continue
			}
			for ci, c := range prepared[n] {
				train = append(train, c)
				trainX = append(trainX, extra(n, ci, c))
			}
		}
		loo, err := fitGateModels(train)
		if err != nil {
			t.Fatal(err)
		}
		// extended per-passage fits (plain logistic, no monotone dropping)
		fitExt := func(cols []int) []float64 {
			var xs [][]float64
			var ys, ws []float64
			var sets []string
			for k, c := range train {
				cands := slices.Clone(c.cands)
				gate.AnswerModel{}.Assess(c.pq, cands)
				for i, cand := range cands {
					if i >= FitTopK {
						break
					}
					f := cand.Features
					for _, u := range unfittedFeatures {
						f[u] = 0
					}
					r := append([]float64(nil), f[:]...)
					for _, col := range cols {
						r = append(r, trainX[k][i][col])
					}
					xs = append(xs, r)
					y := 0.0
					if c.answers(i) {
						y = 1
					}
					ys = append(ys, y)
					sets = append(sets, c.set)
				}
			}
			ws = setWeights(sets)
			w, err := fitLogistic(xs, ys, ws, gateLambda)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		wsExt := map[string][]float64{"base(plain)": fitExt(nil)}
		colsOf := map[string][]int{"base(plain)": nil}
		for k, cols := range combos {
			wsExt[k] = fitExt(cols)
			colsOf[k] = cols
		}
		if out == names[0] {
			for k, w := range wsExt {
				t.Logf("fold %s %s extra weights %v", out, k, fmtW(w[gate.NumFeatures:]))
			}
		}
		for ci, c := range prepared[out] {
			if c.q.class() == classOffTopic {
				continue
			}
			cands := slices.Clone(c.cands)
			loo.answer.Assess(c.pq, cands)
			x := extra(out, ci, c)
			r := qrow{y: c.q.Answerable, bestP: -1, extP: map[string]float64{}, set: out}
			for j := range r.maxX {
				r.maxX[j] = -9
			}
			bi := -1
			for i, cand := range cands {
				if cand.Answer > r.bestP {
					r.bestP, bi = cand.Answer, i
				}
				for j := range nx {
					r.maxX[j] = max(r.maxX[j], x[i][j])
				}
			}
			if bi >= 0 {
				r.note, r.noteX = cands[bi].Features, x[bi]
			}
			for k, w := range wsExt {
				best := 0.0
				for i, cand := range cands {
					f := cand.Features
					z := 0.0
					for u := range gate.NumFeatures {
						z += w[u] * f[u]
					}
					for j, col := range colsOf[k] {
						z += w[int(gate.NumFeatures)+j] * x[i][col]
					}
					p := 1 / (1 + math.Exp(-z))
					if cand.Answer == 0 && f[gate.FTypeMiss] == 1 {
						p = 0 // strict type
					}
					best = max(best, p)
				}
				r.extP[k] = best
			}
			rows = append(rows, r)
		}
	}
	aucOf := func(get func(r qrow) float64) float64 {
		var pos, neg []float64
		for _, r := range rows {
			if r.y {
				pos = append(pos, get(r))
			} else {
				neg = append(neg, get(r))
			}
		}
		return auc(pos, neg)
	}
	var b strings.Builder
	// labelled passages: answer passage (answerable) vs related passage (on-topic unanswerable)
	{
		var posB, negB, posS, negS []float64
		for _, n := range names {
			for ci, c := range prepared[n] {
				x := extra(n, ci, c)
				for i := range c.cands {
					switch {
					case c.q.Answerable && c.answers(i):
						posB, posS = append(posB, x[i][0]), append(posS, c.cands[i].Sim)
					case c.q.class() == classOnTopic && c.about(i):
						negB, negS = append(negB, x[i][0]), append(negS, c.cands[i].Sim)
					}
				}
			}
		}
		mean := func(v []float64) float64 {
			var m float64
			for _, x := range v {
				m += x
			}
			return m / float64(len(v))
		}
		fmt.Fprintf(&b, "\nlabelled passages: answer %d (s_best mean %.3f, sim %.3f) vs near-miss %d (s_best %.3f, sim %.3f): AUC s_best %.3f, sim %.3f\n",
			len(posB), mean(posB), mean(posS), len(negB), mean(negB), mean(negS), auc(posB, negB), auc(posS, negS))
		var pb, nb, ps, ns []float64
		for _, r := range rows {
			if r.y {
				pb, ps = append(pb, r.noteX[0]), append(ps, r.note[gate.FSim])
			} else {
				nb, ns = append(nb, r.noteX[0]), append(ns, r.note[gate.FSim])
			}
		}
		fmt.Fprintf(&b, "best note means: answerable s_best %.3f sim %.3f; on-topic unanswerable s_best %.3f sim %.3f\n", mean(pb), mean(ps), mean(nb), mean(ns))
	}
	fmt.Fprintf(&b, "\nquestions: %d\n", len(rows))
	fmt.Fprintf(&b, "LOO model best answerability (shipped pipeline): %.3f\n", aucOf(func(r qrow) float64 { return r.bestP }))
	for k := range gate.NumFeatures {
		fmt.Fprintf(&b, "  existing %-12s on best note: %.3f\n", gate.FeatureNames[k], aucOf(func(r qrow) float64 { return r.note[k] }))
	}
	for j := range nx {
		fmt.Fprintf(&b, "  new %-18s on best note: %.3f   max over pool: %.3f\n", xnames[j], aucOf(func(r qrow) float64 { return r.noteX[j] }), aucOf(func(r qrow) float64 { return r.maxX[j] }))
	}
	ks := make([]string, 0)
	for k := range rows[0].extP {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(&b, "  refit per-passage %-14s LOO AUC (max over cands): %.3f\n", k, aucOf(func(r qrow) float64 { return r.extP[k] }))
	}
	// question-level LOO: logit(bestP) + pool-max sentence features
	for _, cols := range [][]int{nil, {0}, {1}, {0, 1}, {0, 2, 3, 4}, {8}, {9}, {10}, {8, 9, 10}} {
		var pos, neg []float64
		for _, out := range names {
			var xs [][]float64
			var ys []float64
			var ws []float64
			npos, nneg := 0, 0
			for _, r := range rows {
				if r.set != out {
					if r.y {
						npos++
					} else {
						nneg++
					}
				}
			}
			for _, r := range rows {
				if r.set == out {
					continue
				}
				x := []float64{1, logit(r.bestP)}
				for _, c := range cols {
					x = append(x, r.maxX[c])
				}
				xs = append(xs, x)
				if r.y {
					ys = append(ys, 1)
					ws = append(ws, 0.5/float64(npos))
				} else {
					ys = append(ys, 0)
					ws = append(ws, 0.5/float64(nneg))
				}
			}
			w, err := fitLogistic(xs, ys, ws, 0.001)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.set != out {
					continue
				}
				z := w[0] + w[1]*logit(r.bestP)
				for j, c := range cols {
					z += w[2+j] * r.maxX[c]
				}
				if r.y {
					pos = append(pos, z)
				} else {
					neg = append(neg, z)
				}
			}
		}
		fmt.Fprintf(&b, "  question-level logit+%v LOO AUC: %.3f\n", cols, auc(pos, neg))
	}
	t.Log(b.String())
}

func fmtW(w []float64) string {
	var s []string
	for _, x := range w {
		s = append(s, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(s, " ")
}

func logit(p float64) float64 {
	p = min(max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}
