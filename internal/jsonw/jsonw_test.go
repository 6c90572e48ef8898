package jsonw

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// oddStrings covers every escape encoding/json knows: HTML characters,
// control bytes (\b and \f have short forms since Go 1.22), invalid UTF-8,
// U+2028/U+2029, a surrogate half, multi-byte runes.
var oddStrings = []string{
	"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"caf\u00e9 \u2028 \u2029 \U0001F600", "\xff\xfe bad", "\xed\xa0\x80 half", "tail\xe2\x82",
}

func randString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return oddStrings[r.IntN(len(oddStrings))]
	}
	const alphabet = "ab <>&\"\\\n\t\b\f\x00\x1f\u00e9\u2028\xff\U0001F600"
	var b strings.Builder
	for range r.IntN(24) {
		// byte-wise: may cut a rune, which makes invalid UTF-8 on purpose
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestStringAsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ss := append([]string(nil), oddStrings...)
	for range 20000 {
		ss = append(ss, randString(r))
	}
	for range 5000 { // long: the word-wise skip and its tails
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(strings.Repeat("plain text ", r.IntN(3)))
			b.WriteString(randString(r))
		}
		ss = append(ss, b.String())
	}
	for c := range 256 { // every byte at every offset of a word
		for at := range 9 {
			ss = append(ss, strings.Repeat("a", at)+string(rune(c))[:1]+"bcdefghijklmnop", strings.Repeat("a", at)+string([]byte{byte(c)})+"bcdefghijklmnop")
		}
	}
	for _, s := range ss {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", s, got, want)
		}
		wantMsg, _ := json.Marshal(map[string]string{"role": "system", "content": s})
		if got := SystemMessage(nil, s); string(got) != string(wantMsg) {
			t.Fatalf("SystemMessage(%q) = %s, want %s", s, got, wantMsg)
		}
	}
	for _, ss := range [][]string{nil, {}, {"a"}, oddStrings} {
		want, _ := json.Marshal(ss)
		if got := Strings(nil, ss); string(got) != string(want) {
			t.Errorf("Strings(%q) = %s, want %s", ss, got, want)
		}
	}
}

func TestFloatAsMarshal(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789e13, 1.0 / 3, -2.5e-9,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		fs = append(fs, math.Float64frombits(r.Uint64()), r.Float64(), r.NormFloat64()*1e-5, r.ExpFloat64()*1e22)
	}
	for _, f := range fs {
		want, err := json.Marshal(f)
		got, ok := Float(nil, f)
		if (err == nil) != ok {
			t.Fatalf("Float(%v) ok = %v, Marshal's error %v", f, ok, err)
		}
		if ok && string(got) != string(want) {
			t.Fatalf("Float(%v) = %s, want %s", f, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); string(got) != string(want) {
			t.Fatalf("String(%q) = %s, want %s", s, got, want)
		}
	})
}

func BenchmarkString(b *testing.B) {
	s := strings.Repeat("Opened items can be returned within 30 days <of delivery> with proof. ", 40)
	b.Run("jsonw", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = SystemMessage(buf[:0], s)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(map[string]string{"role": "system", "content": s})
		}
	})
}

// BenchmarkStringPlain is prose without a byte to escape, the common case
// of a note's text: the word-wise skip's best case.
func BenchmarkStringPlain(b *testing.B) {
	s := strings.Repeat("Opened items can be returned within 30 days of delivery with proof of purchase. ", 100)
	b.SetBytes(int64(len(s)))
	var buf []byte
	for b.Loop() {
		buf = String(buf[:0], s)
	}
}
