package operator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
)

// fakeTurn is a finished turn shaped like a real one: 20 candidates with
// lanes, a grounded outcome with an outline, a report with claims.
func fakeTurn(tenant string) (*turnrec.Turn, turnrec.GateTrace) {
	cfg := gate.DefaultConfig()
	cands := make([]gate.Candidate, 20)
	for i := range cands {
		cands[i] = gate.Candidate{ID: fmt.Sprintf("doc-%02d", i), Title: "Title of a passage", Kind: []string{"lecture", "library"}[i%2],
			Address: fmt.Sprintf("HB %d.%d", i/5, i%5), Score: 0.9 - float64(i)*0.04, Rerank: 0.95 - float64(i)*0.045, Relevance: 0.95 - float64(i)*0.045,
			Answer: 0.92 - float64(i)*0.05, Forced: i < 3, Lanes: []string{"dense", "lexical"}}
	}
	o := gate.Decide(cfg, cands, true, gate.Ask{})
	o = gate.ApplyOutline(o, gate.LocalOutline(cfg, o))
	rep := turnrec.Report{Decision: o.Decision, LatencyMS: map[string]float64{"retrieve": 1, "gate": 2, "verify": 0.5},
		Claims:   []judge.Claim{{Text: "A claim.", Citations: []int{1}, Verdict: "entailment", Evidence: "evidence"}},
		Markers:  &turnrec.Markers{Counts: gauntlet.Counts{Dropped: 1, ByReason: map[string]int{"invented": 1}}},
		Degraded: []string{}}
	tr := turnrec.GateTrace{Question: "How do I restore a backup from last Tuesday?", Cands: cands, RerankActive: true, Config: &cfg, Outcome: &o}
	l := &turnrec.Turn{Tenant: tenant, KB: "default", Model: "mock-1", Status: 200, Start: time.Now().Add(-30 * time.Millisecond),
		UpstreamWait: 20 * time.Millisecond, TTFT: 5 * time.Millisecond, Report: rep, Gate: &tr, Finished: time.Now()}
	return l, tr
}

// Once a slot has been filled, logging a turn into it allocates nothing.
func TestTurnLogRecordAllocs(t *testing.T) {
	cfg := defaultTurnLog()
	cfg.Size = 8
	tl := newTurnLog(cfg)
	l, tr := fakeTurn("acme")
	for range cfg.Size { // fill every slot once: these are the ring entries
		l.Gate = &tr
		tl.record(l)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		l.Gate = &tr
		tl.record(l)
	})
	if allocs != 0 {
		t.Errorf("record into a full ring: %v allocations, want 0", allocs)
	}
	e := tl.snapshot(turnFilter{})[0]
	if len(e.cands) != 20 || len(e.outline) != tr.Outcome.Coverage.Outline || len(e.outline) == 0 || e.question() != tr.Question || e.decision != "ground" {
		t.Errorf("logged %d cands, outline %v, question %q, decision %s", len(e.cands), e.outline, e.question(), e.decision)
	}
	// The ring copies the gate's inputs: the pipeline's turn may be reused.
	tr.Cands[0].ID = "changed-after-record"
	if e := tl.snapshot(turnFilter{})[0]; e.cands[0].id == "changed-after-record" {
		t.Error("the ring keeps a reference to the pipeline's candidates")
	}
}

// BenchmarkTurnLogRecord is the cost of logging one turn into a ring that
// has wrapped (the steady state), and of filling a fresh slot.
func BenchmarkTurnLogRecord(b *testing.B) {
	b.Run("wrapped", func(b *testing.B) {
		cfg := defaultTurnLog()
		tl := newTurnLog(cfg)
		l, tr := fakeTurn("acme")
		for range cfg.Size {
			l.Gate = &tr
			tl.record(l)
		}
		b.ReportAllocs()
		for b.Loop() {
			l.Gate = &tr
			tl.record(l)
		}
	})
	b.Run("fresh-slot", func(b *testing.B) {
		// The first pass over a default-sized ring: each record fills a
		// new slot (the entry and its candidate and outline buffers).
		cfg := defaultTurnLog()
		tl := newTurnLog(cfg)
		l, tr := fakeTurn("acme")
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if n++; n%cfg.Size == 0 {
				b.StopTimer()
				tl = newTurnLog(cfg)
				b.StartTimer()
			}
			l.Gate = &tr
			tl.record(l)
		}
	})
}

// A full set of partitions drops the ring written least recently.
func TestTurnLogPartitionCap(t *testing.T) {
	cfg := defaultTurnLog()
	cfg.MaxPartitions = 2
	tl := newTurnLog(cfg)
	for i, tenant := range []string{"a", "b", "a", "c"} {
		l, tr := fakeTurn(tenant)
		l.Finished = time.Unix(int64(1000+i), 0)
		l.Gate = &tr
		tl.record(l)
	}
	var got []string
	for _, p := range tl.partitions(turnFilter{}) {
		got = append(got, p.Tenant)
	}
	if fmt.Sprint(got) != "[a c]" || tl.evicted.Load() != 1 {
		t.Errorf("partitions %v (evicted %d), want [a c] with b dropped", got, tl.evicted.Load())
	}
}

