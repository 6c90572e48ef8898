package encoder

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/answer-guard/guard/internal/cputime"
)

const (
	benchQuestion = "How much does it cost for my ten year old to swim?"
	// benchPassage is 300 characters, the size the index-build goal is set at.
	benchPassage = "Swimming lessons for children aged 5 to 12 run every Saturday morning from 9am. " +
		"A block of ten lessons costs 45 euros; seniors over 65 and students with a valid card pay 4.50 euros " +
		"per visit. The pool closes for cleaning on the first Monday of each month, and the sauna is for adults only, sorry."
)

// BenchmarkEmbed measures one encoding on one goroutine (the query path
// and, per core, the index build). Besides wall time it reports CPU time
// per op and the median of each op's thread CPU time (p50-cpu-ms): on the
// shared test machine the wall clock measures the neighbours as much as
// the encoder. Goals (issue 28): question p50 <= 3 ms, passage >= 50/s
// per core (<= 20 ms).
func BenchmarkEmbed(b *testing.B) {
	e, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, text string }{
		{"question12w", benchQuestion},
		{"passage300c", benchPassage},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var per []time.Duration
			c0 := cputime.Process()
			for b.Loop() {
				t0 := cputime.Thread()
				e.Embed(bc.text)
				per = append(per, cputime.Thread()-t0)
			}
			if c := cputime.Process() - c0; c > 0 {
				b.ReportMetric(float64(c.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			if len(per) > 0 && per[0] >= 0 {
				slices.Sort(per)
				b.ReportMetric(float64(per[len(per)/2].Microseconds())/1000, "p50-cpu-ms")
			}
		})
	}
}

func TestBenchTextsHaveTheirSizes(t *testing.T) {
	if n := len(strings.Fields(benchQuestion)); n != 12 {
		t.Errorf("question has %d words, want 12", n)
	}
	if n := len(benchPassage); n < 290 || n > 310 {
		t.Errorf("passage has %d characters, want about 300", n)
	}
}
