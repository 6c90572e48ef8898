package gauntlet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/answer-guard/guard/gate"
)

var testNotes = []gate.Note{
	{N: 1, ID: "doc_a1", Title: "Alpha", Address: "Lecture 1", URL: "https://ex.org/a", Kind: "lecture"},
	{N: 2, ID: "doc_b2", Title: "Beta", Address: "Lecture 2", Kind: "lecture"},
	{N: 3, ID: "doc_a1", Title: "Alpha", Address: "Lecture 1 §2", Kind: "lecture"}, // same source as 1
	{N: 4, ID: "John 3:16", Title: "John", Address: "John 3:16", Kind: "verse"},
	{N: 5, ID: "chunk_5f00d", Title: "Addr is id", Address: "chunk_5f00d", Kind: "library"},
}

func testSpec(t testing.TB) *Spec {
	t.Helper()
	s, err := Compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testOptions() Options {
	return Options{
		Notes:         testNotes,
		Catalog:       func(id string) bool { return id == "REALID42" || id == "4983" || id == "John 3:16" },
		CatalogPrefix: prefixOf("REALID42", "4983", "John 3:16"),
		Cards:         map[string]bool{"Lecture 1": true, "John 3:16": true},
		Actions:       map[string]bool{"open_map": true},
	}
}

// prefixOf is Options.CatalogPrefix for a catalog of ids, ignoring case as
// the index does: s and an id are prefix-related.
func prefixOf(ids ...string) func(string) bool {
	return func(s string) bool {
		for _, id := range ids {
			n := min(len(s), len(id))
			if strings.EqualFold(s[:n], id[:n]) {
				return true
			}
		}
		return false
	}
}

// run feeds chunks through a fresh stream and returns the whole output.
func run(s *Spec, o Options, chunks ...string) (string, *Stream) {
	st := s.New(o)
	var out []byte
	for _, c := range chunks {
		out = st.Write(out, []byte(c))
	}
	out = st.Close(out)
	return string(out), st
}

func TestDropReasons(t *testing.T) {
	s := testSpec(t)
	tests := []struct {
		name    string
		in      string
		bailout bool
		want    string
		reasons map[string]int
		kept    int
		cites   []int // note numbers behind output [1], [2], ...
	}{
		{"valid caret", "Water boils [^2].", false, "Water boils [1].", nil, 1, []int{2}},
		{"valid bare", "Water boils [2].", false, "Water boils [1].", nil, 1, []int{2}},
		{"renumber by first appearance", "A [^2]. B [^1]. C [^2].", false, "A [1]. B [2]. C [1].", nil, 3, []int{2, 1}},
		{"same id is one source", "A [^1]. B [^3].", false, "A [1]. B [1].", nil, 2, []int{1}},
		{"list", "A [^1, ^2] and [1; 2].", false, "A [1][2] and.", map[string]int{"repeat_in_sentence": 2}, 2, []int{1, 2}},
		{"unknown number", "A [^9]. B [0].", false, "A. B.", map[string]int{"unknown_number": 2}, 0, nil},
		{"big bracket number is dropped", "In [2020] it rained.", false, "In it rained.", map[string]int{"unknown_number": 1}, 0, nil},
		{"malformed x", "A [^x2] b.", false, "A b.", map[string]int{"malformed": 1}, 0, nil},
		{"malformed space", "A [^ 2].", false, "A.", map[string]int{"malformed": 1}, 0, nil},
		{"malformed double caret", "A [^^2]. B", false, "A. B", map[string]int{"malformed": 1}, 0, nil},
		{"malformed unterminated", "A [^2. B [^1].", false, "A. B [1].", map[string]int{"malformed": 1}, 1, []int{1}},
		{"malformed at end", "A [^2", false, "A", map[string]int{"malformed": 1}, 0, nil},
		{"malformed empty", "A [^] b", false, "A b", map[string]int{"malformed": 1}, 0, nil},
		{"repeat in sentence", "A [^1][^1] and [^3]. B [^1].", false, "A [1] and. B [1].", map[string]int{"repeat_in_sentence": 2}, 2, []int{1}},
		{"repeat across newline is fine", "A [^2]\nB [^2]", false, "A [1]\nB [1]", nil, 2, []int{2}},
		{"card known", "See [card:Lecture 1].", false, "See [card:Lecture 1].", nil, 1, nil},
		{"card unknown", "See [card:Lecture 9].", false, "See.", map[string]int{"unknown_card": 1}, 0, nil},
		{"card cut by newline", "See [card:Lect\nx", false, "See\nx", map[string]int{"malformed": 1}, 0, nil},
		{"action fired", "Do [action:open_map] now", false, "Do [action:open_map] now", nil, 1, nil},
		{"action not fired", "Do [action:delete_all] now", false, "Do now", map[string]int{"unknown_action": 1}, 0, nil},
		{"leaked uuid", "Ref 123e4567-e89b-12d3-a456-426614174000 here.", false, "Ref here.", map[string]int{"leaked_id": 1}, 0, nil},
		{"leaked doc id", "(ref doc_0123456789ab).", false, "(ref).", map[string]int{"leaked_id": 1}, 0, nil},
		{"leaked hex", "hash 0123456789abcdef0123.", false, "hash.", map[string]int{"leaked_id": 1}, 0, nil},
		{"leaked in url", "at https://x.org/chunk_12/y ok", false, "at https://x.org/ ok", map[string]int{"leaked_id": 1}, 0, nil},
		{"catalog id", "use REALID42 now", false, "use now", map[string]int{"leaked_id": 1}, 0, nil},
		{"catalog skips numbers", "in 4983 cases", false, "in 4983 cases", nil, 0, nil},
		{"address equal to id is kept", "see chunk_5f00d and John 3:16.", false, "see chunk_5f00d and John 3:16.", nil, 0, nil},
		{"short hex and words kept", "deadbeef is a word, 3.14 too.", false, "deadbeef is a word, 3.14 too.", nil, 0, nil},
		{"bailout drops every marker", "A [^1] [card:Lecture 1] [^x] [^9] doc_123abc.", true, "A.", map[string]int{"bailout": 4, "leaked_id": 1}, 0, nil},
		{"not markers", "[sic] [link](u) [12 items] [] [[x]] [c] [cards]", false, "[sic] [link](u) [12 items] [] [[x]] [c] [cards]", nil, 0, nil},
		{"inline code: markers untouched, ids dropped", "Use `x[^9] doc_123abc` and [^1].", false, "Use `x[^9] ` and [1].", map[string]int{"leaked_id": 1}, 1, []int{1}},
		{"double backtick span", "a ``b`[^9]`` c [^9]", false, "a ``b`[^9]`` c", map[string]int{"unknown_number": 1}, 0, nil},
		{"fenced code: markers untouched, ids dropped", "x\n```go\na[^9] doc_1abcdef\n```\nb [^9]", false, "x\n```go\na[^9] \n```\nb", map[string]int{"unknown_number": 1, "leaked_id": 1}, 0, nil},
		{"tilde fence", "~~~\n[^9]\n~~~\n[^9]", false, "~~~\n[^9]\n~~~\n", map[string]int{"unknown_number": 1}, 0, nil},
		{"unclosed span ends at newline", "a `b [^9]\nc [^9]", false, "a `b [^9]\nc", map[string]int{"unknown_number": 1}, 0, nil},
		{"CJK full stop ends a sentence", "水[^1]。水[^1]！水[^1][^1]？", false, "水[1]。水[1]！水[1]？", map[string]int{"repeat_in_sentence": 1}, 3, []int{1}},
		{"emptied brackets vanish", "See (doc_1a2b). Both [[^9]] x [^1] ([^8]) y, ab(doc_1x)cd.", false, "See. Both x [1] y, ab cd.", map[string]int{"leaked_id": 2, "unknown_number": 2}, 1, []int{1}},
		{"brackets with content stay", "See (ref doc_1a2b) and ([^1]) [x [^9]].", false, "See (ref) and ([1]) [x ].", map[string]int{"leaked_id": 1, "unknown_number": 1}, 1, []int{1}},
		{"no vanishing at a line start", "(doc_1a2b)\n  [[^9]] x", false, "()\n  [] x", map[string]int{"leaked_id": 1, "unknown_number": 1}, 0, nil},
		{"utf8 around markers", "Évian [^1]。Über [^2]", false, "Évian [1]。Über [2]", nil, 2, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions()
			o.Bailout = tt.bailout
			got, st := run(s, o, tt.in)
			if got != tt.want {
				t.Errorf("output = %q, want %q", got, tt.want)
			}
			c := st.Counts()
			want := tt.reasons
			if want == nil {
				want = map[string]int{}
			}
			if !maps.Equal(c.ByReason, want) {
				t.Errorf("by_reason = %v, want %v", c.ByReason, want)
			}
			if c.Kept != tt.kept {
				t.Errorf("kept = %d, want %d", c.Kept, tt.kept)
			}
			var gotCites []int
			for i, ct := range st.Citations() {
				if ct.N != i+1 {
					t.Errorf("citation %d has N = %d", i, ct.N)
				}
				for _, n := range testNotes {
					if n.ID == ct.ID {
						gotCites = append(gotCites, n.N)
						break
					}
				}
			}
			if !slices.Equal(gotCites, tt.cites) {
				t.Errorf("citations = %v, want notes %v", gotCites, tt.cites)
			}
			// Whatever the chunking, the output is the same.
			for cut := 0; cut <= len(tt.in); cut++ {
				if g, _ := run(s, o, tt.in[:cut], tt.in[cut:]); g != got {
					t.Fatalf("split at %d: output = %q, want %q", cut, g, got)
				}
			}
			if g, _ := run(s, o, bytewise(tt.in)...); g != got {
				t.Errorf("byte by byte: output = %q, want %q", g, got)
			}
		})
	}
}

