package index

import (
	"context"
	"syscall"
	"testing"
)

// BenchmarkLexical runs the lexical lane's query for the demo questions
// of guard bench load, one per op: lexReader (what Lexical runs) and
// Bleve's own search, which it replaces.
func BenchmarkLexical(b *testing.B) {
	p := demoPartition(b)
	b.Run("lexreader", func(b *testing.B) { benchLexical(b, p.Lexical) })
	b.Run("bleve", func(b *testing.B) { benchLexical(b, p.bleveLexical) })
}

func benchLexical(b *testing.B, lexical func(context.Context, string, int) ([]Hit, error)) {
	qs := []string{"How do I restore a backup?", "How do I set up OpenID Connect?", "Why does search return nothing?",
		"Can two people edit the same page at once?", "How do I encrypt off-site backups?", "What does error LF-4002 mean?",
		"Which database does Lanternfish need?", "What is the maximum attachment size?"}
	ctx := context.Background()
	b.ReportAllocs()
	var ru0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	i := 0
	for b.Loop() {
		if _, err := lexical(ctx, qs[i%len(qs)], 50); err != nil {
			b.Fatal(err)
		}
		i++
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := ru.Utime.Nano() + ru.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
