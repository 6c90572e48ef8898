package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// TestGate16 (throwaway, G16=1): each dev corpus left out, default
// thresholds; where the right passage of each answerable question sits,
// and outline rule variants.
func TestGate16(t *testing.T) {
	if os.Getenv("G16") == "" {
		t.Skip("G16 not set")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	prepared := map[string][]gateCase{}
	var names []string
	for _, s := range dev {
		if prepared[s.Name], err = prepareGateSet(ctx, s); err != nil {
			t.Fatal(err)
		}
		names = append(names, s.Name)
	}
	sort.Strings(names)
	type variant struct {
		name        string
		keep, blend float64
	}
	vs := []variant{{"base", 0, 0}, {"keep 0.55", 0.55, 0}, {"keep 0.70", 0.70, 0}, {"keep 0.85", 0.85, 0}, {"blend 0.5", 0, 0.5}, {"blend 1", 0, 1}, {"keep 0.55 blend 0.5", 0.55, 0.5}, {"keep 0.70 blend 0.5", 0.70, 0.5}, {"keep 0.85 blend 0.5", 0.85, 0.5}}
	type tot struct {
		g          GateScore
		top3, top1 int
	}
	tots := make([]tot, len(vs))
	where := map[string]int{}
	keyIn8, keyTop3, keyTop1 := make([]int, len(g16Keys)), make([]int, len(g16Keys)), make([]int, len(g16Keys))
	var lines []string
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
		for vi, v := range vs {
			cfg := gate.DefaultConfig()
			cfg.Planner.KeepRelevance, cfg.Planner.OrderBlend = v.keep, v.blend
			sys := gateSystem{sysLOODef, cfg, m, true}
			g := sys.score(prepared[out])
			tots[vi].g.add(g)
			for _, c := range prepared[out] {
				if c.q.class() != classAnswerable {
					continue
				}
				o, _ := sys.decide(c)
				for p, n := range o.Notes {
					for i := range c.cands {
						if c.cands[i].ID == n.ID && c.answers(i) {
							if p < 3 {
								tots[vi].top3++
							}
							if p == 0 {
								tots[vi].top1++
							}
						}
					}
				}
			}
			if vi != 0 {
				continue
			}
			// where the right passage sits, base rules
			for _, c := range prepared[out] {
				if c.q.class() != classAnswerable {
					continue
				}
				cands := append([]gate.Candidate(nil), c.cands...)
				m.answer.Assess(c.pq, cands)
				m.relevance.Rate(cands, gate.OneTopic(cfg, cands))
				ccfg := cfg
				if c.primaryAbsent {
					ccfg.PrimaryKind = ""
				}
				o := gate.Decide(ccfg, cands, c.rerank, c.pq.Ask())
				ri := -1
				for i := range cands {
					if c.answers(i) && (ri < 0 || cands[i].Relevance > cands[ri].Relevance) {
						ri = i
					}
				}
				var cat string
				var rel, ans float64
				if ri >= 0 {
					rel, ans = cands[ri].Relevance, cands[ri].Answer
				}
				switch {
				case ri < 0:
					cat = "not retrieved"
				case o.Decision != gate.Ground:
					cat = "not grounded: " + string(o.Decision)
				default:
					si := -1
					for i, s := range o.Survivors {
						if s.ID == cands[ri].ID {
							si = i
						}
					}
					if si < 0 {
						cat = "not among survivors (prefloor / max_notes)"
						break
					}
					ol := gate.LocalOutline(ccfg, o)
					pos := -1
					for p, i := range ol {
						if o.Survivors[i].ID == cands[ri].ID {
							pos = p
						}
					}
					switch {
					case pos >= 0:
						cat = fmt.Sprintf("outline position %d", pos+1)
						if pos >= 3 {
							cat = "outline position 4-8"
						}
					case cands[ri].Answer < ccfg.Planner.MinSupport:
						cat = "dropped by min_support"
					default:
						cat = "dropped by max_outline"
					}
				}
				where[cat]++
				if o.Decision == gate.Ground {
					var pass []int
					for i, s := range o.Survivors {
						if s.Answer >= ccfg.Planner.MinSupport {
							pass = append(pass, i)
						}
					}
					for ki, k := range g16Keys {
						idx := append([]int(nil), pass...)
						sort.SliceStable(idx, func(a, b int) bool { return k.f(o.Survivors[idx[a]]) > k.f(o.Survivors[idx[b]]) })
						if k.promote > 0 && len(idx) > 0 {
							best := 0
							for j := range idx {
								if o.Survivors[idx[j]].Relevance > o.Survivors[idx[best]].Relevance {
									best = j
								}
							}
							at := k.promote - 1
							if k.promote == 9 {
								at = min(len(idx), 8) - 1
							}
							if best > at {
								b := idx[best]
								idx = slices.Delete(idx, best, best+1)
								idx = slices.Insert(idx, at, b)
							}
						}
						for p, i := range idx {
							if c.answers(slices.IndexFunc(c.cands, func(x gate.Candidate) bool { return x.ID == o.Survivors[i].ID })) {
								if p < 8 {
									keyIn8[ki]++
								}
								if p < 3 {
									keyTop3[ki]++
								}
								if p == 0 {
									keyTop1[ki]++
								}
								break
							}
						}
					}
				}
				// relevance rank among survivors
				if cat != "outline position 1" {
					lines = append(lines, fmt.Sprintf("  %-45s %-22s rel %.2f ans %.2f", cat, out, rel, ans))
				}
			}
		}
	}
	fmt.Println("where the right passage sits (base, left out):")
	var ks []string
	for k := range where {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Printf("  %-45s %d\n", k, where[k])
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	for ki, k := range g16Keys {
		fmt.Printf("order %-28s right first %d, in top 3 %d, in top 8 %d\n", k.name, keyTop1[ki], keyTop3[ki], keyIn8[ki])
	}
	for vi, v := range vs {
		g := tots[vi].g
		fmt.Printf("%-22s answerable %d/%d (right in top 3: %d, first: %d), on-topic %d/%d, off-topic %d/%d\n", v.name, g.Grounded, g.Answerable, tots[vi].top3, tots[vi].top1, g.Refused, g.OnTopic, g.OffHandled, g.OffTopic)
	}
}

func g16logit(p float64) float64 {
	p = min(max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}

var g16Keys = []struct {
	name    string
	f       func(c gate.Candidate) float64
	promote int
}{
	{"ans, most relevant promoted to 1", func(c gate.Candidate) float64 { return c.Answer }, 1},
	{"ans, most relevant promoted to 2", func(c gate.Candidate) float64 { return c.Answer }, 2},
	{"ans, most relevant promoted to 3", func(c gate.Candidate) float64 { return c.Answer }, 3},
	{"ans, most relevant kept (last)", func(c gate.Candidate) float64 { return c.Answer }, 9},
	{"answerability", func(c gate.Candidate) float64 { return c.Answer }, 0},
	{"relevance", func(c gate.Candidate) float64 { return c.Relevance }, 0},
	{"ans+rel", func(c gate.Candidate) float64 { return c.Answer + c.Relevance }, 0},
	{"logit ans + logit rel", func(c gate.Candidate) float64 { return g16logit(c.Answer) + g16logit(c.Relevance) }, 0},
	{"logit ans + 0.5 logit rel", func(c gate.Candidate) float64 { return g16logit(c.Answer) + 0.5*g16logit(c.Relevance) }, 0},
	{"logit ans + 0.25 logit rel", func(c gate.Candidate) float64 { return g16logit(c.Answer) + 0.25*g16logit(c.Relevance) }, 0},
	{"ans*rel", func(c gate.Candidate) float64 { return c.Answer * c.Relevance }, 0},
	{"sim", func(c gate.Candidate) float64 { return c.Sim }, 0},
	{"score", func(c gate.Candidate) float64 { return c.Score }, 0},
	{"rerank", func(c gate.Candidate) float64 { return c.Rerank }, 0},
}
