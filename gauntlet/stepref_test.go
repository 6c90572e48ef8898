package gauntlet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// writeSteps is Write without any fast path: every byte goes through step,
// the reference the fast scans must match exactly.
func (st *Stream) writeSteps(dst, delta []byte) []byte {
	if st.closed {
		return dst
	}
	if st.needNorm(delta) {
		return st.normWrite(dst, delta, (*Stream).feedSteps)
	}
	return st.steps(dst, delta)
}

// feedSteps is feed with step alone.
func (st *Stream) feedSteps(dst, text []byte) []byte {
	if len(text) == 0 {
		return dst
	}
	dst = st.steps(dst, text)
	if st.ncarry > 0 {
		dst = append(dst, st.carry[:st.ncarry]...)
		st.ncarry = 0
	}
	return dst
}

// steps lexes delta byte by byte.
func (st *Stream) steps(dst, delta []byte) []byte {
	start := len(dst)
	dst = append(dst, st.carry[:st.ncarry]...)
	st.ncarry = 0
	for _, c := range delta {
		if st.qh < len(st.q) {
			dst = st.drain(dst)
		}
		dst = st.step(dst, c)
	}
	if st.qh < len(st.q) {
		dst = st.drain(dst)
	}
	return st.cutCarry(dst, start)
}

// randomInput returns a window of up to window bytes of text when fromText,
// else up to most+1 random pieces.
func randomInput(r *rand.Rand, fromText bool, text []byte, window int, pieces []string, most int) []byte {
	var in []byte
	if fromText {
		a := r.IntN(len(text) - window)
		return append(in, text[a:a+r.IntN(window)]...)
	}
	for k := r.IntN(most); k >= 0; k-- {
		in = append(in, pieces[r.IntN(len(pieces))]...)
	}
	return in
}

// TestFastPathsMatchSteps: for seeded random answers cut at random sizes,
// every Write returns exactly what byte-by-byte stepping returns for the
// same delta (not only the same whole output), with the same drops, counts
// and citations.
func TestFastPathsMatchSteps(t *testing.T) {
	s := testSpec(t)
	pieces := []string{"[", "]", "^", "`", "~", " ", "\n", ".", ",", ":", "_", "-", "1", "2", "9", "0", "a", "b", "x", "!", "?", "\t", "\r", "@", "#", "/",
		"card:", "action:", "Lecture 1", "open_map", "doc_", "É", "Ж", "0123456789abcdef", "0123abcd", "word", "the ", "Water. ", "end.", "...",
		"-0123-4567-89ab-0123456789ab", "REALID42", "```", "~~~", "  ", "[^1]", "[^9]", "[1]", "[^2]", "[^12]", "[2020]", "library-7",
		"[card:Lecture 1]", "。", "\xe3\x80", "\x82", "(", ")", "ref ", "[^1234567]", "[1, 2]", "3.14", "e.g.", "a-b", "x:", "🙂",
		"\u200b", "\u2011", "**", "~~", "<!-- -->", "<!--", "%2D", "%", "\uff48", "\u04bb", "REAL\u200bID42"}
	text := answerText(1 << 16)
	r := rand.New(rand.NewPCG(5, 6))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for it := range n {
		in := randomInput(r, it%4 == 3, text, 600, pieces, 60)
		o, ref := fuzzOptions(r.IntN(4) == 0), fuzzOptions(false)
		ref.Bailout = o.Bailout
		var got, want []string
		o.OnDrop = func(r Reason, b []byte) { got = append(got, fmt.Sprintf("%s:%s", r, b)) }
		ref.OnDrop = func(r Reason, b []byte) { want = append(want, fmt.Sprintf("%s:%s", r, b)) }
		fast, slow := s.New(o), s.New(ref)
		maxc := 1 + r.IntN(40)
		for i := 0; i < len(in); {
			k := min(1+r.IntN(maxc), len(in)-i)
			g := fast.Write([]byte("<"), in[i:i+k])
			w := slow.writeSteps([]byte("<"), in[i:i+k])
			if flush := k%2 == 0; flush {
				g, w = fast.Flush(g), slow.Flush(w)
			}
			if !bytes.Equal(g, w) {
				t.Fatalf("input %q\nWrite of bytes %d..%d %q = %q, want %q", in, i, i+k, in[i:i+k], g, w)
			}
			i += k
		}
		if g, w := fast.Close(nil), slow.Close(nil); !bytes.Equal(g, w) {
			t.Fatalf("input %q\nClose = %q, want %q", in, g, w)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("input %q\ndrops = %q, want %q", in, got, want)
		}
		if g, w := fmt.Sprint(fast.Counts(), fast.Citations()), fmt.Sprint(slow.Counts(), slow.Citations()); g != w {
			t.Fatalf("input %q\ncounts and citations = %s, want %s", in, g, w)
		}
	}
}

// TestManyNotes covers the map path of Reset (more than 16 notes): notes
// sharing an ID are one source, numbered by first citation, and every
// address word stays exempt from the leaked-id filter.
func TestManyNotes(t *testing.T) {
	s := testSpec(t)
	var notes []gate.Note
	for k := 1; k <= 40; k++ {
		notes = append(notes, gate.Note{N: k, ID: fmt.Sprintf("doc_%d", k%7), Address: fmt.Sprintf("sec_%d part", k)})
	}
	st := s.New(Options{Notes: notes})
	var in, want strings.Builder
	for k := 1; k <= 40; k++ {
		fmt.Fprintf(&in, "S%d sec_%d [^%d]. ", k, k, k)
		fmt.Fprintf(&want, "S%d sec_%d [%d]. ", k, k, (k-1)%7+1)
	}
	got := string(st.Close(st.Write(nil, []byte(in.String()))))
	if got != want.String() {
		t.Errorf("output = %q\nwant %q", got, want.String())
	}
	if c := st.Citations(); len(c) != 7 || c[0].ID != "doc_1" || c[6].ID != "doc_0" {
		t.Errorf("citations = %+v, want 7 sources doc_1..doc_6, doc_0", c)
	}
	if c := st.Counts(); c.Kept != 40 || c.Dropped != 0 {
		t.Errorf("counts = %+v, want 40 kept, none dropped", c)
	}
}
