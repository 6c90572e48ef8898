package proxy_test

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

func writeCorpus(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A document added with index.Add (guard index add) reaches a running
// proxy when a reload points it at the new snapshot: before, the question
// has no grounding; after, the answer cites the added document.
func TestIndexAddVisibleToRunningServer(t *testing.T) {
	ctx := context.Background()
	ic := proxy.DefaultConfig().Stages.Index
	base := writeCorpus(t,
		`{"id":"badger-1","kind":"lecture","title":"Badger setts","text":"Badgers dig large underground setts with many entrances. A sett can be used by the same clan for decades, and the tunnels are extended every year."}`,
		`{"id":"badger-2","kind":"lecture","title":"Badger diet","text":"Badgers eat mostly earthworms, but also fruit, bulbs and insects. On a wet night one badger can eat several hundred earthworms."}`,
		`{"id":"otter-1","kind":"library","title":"Otter holts","text":"Otters rest in holts dug into river banks, often between the roots of trees close to the water."}`,
		`{"id":"heron-1","kind":"library","title":"Heron nests","text":"Grey herons nest in colonies called heronries, high in tall trees, and return to the same nests each spring."}`,
	)
	v1 := filepath.Join(t.TempDir(), "v1")
	if _, err := index.Build(ctx, ic, []string{base}, nil, v1, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) {
		c.Pipeline.Index = v1
		c.Stages.Verify.MinContextChars = 0
	})
	const q = "When is the kangaroo migration schedule published?"
	kangaroo := func(g guardObj) bool {
		return slices.ContainsFunc(g.Citations, func(c cite) bool { return strings.HasPrefix(c.ID, "kangaroo-") })
	}
	if _, g := complete(t, ts, q, false); g.Decision == "ground" && kangaroo(g) {
		t.Fatalf("before the add: decision %q citing %v", g.Decision, g.Citations)
	}
	added := writeCorpus(t,
		`{"id":"kangaroo-1","kind":"lecture","title":"Kangaroo migration schedule","text":"The kangaroo migration schedule is published every spring by the park service, listing the dates when the mobs move between the northern and southern grasslands."}`,
		`{"id":"kangaroo-2","kind":"lecture","title":"Reading the kangaroo migration schedule","text":"Each kangaroo migration schedule gives the expected crossing dates per valley; the park service publishes the schedule in early spring and revises it in midsummer."}`,
	)
	v2 := filepath.Join(t.TempDir(), "v2")
	if _, err := index.Add(ctx, ic, v1, []string{added}, nil, v2, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	cfg := ts.srv.Config()
	cfg.Pipeline.Index = v2
	if err := ts.srv.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		text, g := complete(t, ts, q, stream)
		if g.Decision != "ground" || !kangaroo(g) {
			t.Errorf("after the add, stream=%v: decision %q citations %v; want ground citing kangaroo-*: %q", stream, g.Decision, g.Citations, text)
		}
	}
}
