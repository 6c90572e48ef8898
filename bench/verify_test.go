package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestVerifyQuality(t *testing.T) {
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
