package retrieve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/evaldata"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/leaktest"
)

var (
	fixtureMu   sync.Mutex
	fixtureDirs = map[string]string{}
	fixtureRoot string
)

// TestMain removes the shared fixtures and fails the run when a goroutine
// is left after the tests passed (library janitors aside: internal/leaktest).
func TestMain(m *testing.M) {
	leaktest.Main(runRemovingFixtures{m})
}

// runRemovingFixtures removes the fixtures once the tests ran, before the
// leak check.
type runRemovingFixtures struct{ m *testing.M }

func (r runRemovingFixtures) Run() int {
	code := r.m.Run()
	if fixtureRoot != "" {
		os.RemoveAll(fixtureRoot)
	}
	return code
}

func kjvDocs(tb testing.TB, copies int) []index.Doc {
	docs, bad, err := index.ReadDocs([]string{evaldata.KJV(tb)}, true)
	if err != nil || len(bad) > 0 {
		tb.Fatal(err, bad)
	}
	out := make([]index.Doc, 0, len(docs)*copies)
	for c := 0; c < copies; c++ {
		for _, d := range docs {
			d.Kind = "verse"
			if c > 0 {
				d.ID = d.ID + " (copy " + strconv.Itoa(c) + ")"
				d.Meta = nil
			}
			out = append(out, d)
		}
	}
	return out
}

// fixture builds a snapshot once per test binary run (KJV x copies, cut
// to n chunks when n > 0) and returns its dir.
// kjvIndexConfig is the index configuration of the KJV fixtures: the
// hashed embedder, the one meant for corpora this large (31,102 verses per
// copy; the sentence encoder would spend minutes of CPU on each build, far
// more under the race detector). The address lane and the retrieval path
// under test do not depend on the dense embedder.
func kjvIndexConfig() index.Config {
	c := index.DefaultConfig()
	c.Embedder = "hashed"
	return c
}

func fixture(tb testing.TB, copies, n int) string {
	tb.Helper()
	evaldata.KJV(tb)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	key := fmt.Sprint(copies, "x", n)
	if d, ok := fixtureDirs[key]; ok {
		return d
	}
	if fixtureRoot == "" {
		var err error
		if fixtureRoot, err = os.MkdirTemp("", "guard-retrieve-bench-"); err != nil {
			tb.Fatal(err)
		}
	}
	docs := kjvDocs(tb, copies)
	if n > 0 && n < len(docs) {
		docs = docs[:n]
	}
	dir := filepath.Join(fixtureRoot, key)
	if _, err := index.BuildDocs(context.Background(), kjvIndexConfig(), docs, nil, dir, zap.NewNop()); err != nil {
		tb.Fatal(err)
	}
	fixtureDirs[key] = dir
	return dir
}

func TestKJVAddressLane(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the KJV index")
	}
	dir := fixture(t, 1, 0)
	s, err := index.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, DefaultConfig(), kjvIndexConfig(), s)
	tests := []struct{ q, want string }{
		{"John 3:16", "John 3:16"},
		{"Jn 3:16", "John 3:16"},
		{"what does Jn 3:16 say?", "John 3:16"},
		{"1 Cor 13:4", "1 Corinthians 13:4"},
		{"Ge 1:1", "Genesis 1:1"},
		{"compare Ps 23:1 with Jhn 10:11", "Psalms 23:1"},
		{"Song of Solomon 2:1", "Song of Solomon 2:1"},
		{"jn 3:16", "John 3:16"},
		{"JOHN 3 : 16", "John 3:16"},
		{"gen. 1:1", "Genesis 1:1"},
		{"what does john 3:16 say", "John 3:16"},
	}
	for _, tt := range tests {
		r, err := e.Retrieve(context.Background(), Query{Tenant: "default", KB: "default", Text: tt.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Candidates) == 0 || r.Candidates[0].ID != tt.want || !slices.Contains(r.Candidates[0].Lanes, "address") {
			t.Errorf("%q: got %v, want %s at rank 1 via the address lane", tt.q, ids(r)[:min(3, len(r.Candidates))], tt.want)
		}
	}
}

// benchQueries mixes natural questions made of verse fragments with
// address questions.
func benchQueries(p *index.Partition, n int) []string {
	var chunks []*index.Chunk
	for _, c := range p.Chunks() {
		chunks = append(chunks, c)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([]string, 0, n)
	for len(out) < n {
		c := chunks[rng.IntN(len(chunks))]
		if len(out)%5 == 4 {
			out = append(out, "what does "+c.DocID+" say?")
			continue
		}
		w := strings.Fields(c.Text)
		s := rng.IntN(max(1, len(w)-6))
		out = append(out, "what is meant by "+strings.Join(w[s:min(len(w), s+6)], " "))
	}
	return out
}

func benchRetrieve(b *testing.B, dir string) {
	s, err := index.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	e := newEngine(b, DefaultConfig(), kjvIndexConfig(), s)
	qs := benchQueries(s.Partition("default", "default"), 500)
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		st := time.Now()
		if _, err := e.Retrieve(ctx, Query{Tenant: "default", KB: "default", Text: qs[i%len(qs)]}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(st))
		i++
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkRetrieveKJV: the full hybrid path (lanes, pool, local rerank)
// over the 31,102 KJV verses.
func BenchmarkRetrieveKJV(b *testing.B) { benchRetrieve(b, fixture(b, 1, 0)) }

// BenchmarkRetrieve100k: the same over 100,000 chunks (KJV repeated).
func BenchmarkRetrieve100k(b *testing.B) { benchRetrieve(b, fixture(b, 4, 100000)) }

// BenchmarkBuildKJV measures the index build rate with the local embedder.
func BenchmarkBuildKJV(b *testing.B) {
	docs := kjvDocs(b, 1)
	root := b.TempDir()
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		n++
		man, err := index.BuildDocs(context.Background(), index.DefaultConfig(), slices.Clone(docs), nil, filepath.Join(root, strconv.Itoa(n)), zap.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(man.ChunksPerSecond, "chunks/s")
	}
}

// BenchmarkMemoryPer100k loads the 100k-chunk snapshot and reports the
// heap it holds and the process RSS growth, per 100,000 chunks. Each
// iteration loads the snapshot: run it with -benchtime 1x.
func BenchmarkMemoryPer100k(b *testing.B) {
	dir := fixture(b, 4, 100000)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rss0 := rssMB()
		s, err := index.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB/100k")
		b.ReportMetric(rssMB()-rss0, "rss-MB/100k")
		runtime.KeepAlive(s)
		s.Close()
	}
}

func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
