package wordvec

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
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

// TestLookupAsMap holds the open-addressing table to a map from each word
// to its first row (what Load kept before it), for every word of the
// embedded file, their upper-case forms, and words it lacks.
func TestLookupAsMap(t *testing.T) {
	v := vectors(t)
	ref := make(map[string]int, v.Len())
	for i := range v.Len() {
		if _, dup := ref[v.word(i)]; !dup {
			ref[v.word(i)] = i
		}
	}
	if len(ref) < 90_000 {
		t.Fatalf("%d distinct words, want about 100,000", len(ref))
	}
	for w, want := range ref {
		if got, ok := v.ID(w); !ok || int(got) != want {
			t.Fatalf("ID(%q) = %d, %v; want %d", w, got, ok, want)
		}
		up := strings.ToUpper(w)
		wantUp, okUp := ref[up]
		if !okUp {
			wantUp, okUp = ref[strings.ToLower(up)]
		}
		if got, ok := v.ID(up); ok != okUp || (ok && int(got) != wantUp) {
			t.Fatalf("ID(%q) = %d, %v; want %d, %v", up, got, ok, wantUp, okUp)
		}
	}
	for _, w := range []string{"", "zzqxj", "flat tyre", "the\x00", strings.Repeat("a", 300)} {
		if _, ok := ref[w]; ok {
			continue
		}
		if id, ok := v.ID(w); ok {
			t.Errorf("ID(%q) = %d, want not found", w, id)
		}
	}
}

// TestLoadDuplicateWords: the first row of a repeated word wins, and a
// word list with an empty word loads without a panic.
func TestLoadDuplicateWords(t *testing.T) {
	b, err := Encode([]string{"tyre", "flat", "tyre"}, [][]float32{{1, 0}, {0, 1}, {0, -1}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := v.ID("tyre"); !ok || id != 0 {
		t.Errorf("ID(tyre) = %d, %v; want 0, true", id, ok)
	}
	if id, ok := v.ID("Flat"); !ok || id != 1 {
		t.Errorf("ID(Flat) = %d, %v; want 1, true", id, ok)
	}
	// An empty first word: a file Encode would not write.
	var bad bytes.Buffer
	bad.WriteString(magic)
	binary.Write(&bad, binary.LittleEndian, []uint32{2, 1})
	bad.WriteString("\x00\x01a")
	binary.Write(&bad, binary.LittleEndian, []float32{1, 1})
	bad.Write([]byte{1, 2})
	v, err = Load(bad.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := v.ID("a"); !ok || id != 1 {
		t.Errorf("ID(a) = %d, %v; want 1, true", id, ok)
	}
	v.ID("")
}

func BenchmarkLookup(b *testing.B) {
	v := vectors(b)
	words := strings.Fields("how much does it cost to fix a flat tyre Puncture repair costs per wheel including new inner tube zzqxj")
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			v.ID(w)
		}
	}
}
