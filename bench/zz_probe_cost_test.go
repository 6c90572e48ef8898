package bench

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZProbeCost(t *testing.T) {
	if os.Getenv("F4PROBE") == "" {
		t.Skip("a probe: F4PROBE=1")
	}
	runtime.GOMAXPROCS(1)
	e, _ := encoder.Default()
	sets, _ := DevGateSets("testdata/gate")
	seen := map[string]bool{}
	var words, qs []string
	for _, s := range sets {
		for _, d := range s.Docs {
			for _, w := range index.Words(d.Title + ". " + d.Text) {
				if !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
		for _, q := range s.Questions {
			qs = append(qs, q.Question)
		}
	}
	t0 := cpuNow()
	for _, w := range words {
		e.Embed(w)
	}
	d := cpuNow() - t0
	fmt.Printf("words %d: %.1f us per word (CPU)\n", len(words), float64(d.Microseconds())/float64(len(words)))
	t0 = cpuNow()
	for _, q := range qs {
		e.Embed(q)
	}
	d = cpuNow() - t0
	fmt.Printf("questions %d: %.1f us per question (CPU)\n", len(qs), float64(d.Microseconds())/float64(len(qs)))
}