func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = s[i : i+1]
	}
	return out
}

func TestOutputIsValidUTF8PerWrite(t *testing.T) {
	s := testSpec(t)
	in := "Ünïcödé 日本語 [^1] 🙂 text"
	st := s.New(testOptions())
	var all []byte
	for i := 0; i < len(in); i++ {
		piece := st.Write(nil, []byte{in[i]})
		if !utf8.Valid(piece) {
			t.Fatalf("write %d released invalid UTF-8 %q", i, piece)
		}
		all = append(all, piece...)
	}
	all = st.Close(all)
	if want := "Ünïcödé 日本語 [1] 🙂 text"; string(all) != want {
		t.Errorf("output = %q, want %q", all, want)
	}
}

func TestHoldBackIsBounded(t *testing.T) {
	s := testSpec(t)
	st := s.New(testOptions())
	// Text that cannot start a marker is released at once.
	if got := string(st.Write(nil, []byte("plain, text! "))); got != "plain, text!" {
		t.Errorf("released %q, want %q (only the trailing space held)", got, "plain, text!")
	}
	// A long token is released unchecked once it outgrows max_marker_len.
	in := "a1" + strings.Repeat("x", 200)
	st = s.New(testOptions())
	held := 0
	for i := 0; i < len(in); i++ {
		held += 1 - len(st.Write(nil, []byte{in[i]}))
		if held > 64 {
			t.Fatalf("after %d bytes %d are held, want <= 64", i+1, held)
		}
	}
	// Undecided markers never hold more than max_marker_len (+ the byte that decides).
	for _, in := range []string{"[^1" + strings.Repeat("x", 200), "[card:" + strings.Repeat("y", 200), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]"} {
		st = s.New(testOptions())
		for i := 0; i < len(in); i++ {
			st.Write(nil, []byte{in[i]})
			if len(st.hold) > 65 {
				t.Fatalf("%.10q...: after %d bytes %d are held, want <= 65", in, i+1, len(st.hold))
			}
		}
	}
}

