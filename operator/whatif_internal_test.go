package operator

import (
	"fmt"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// forPartition applies primary_kind as the proxy does: a partition that
// lacks the kind counts every chunk; an unknown partition keeps the kind.
func TestForPartition(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		kinds      []string
		want       string
		wantAbsent bool
	}{
		{"lecture", []string{"lecture", "library"}, "lecture", false},
		{"lecture", []string{"library"}, "", true},
		{"lecture", []string{}, "", true},
		{"lecture", nil, "lecture", false},
		{"", []string{"library"}, "", false},
	} {
		cfg := gate.DefaultConfig()
		cfg.PrimaryKind = tc.kind
		got, absent := forPartition(cfg, tc.kinds)
		if got.PrimaryKind != tc.want || absent != tc.wantAbsent {
			t.Errorf("kind %q in %v: got %q absent %v, want %q %v", tc.kind, tc.kinds, got.PrimaryKind, absent, tc.want, tc.wantAbsent)
		}
	}
}

// BenchmarkWhatIf is one what-if over full default rings of four
// partitions (4,000 turns of 20 candidates), primary_kind moved; one
// partition lacks the kind. ns/turn is the cost per replayed turn.
func BenchmarkWhatIf(b *testing.B) {
	cfg := defaultTurnLog()
	tl := newTurnLog(cfg)
	for p := range 4 {
		l, tr := fakeTurn(fmt.Sprintf("t%d", p))
		for range cfg.Size {
			l.Gate = &tr
			tl.record(l)
		}
	}
	entries := tl.snapshot(turnFilter{})
	current := gate.DefaultConfig()
	moved := current
	moved.PrimaryKind = "library"
	kinds := func(tenant, kb string) []string {
		if tenant == "t3" {
			return []string{"lecture"}
		}
		return []string{"lecture", "library"}
	}
	b.ReportAllocs()
	var res whatIfResult
	for b.Loop() {
		res = whatIf(entries, moved, &current, kinds, 5)
	}
	if res.Turns != len(entries) || res.Exact.Mismatched != 0 || len(res.PrimaryKindAbsent) != 1 {
		b.Fatalf("%d turns, %d mismatched, absent %v", res.Turns, res.Exact.Mismatched, res.PrimaryKindAbsent)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(entries)), "ns/turn")
}
