package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/answer-guard/guard/judge"
)

func dataDir(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv("GUARD_DATA")
	if d == "" {
		d = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(d); err != nil {
		tb.Skipf("evaluation data absent at %s (set GUARD_DATA): %v", d, err)
	}
	return d
}

// TestVerifyQuality scores the local verifier on SciFact, WiCE and
// HaluEval in ../shared/data (a long suite: skipped with -short).
func TestVerifyQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("verifier quality over ../shared/data: a long suite, skipped with -short")
	}
	d := dataDir(t)
	var b strings.Builder
	rep, err := VerifyQuality(context.Background(), d, &b)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, s := range rep.Sets {
		if s.N == 0 {
			t.Errorf("%s: no items", s.Name)
		}
		// a verifier that says the same thing for everything scores 0.5
		if s.BalancedAccuracy <= 0.5 {
			t.Errorf("%s: balanced accuracy %.3f, want > 0.5 (better than constant)", s.Name, s.BalancedAccuracy)
		}
	}
}

// TestTuneLocal sweeps the local verifier thresholds over the three data sets
// and logs the best settings by mean balanced accuracy (how the defaults
// were chosen; they are tuned on these dev sets).
func TestTuneLocal(t *testing.T) {
	if os.Getenv("GUARD_TUNE") == "" {
		t.Skip("threshold sweep of the local verifier: set GUARD_TUNE=1 to run")
	}
	d := dataDir(t)
	names := []string{"scifact", "wice", "halu"}
	sets := map[string][]VerifyItem{}
	sets["scifact"], _ = LoadSciFact(d)
	sets["wice"], _ = LoadWiCE(d)
	sets["halu"], _ = LoadHaluEval(d)
	for _, name := range names {
		v := judge.NewLocal(judge.DefaultConfig().Local)
		reasons := map[string]int{}
		for _, it := range sets[name] {
			vd, _ := v.Verify(context.Background(), it.Claim, it.Evidence)
			reasons[fmt.Sprintf("%v/%s/%s", it.Support, vd.Label, vd.Reason)]++
		}
		t.Log(name, reasons)
	}
	type res struct {
		key  string
		mean float64
		per  string
	}
	var rs []res
	cfg := judge.DefaultConfig().Local
	for _, e := range []float64{0.35, 0.4, 0.45, 0.5, 0.55} {
		for _, st := range []float64{0, 1, 2} {
			for _, an := range []bool{false, true} {
				for _, g := range []float64{0, 0.05, 0.1, 0.15} {
					cfg.Entail, cfg.Strict, cfg.Anchors, cfg.Gather = e, st, an, g
					r := res{key: fmt.Sprintf("e=%.2f s=%.0f a=%v g=%.2f", e, st, an, g)}
					for _, name := range names {
						s, _ := ScoreVerifier(context.Background(), name, judge.NewLocal(cfg), sets[name])
						r.mean += s.BalancedAccuracy / 3
						r.per += fmt.Sprintf(" %s=%.3f(S%.2f/N%.2f)", name, s.BalancedAccuracy, s.Classes[0].Recall, s.Classes[1].Recall)
					}
					rs = append(rs, r)
				}
			}
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].mean > rs[j].mean })
	for _, r := range rs[:10] {
		t.Logf("%.3f %s %s", r.mean, r.key, r.per)
	}
}

// TestDumpVerify writes every verdict of the local verifier on one data set
// (GUARD_DUMP=scifact|wice|halu) as tab-separated lines to the test log, for
// error analysis.
func TestDumpVerify(t *testing.T) {
	name := os.Getenv("GUARD_DUMP")
	if name == "" {
		t.Skip("error analysis dump: set GUARD_DUMP=scifact|wice|halu to run")
	}
	d := dataDir(t)
	load := map[string]func(string) ([]VerifyItem, error){"scifact": LoadSciFact, "wice": LoadWiCE, "halu": LoadHaluEval}[name]
	if load == nil {
		t.Fatalf("GUARD_DUMP=%q: want scifact, wice or halu", name)
	}
	items, err := load(d)
	if err != nil {
		t.Fatal(err)
	}
	v := judge.NewLocal(judge.DefaultConfig().Local)
	var b strings.Builder
	for _, it := range items {
		vd, _ := v.Verify(context.Background(), it.Claim, it.Evidence)
		ok := (vd.Label == judge.Entailment) == it.Support
		fmt.Fprintf(&b, "%v\t%s\t%s\t%s\t%.2f\t%s\t%s\n", ok, it.Gold, vd.Label, vd.Reason, vd.Confidence, it.Claim, vd.Evidence)
	}
	t.Log("\n" + b.String())
}
