package index

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// refHashFeature is hashFeature as it was, through hash/fnv.
func refHashFeature(a, b string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(a))
	if b != "" {
		h.Write([]byte{0})
		h.Write([]byte(b))
	}
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// refEmbedTokens is embedTokens as it was before each term's IDF was
// computed once: maps keyed by term and by term pair, the IDF looked up at
// every use. embedTokens must give its bits.
func refEmbedTokens(m *LocalModel, toks []string, dst []float32) {
	clear(dst)
	tf := make(map[string]int, len(toks))
	uniq := make([]string, 0, len(toks))
	for _, t := range toks {
		if tf[t] == 0 {
			uniq = append(uniq, t)
		}
		tf[t]++
	}
	add := func(h uint64, w float64) {
		i := int(h % uint64(m.Dims))
		if h&(1<<63) != 0 {
			w = -w
		}
		dst[i] += float32(w)
	}
	for _, t := range uniq {
		add(refHashFeature(t, ""), (1+math.Log(float64(tf[t])))*m.IDF(t))
	}
	if m.BigramWeight > 0 && len(toks) > 1 {
		bt := make(map[[2]string]int, len(toks))
		var ubt [][2]string
		for i := 1; i < len(toks); i++ {
			b := [2]string{toks[i-1], toks[i]}
			if bt[b] == 0 {
				ubt = append(ubt, b)
			}
			bt[b]++
		}
		for _, b := range ubt {
			w := m.BigramWeight * (1 + math.Log(float64(bt[b]))) * (m.IDF(b[0]) + m.IDF(b[1])) / 2
			add(refHashFeature(b[0], b[1]), w)
		}
	}
	normalize(dst)
	if m.CharWeight > 0 {
		g := make([]float32, m.Dims)
		refCharGrams(m, uniq, tf, g)
		for i, x := range g {
			dst[i] += float32(m.CharWeight) * x
		}
		normalize(dst)
	}
}

// TestEmbedTokensAsBefore compares embedTokens with refEmbedTokens, bit
// for bit, on every demo chunk (title and text, as a build embeds them),
// the demo questions' kind of text, repeats, one-token and empty inputs,
// and unknown words; and hashFeature with hash/fnv's FNV-1a.
func TestEmbedTokensAsBefore(t *testing.T) {
	p := demoPartition(t)
	m := p.Local()
	var texts []string
	for _, c := range p.Chunks() {
		texts = append(texts, c.Title+"\n"+c.Text, c.Text)
	}
	texts = append(texts,
		"How do I restore a backup?",
		"backup backup restore restore the backup backup restore",
		"What does error LF-4002 mean?",
		"zzz qqq unknown words only zzz",
		"backup",
		"",
		strings.Repeat("a verylongwordthatisfarlongerthansixtyfourbytesanditkeepsgoingonandon ", 3),
	)
	got, want := make([]float32, m.Dims), make([]float32, m.Dims)
	for _, s := range texts {
		toks := Tokenize(s)
		m.embedTokens(toks, got)
		refEmbedTokens(m, toks, want)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%.40q: dim %d = %v, want %v", s, i, got[i], want[i])
			}
		}
	}
	for _, ab := range [][2]string{{"", ""}, {"a", ""}, {"backup", "restore"}, {"x", "\x00"}, {"héllo", "wörld"}} {
		if got, want := hashFeature(ab[0], ab[1]), refHashFeature(ab[0], ab[1]); got != want {
			t.Errorf("hashFeature(%q, %q) = %x, want %x", ab[0], ab[1], got, want)
		}
	}
}

// refCharGrams is charGrams as it was, the IDF looked up per term.
func refCharGrams(m *LocalModel, uniq []string, tf map[string]int, dst []float32) {
	var buf [64]byte
	for _, t := range uniq {
		n := tf[t]
		if len(t)+2 > len(buf) {
			continue
		}
		b := buf[:0]
		b = append(b, '<')
		b = append(b, t...)
		b = append(b, '>')
		grams := 0
		for k := 3; k <= 5; k++ {
			grams += max(0, len(b)-k+1)
		}
		if grams == 0 {
			continue
		}
		w := (1 + math.Log(float64(n))) * m.IDF(t) / math.Sqrt(float64(grams))
		for k := 3; k <= 5; k++ {
			for i := 0; i+k <= len(b); i++ {
				h := hashGram(b[i : i+k])
				x := w
				if h&(1<<63) != 0 {
					x = -x
				}
				dst[h%uint64(m.Dims)] += float32(x)
			}
		}
	}
	normalize(dst)
}

// BenchmarkEmbedTokens is the hashed vector of every demo chunk (as a
// build embeds them) and of a question: "now" is embedTokens, "before"
// refEmbedTokens.
func BenchmarkEmbedTokens(b *testing.B) {
	p := demoPartition(b)
	m := p.Local()
	var chunks [][]string
	for _, c := range p.Chunks() {
		chunks = append(chunks, Tokenize(c.Title+"\n"+c.Text))
	}
	question := Tokenize("How do I restore a workspace backup after the API rate limit error?")
	dst := make([]float32, m.Dims)
	for _, f := range []struct {
		name  string
		embed func(*LocalModel, []string, []float32)
	}{{"now", (*LocalModel).embedTokens}, {"before", refEmbedTokens}} {
		b.Run("chunks/"+f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, toks := range chunks {
					f.embed(m, toks, dst)
				}
			}
		})
		b.Run("question/"+f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.embed(m, question, dst)
			}
		})
	}
}
