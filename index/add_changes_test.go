package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/answer-guard/guard/internal/evaldata"
)

func refIDs(rs []DocRef) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// TestAddChanges: Add says which input documents it added, replaced, left
// unchanged and removed, and a removed document (by a "deleted": true line
// or WithDelete) is gone from the new snapshot while the base keeps it.
func TestAddChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	docs := []Doc{
		{ID: "lockers", Text: "Large lockers for bags and prams are next to the main entrance."},
		{ID: "sauna", Text: "The sauna and steam room are for adults only."},
		{ID: "lanes", Text: "The pool has six swimming lanes of fifty metres."},
		{ID: "cafe", Text: "The cafe sells hot soup and sandwiches until six."},
	}
	if _, err := BuildDocs(ctx, DefaultConfig(), docs, nil, base, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "add.jsonl")
	lines := `{"id":"lanes","text":"The pool has six swimming lanes of fifty metres."}
{"id":"sauna","text":"The sauna and steam room are for adults only, from ten until nine."}
{"id":"parties","text":"Birthday parties can be booked at the front desk."}
{"id":"lockers","deleted":true}
`
	if err := os.WriteFile(src, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "v1")
	var ch Changes
	man, err := Add(ctx, DefaultConfig(), base, []string{src}, nil, out, zap.NewNop(),
		WithDelete(DocRef{DefaultTenant, DefaultKB, "cafe"}, DocRef{DefaultTenant, DefaultKB, "nothere"}), WithChanges(&ch))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"added", refIDs(ch.Added), []string{"parties"}},
		{"replaced", refIDs(ch.Replaced), []string{"sauna"}},
		{"unchanged", refIDs(ch.Unchanged), []string{"lanes"}},
		{"removed", refIDs(ch.Removed), []string{"lockers", "cafe"}},
		{"not found", refIDs(ch.NotFound), []string{"nothere"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if man.Docs != 3 {
		t.Errorf("manifest docs = %d, want 3 (lanes, sauna, parties)", man.Docs)
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	for _, id := range []string{"lockers", "cafe"} {
		if got := p.Resolve(id); len(got) != 0 {
			t.Errorf("Resolve(%s) = %v after deletion, want none", id, got)
		}
	}
	hits, err := p.Lexical(ctx, "lockers prams", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("Lexical(lockers prams) = %v, want no hit of the deleted document", hits)
	}
	// The unchanged document kept its slot: nothing was re-indexed for it.
	if got := p.Resolve("lanes"); len(got) != 1 || got[0] != 2 {
		t.Errorf("Resolve(lanes) = %v, want its base slot [2]", got)
	}
	// The base snapshot is untouched.
	b, err := Load(base)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := b.Partition(DefaultTenant, DefaultKB).Resolve("lockers"); len(got) != 1 {
		t.Errorf("base Resolve(lockers) = %v, want its one slot", got)
	}

	// Deleted, then back: counted as added, and as a document again.
	src2 := filepath.Join(dir, "back.jsonl")
	if err := os.WriteFile(src2, []byte(`{"id":"lockers","text":"Lockers are back, by the showers."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	man, err = Add(ctx, DefaultConfig(), out, []string{src2}, nil, filepath.Join(dir, "v2"), zap.NewNop(), WithChanges(&ch))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(refIDs(ch.Added), []string{"lockers"}) || man.Docs != 4 {
		t.Errorf("re-added: added %v, docs %d; want [lockers], 4", refIDs(ch.Added), man.Docs)
	}
}

// TestBuildRejectsDeletionLines: a build has nothing to delete; a
// "deleted": true line is a bad line (file:line), and fails a strict build.
func TestBuildRejectsDeletionLines(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(src, []byte("{\"id\":\"a\",\"text\":\"alpha\"}\n{\"id\":\"b\",\"deleted\":true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	man, err := Build(context.Background(), DefaultConfig(), []string{src}, nil, filepath.Join(dir, "s"), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if len(man.BadLines) != 1 || !strings.HasPrefix(man.BadLines[0], src+":2: ") {
		t.Errorf("bad lines %q, want one at %s:2", man.BadLines, src)
	}
	// An add of a clean file onto that snapshot lists no bad line: the
	// base's were reported when it was built.
	clean := filepath.Join(dir, "clean.jsonl")
	if err := os.WriteFile(clean, []byte(`{"id":"c","text":"gamma"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if man, err := Add(context.Background(), DefaultConfig(), filepath.Join(dir, "s"), []string{clean}, nil, filepath.Join(dir, "s1"), zap.NewNop()); err != nil || len(man.BadLines) != 0 {
		t.Errorf("add of a clean file: bad lines %q, err %v; want none", man.BadLines, err)
	}
	cfg := DefaultConfig()
	cfg.Strict = true
	if _, err := Build(context.Background(), cfg, []string{src}, nil, filepath.Join(dir, "s2"), zap.NewNop()); err == nil || !strings.Contains(err.Error(), ":2: ") {
		t.Errorf("strict build: err %v, want the deletion line named", err)
	}
}

// TestAddReplacesInGraphKJV is TestAddReplacesInGraph at the size the
// panic was reported at (issue 30): KJV, 31,102 verses, with a graph
// (exact_below 20,000). Two chained adds replace the graph's top entry,
// every verse of the top layer and random verses, delete others and add
// new ones; the graph is extended (not rebuilt), passes the checks the
// next add relies on, no replaced or deleted verse comes back, and at
// least 80% of the 210 new verses are found by their own text (the
// extended graph's quality: 209-210 of 210 since the graph is ours,
// 2026-11-28; 166-180 with coder/hnsw's). The run is deterministic: the
// picks follow slot order and a fixed seed, and build and add write the
// same graph every time. About 20 s alone, 140 s under -race
// (2026-11-28): skipped with -short; .ci/run's race run (-timeout 45m)
// covers it.
func TestAddReplacesInGraphKJV(t *testing.T) {
	if testing.Short() {
		t.Skip("KJV-size add: long test (run without -short)")
	}
	docs, bad, err := ReadDocs([]string{evaldata.KJV(t)}, true)
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.HNSW.ExactBelow = 20000
	// The hashed embedder: the graph is what is under test, and the
	// sentence encoder (the default) takes minutes to embed 31,102 verses.
	cfg.Embedder = EmbedderHashed
	dir := t.TempDir()
	snap := filepath.Join(dir, "v0")
	if _, err := BuildDocs(ctx, cfg, docs, nil, snap, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	live := map[string]string{}
	for _, d := range docs {
		live[d.ID] = d.Text
	}
	rng := rand.New(rand.NewPCG(30, 7))
	for round := 1; round <= 2; round++ {
		s, p := loadGraphPartition(t, snap)
		seen := map[string]bool{}
		var replace []string
		pick := func(slot uint32) {
			if id := p.Chunk(int(slot)).DocID; !seen[id] {
				seen[id] = true
				replace = append(replace, id)
			}
		}
		layers := p.graph.layers
		pick(layers[len(layers)-1].Entry)
		for _, key := range layerKeys(layers[len(layers)-1]) {
			pick(key)
		}
		for len(replace) < 200 {
			pick(uint32(rng.IntN(len(p.chunks))))
		}
		var del []DocRef
		for len(del) < 20 {
			id := p.Chunk(rng.IntN(len(p.chunks))).DocID
			if !seen[id] && live[id] != "" {
				seen[id] = true
				del = append(del, DocRef{DefaultTenant, DefaultKB, id})
			}
		}
		gone := map[int]string{}
		for _, id := range replace {
			for _, slot := range p.Resolve(id) {
				gone[slot] = p.Chunk(slot).Text
			}
		}
		for _, r := range del {
			for _, slot := range p.Resolve(r.ID) {
				gone[slot] = p.Chunk(slot).Text
			}
		}
		s.Close()
		// New texts in the corpus's own language: two other verses
		// joined (random tokens would all look alike to the frozen
		// local model and crowd each other out of the top 10).
		verses := func() string {
			return docs[rng.IntN(len(docs))].Text + " " + docs[rng.IntN(len(docs))].Text
		}
		var batch []Doc
		for _, id := range replace {
			batch = append(batch, Doc{ID: id, Text: verses()})
		}
		for i := range 10 {
			batch = append(batch, Doc{ID: fmt.Sprintf("new%d-%d", round, i), Text: verses()})
		}
		for _, d := range batch {
			live[d.ID] = d.Text
		}
		for _, r := range del {
			delete(live, r.ID)
		}
		src := filepath.Join(dir, fmt.Sprintf("add%d.jsonl", round))
		writeDocs(t, src, batch)
		next := filepath.Join(dir, fmt.Sprint("v", round))
		core, logs := observer.New(zap.InfoLevel)
		var ch Changes
		if _, err := Add(ctx, cfg, snap, []string{src}, nil, next, zap.New(core), WithDelete(del...), WithChanges(&ch)); err != nil {
			t.Fatal(err)
		}
		snap = next
		if logs.FilterMessage("graph rebuilt").Len() > 0 {
			t.Errorf("round %d: graph rebuilt, want it extended", round)
		}
		if len(ch.Replaced) != len(replace) || len(ch.Added) != 10 || len(ch.Removed) != len(del) {
			t.Errorf("round %d: replaced %d added %d removed %d, want %d, 10, %d", round, len(ch.Replaced), len(ch.Added), len(ch.Removed), len(replace), len(del))
		}
		var delIDs []string
		for _, r := range del {
			delIDs = append(delIDs, r.ID)
		}
		checkReplaced(t, snap, batch, gone, live, delIDs...)
	}
}
