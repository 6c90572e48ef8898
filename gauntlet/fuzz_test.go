package gauntlet

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/answer-guard/guard/gate"
)

// fuzzNotes have human addresses that are not id-shaped, so the auditor's
// exemptions (cited addresses) and the stream's (all addresses) agree.
var fuzzNotes = []gate.Note{
	{N: 1, ID: "doc_a1", Title: "Alpha", Address: "Lecture 1"},
	{N: 2, ID: "doc_b2", Title: "Beta", Address: "Lecture 2"},
	{N: 3, ID: "doc_a1", Title: "Alpha", Address: "Lecture 1 part 2"},
	{N: 4, ID: "John 3:16", Title: "John", Address: "John 3:16"},
}

var fuzzCatalog = map[string]bool{"doc_a1": true, "doc_b2": true, "John 3:16": true, "REALID42": true, "library-7": true}

func fuzzOptions(bailout bool) Options {
	return Options{
		Notes:   fuzzNotes,
		Bailout: bailout,
		Catalog: func(id string) bool { return fuzzCatalog[id] },
		CatalogPrefix: func(s string) bool {
			for id := range fuzzCatalog {
				if n := min(len(s), len(id)); s[:n] == id[:n] {
					return true
				}
			}
			return false
		},
		Cards:   map[string]bool{"Lecture 1": true},
		Actions: map[string]bool{"open_map": true},
	}
}

// chunked feeds in cut at the sizes given by cuts (each byte a size 1..16,
// cycling).
func chunked(s *Spec, o Options, in, cuts []byte) ([]byte, *Stream) {
	st := s.New(o)
	var out []byte
	for i, k := 0, 0; i < len(in); k++ {
		n := 1
		if len(cuts) > 0 {
			n = int(cuts[k%len(cuts)]%16) + 1
		}
		n = min(n, len(in)-i)
		piece := st.Write(nil, in[i:i+n])
		if len(cuts) == 0 || cuts[k%len(cuts)]&16 == 0 { // now and then the next delta is at hand
			piece = st.Flush(piece)
		}
		if utf8.Valid(in) && !utf8.Valid(piece) {
			panic("released invalid UTF-8 from valid input")
		}
		out = append(out, piece...)
		i += n
	}
	return st.Close(out), st
}

// checkOutput is the fuzz oracle: the stream's auditor must find nothing in
// its own output (no invented or broken marker, no leaked id, no unknown
// card or action, every citation used and known).
func checkOutput(t *testing.T, s *Spec, o Options, in, out []byte, st *Stream) {
	t.Helper()
	r := st.Audit(string(out))
	if !r.OK() {
		t.Fatalf("input %q\noutput %q\naudit %+v", in, out, r)
	}
	if o.Bailout && (r.Markers > 0 || len(st.Citations()) > 0) {
		t.Fatalf("bail-out output has markers: input %q output %q", in, out)
	}
	if c := st.Counts(); c.Kept < r.Markers {
		t.Fatalf("kept %d < markers in output %d", c.Kept, r.Markers)
	}
}

func FuzzStream(f *testing.F) {
	seeds := []string{
		"Water boils at 100 C [^1]. Ice melts [^2][^2]. Bad [^9] [^x1] [^ 2] [^^3] [^4",
		"REAL\u200bID42, REAL\u2011ID42? **REAL**ID42 REAL<!-- -->ID42 REAL%49D42 ＲＥＡＬＩＤ４２ `REALID42` Хорошо — ok",
		"See [card:Lecture 1] and [card:Nope], do [action:open_map] [action:rm].",
		"Leak 123e4567-e89b-12d3-a456-426614174000 and doc_0123456789ab, REALID42, 0123456789abcdef0123.",
		"code `[^9] doc_1abc` and\n```\n[^9]\n```\ntext [1, 2] [3; 4] [12 items] [2020]",
		"Évian [^1]。Über [^2] 🙂 [card:Lecture 1]",
		"ab[^9]cd [[^9]^1] [1[^9]] 0123abcd[^9]-0123-4567-89ab-0123456789ab",
		"~~~\n[^9]\n~~~\n  ```\n[^1]\n  ```\n[^1]",
		"https://example.org/path/to/something/quite/long/and/then/doc_123abc/more/stuff/here/ok",
		"library-7  ~~~\n[^9]\n~~~\nREALID42```\n[^9]\n```\n  REALID42 ```x [^9]",
		"x!REALID42 y. end.doc_1a [^1]\n\xe3\x80\x82[^1]\xe3\x80\x82[^1]",
		"See (doc_1a2b). Both [[^9]] x ([^8]) y, ab(doc_1x)cd.\n(doc_1a)```\n  ([^9])~~~ [1(REALID42)] [action(x_1):",
	}
	for i, s := range seeds {
		f.Add([]byte(s), []byte{byte(i), 3, 1, 7}, i%3 == 0)
	}
	s, err := Compile(DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in, cuts []byte, bailout bool) {
		if len(in) > 4096 {
			return
		}
		o := fuzzOptions(bailout)
		whole, _ := chunked(s, o, in, []byte{15}) // 16-byte pieces
		one := s.New(o)
		ref := one.Close(one.Write(nil, in))
		if !bytes.Equal(whole, ref) {
			t.Fatalf("16-byte chunks differ from one write:\ninput %q\none   %q\nchunk %q", in, ref, whole)
		}
		got, _ := chunked(s, o, in, cuts)
		if !bytes.Equal(got, ref) {
			t.Fatalf("chunking %v differs from one write:\ninput %q\none   %q\nchunk %q", cuts, in, ref, got)
		}
		bytewise, _ := chunked(s, o, in, nil)
		if !bytes.Equal(bytewise, ref) {
			t.Fatalf("byte-wise differs from one write:\ninput %q\none  %q\nbyte %q", in, ref, bytewise)
		}
		// WriteFlush, piece by piece and in its state, is Flush(Write).
		if wf := twinChunked(t, s, o, in, cuts); !bytes.Equal(wf, ref) {
			t.Fatalf("WriteFlush in chunking %v differs from one write:\ninput %q\none %q\nwf  %q", cuts, in, ref, wf)
		}
		if wf := twinChunked(t, s, o, in, []byte{7}); !bytes.Equal(wf, ref) {
			t.Fatalf("WriteFlush in 8-byte chunks differs from one write:\ninput %q\none %q\nwf  %q", in, ref, wf)
		}
		checkOutput(t, s, o, in, ref, one)
	})
}
