package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
)

// TestGate14Diag (throwaway, G14DIAG=1): what carries the dev off-topic and
// cross-corpus questions that reach bail-out, shipped models.
func TestGate14Diag(t *testing.T) {
	if os.Getenv("G14DIAG") == "" {
		t.Skip("G14DIAG not set")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	sys := gateSystem{sysShipped, gate.DefaultConfig(), gateModels{answer: gate.DefaultAnswerModel(), relevance: gate.DefaultRelevanceModel()}, true}
	type row struct {
		kind            string
		rel, sim        float64
		shared, qterms  int
		pterms          int
		grounded, above bool
		f               gate.Features
		one             bool
		t               float64
		set             string
	}
	var rows []row
	describe := func(kind string, c gateCase, pick func(rated []gate.Candidate) int) {
		o, rated := sys.decide(c)
		i := pick(rated)
		if i < 0 {
			return
		}
		cd := rated[i]
		qt := map[string]bool{}
		for _, w := range index.Tokenize(c.q.Question) {
			qt[w] = true
		}
		pt := map[string]bool{}
		for _, w := range index.Tokenize(cd.Title + " " + cd.Text) {
			pt[w] = true
		}
		n := 0
		for w := range qt {
			if pt[w] {
				n++
			}
		}
		rows = append(rows, row{kind, cd.Relevance, cd.Sim, n, len(qt), len(pt), o.Decision == gate.Ground, o.Coverage.Max >= sys.cfg.BailOutBelow, cd.Features,
			gate.OneTopic(sys.cfg, c.cands), gate.PoolCosine(c.cands), c.set})
	}
	best := func(rated []gate.Candidate) int {
		b := -1
		for i, cd := range rated {
			if i < FitTopK && (b < 0 || cd.Relevance > rated[b].Relevance) {
				b = i
			}
		}
		return b
	}
	for _, s := range dev {
		cases, err := prepareGateSet(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			switch c.q.class() {
			case classAnswerable:
				describe("answerable (right passage)", c, func(rated []gate.Candidate) int {
					for i := range rated {
						if c.answers(i) {
							return i
						}
					}
					return -1
				})
			case classOffTopic:
				describe("dev off-topic (best)", c, best)
			}
		}
		xc, err := prepareGateSet(ctx, GateSet{Name: s.Name, Docs: s.Docs, Questions: foreignQuestions(dev, s.Name, 0)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range xc {
			describe("cross-corpus (best)", c, best)
		}
	}
	m := gate.DefaultRelevanceModel()
	for _, kind := range []string{"answerable (right passage)", "dev off-topic (best)", "cross-corpus (best)"} {
		var rs []row
		for _, r := range rows {
			if r.kind == kind {
				rs = append(rs, r)
			}
		}
		above, gr := 0, 0
		for _, r := range rs {
			if r.above {
				above++
			}
			if r.grounded {
				gr++
			}
		}
		fmt.Printf("\n== %s: %d, at/above bail-out %d, grounded %d\n", kind, len(rs), above, gr)
		for _, one := range []bool{true, false} {
			var n, ab int
			var t float64
			for _, r := range rs {
				if r.one == one {
					n++
					t += r.t
					if r.above {
						ab++
					}
				}
			}
			if n > 0 {
				fmt.Printf("  one topic %v: %d, at/above bail-out %d, pool cosine mean %.3f\n", one, n, ab, t/float64(n))
			}
		}
		// median passage length per corpus
		byset := map[string][]int{}
		for _, r := range rs {
			byset[r.set] = append(byset[r.set], r.pterms)
		}
		// by shared terms
		for _, sh := range []int{0, 1, 2, 3} {
			var n, ab int
			var rel, sim float64
			for _, r := range rs {
				if min(r.shared, 3) == sh {
					n++
					rel += r.rel
					sim += r.sim
					if r.rel >= 0.40 {
						ab++
					}
				}
			}
			if n > 0 {
				fmt.Printf("  shared %d%s: %d (%.1f%%), relevance mean %.2f, sim mean %.2f, this passage >= 0.40: %d\n", sh, map[bool]string{true: "+"}[sh == 3], n, 100*float64(n)/float64(len(rs)), rel/float64(n), sim/float64(n), ab)
			}
		}
		// by passage length (distinct terms)
		for _, b := range [][2]int{{0, 10}, {11, 20}, {21, 40}, {41, 80}, {81, 1 << 30}} {
			var n, ab int
			var rel, sim, cov, marg float64
			for _, r := range rs {
				if r.pterms >= b[0] && r.pterms <= b[1] {
					n++
					rel += r.rel
					sim += r.sim
					cov += r.f[gate.FCoverage]
					marg += r.f[gate.FMargin]
					if r.rel >= 0.40 {
						ab++
					}
				}
			}
			if n > 0 {
				var gr, tt float64
				for _, r := range rs {
					if r.pterms >= b[0] && r.pterms <= b[1] {
						tt += r.t
						if r.grounded {
							gr++
						}
					}
				}
				fmt.Printf("  passage %d-%d terms: %d, relevance mean %.2f, sim %.2f, coverage %.2f, margin %.2f, >= 0.40: %d, question at/above: grounded %.0f, pool cosine %.3f\n", b[0], b[1], n, rel/float64(n), sim/float64(n), cov/float64(n), marg/float64(n), ab, gr, tt/float64(n))
			}
		}
		// mean weighted feature contributions, for rows with rel >= 0.40 and shared == 1
		for _, sel := range []struct {
			name string
			ok   func(r row) bool
		}{{"all", func(r row) bool { return true }}, {"one shared term", func(r row) bool { return r.shared == 1 }}, {"one shared term, rel >= 0.40", func(r row) bool { return r.shared == 1 && r.rel >= 0.40 }}} {
			var n int
			var sum gate.Features
			for _, r := range rs {
				if !sel.ok(r) {
					continue
				}
				n++
				for k := range sum {
					sum[k] += m.Weights[k] * r.f[k]
				}
			}
			if n == 0 {
				continue
			}
			type kv struct {
				k string
				v float64
			}
			var kvs []kv
			for k := range sum {
				if m.Weights[k] != 0 {
					kvs = append(kvs, kv{gate.FeatureNames[k], sum[k] / float64(n)})
				}
			}
			sort.Slice(kvs, func(a, b int) bool { return kvs[a].v > kvs[b].v })
			s := ""
			for _, x := range kvs {
				s += fmt.Sprintf(" %s %+.2f", x.k, x.v)
			}
			fmt.Printf("  contributions (%s, %d):%s\n", sel.name, n, s)
		}
		sims := []float64{}
		for _, r := range rs {
			if r.shared == 1 {
				sims = append(sims, r.sim)
			}
		}
		slices.Sort(sims)
		if len(sims) > 0 {
			fmt.Printf("  sim of one-shared-term rows: p25 %.2f p50 %.2f p75 %.2f\n", sims[len(sims)/4], sims[len(sims)/2], sims[3*len(sims)/4])
		}
	}
}

// TestGate14LOO (throwaway, G14LOO=1): each dev corpus left out, default
// thresholds, as the suite's sysLOODef rows and its cross-corpus row.
func TestGate14LOO(t *testing.T) {
	if os.Getenv("G14LOO") == "" {
		t.Skip("G14LOO not set")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	prepared := map[string][]gateCase{}
	cross := map[string][]gateCase{}
	var names []string
	for _, s := range dev {
		if prepared[s.Name], err = prepareGateSet(ctx, s); err != nil {
			t.Fatal(err)
		}
		if cross[s.Name], err = prepareGateSet(ctx, GateSet{Name: s.Name, Docs: s.Docs, Questions: foreignQuestions(dev, s.Name, 0)}); err != nil {
			t.Fatal(err)
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	cfg := gate.DefaultConfig()
	var tot GateScore
	var xh, xn, xg int
	for _, out := range names {
		var cs []gateCase
		for _, n := range names {
			if n != out {
				cs = append(cs, prepared[n]...)
			}
		}
		var foreign []gateCase
		if k := g14Every(); k > 0 {
			j := 0
			for _, n := range names {
				if n == out {
					continue
				}
				for _, c := range cross[n] {
					if strings.HasPrefix(c.q.ID, out+":") {
						continue
					}
					if j%k == 0 {
						foreign = append(foreign, c)
					}
					j++
				}
			}
		}
		m, err := fitGateModels(cs, foreign...)
		if err != nil {
			t.Fatal(err)
		}
		sys := gateSystem{sysLOODef, cfg, m, true}
		g := sys.score(prepared[out])
		x := sys.score(cross[out])
		fmt.Printf("%s: answerable %d/%d, on-topic %d/%d, off-topic %d/%d, cross %d/%d (grounded %d); unknown %v\n", out, g.Grounded, g.Answerable, g.Refused, g.OnTopic, g.OffHandled, g.OffTopic, x.OffHandled, x.OffTopic, x.Causes["off-topic: grounded"], m.relevance.Unknown)
		tot.add(g)
		xh, xn, xg = xh+x.OffHandled, xn+x.OffTopic, xg+x.Causes["off-topic: grounded"]
		if os.Getenv("G14FAIL") != "" {
			for _, f := range g.Failures {
				fmt.Println("   ", f)
			}
		}
	}
	fmt.Printf("TOTAL left out, defaults: answerable %d/%d, on-topic %d/%d, off-topic %d/%d, cross %d/%d (grounded %d)\n", tot.Grounded, tot.Answerable, tot.Refused, tot.OnTopic, tot.OffHandled, tot.OffTopic, xh, xn, xg)
}

func init() {
	if v := os.Getenv("G14HINGE"); v != "" {
		var h float64
		fmt.Sscan(v, &h)
		gate.SetLoneWeight(func(sim float64) float64 { return max(0, h-sim) / h })
	}
}

func init() {
	if os.Getenv("G14NOUNK") != "" {
		gateScaleUnknown = false
	}
}

func g14Every() int { k, _ := strconv.Atoi(os.Getenv("G14EVERY")); return k }

func init() {
	if os.Getenv("G14LM") != "" {
		gate.LoneMargin = true
	}
}

func init() {
	if v := os.Getenv("G14LMH"); v != "" {
		var h float64
		fmt.Sscan(v, &h)
		gate.LoneMarginKeep = func(sim float64) float64 { return min(1, max(sim, 0)/h) }
	}
}

func init() {
	if v := os.Getenv("G14Q"); v != "" {
		gate.G14Q, _ = strconv.Atoi(v)
	}
}
