package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
)

// TestGate15CSLS (throwaway probe): every candidate's encoder cosine less
// k x (b_p - mean b) (G15MODE rel, mean over the corpus's documents) or
// k x b_p (abs), b_p the passage's mean cosine to the generic questions of
// index/generic_questions.txt; then the suite's fit path per dev corpus
// left out, default thresholds, with the cross-corpus questions.
func TestGate15CSLS(t *testing.T) {
	k, err := strconv.ParseFloat(os.Getenv("G15K"), 64)
	if err != nil {
		t.Skip("G15K not set")
	}
	mode := os.Getenv("G15MODE")
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../index/generic_questions.txt")
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, enc.Dims())
	var qvs [][]float64
	topK, _ := strconv.Atoi(os.Getenv("G15TOPK"))
	nq := 0
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		v := enc.Embed(l)
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		n = math.Sqrt(n)
		qv := make([]float64, len(v))
		for j, x := range v {
			g[j] += float64(x) / n
			qv[j] = float64(x) / n
		}
		qvs = append(qvs, qv)
		nq++
	}
	for j := range g {
		g[j] /= float64(nq)
	}
	bcache := map[string]float64{}
	bg := func(title, text string) float64 {
		et := index.EncoderText(&index.Chunk{Title: title, Text: text})
		if b, ok := bcache[et]; ok {
			return b
		}
		v := enc.Embed(et)
		var n, d float64
		for j, x := range v {
			n += float64(x) * float64(x)
			d += float64(x) * g[j]
		}
		b := d / math.Sqrt(n)
		if topK > 0 {
			cs := make([]float64, len(qvs))
			for i, qv := range qvs {
				var dd float64
				for j, x := range v {
					dd += float64(x) * qv[j]
				}
				cs[i] = dd / math.Sqrt(n)
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(cs)))
			b = 0
			for _, x := range cs[:topK] {
				b += x
			}
			b /= float64(topK)
		}
		bcache[et] = b
		return b
	}
	meanB := map[string]float64{}
	for _, s := range dev {
		var sum float64
		for _, d := range s.Docs {
			sum += bg(d.Title, d.Text)
		}
		meanB[s.Name] = sum / float64(len(s.Docs))
		if os.Getenv("G15DIAG") != "" {
			for _, d := range s.Docs {
				w := len(strings.Fields(d.Title + " " + d.Text))
				fmt.Printf("DIAG %s %d %.3f\n", s.Name, w, bg(d.Title, d.Text))
			}
		}
		fmt.Printf("%s: mean b %.3f over %d docs\n", s.Name, meanB[s.Name], len(s.Docs))
	}
	adj := func(cs []gateCase) {
		for _, c := range cs {
			for i := range c.cands {
				b := bg(c.cands[i].Title, c.cands[i].Text)
				switch mode {
				case "rel":
					b -= meanB[c.set]
				case "level":
					b = meanB[c.set]
				}
				c.cands[i].Sim -= k * b
			}
		}
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
		adj(prepared[s.Name])
		adj(cross[s.Name])
		names = append(names, s.Name)
	}
	sort.Strings(names)
	if os.Getenv("G15DIAG") != "" {
		var ra, rn, ca, cn, sa, sc float64
		for _, n := range names {
			for _, c := range prepared[n] {
				for i := range c.cands {
					if c.answers(i) {
						ra += bg(c.cands[i].Title, c.cands[i].Text) - meanB[n]
						sa += c.cands[i].Sim
						rn++
						break
					}
				}
			}
			for _, c := range cross[n] {
				bi := -1
				for i := range c.cands {
					if bi < 0 || c.cands[i].Sim > c.cands[bi].Sim {
						bi = i
					}
				}
				if bi >= 0 {
					ca += bg(c.cands[bi].Title, c.cands[bi].Text) - meanB[n]
					sc += c.cands[bi].Sim
					cn++
				}
			}
		}
		fmt.Printf("DIAG2 answerable right passage: b-mean %.3f sim %.3f (n %.0f); cross best-sim passage: b-mean %.3f sim %.3f (n %.0f)\n", ra/rn, sa/rn, rn, ca/cn, sc/cn, cn)
	}
	cfg := gate.DefaultConfig()
	if os.Getenv("G15ONTOPIC") != "" {
		var m float64
		for _, b := range meanB {
			m += b
		}
		cfg.OnTopicSim -= k * m / float64(len(meanB))
		fmt.Printf("on_topic_sim %.3f\n", cfg.OnTopicSim)
	}
	var tot GateScore
	var xh, xn, xg int
	for _, out := range names {
		var cs []gateCase
		for _, n := range names {
			if n != out {
				cs = append(cs, prepared[n]...)
			}
		}
		m, err := fitGateModels(cs)
		if err != nil {
			t.Fatal(err)
		}
		sys := gateSystem{sysLOODef, cfg, m, true}
		g := sys.score(prepared[out])
		x := sys.score(cross[out])
		fmt.Printf("%s: answerable %d/%d, on-topic %d/%d, off-topic %d/%d, cross %d/%d\n", out, g.Grounded, g.Answerable, g.Refused, g.OnTopic, g.OffHandled, g.OffTopic, x.OffHandled, x.OffTopic)
		tot.add(g)
		xh, xn, xg = xh+x.OffHandled, xn+x.OffTopic, xg+x.Causes["off-topic: grounded"]
	}
	fmt.Printf("TOTAL %s k %.2f: answerable %d/%d, on-topic %d/%d, off-topic %d/%d, cross %d/%d (grounded %d)\n", mode, k, tot.Grounded, tot.Answerable, tot.Refused, tot.OnTopic, tot.OffHandled, tot.OffTopic, xh, xn, xg)
}
