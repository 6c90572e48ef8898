package retrieve

import "testing"

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
