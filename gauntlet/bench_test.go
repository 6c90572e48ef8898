package gauntlet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/cputime"
)

// answerText builds a seeded, answer-like text of about n bytes: sentences
// of words and numbers citing notes, with some invented, repeated, malformed
// and leaked markers, a code span and a fence now and then.
func answerText(n int) []byte {
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("the water boils at sea level when heated and pressure drops so that molecules escape into air " +
		"which explains why cooking takes longer in mountains according to several measurements reported by students")
	var b strings.Builder
	for b.Len() < n {
		k := 6 + r.IntN(14)
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			switch x := r.IntN(40); {
			case x == 0:
				fmt.Fprintf(&b, "%d.%d", r.IntN(500), r.IntN(10))
			case x == 1:
				fmt.Fprintf(&b, "%d", 1900+r.IntN(120))
			case x == 2:
				b.WriteString("`x = y[0]`")
			default:
				b.WriteString(words[r.IntN(len(words))])
			}
		}
		switch x := r.IntN(20); {
		case x < 12:
			fmt.Fprintf(&b, " [^%d]", 1+r.IntN(4))
		case x == 12:
			fmt.Fprintf(&b, " [^%d][^%d]", 1+r.IntN(4), 1+r.IntN(4))
		case x == 13:
			b.WriteString(" [^99]")
		case x == 14:
			b.WriteString(" [^x2]")
		case x == 15:
			b.WriteString(" (ref doc_0a1b2c3d4e5f)")
		}
		b.WriteString(". ")
		if r.IntN(30) == 0 {
			b.WriteString("\n\n```\ncode [^1] here\n```\n\n")
		}
	}
	return []byte(b.String())
}

func chunks(text []byte, size int) [][]byte {
	var out [][]byte
	for i := 0; i < len(text); i += size {
		out = append(out, text[i:min(i+size, len(text))])
	}
	return out
}

// BenchmarkStream measures gauntlet throughput on one core (MB/s) over a
// 64 KiB answer cut into deltas of the given size, and reports allocations
// per delta.
func BenchmarkStream(b *testing.B) {
	s := testSpec(b)
	text := answerText(64 << 10)
	for _, size := range []int{8, 32, 256, 4096} {
		b.Run(fmt.Sprintf("delta=%d", size), func(b *testing.B) {
			cs := chunks(text, size)
			o := testOptions()
			st := s.New(o)
			dst := make([]byte, 0, 2*len(text))
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			cpu0, n := cputime.Process().Seconds(), 0
			for b.Loop() {
				st.Reset(o)
				dst = dst[:0]
				for _, c := range cs {
					dst = st.Write(dst, c)
				}
				dst = st.Close(dst)
				n++
			}
			b.ReportMetric(float64(len(cs)), "deltas/op")
			reportCPU(b, cpu0, n*len(text))
		})
	}
}

// BenchmarkStreamFlush is BenchmarkStream with a Flush after every Write,
// as the proxy calls it when no next delta is at hand: the cost of
// releasing each delta's trailing token up to where an id could start.
func BenchmarkStreamFlush(b *testing.B) {
	s := testSpec(b)
	text := answerText(64 << 10)
	for _, size := range []int{4, 8, 32, 256} {
		b.Run(fmt.Sprintf("delta=%d", size), func(b *testing.B) {
			cs := chunks(text, size)
			o := testOptions()
			st := s.New(o)
			dst := make([]byte, 0, 2*len(text))
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			cpu0, n := cputime.Process().Seconds(), 0
			for b.Loop() {
				st.Reset(o)
				dst = dst[:0]
				for _, c := range cs {
					dst = st.Flush(st.Write(dst, c))
				}
				dst = st.Close(dst)
				n++
			}
			reportCPU(b, cpu0, n*len(text))
		})
	}
}

