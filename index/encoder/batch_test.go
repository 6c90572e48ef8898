package encoder

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/cputime"
)

// TestForwardBatchEqualsOne: a pass over several sequences gives each the
// bit-identical vector it gets alone (rows never mix in the kernels; the
// padding rows are zero).
func TestForwardBatchEqualsOne(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"refund", "", "Can I get my money back?", strings.Repeat("long text ", 200), "how much do you charge to fix a flat tyre?"}
	seqs := make([][]int32, len(texts))
	got := make([][]float32, len(texts))
	for i, tx := range texts {
		seqs[i] = e.Tokens(tx)
		got[i] = make([]float32, e.Dims())
	}
	e.m.forward(seqs, new(scratch), got)
	for i, tx := range texts {
		want := make([]float32, e.Dims())
		e.m.forward([][]int32{e.Tokens(tx)}, new(scratch), [][]float32{want})
		if !slices.Equal(got[i], want) {
			t.Errorf("%.20q: batched vector differs from its own pass", tx)
		}
	}
}

// TestConcurrentEmbedEqualsEmbed: callers that share passes get what each
// gets alone.
func TestConcurrentEmbedEqualsEmbed(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	qs := questions(48)
	want := make([][]float32, len(qs))
	for i, q := range qs {
		want[i] = e.Embed(q)
	}
	got := make([][]float32, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Go(func() { got[i] = e.Embed(q) })
	}
	wg.Wait()
	for i := range qs {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%q: concurrent vector differs", qs[i])
		}
	}
}

// questions returns n distinct customer-style questions.
func questions(n int) []string {
	subjects := []string{"a flat tyre", "a yearly tune-up", "my 10 year old", "pensioners", "a lost card", "the sauna", "a refund", "Saturday hours"}
	forms := []string{"How much do you charge for %s, option %d?", "Is there anything about %s I should know (%d)?", "Can you help me with %s today, case %d?"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(forms[i%len(forms)], subjects[(i/len(forms))%len(subjects)], i)
	}
	return out
}

// BenchmarkEmbedConcurrent embeds distinct questions from 32 goroutines,
// as the proxy does at concurrency 32, with passes shared (batched) and
// with every call on its own pass (alone). cpu-ms/op is the process's CPU
// time per question.
func BenchmarkEmbedConcurrent(b *testing.B) {
	e, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	qs := questions(1024)
	for _, bc := range []struct {
		name string
		max  int
	}{{"batched", e.batch.max}, {"alone", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			saved := e.batch.max
			e.batch.max = bc.max
			defer func() { e.batch.max = saved }()
			b.ReportAllocs()
			b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0))) // 32 goroutines
			var next sync.Mutex
			i := 0
			c0 := cputime.Process()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					next.Lock()
					q := qs[i%len(qs)]
					i++
					next.Unlock()
					e.Embed(q)
				}
			})
			if c := cputime.Process() - c0; c > 0 {
				b.ReportMetric(float64(c)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