// The JSONL copy gets every turn once, oldest first, rotates by size and
// keeps max_files rotated files.
func TestTurnLogPersistRotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := defaultTurnLog()
	cfg.Persist = TurnPersistConfig{Dir: dir, MaxFileBytes: 8192, MaxFiles: 2}
	tl := newTurnLog(cfg)
	w, err := startTurnWriter(tl, cfg.Persist, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := range n {
		l, tr := fakeTurn([]string{"acme", "globex"}[i%2])
		l.Gate = &tr
		tl.record(l)
	}
	w.Close()
	files := append(rotatedFiles(dir), turnFile)
	if len(files) != 3 {
		t.Fatalf("files %v, want 2 rotated + %s", files, turnFile)
	}
	var ids []uint64
	for _, f := range files {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := fh.Stat()
		if st.Size() > cfg.Persist.MaxFileBytes {
			t.Errorf("%s: %d bytes, above max_file_bytes", f, st.Size())
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var d struct {
				ID     uint64 `json:"id"`
				Tenant string `json:"tenant"`
				Cands  []any  `json:"candidate_list"`
			}
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil || len(d.Cands) != 20 {
				t.Fatalf("%s: line %q: %v", f, sc.Bytes(), err)
			}
			ids = append(ids, d.ID)
		}
		fh.Close()
	}
	// The kept files hold the newest turns, each once, in order, ending
	// with the last one logged.
	if len(ids) == 0 || ids[len(ids)-1] != n {
		t.Fatalf("ids %v: want the last to be %d", ids, n)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]+1 {
			t.Fatalf("ids %v: not consecutive", ids)
		}
	}
	if ids[0] == 1 {
		t.Errorf("ids %v: nothing was rotated out with max_files 2", ids)
	}
	// Read back at start: every kept line, as already persisted; an
	// unreadable line is skipped and counted.
	f, _ := os.OpenFile(filepath.Join(dir, turnFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n")
	f.Close()
	tl2 := newTurnLog(cfg)
	if n, bad := tl2.restore(dir); n != len(ids) || bad != 1 {
		t.Errorf("restored %d (%d unreadable), want %d (1)", n, bad, len(ids))
	}
	got := tl2.snapshot(turnFilter{})
	if len(got) != len(ids) || len(got[0].cands) != 20 || !got[0].traced || got[0].cfg == nil {
		t.Fatalf("restored %d turns, first %+v", len(got), got[0])
	}
	for _, e := range got {
		if o, _ := redecide(*e.cfg, &e); o.Decision != e.decision {
			t.Errorf("restored turn %d recomputes to %s, logged %s", e.seq, o.Decision, e.decision)
		}
	}
}

func TestTurnLogConfigValidate(t *testing.T) {
	cfg := defaultTurnLog()
	cfg.Size, cfg.MaxPartitions, cfg.Questions, cfg.Persist.MaxFileBytes, cfg.Persist.MaxFiles = -1, 0, "redact", 10, -1
	err := cfg.validate()
	for _, want := range []string{"size", "max_partitions", "questions", "persist.max_file_bytes", "persist.max_files"} {
		if err == nil || !strings.Contains(err.Error(), want+":") {
			t.Errorf("error %v lacks %s", err, want)
		}
	}
}

// The console is served only where the host says the listener is
// protected (auth on or loopback: proxy.Server.Protected, tested there),
// and never with console.enabled false.
func TestConsoleOnRule(t *testing.T) {
	for _, tc := range []struct {
		protected, enabled bool
		want               bool
	}{
		{true, true, true},
		{false, true, false},
		{true, false, false},
		{false, false, false},
	} {
		cfg := DefaultConfig()
		cfg.Console.Enabled = tc.enabled
		p := &Plane{host: fakeHost{protected: tc.protected}}
		p.cfg.Store(&cfg)
		if got := p.consoleOn(); got != tc.want {
			t.Errorf("protected %v enabled %v: console on %v, want %v", tc.protected, tc.enabled, got, tc.want)
		}
	}
}

// fakeHost is a Host with fixed answers.
type fakeHost struct{ protected bool }

func (fakeHost) OperatorAccess(*fasthttp.RequestCtx, bool) (string, []string, error) {
	return "", nil, nil
}
func (fakeHost) GateConfig() gate.Config                { return gate.DefaultConfig() }
func (fakeHost) PipelineEnabled() bool                  { return true }
func (fakeHost) PartitionKinds(string, string) []string { return nil }
func (h fakeHost) Protected() bool                      { return h.protected }
func (fakeHost) Ask(context.Context, string, string, string) (gate.Decision, float64, error) {
	return gate.Refuse, 0, nil
}

// A refused turn's row costs what a grounded one's does: whether it was
// off-topic is kept when the turn is logged, not asked of the gate again
// per row (gate.Decide over 20 candidates, about 47 µs a row).
func BenchmarkTurnRow(b *testing.B) {
	for _, d := range []gate.Decision{gate.Ground, gate.Refuse} {
		b.Run(string(d), func(b *testing.B) {
			tl := newTurnLog(defaultTurnLog())
			l, tr := fakeTurn("acme")
			l.Gate, l.Report.Decision = &tr, d
			tl.record(l)
			e := &tl.snapshot(turnFilter{})[0]
			b.ReportAllocs()
			for b.Loop() {
				tl.row(e)
			}
		})
	}
}
