package bench

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/evaldata"

	"github.com/answer-guard/guard/judge"
)

func dataDir(tb testing.TB) string {
	tb.Helper()
	return evaldata.Require(tb, "evaluation data")
}

// TestVerifyQuality scores the local verifier on SciFact, WiCE and
// HaluEval in ../shared/data (a long suite: skipped with -short).
func TestVerifyQuality(t *testing.T) {
	skipHeavy(t)
	if testing.Short() {
		t.Skip("verifier quality over ../shared/data: a long suite, skipped with -short")
	}
	d := dataDir(t)
	var b strings.Builder
	rep, err := VerifyQualityWith(context.Background(), d, "local", judge.NewLocal(judge.DefaultConfig().Local), &b)
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

// DumpVerify (guard bench quality --dump) writes one line per item, each
// with the seven fields of its header, and agrees with the verdicts the
// scoring counts.
func TestDumpVerify(t *testing.T) {
	skipHeavy(t)
	if testing.Short() {
		t.Skip("verifies every WiCE item (4 s): skipped with -short")
	}
	d := dataDir(t)
	items, err := LoadWiCE(d)
	if err != nil {
		t.Skipf("WiCE absent under %s: %v", d, err)
	}
	var b strings.Builder
	if err := DumpVerify(context.Background(), d, "wice", &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if got, want := len(lines), len(items)+1; got != want {
		t.Fatalf("got %d lines, want %d (a header and one per item)", got, want)
	}
	agree := 0
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 7 {
			t.Fatalf("line %d has %d fields, want 7: %q", i+1, len(f), l)
		}
		if i > 0 && f[0] == "true" {
			agree++
		}
	}
	set, err := ScoreVerifier(context.Background(), "wice", judge.NewLocal(judge.DefaultConfig().Local), items)
	if err != nil {
		t.Fatal(err)
	}
	want := 0 // true positives plus true negatives
	for _, c := range set.Classes {
		want += int(c.Recall*float64(c.Support) + 0.5)
	}
	if agree != want {
		t.Errorf("%d verdicts agree with gold in the dump, the scoring counts %d", agree, want)
	}
	if err := DumpVerify(context.Background(), d, "bogus", io.Discard); err == nil {
		t.Error("an unknown set was accepted")
	}
}

// TestVerifyOutOfSample runs the verify suite as `guard bench quality
// --verify` does: the shipped model in-sample, on the dev and frozen test
// splits, and models fitted on two data sets scored on the third. Every
// figure out of sample must beat a constant verdict clearly; the scope
// rules must earn their place on the scope set's fit half.
func TestVerifyOutOfSample(t *testing.T) {
	skipHeavy(t)
	if testing.Short() {
		t.Skip("the verify suite embeds every claim and window with the sentence encoder (minutes on a shared machine): skipped with -short")
	}
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
	for _, s := range rep.Summary {
		if s.Set == "scope" && s.InSample <= s.InScopeOff {
			t.Errorf("scope set: %.3f with the scope rules, %.3f without", s.InSample, s.InScopeOff)
		}
	}
	for _, r := range rep.Rows {
		if r.Sample != "in-sample" && r.Set != "scope" && r.Score.BalancedAccuracy < 0.65 {
			t.Errorf("%s %s (%s): balanced accuracy %.3f, want >= 0.65", r.Set, r.Sample, r.FittedOn, r.Score.BalancedAccuracy)
		}
	}
}

// The scope set loads: both halves, every pair labelled with one of the
// three verdicts and one of the four kinds, ids unique across halves.
func TestScopeSet(t *testing.T) {
	ids := map[string]bool{}
	for _, half := range []string{"fit", "frozen"} {
		items, err := LoadScope(half)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) < 50 {
			t.Errorf("%s: %d pairs, want >= 50", half, len(items))
		}
		for _, it := range items {
			if ids[it.ID] {
				t.Errorf("%s: duplicate id %s", half, it.ID)
			}
			ids[it.ID] = true
			kind, label, _ := strings.Cut(it.Gold, "/")
			switch {
			case label != judge.Entailment && label != judge.Contradiction && label != judge.Neutral:
				t.Errorf("%s %s: label %q", half, it.ID, label)
			case (kind == "faithful") != (label == judge.Entailment):
				t.Errorf("%s %s: kind %s with label %s", half, it.ID, kind, label)
			case kind != "faithful" && kind != "scope_widened" && kind != "condition_dropped" && kind != "range_mismatch":
				t.Errorf("%s %s: kind %q", half, it.ID, kind)
			}
		}
	}
}