func TestOnDropAndCountsJSON(t *testing.T) {
	s := testSpec(t)
	o := testOptions()
	var got []string
	o.OnDrop = func(r Reason, b []byte) { got = append(got, fmt.Sprintf("%s:%s", r, b)) }
	run(s, o, "A [^9] doc_1abc [^1][^1].")
	want := []string{"unknown_number:[^9]", "leaked_id:doc_1abc", "repeat_in_sentence:[^1]"}
	if !slices.Equal(got, want) {
		t.Errorf("drops = %q, want %q", got, want)
	}
}

// A catalog id is a leak in any case (the catalog decides: index folds
// case) and inside quotes, brackets and URLs (code spans pass through
// untouched by design, see doc.go); words and other tokens around it are
// never dropped. Output is the same at every chunking.
func TestLeakedIDWrapped(t *testing.T) {
	s := testSpec(t)
	o := testOptions()
	o.Catalog = func(id string) bool { return strings.EqualFold(id, "injdoc-ALPHA-001") }
	o.CatalogPrefix = prefixOf("injdoc-ALPHA-001")
	for _, tc := range []struct{ in, want string }{
		{"See injdoc-alpha-001 now.", "See now."},
		{`See "injdoc-ALPHA-001" now.`, `See "" now.`},
		{"See 'injdoc-alpha-001' now.", "See '' now."},
		{"See (injdoc-alpha-001) now.", "See now."},
		{"See https://docs.example/kb/injdoc-alpha-001 now.", "See https://docs.example/kb/ now."},
		{"See https://docs.example/kb?id=injdoc-alpha-001 now.", "See https://docs.example/kb?id= now."},
		{"Version 2-beta of `the-tool` is out.", "Version 2-beta of `the-tool` is out."},
		{"Read https://docs.example/kb/intro-2 first.", "Read https://docs.example/kb/intro-2 first."},
	} {
		for _, size := range []int{1, 3, 7, 1000} {
			var chunks []string
			for i := 0; i < len(tc.in); i += size {
				chunks = append(chunks, tc.in[i:min(i+size, len(tc.in))])
			}
			got, st := run(s, o, chunks...)
			if got != tc.want {
				t.Errorf("%q (chunks of %d): got %q, want %q", tc.in, size, got, tc.want)
			}
			if leaked := st.Counts().ByReason["leaked_id"]; (tc.want != tc.in) != (leaked > 0) {
				t.Errorf("%q: leaked_id count %d", tc.in, leaked)
			}
		}
	}
}
