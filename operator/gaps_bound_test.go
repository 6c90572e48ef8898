package operator

import (
	"fmt"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
)

// TestGapQueueBounds: per-KB and total bounds hold, the least frequent
// entry makes room, and near-duplicates count as one.
func TestGapQueueBounds(t *testing.T) {
	q, err := newGapQueue("", zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultGaps()
	cfg.MaxPerKB, cfg.MaxEntries = 3, 4
	q.add(cfg, "t", "k", GapRefused, "How do I export to PDF?", "", 0)
	q.add(cfg, "t", "k", GapRefused, "how do I export to pdf", "", 0)
	q.add(cfg, "t", "k", GapRefused, "How do I export to PDF, please?", "", 0)
	if gs := q.list(gapFilter{tenant: "t", kbs: []string{"k"}}); len(gs) != 1 || gs[0].Count != 3 {
		t.Fatalf("near-duplicates: %+v, want one entry counted 3", gs)
	}
	for i := range 5 {
		q.add(cfg, "t", "k", GapFallback, fmt.Sprintf("question number %d about topic%d", i, i), "", 0)
	}
	gs := q.list(gapFilter{tenant: "t", kbs: []string{"k"}})
	if len(gs) != 3 || gs[0].Count != 3 {
		t.Errorf("per-KB bound: %d entries %+v, want 3 with the frequent one kept", len(gs), gs)
	}
	q.add(cfg, "u", "k", GapRefused, "another tenant asks", "", 0)
	q.add(cfg, "u", "k", GapRefused, "another tenant asks again something else entirely", "", 0)
	if q.total > cfg.MaxEntries || len(q.list(gapFilter{tenant: ""})) != q.total {
		t.Errorf("total %d, want <= %d", q.total, cfg.MaxEntries)
	}
	if len(q.list(gapFilter{tenant: "u"})) != 2 {
		t.Errorf("tenant u: %+v", q.list(gapFilter{tenant: "u"}))
	}
}

// TestGapObserveAllocs: a grounded turn without gap claims costs the
// queue no allocation.
func TestGapObserveAllocs(t *testing.T) {
	q, _ := newGapQueue("", zap.NewNop())
	cfg := defaultGaps()
	l := &turnrec.Turn{Tenant: "t", KB: "k", Query: "What does error LF-4002 mean?",
		Report: turnrec.Report{Decision: "ground", Claims: []judge.Claim{{Text: "LF-4002 means the account is locked.", Verdict: "entailment"}}}}
	if n := testing.AllocsPerRun(100, func() { q.observe(cfg, l) }); n != 0 {
		t.Errorf("observe: %v allocs, want 0", n)
	}
}
