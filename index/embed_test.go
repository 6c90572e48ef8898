package index

import "testing"

// TestCharGramsShareRoots checks that the character n-gram part of the
// hashed vector lets related word forms that stem differently meet in the
// dense lane, and that the vector stays unit length.
func TestCharGramsShareRoots(t *testing.T) {
	docs := [][]string{Tokenize("mitochondria produce energy"), Tokenize("tumour suppressor genes"), Tokenize("insulin resistance in obesity")}
	words := fitLocal(LocalConfig{Dims: 384, BigramWeight: 0.5}, docs)
	grams := fitLocal(LocalConfig{Dims: 384, BigramWeight: 0.5, CharNgramWeight: 2}, docs)
	if words.Name() == grams.Name() {
		t.Errorf("Name() = %q for both models, want the char n-gram model named apart", words.Name())
	}
	q, d := "mitochondrial", "mitochondria produce energy"
	if Tokenize(q)[0] == Tokenize(d)[0] {
		t.Fatalf("%q and %q stem alike; the test needs forms that stem apart", q, d)
	}
	w := Dot(words.EmbedText(q), words.EmbedText(d))
	g := Dot(grams.EmbedText(q), grams.EmbedText(d))
	if g < 0.3 || g <= w+0.2 {
		t.Errorf("cosine(%q, %q) = %.3f with char n-grams, %.3f without; want >= 0.3 and well above", q, d, g, w)
	}
	v := grams.EmbedText(d)
	if n := Dot(v, v); n < 0.999 || n > 1.001 {
		t.Errorf("|v|^2 = %v, want 1", n)
	}
}

// Dot is the inner product (the cosine of unit vectors); the tests of
// this package (remote_test.go too) check unit length with it.
func Dot(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
