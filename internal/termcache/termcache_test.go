package termcache

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/gatefeed"
)

// termsCands makes n candidates of about 600 bytes each, as a snapshot's
// chunks would give them (each string its own allocation).
func termsCands(n int) []gate.Candidate {
	cands := make([]gate.Candidate, n)
	for i := range cands {
		cands[i].Title = fmt.Sprintf("Section %d of the guide", i)
		cands[i].Text = strings.Repeat(fmt.Sprintf("the %d-th passage says the gateway retries twice; ", i), 12)
	}
	return cands
}

// TestFill checks that every candidate gets the terms of its own
// title and text: on a first fill, on repeats of the same strings, on a
// fresh copy of the same content, and on other text of the same length.
func TestFill(t *testing.T) {
	tc := New()
	defer tc.Close()
	src := termsCands(8)
	src = append(src, gate.Candidate{Title: src[0].Title, Text: strings.Repeat("x", len(src[0].Text))},
		gate.Candidate{Title: strings.Clone(src[1].Title), Text: strings.Clone(src[1].Text)},
		gate.Candidate{Title: src[2].Title, Text: src[2].Text[:len(src[2].Text)/2]},
		gate.Candidate{Title: "", Text: ""})
	for round := range 3 {
		cands := append([]gate.Candidate(nil), src...)
		tc.Fill(cands)
		tc.cache.Wait()
		for i, c := range cands {
			want := gate.NewPassageTerms(gatefeed.Tokenize, c.Title, c.Text)
			if !reflect.DeepEqual(c.Terms, want) {
				t.Fatalf("round %d: candidate %d has other terms than its text's", round, i)
			}
		}
	}
}

func BenchmarkFill(b *testing.B) {
	tc := New()
	defer tc.Close()
	src := termsCands(16)
	cands := make([]gate.Candidate, len(src))
	copy(cands, src)
	tc.Fill(cands)
	tc.cache.Wait()
	b.ReportAllocs()
	for b.Loop() {
		copy(cands, src)
		tc.Fill(cands)
	}
}

// TestFillConcurrent fills the same passages from several goroutines (run
// it under -race): every candidate still gets its own text's terms.
func TestFillConcurrent(t *testing.T) {
	tc := New()
	defer tc.Close()
	src := termsCands(32)
	want := make([]*gate.PassageTerms, len(src))
	for i, c := range src {
		want[i] = gate.NewPassageTerms(gatefeed.Tokenize, c.Title, c.Text)
	}
	var wg sync.WaitGroup
	errs := make(chan int, 4)
	for range 4 {
		wg.Go(func() {
			for range 20 {
				cands := append([]gate.Candidate(nil), src...)
				tc.Fill(cands)
				for i, c := range cands {
					if !reflect.DeepEqual(c.Terms, want[i]) {
						errs <- i
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for i := range errs {
		t.Errorf("candidate %d has other terms than its text's", i)
	}
}
