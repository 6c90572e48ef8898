package wordvec

import (
	"math"
	"testing"
)

func vectors(t testing.TB) *Vectors {
	t.Helper()
	v, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDefaultLoads(t *testing.T) {
	v := vectors(t)
	if v.Len() != 100000 || v.Dims() != 100 {
		t.Fatalf("got %d words x %d dims, want 100000 x 100", v.Len(), v.Dims())
	}
	if len(v.Checksum()) != 64 {
		t.Errorf("checksum %q, want 64 hex digits", v.Checksum())
	}
	for _, w := range []string{"the", "Puncture", "REFUND", "pensioner"} {
		vec, ok := v.Vector(w)
		if !ok || len(vec) != 100 {
			t.Errorf("Vector(%q) = %d values, %v; want 100, true", w, len(vec), ok)
		}
	}
	if _, ok := v.Vector("qwzxkjvbnm"); ok {
		t.Error("Vector of a non-word found")
	}
}

// TestSimilarityOrders pins the semantic ordering the gate relies on:
// each pair of customer word and corpus word is closer than the
// customer word and an unrelated word.
func TestSimilarityOrders(t *testing.T) {
	v := vectors(t)
	for _, c := range []struct{ a, near, far string }{
		{"pensioners", "seniors", "bicycle"},
		{"tyre", "tire", "dentist"},
		{"refund", "money", "swimming"},
		{"yearly", "annual", "tooth"},
		{"puncture", "tyre", "recycling"},
		{"charge", "cost", "lasagne"},
	} {
		near, far := v.Similarity(c.a, c.near), v.Similarity(c.a, c.far)
		if near <= far {
			t.Errorf("Similarity(%s,%s)=%.3f <= Similarity(%s,%s)=%.3f", c.a, c.near, near, c.a, c.far, far)
		}
	}
	if got := v.Similarity("Refund", "refund"); got != 1 {
		t.Errorf("same word: %v, want 1", got)
	}
	if got := v.Similarity("refund", "qwzxkjvbnm"); got != 0 {
		t.Errorf("unknown word: %v, want 0", got)
	}
}

func TestSoftCoverage(t *testing.T) {
	v := vectors(t)
	passage := []string{"puncture", "repair", "costs", "8", "per", "wheel"}
	for _, c := range []struct {
		name     string
		query    []string
		min, max float64
	}{
		{"empty query", nil, 0, 0},
		{"all exact", []string{"Puncture", "repair"}, 1, 1},
		{"unknown only", []string{"qwzxkjvbnm"}, 0, 0},
		{"paraphrase", []string{"fix", "flat", "charge"}, 0.3, 0.95},
	} {
		got := v.SoftCoverage(c.query, passage)
		if got < c.min || got > c.max || math.IsNaN(got) {
			t.Errorf("%s: SoftCoverage = %.3f, want in [%v,%v]", c.name, got, c.min, c.max)
		}
	}
	para := v.SoftCoverage([]string{"fix", "flat", "charge"}, passage)
	off := v.SoftCoverage([]string{"fix", "flat", "charge"}, []string{"recycling", "bins", "collected", "thursday"})
	if para <= off {
		t.Errorf("paraphrase coverage %.3f <= unrelated passage %.3f", para, off)
	}
}

func TestEncodeLoadRoundTrip(t *testing.T) {
	words := []string{"a", "b"}
	vecs := [][]float32{{1, -2, 0.5}, {0, 0, 0}}
	b, err := Encode(words, vecs)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := v.Vector("a")
	if !ok {
		t.Fatal("a missing")
	}
	for i, want := range vecs[0] {
		if math.Abs(float64(got[i]-want)) > 2.0/127 {
			t.Errorf("a[%d] = %v, want %v", i, got[i], want)
		}
	}
	if s := v.Similarity("a", "b"); s != 0 {
		t.Errorf("similarity to a zero vector = %v, want 0", s)
	}
	for _, bad := range [][]byte{nil, []byte("AGGLOVE\x01"), b[:len(b)-1]} {
		if _, err := Load(bad); err == nil {
			t.Errorf("Load(%d bytes) accepted a broken file", len(bad))
		}
	}
}

func BenchmarkSoftCoverage(b *testing.B) {
	v := vectors(b)
	q := []string{"how", "much", "to", "fix", "a", "flat", "tyre"}
	p := []string{"puncture", "repair", "costs", "8", "per", "wheel", "including", "a", "new", "inner", "tube"}
	b.ReportAllocs()
	for b.Loop() {
		v.SoftCoverage(q, p)
	}
}