// BenchmarkWrite measures one steady-state delta: allocs/op is allocations
// per chunk.
func BenchmarkWrite(b *testing.B) {
	s := testSpec(b)
	text := answerText(64 << 10)
	cs := chunks(text, 24)
	st := s.New(testOptions())
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(24)
	i := 0
	for b.Loop() {
		dst = st.Write(dst[:0], cs[i])
		if i++; i == len(cs) {
			i = 0
		}
	}
}

// TestWriteAllocs proves zero allocations per delta in steady state, for
// plain text, valid, invented, repeated, malformed and split markers, leaked
// ids, cards, code and multi-byte text.
func TestWriteAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race (sync.Pool drops items)")
	}
	s := testSpec(t)
	o := testOptions()
	st := s.New(o)
	dst := make([]byte, 0, 1<<16)
	deltas := [][]byte{
		[]byte("Plain words of an answer, with numbers 3.14 and 2020 "),
		[]byte("cited [^1] and [^2][^2] then [^99] and [^x1] and [^ 3]. "),
		[]byte("split [^"), []byte("1"), []byte("]. Next [car"), []byte("d:Lecture 1] ok. "),
		[]byte("leak doc_0123456789ab and 123e4567-e89b-12d3-a456-426614174000 and REALID42. "),
		[]byte("code `[^9]` and\n```\n[^9]\n```\n"),
		[]byte("Évian 日本語 🙂 [^4]. "), []byte("\xe6\x97"), []byte("\xa5 end. "),
		[]byte("https://example.org/a/very/long/path/that/keeps/going/and/going/for/more/than/64/bytes ok. "),
	}
	for range 3 { // warm up: grow dst, the regexp machine pools, citations
		for _, d := range deltas {
			dst = st.Write(dst[:0], d)
		}
	}
	for i, d := range deltas {
		if a := testing.AllocsPerRun(200, func() { dst = st.Flush(st.Write(dst[:0], d)) }); a != 0 {
			t.Errorf("delta %d %q: %v allocs per Write, want 0", i, d, a)
		}
	}
}

// BenchmarkBaselineScan is the floor to read BenchmarkStream against on a
// shared machine: one table lookup per byte over the same text, nothing
// else. No byte-at-a-time transducer can beat it.
func BenchmarkBaselineScan(b *testing.B) {
	text := answerText(64 << 10)
	b.SetBytes(int64(len(text)))
	n, cpu0, loops := 0, cputime.Process().Seconds(), 0
	for b.Loop() {
		for _, c := range text {
			if class[c] == cSpecial {
				n++
			}
		}
		loops++
	}
	if n < 0 {
		b.Fatal(n)
	}
	reportCPU(b, cpu0, loops*len(text))
}

// reportCPU adds MB per CPU second: on a shared machine the wall-clock MB/s
// undercounts what one core does when the process only gets part of it.
func reportCPU(b *testing.B, cpu0 float64, bytes int) {
	if d := cputime.Process().Seconds() - cpu0; d > 0 && cpu0 > 0 {
		b.ReportMetric(float64(bytes)/d/1e6, "MB/cpu-s")
	}
}

// BenchmarkStreamWriteFlush is BenchmarkStreamFlush through WriteFlush, the
// one call the proxy makes per delta when each goes to the client as it
// arrives: the delta=8 row is the goal of 200 MB per CPU second.
func BenchmarkStreamWriteFlush(b *testing.B) {
	s := testSpec(b)
	text := answerText(64 << 10)
	for _, size := range []int{4, 8, 32, 256} {
		b.Run(fmt.Sprintf("delta=%d", size), func(b *testing.B) {
			cs := chunks(text, size)
			o := testOptions()
			st := s.New(o)
			dst := make([]byte, 0, 2*len(text))
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			cpu0, n := cputime.Process().Seconds(), 0
			for b.Loop() {
				st.Reset(o)
				dst = dst[:0]
				for _, c := range cs {
					dst = st.WriteFlush(dst, c)
				}
				dst = st.Close(dst)
				n++
			}
			reportCPU(b, cpu0, n*len(text))
		})
	}
}
