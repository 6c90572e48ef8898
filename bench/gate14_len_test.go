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
)

// TestGate14Len (throwaway probe): every candidate's encoder cosine less
// k/sqrt(words of the passage), then the suite's fit path per dev corpus
// left out, default thresholds, with the cross-corpus questions.
func TestGate14Len(t *testing.T) {
	k, err := strconv.ParseFloat(os.Getenv("G14K"), 64)
	if err != nil {
		t.Skip("G14K not set")
	}
	ctx := context.Background()
	dev, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	adj := func(cs []gateCase) {
		for _, c := range cs {
			for i := range c.cands {
				w := len(strings.Fields(c.cands[i].Title + " " + c.cands[i].Text))
				c.cands[i].Sim -= k / math.Sqrt(float64(max(w, 1)))
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
	fmt.Printf("TOTAL k %.2f: answerable %d/%d, on-topic %d/%d, off-topic %d/%d, cross %d/%d (grounded %d)\n", k, tot.Grounded, tot.Answerable, tot.Refused, tot.OnTopic, tot.OffHandled, tot.OffTopic, xh, xn, xg)
}
