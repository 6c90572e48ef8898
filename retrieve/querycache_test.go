package retrieve

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestQuestionCacheKeys(t *testing.T) {
	qc := newQuestionCache(1)
	defer qc.close()
	calls := 0
	embed := func(s string) []float32 { calls++; return []float32{float32(len(s))} }
	steps := []struct {
		sum, tenant, kb, text string
		wantCalls             int
	}{
		{"enc1", "t1", "kb", "is there a discount for pensioners?", 1},
		{"enc1", "t1", "kb", "is there a discount for pensioners?", 1}, // hit
		{"enc1", "t2", "kb", "is there a discount for pensioners?", 2}, // another tenant never sees t1's entry
		{"enc1", "t1", "kb2", "is there a discount for pensioners?", 3},
		{"enc2", "t1", "kb", "is there a discount for pensioners?", 4}, // another encoder
		{"enc1", "t1", "kb", "Is there a discount for pensioners?", 5}, // the exact text
		{"", "t1", "kb", "is there a discount for pensioners?", 6},     // no checksum: not cached
		{"", "t1", "kb", "is there a discount for pensioners?", 7},
	}
	for i, s := range steps {
		v := qc.embed(s.sum, s.tenant, s.kb, s.text, embed)
		qc.cache().Wait() // ristretto applies sets asynchronously
		if len(v) != 1 || v[0] != float32(len(s.text)) {
			t.Errorf("step %d: vector %v", i, v)
		}
		if calls != s.wantCalls {
			t.Errorf("step %d: %d encodings, want %d", i, calls, s.wantCalls)
		}
	}
	var off *questionCache // question_cache_mb: 0
	off.embed("enc1", "t1", "kb", "x", embed)
	off.embed("enc1", "t1", "kb", "x", embed)
	if calls != 9 {
		t.Errorf("a nil cache encoded %d times, want 2", calls-7)
	}
	if c := newQuestionCache(0); c != nil {
		t.Errorf("newQuestionCache(0) = %v, want nil", c)
	}
}

// TestQuestionCacheSlotsReused: with far more distinct questions than a
// 1 MB cache holds, from several goroutines, every vector handed back is
// its own question's (an evicted slot reused by another question never
// reads as a hit), and hits still happen.
func TestQuestionCacheSlotsReused(t *testing.T) {
	qc := newQuestionCache(1)
	defer qc.close()
	vec := func(s string) []float32 {
		v := make([]float32, 512)
		for k := range v {
			v[k] = float32(len(s)*1000 + k)
		}
		return v
	}
	var encoded atomic.Int64
	embed := func(s string) []float32 { encoded.Add(1); return vec(s) }
	const workers, each = 4, 1500
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := (i*7 + w) % 2000 // revisit earlier questions
				text := strings.Repeat("x", n+1)
				got := qc.embed("enc", "t", "kb", text, embed)
				if !slices.Equal(got, vec(text)) {
					errs <- fmt.Sprintf("question of %d runes: got the vector of %v", n+1, got[0])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := encoded.Load(); n >= workers*each {
		t.Errorf("%d encodings for %d look-ups: no hits", n, workers*each)
	}
	qc.mu.Lock()
	defer qc.mu.Unlock()
	held := 0
	for _, g := range qc.gen {
		if g != 0 {
			held++
		}
	}
	if held+len(qc.free) != len(qc.gen) {
		t.Errorf("%d slots held + %d free, want %d in all", held, len(qc.free), len(qc.gen))
	}
}
