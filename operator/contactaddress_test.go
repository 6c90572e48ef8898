package operator

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// An address or opening-hours question grounds, like a phone-number
// question, on the passage that holds the street address or the hours
// though it shares no word with it ("where can I find you"; "opening
// times?" with no "you" at all), and a corpus without a street address
// refuses "address please" as a gap, naming the closest topics, with no
// model call.
func TestContactAddressHours(t *testing.T) {
	rows := []string{
		`{"tenant":"addr","id":"addr-place","text":"Lessons take place at our studio, 7 Quarry Lane, Kelby, with parking behind the building."}`,
		`{"tenant":"addr","id":"addr-times","text":"The office is staffed Monday to Friday 10am-6pm and Saturday 9:00-13:00."}`,
		`{"tenant":"addr","id":"addr-fees","text":"A half-hour lesson costs 18 pounds, paid by the term."}`,
		`{"tenant":"noaddr","id":"noaddr-fees","text":"A half-hour lesson costs 18 pounds, paid by the term."}`,
		`{"tenant":"noaddr","id":"noaddr-exams","text":"Pupils may sit graded exams each spring and summer."}`,
	}
	ts := startRowsProxy(t, rows)
	defer shutdown(t, ts.srv)

	for _, tt := range []struct{ q, cite string }{
		{"where can I find you", "addr-place"},
		{"address please", "addr-place"},
		{"opening times?", "addr-times"},
		{"when do you shut on saturday", "addr-times"},
	} {
		if r := chatTenant(t, ts.base, "addr", tt.q); r.decision != "ground" || !slices.Contains(r.citations, tt.cite) {
			t.Errorf("%q: decision %s citations %v (%q), want ground citing %s", tt.q, r.decision, r.citations, r.text, tt.cite)
		}
	}
	wantContactGap(t, ts, "noaddr", "address please")
}

// startRowsProxy indexes the JSONL rows and serves them behind the proxy
// with the simulated upstream.
func startRowsProxy(t *testing.T, rows []string) *testServer {
	t.Helper()
	src := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snap")
	if _, err := index.Build(context.Background(), proxy.DefaultConfig().Stages.Index, []string{src}, nil, snap, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	tc := testConfig()
	tc.Log.Level = "error"
	tc.Pipeline.Index = snap
	return startProxy(t, tc, proxy.NewPipeline(nil))
}

// wantContactGap asks tenant q and wants the on-topic refusal naming the
// closest topics, with no model call.
func wantContactGap(t *testing.T, ts *testServer, tenant, q string) {
	t.Helper()
	before := ts.mock.Requests()
	r := chatTenant(t, ts.base, tenant, q)
	if gcfg := proxy.DefaultConfig().Stages.Gate; r.decision != "refuse" || !strings.HasPrefix(r.text, gcfg.RefusalText) ||
		!strings.Contains(r.text, "The closest topics") {
		t.Errorf("%s %q: decision %s text %q, want the on-topic refusal naming the closest topics", tenant, q, r.decision, r.text)
	}
	if n := ts.mock.Requests() - before; n != 0 {
		t.Errorf("%s %q: the refused turn made %d upstream calls", tenant, q, n)
	}
}
