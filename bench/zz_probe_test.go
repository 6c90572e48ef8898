package bench

// A probe (issue 28, Run 8b): word-level synonymy features from the
// sentence encoder, single-feature and refitted AUC of answerable vs
// on-topic unanswerable on each dev corpus left out. Reverted in the next
// commit; run with F4PROBE=1 go test -run 'TestZZProbe$' -v ./bench/
// (PROBE_DBG=1 prints each question's matches).

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/wordvec"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/proxy"
	"github.com/answer-guard/guard/retrieve"
	"go.uber.org/zap"
)

type probeCase struct {
	gateCase
	idf     func(string) float64
	vocab   map[string]string // corpus word -> stem
	df      map[string]bool   // corpus stems
	docVecs [][]float32
}

func probePrepare(ctx context.Context, s GateSet) ([]probeCase, error) {
	tmp, err := os.MkdirTemp("", "guard-probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	def := proxy.DefaultConfig()
	ic, rc := def.Stages.Index, def.Stages.Retrieve
	rc.Semantic = true
	dir := filepath.Join(tmp, "snap")
	if _, err := index.BuildDocs(ctx, ic, slices.Clone(s.Docs), nil, dir, zap.NewNop()); err != nil {
		return nil, err
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
	primary := def.Stages.Gate.PrimaryKind
	absent := true
	ids := map[string]bool{}
	vocab := map[string]string{}
	df := map[string]bool{}
	for _, d := range s.Docs {
		kind := d.Kind
		if kind == "" {
			kind = "library"
		}
		absent = absent && kind != primary
		ids[d.ID] = true
		ws := index.Words(d.Title + ". " + d.Text)
		st := index.Tokenize(d.Title + ". " + d.Text)
		for i, w := range ws {
			if len(st) == len(ws) {
				vocab[w] = st[i]
				df[st[i]] = true
			}
		}
	}
	var texts []string
	for _, d := range s.Docs {
		texts = append(texts, strings.TrimPrefix(d.Title+". "+d.Text, ". "))
	}
	enc, err := encoder.Default()
	if err != nil {
		return nil, err
	}
	docVecs := enc.EmbedBatch(texts)
	var out []probeCase
	for _, q := range s.Questions {
		res, err := e.Retrieve(ctx, retrieve.Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q.Question})
		if err != nil {
			return nil, err
		}
		c := gateCase{set: s.Name, q: q, pq: gatefeed.Question(q.Question, res), rerank: res.RerankActive,
			primaryAbsent: absent, related: map[string]bool{}}
		c.cands = gatefeed.Candidates(res.Candidates)
		for _, r := range res.Candidates {
			c.docIDs = append(c.docIDs, r.DocID)
		}
		for _, id := range append(slices.Clone(q.AnswerIDs), q.RelatedIDs...) {
			c.related[id] = true
		}
		out = append(out, probeCase{gateCase: c, idf: res.IDF, vocab: vocab, df: df, docVecs: docVecs})
	}
	return out, nil
}

type embCache struct {
	e *encoder.Encoder
	m map[string][]float32
}

func (c *embCache) get(w string) []float32 {
	if v, ok := c.m[w]; ok {
		return v
	}
	v := c.e.Embed(w)
	c.m[w] = v
	return v
}

func (c *embCache) warm(ws []string) {
	var need []string
	for _, w := range ws {
		if _, ok := c.m[w]; !ok {
			need = append(need, w)
		}
	}
	vs := c.e.EmbedBatch(need)
	for i, w := range need {
		c.m[w] = vs[i]
	}
}

func TestZZProbe(t *testing.T) {
	if os.Getenv("F4PROBE") == "" {
		t.Skip("a probe: F4PROBE=1")
	}
	ctx := context.Background()
	sets, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	ec := &embCache{e: enc, m: map[string][]float32{}}
	prepared := map[string][]probeCase{}
	var names []string
	for _, s := range sets {
		pc, err := probePrepare(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		prepared[s.Name] = pc
		names = append(names, s.Name)
		var ws []string
		for w := range pc[0].vocab {
			ws = append(ws, w)
		}
		for _, q := range s.Questions {
			ws = append(ws, index.Words(q.Question)...)
			ws = append(ws, q.Question)
		}
		ec.warm(ws)
	}
	sort.Strings(names)
	// feature name -> per-class values
	type vals struct{ pos, neg []float64 }
	feats := map[string]*vals{}
	var order []string
	put := func(name string, ans bool, v float64) {
		f := feats[name]
		if f == nil {
			f = &vals{}
			feats[name] = f
			order = append(order, name)
		}
		if ans {
			f.pos = append(f.pos, v)
		} else {
			f.neg = append(f.neg, v)
		}
	}
	// question-level rows for a LOO 2-feature refit
	type qrow struct {
		set  string
		y    bool
		base float64
		x    map[string]float64
		q    string
	}
	var qrows []qrow
	for _, out := range names {
		var train []gateCase
		for _, n := range names {
			if n != out {
				for _, pc := range prepared[n] {
					train = append(train, pc.gateCase)
				}
			}
		}
		loo, err := fitGateModels(train)
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range prepared[out] {
			cl := pc.q.class()
			if cl == classOffTopic {
				continue
			}
			ans := cl == classAnswerable
			cands := slices.Clone(pc.cands)
			loo.answer.Assess(pc.pq, cands)
			order3 := make([]int, len(cands))
			for i := range order3 {
				order3[i] = i
			}
			sort.SliceStable(order3, func(a, b int) bool { return cands[order3[a]].Answer > cands[order3[b]].Answer })
			if len(cands) == 0 {
				continue
			}
			best := cands[order3[0]]
			row := qrow{set: out, y: ans, base: best.Answer, x: map[string]float64{}, q: pc.q.Question}
			put("model answer (LOO)", ans, best.Answer)
			put("focus", ans, best.Focus)
			put("-focus_miss", ans, -best.FocusMiss)
			put("focus_worst", ans, best.FocusWorst)
			put("sent", ans, best.SentSoft)
			put("sim", ans, best.Sim)
			// question words with IDF
			qw := index.Words(pc.q.Question)
			qs := index.Tokenize(pc.q.Question)
			if len(qs) != len(qw) {
				qs = qw
			}
			type qword struct {
				w, s string
				idf  float64
			}
			var qws []qword
			seen := map[string]bool{}
			for i, w := range qw {
				if seen[qs[i]] {
					continue
				}
				seen[qs[i]] = true
				qws = append(qws, qword{w, qs[i], pc.idf(qs[i])})
			}
			sort.SliceStable(qws, func(a, b int) bool { return qws[a].idf > qws[b].idf })
			total := 0.0
			for _, q := range qws {
				total += q.idf
			}
			// passage-level features over the top-k notes by answer: take the best (max) feature over top k
			for _, k := range []int{1, 3} {
				fk := map[string]float64{}
				for r := 0; r < k && r < len(order3); r++ {
					c := cands[order3[r]]
					pw := index.Words(c.Title + ". " + c.Text)
					ps := index.Tokenize(c.Title + ". " + c.Text)
					if len(ps) != len(pw) {
						ps = pw
					}
					pstem := map[string]bool{}
					for _, s := range ps {
						pstem[s] = true
					}
					var worst, mean, miss5, miss6, diffWorst, diffMean = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0
					var miss55, miss65, miss7, top1 = 0.0, 0.0, 0.0, 0.0
					var dbg []string
					for j, q := range qws {
						b, g := 0.0, 0.0
						if pstem[q.s] {
							b, g = 1, 1
						} else {
							qv := ec.get(q.w)
							for _, w := range pw {
								cs := encoder.Cosine(qv, ec.get(w))
								if cs > b {
									b, g = cs, wv.Similarity(q.w, w)
								}
							}
						}
						d := b - g
						if pstem[q.s] {
							d = 1
						}
						if j < 2 {
							worst = min(worst, b)
							diffWorst = min(diffWorst, d)
						}
						mean += q.idf * b / total
						diffMean += q.idf * d / total
						if b < 0.5 {
							miss5 += q.idf / total
						}
						if b < 0.6 {
							miss6 += q.idf / total
						}
						if b < 0.55 {
							miss55 += q.idf / total
						}
						if b < 0.65 {
							miss65 += q.idf / total
						}
						if b < 0.7 {
							miss7 += q.idf / total
						}
						if j == 0 {
							top1 = b
						}
						dbg = append(dbg, fmt.Sprintf("%s:%.2f", q.w, b))
					}
					upd := func(n string, v float64) {
						key := fmt.Sprintf("%s@top%d", n, k)
						if old, ok := fk[key]; !ok || v > old {
							fk[key] = v
						}
					}
					upd("use_worst", worst)
					upd("-use_miss.55", -miss55)
					upd("-use_miss.65", -miss65)
					upd("-use_miss.7", -miss7)
					upd("use_top1", top1)
					if k == 1 && os.Getenv("PROBE_DBG") != "" {
						fmt.Printf("DBG %v %s | %s | %s\n", ans, pc.q.Question, strings.Join(dbg, " "), c.Title)
					}
					upd("use_mean", mean)
					upd("-use_miss.5", -miss5)
					upd("-use_miss.6", -miss6)
					upd("use-glove_worst", diffWorst)
					upd("use-glove_mean", diffMean)
				}
				keys := make([]string, 0, len(fk))
				for kk := range fk {
					keys = append(keys, kk)
				}
				sort.Strings(keys)
				for _, kk := range keys {
					put(kk, ans, fk[kk])
					row.x[kk] = fk[kk]
				}
			}
			// ablation and word-vs-passage features (sentence encoder on whole passages)
			{
				qv := ec.get(pc.q.Question)
				ptxt := func(c gate.Candidate) string { return strings.TrimPrefix(c.Title+". "+c.Text, ". ") }
				pv := ec.get(ptxt(best))
				full := encoder.Cosine(qv, pv)
				put("sim_probe", ans, full)
				dropMin, dropTop := 1.0, 0.0
				wpMin, wpRelMin := 1.0, 1.0
				lowerQ := strings.ToLower(pc.q.Question)
				for j, q := range qws {
					if j >= 2 {
						break
					}
					abl := strings.Replace(lowerQ, q.w, "", 1)
					d := full - encoder.Cosine(ec.get(abl), pv)
					dropMin = min(dropMin, d)
					if j == 0 {
						dropTop = d
					}
					wv := ec.get(q.w)
					wp := encoder.Cosine(wv, pv)
					// relative to the corpus: mean over all docs of this set
					sum, n := 0.0, 0
					for _, dv := range pc.docVecs {
						sum += encoder.Cosine(wv, dv)
						n++
					}
					wpMin = min(wpMin, wp)
					wpRelMin = min(wpRelMin, wp-sum/float64(max(n, 1)))
				}
				put("abl_drop_min(top2)", ans, dropMin)
				put("abl_drop_top1", ans, dropTop)
				put("word_passage_min(top2)", ans, wpMin)
				put("word_passage_rel_min(top2)", ans, wpRelMin)
				row.x["abl_drop_min(top2)"] = dropMin
				row.x["abl_drop_top1"] = dropTop
				row.x["word_passage_min(top2)"] = wpMin
				row.x["word_passage_rel_min(top2)"] = wpRelMin
			}
			// substitution test: replace each focus word by its closest passage words; is the question still the same question?
			{
				c := best
				pw := index.Words(c.Title + ". " + c.Text)
				ps := index.Tokenize(c.Title + ". " + c.Text)
				if len(ps) != len(pw) {
					ps = pw
				}
				pstem := map[string]bool{}
				for _, s := range ps {
					pstem[s] = true
				}
				qv := ec.get(pc.q.Question)
				lowerQ := strings.ToLower(pc.q.Question)
				for _, gen := range []string{"use", "glove"} {
					worst, worst1 := 1.0, 1.0
					var dbg []string
					for j, q := range qws {
						if j >= 2 {
							break
						}
						b := 1.0
						if !pstem[q.s] {
							type sc struct {
								w string
								v float64
							}
							var cs []sc
							seenW := map[string]bool{}
							for _, w := range pw {
								if seenW[w] {
									continue
								}
								seenW[w] = true
								v := 0.0
								if gen == "use" {
									v = encoder.Cosine(ec.get(q.w), ec.get(w))
								} else {
									v = wv.Similarity(q.w, w)
								}
								cs = append(cs, sc{w, v})
							}
							sort.Slice(cs, func(a, b int) bool { return cs[a].v > cs[b].v })
							b = 0
							bw := ""
							for r := 0; r < 3 && r < len(cs); r++ {
								sub := strings.Replace(lowerQ, q.w, cs[r].w, 1)
								v := encoder.Cosine(qv, ec.get(sub))
								if v > b {
									b, bw = v, cs[r].w
								}
							}
							dbg = append(dbg, fmt.Sprintf("%s->%s:%.2f", q.w, bw, b))
						}
						worst = min(worst, b)
						if j == 0 {
							worst1 = b
						}
					}
					n1, n2 := "subst_"+gen+"_worst(top2)", "subst_"+gen+"_top1"
					put(n1, ans, worst)
					put(n2, ans, worst1)
					row.x[n1], row.x[n2] = worst, worst1
					if os.Getenv("PROBE_DBG") != "" {
						fmt.Printf("SUB %s %v %s | %s\n", gen, ans, pc.q.Question, strings.Join(dbg, " "))
					}
				}
			}
			// substitution test v2: focus by global rarity, substitutes from USE, GloVe and passage bigrams
			{
				rank := func(w string) int32 {
					id, ok := wv.ID(w)
					if !ok {
						return 1 << 20
					}
					return id
				}
				c := best
				pw := index.Words(c.Title + ". " + c.Text)
				ps := index.Tokenize(c.Title + ". " + c.Text)
				if len(ps) != len(pw) {
					ps = pw
				}
				pstem := map[string]bool{}
				for _, s := range ps {
					pstem[s] = true
				}
				var miss []qword
				for _, q := range qws {
					if !pstem[q.s] {
						miss = append(miss, q)
					}
				}
				sort.SliceStable(miss, func(a, b int) bool { return rank(miss[a].w) > rank(miss[b].w) })
				qv := ec.get(pc.q.Question)
				lowerQ := strings.ToLower(pc.q.Question)
				var bigr []string
				for i := 1; i < len(pw); i++ {
					bigr = append(bigr, pw[i-1]+" "+pw[i])
				}
				for _, nf := range []int{1, 2} {
					for _, withBi := range []bool{false, true} {
						worst := 1.0
						var dbg []string
						for j, q := range miss {
							if j >= nf {
								break
							}
							type sc struct {
								w string
								v float64
							}
							top := func(items []string, f func(string) float64, k int) []string {
								var cs []sc
								seenW := map[string]bool{}
								for _, w := range items {
									if seenW[w] {
										continue
									}
									seenW[w] = true
									cs = append(cs, sc{w, f(w)})
								}
								sort.Slice(cs, func(a, b int) bool { return cs[a].v > cs[b].v })
								var out []string
								for r := 0; r < k && r < len(cs); r++ {
									out = append(out, cs[r].w)
								}
								return out
							}
							qwv := ec.get(q.w)
							subs := top(pw, func(w string) float64 { return encoder.Cosine(qwv, ec.get(w)) }, 3)
							subs = append(subs, top(pw, func(w string) float64 { return wv.Similarity(q.w, w) }, 3)...)
							if withBi {
								subs = append(subs, top(bigr, func(w string) float64 { return encoder.Cosine(qwv, ec.get(w)) }, 3)...)
							}
							b, bw := 0.0, ""
							for _, sw := range subs {
								sub := strings.Replace(lowerQ, q.w, sw, 1)
								v := encoder.Cosine(qv, ec.get(sub))
								if v > b {
									b, bw = v, sw
								}
							}
							worst = min(worst, b)
							dbg = append(dbg, fmt.Sprintf("%s->%s:%.2f", q.w, bw, b))
						}
						n := fmt.Sprintf("subst2_rare%d_bi%v", nf, withBi)
						put(n, ans, worst)
						row.x[n] = worst
						if os.Getenv("PROBE_DBG") != "" && nf == 2 && withBi {
							fmt.Printf("SUB2 %v %s | %s\n", ans, pc.q.Question, strings.Join(dbg, " "))
						}
					}
				}
			}
			// global rarity (GloVe frequency rank) picks the focus words
			{
				rank := func(w string) int32 {
					id, ok := wv.ID(w)
					if !ok {
						return 1 << 20
					}
					return id
				}
				gws := slices.Clone(qws)
				sort.SliceStable(gws, func(a, b int) bool { return rank(gws[a].w) > rank(gws[b].w) })
				c := best
				pw := index.Words(c.Title + ". " + c.Text)
				ps := index.Tokenize(c.Title + ". " + c.Text)
				if len(ps) != len(pw) {
					ps = pw
				}
				pstem := map[string]bool{}
				for _, s := range ps {
					pstem[s] = true
				}
				uw, gw, ex, cex, cu := 1.0, 1.0, 0.0, 0.0, 1.0
				for j, q := range gws {
					if j >= 2 {
						break
					}
					bu, bg := 0.0, 0.0
					if pstem[q.s] {
						bu, bg = 1, 1
						ex++
					} else {
						qv := ec.get(q.w)
						for _, w := range pw {
							bu = max(bu, encoder.Cosine(qv, ec.get(w)))
							bg = max(bg, wv.Similarity(q.w, w))
						}
					}
					uw, gw = min(uw, bu), min(gw, bg)
					b := 0.0
					if pc.df[q.s] {
						b = 1
						cex++
					} else {
						qv := ec.get(q.w)
						for w := range pc.vocab {
							b = max(b, encoder.Cosine(qv, ec.get(w)))
						}
					}
					cu = min(cu, b)
				}
				for n, v := range map[string]float64{"grare_use_worst": uw, "grare_glove_worst": gw, "grare_exact": ex, "grare_corpus_exact": cex, "grare_corpus_use": cu} {
					put(n, ans, v)
					row.x[n] = v
				}
				if os.Getenv("PROBE_DBG") != "" {
					var ww []string
					for j, q := range gws {
						if j < 2 {
							ww = append(ww, q.w)
						}
					}
					fmt.Printf("GR %v %s | %v | use %.2f glove %.2f corpus %.2f\n", ans, pc.q.Question, ww, uw, gw, cu)
				}
			}
			// corpus-level: top word present in corpus; best USE over corpus vocab
			if len(qws) > 0 {
				cw, cg := 1.0, 1.0
				absent := 0.0
				for j, q := range qws {
					if j >= 2 {
						break
					}
					b := 0.0
					if pc.df[q.s] {
						b = 1
					} else {
						absent++
						qv := ec.get(q.w)
						for w := range pc.vocab {
							b = max(b, encoder.Cosine(qv, ec.get(w)))
						}
					}
					cw = min(cw, b)
					_ = cg
				}
				put("corpus_use_worst(top2)", ans, cw)
				put("-corpus_absent(top2)", ans, -absent)
				row.x["corpus_use_worst(top2)"] = cw
				row.x["-corpus_absent(top2)"] = -absent
			}
			// phrase: question content words joined vs passage sentences? (sentence-level, answer4's lane) skipped
			qrows = append(qrows, row)
		}
	}
	fmt.Printf("\nsingle-feature AUC, answerable (%d) vs on-topic unanswerable (%d), best note by LOO answerability:\n", len(feats[order[0]].pos), len(feats[order[0]].neg))
	for _, n := range order {
		f := feats[n]
		fmt.Printf("  %-28s %.3f\n", n, auc(f.pos, f.neg))
	}
	// LOO refit: question-level logistic [logit(base), x]
	logit := func(p float64) float64 { p = min(max(p, 1e-6), 1-1e-6); return math.Log(p / (1 - p)) }
	var fnames []string
	for k := range qrows[0].x {
		fnames = append(fnames, k)
	}
	sort.Strings(fnames)
	combos := [][]string{
		{"-use_miss.6@top1", "use_mean@top1"},
		{"-use_miss.6@top1", "corpus_use_worst(top2)"},
		{"-use_miss.6@top1", "use_mean@top1", "corpus_use_worst(top2)", "use_worst@top1"},
		{"-use_miss.6@top1", "subst_glove_worst(top2)"},
		{"-use_miss.5@top1", "-use_miss.6@top1", "-use_miss.7@top1", "use_mean@top1", "use_worst@top1", "corpus_use_worst(top2)", "subst_glove_worst(top2)", "subst_use_worst(top2)"},
	}
	for _, combo := range combos {
		var pos, neg []float64
		for _, out := range names {
			var xs [][]float64
			var ys []float64
			mk := func(r qrow) []float64 {
				x := []float64{1, logit(r.base)}
				for _, f := range combo {
					x = append(x, r.x[f])
				}
				return x
			}
			for _, r := range qrows {
				if r.set == out {
					continue
				}
				xs = append(xs, mk(r))
				y := 0.0
				if r.y {
					y = 1
				}
				ys = append(ys, y)
			}
			w, err := fitLogistic(xs, ys, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range qrows {
				if r.set != out {
					continue
				}
				x := mk(r)
				s := 0.0
				for k := range x {
					s += w[k] * x[k]
				}
				if r.y {
					pos = append(pos, s)
				} else {
					neg = append(neg, s)
				}
			}
		}
		fmt.Printf("  combo base+%v: LOO AUC %.3f\n", combo, auc(pos, neg))
	}
	fmt.Println("\nLOO question-level refit [logit(best answer), feature], AUC left out:")
	for _, fn := range append([]string{""}, fnames...) {
		var pos, neg []float64
		for _, out := range names {
			var xs [][]float64
			var ys, ws []float64
			for _, r := range qrows {
				if r.set == out {
					continue
				}
				x := []float64{1, logit(r.base), 0}
				if fn != "" {
					x[2] = r.x[fn]
				}
				xs = append(xs, x)
				y := 0.0
				if r.y {
					y = 1
				}
				ys = append(ys, y)
				ws = append(ws, 1)
			}
			w, err := fitLogistic(xs, ys, ws, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range qrows {
				if r.set != out {
					continue
				}
				x1 := 0.0
				if fn != "" {
					x1 = r.x[fn]
				}
				s := w[0] + w[1]*logit(r.base) + w[2]*x1
				if r.y {
					pos = append(pos, s)
				} else {
					neg = append(neg, s)
				}
			}
		}
		fmt.Printf("  %-28s %.3f\n", strings.TrimSpace("base+"+fn), auc(pos, neg))
	}
}
