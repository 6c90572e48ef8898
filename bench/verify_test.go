package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// TestVerifyOutOfSample runs the verify suite as `guard bench quality
// --verify` does: the shipped model in-sample and on the held-out splits,
// and models fitted on two data sets scored on the third. Every
// out-of-sample figure must beat a constant verdict clearly.
func TestVerifyOutOfSample(t *testing.T) {
	d := dataDir(t)
	var b strings.Builder
	rep, err := VerifyQualityFit(context.Background(), d, false, "", &b)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if len(rep.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rep.Rows {
		if strings.HasPrefix(r.Sample, "out-of-sample") && r.Score.BalancedAccuracy < 0.65 {
			t.Errorf("%s %s (%s): balanced accuracy %.3f, want >= 0.65", r.Set, r.Sample, r.FittedOn, r.Score.BalancedAccuracy)
		}
	}
}
