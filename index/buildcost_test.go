package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/internal/cputime"
)

// passages300 cuts the demo corpus's text into n passages of about 300
// characters (at a space), without titles: the size issue 28's index-build
// goal is set at (>= 50 passages per second per core with the encoder).
func passages300(tb testing.TB, n int) []Doc {
	tb.Helper()
	docs, _, err := demoCorpus()
	if err != nil {
		tb.Fatal(err)
	}
	var words []string
	for _, d := range docs {
		words = append(words, strings.Fields(d.Text)...)
	}
	out := make([]Doc, 0, n)
	var b strings.Builder
	for i := 0; len(out) < n; i++ {
		w := words[i%len(words)]
		if b.Len()+1+len(w) > 300 {
			out = append(out, Doc{ID: fmt.Sprint("p", len(out)), Text: b.String()})
			b.Reset()
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return out
}

func TestPassages300(t *testing.T) {
	for _, d := range passages300(t, 50) {
		if n := len(d.Text); n < 250 || n > 300 {
			t.Fatalf("passage %s has %d characters, want 250-300", d.ID, n)
		}
	}
}

// BenchmarkBuildPassages300 times a whole build (chunking, the encoder,
// lexical index, calibration, snapshot files) of 300 passages of about
// 300 characters with the default embedder, and reports
// the CPU time per passage and passages per CPU-second (per core: on a
// shared machine the wall clock measures the neighbours).
func BenchmarkBuildPassages300(b *testing.B) {
	ctx := context.Background()
	docs := passages300(b, 300)
	cfg := DefaultConfig()
	dir := b.TempDir()
	n := 0
	c0 := cputime.Process()
	for b.Loop() {
		n++
		if _, err := BuildDocs(ctx, cfg, docs, nil, filepath.Join(dir, fmt.Sprint("s", n)), zap.NewNop()); err != nil {
			b.Fatal(err)
		}
	}
	if c := cputime.Process() - c0; c > 0 {
		per := c.Seconds() / float64(b.N*len(docs))
		b.ReportMetric(per*1000, "cpu-ms/passage")
		b.ReportMetric(1/per, "passages/cpu-s")
	}
}
