package gauntlet

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
)

var (
	propN    = flag.Int("props", 20000, "answers in TestRandomProperties")
	propSeed = flag.Uint64("props.seed", 1, "seed of TestRandomProperties")
)

// TestRandomProperties runs the fuzz oracle over seeded random answers built
// from marker-shaped and id-shaped pieces, which reach the tricky cases far
// faster than byte-level mutation. It is deterministic.
func TestRandomProperties(t *testing.T) {
	s := testSpec(t)
	pieces := []string{"[", "]", "^", "`", "~", " ", "\n", ".", ",", ":", "_", "-", "1", "2", "9", "0", "a", "b", "x",
		"card:", "action:", "Lecture 1", "open_map", "doc_", "É", "Ж", "0123456789abcdef", "0123abcd",
		"-0123-4567-89ab-0123456789ab", "REALID42", "```", "~~~", "  ", "[^1]", "[^9]", "[1]", "library-7", "[card:Lecture 1]", "。", "\xe3\x80", "\x82", "(", ")", "(", ")", "ref ",
		// the normalising filter's inputs: glue, look-alikes, escapes
		"\u200b", "\u2011", "**", "*", "~~", "<!-- -->", "<!--", "-->", "<", "%2D", "%2", "%", "\uff48", "\uff10", "\u04bb", "\u0435", "\u2014", "REAL\u200bID42", "REALID\uff14\uff12"}
	n := *propN
	if testing.Short() {
		n = min(n, 2000)
	}
	r := rand.New(rand.NewPCG(*propSeed, 2))
	for range n {
		var in []byte
		for k := r.IntN(40); k >= 0; k-- {
			in = append(in, pieces[r.IntN(len(pieces))]...)
		}
		o := fuzzOptions(r.IntN(3) == 0)
		one := s.New(o)
		ref := one.Close(one.Write(nil, in))
		got, _ := chunked(s, o, in, []byte{byte(r.IntN(16)), byte(r.IntN(16))})
		if !bytes.Equal(got, ref) {
			t.Fatalf("chunking changes the output:\ninput %q\none   %q\nchunk %q", in, ref, got)
		}
		checkOutput(t, s, o, in, ref, one)
	}
}

// TestValidCitationsSurvive: answers with only valid markers, cut anywhere,
// keep every marker (no valid citation is lost) and drop nothing.
func TestValidCitationsSurvive(t *testing.T) {
	s := testSpec(t)
	r := rand.New(rand.NewPCG(3, 4))
	forms := []string{"[^%d]", "[%d]", "[^%d][^%d]", "[%d, %d]"}
	for range 2000 {
		var in bytes.Buffer
		want := 0
		for k := 1 + r.IntN(8); k > 0; k-- {
			a, b := 1+r.IntN(2), 4 // notes 1/2 and 4 are distinct sources
			f := forms[r.IntN(len(forms))]
			in.WriteString("Claim Évian 42 holds ")
			switch f {
			case "[^%d]", "[%d]":
				fmt.Fprintf(&in, f, a)
				want++
			default:
				fmt.Fprintf(&in, f, a, b)
				want += 2
			}
			in.WriteString([]string{". ", "!\n", "。", ".\n\n"}[r.IntN(4)])
		}
		o := testOptions()
		out, st := chunked(s, o, in.Bytes(), []byte{byte(r.IntN(16)), byte(r.IntN(16)), byte(r.IntN(16))})
		if c := st.Counts(); c.Kept != want || c.Dropped != 0 {
			t.Fatalf("input %q\noutput %q\ncounts %+v, want %d kept and none dropped", in.Bytes(), out, c, want)
		}
	}
}
