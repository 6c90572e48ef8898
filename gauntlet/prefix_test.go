package gauntlet

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPrefixNFAEarliest checks the hold-back analysis against brute force:
// for random held tokens t and random continuations, no id shape of any
// default pattern starts before earliest(t) in the finished token's core or
// in any prefix of it (what a drop keeps is checked again as its own token).
func TestPrefixNFAEarliest(t *testing.T) {
	c := DefaultConfig()
	c.IDPatterns = append(c.IDPatterns, `\bref_[0-9]+`, `(?:x|\by)z+`, `^ab`, `[0-9]+$`, `(?i)k\d{3}`, `a.c`, `\B-1[a-f]?\b`, `(?:@|#)(?:doc)?:\d`)
	s, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.pre == nil {
		t.Fatal("patterns have no prefix automata")
	}
	pieces := []string{"0", "1", "9", "a", "b", "e", "f", "A", "F", "g", "x", "z", "_", "-", ".", ":", "/", "#", "@",
		"doc", "DOC", "chunk", "tenant", "kb", "mem", "12345678", "abcd", "0123456789abcdef", "-1234", "n", "no", "te",
		"ref_", "y", "zz", "K", "k", "c", "-1", "@", "#doc:"}
	r := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) []byte {
		var b []byte
		for range n {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		return b
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		held := gen(r.IntN(6))
		if len(held) == 0 {
			continue
		}
		full := append(append([]byte(nil), held...), gen(r.IntN(8))...)
		core := full[:len(full)-trailing(full)]
		for i, a := range s.pre {
			k := a.earliest(held, 0)
			p := &s.ids[i]
			for end := 1; end <= len(core); end++ {
				c := core[:end]
				for q := 0; q < k && q < len(c); q++ {
					if matchAt(p, c, q) {
						t.Fatalf("pattern %q: held %q earliest %d, but %q (of %q) has a match at %d", p.re, held, k, c, full, q)
					}
				}
			}
		}
	}
}

func matchAt(p *idPattern, b []byte, q int) bool {
	if q == 0 {
		return p.at0.Match(b)
	}
	return p.atQ.Match(b[q-1:])
}

// TestIDStart: the leftmost id shape's start, found without allocating,
// equals regexp's FindIndex.
func TestIDStart(t *testing.T) {
	s := testSpec(t)
	for _, tok := range []string{"doc_1a", "abc-doc_12ab", "xdoc_1", "x-123e4567-e89b-12d3-a456-426614174000", "ab0123456789abcdef0",
		"q.0123456789abcdef", "nodoc_1-chunk_2", "plain", "a-b"} {
		want := -1
		for i := range s.ids {
			if loc := s.ids[i].re.FindIndex([]byte(tok)); loc != nil && (want < 0 || loc[0] < want) {
				want = loc[0]
			}
		}
		k, ok := s.idStart([]byte(tok))
		if !ok {
			k = -1
		}
		if k != want {
			t.Errorf("idStart(%q) = %d, want %d", tok, k, want)
		}
	}
}

// TestIDStartExact: patterns whose automaton decides matches (no assertion
// but a leading \b) are matched without regexp; the leftmost id shape still
// equals regexp's, for random tokens and patterns of several shapes.
func TestIDStartExact(t *testing.T) {
	c := DefaultConfig()
	c.IDPatterns = append(c.IDPatterns, `\bref_[0-9]+`, `(?:x|\by)z+`, `(?i)k\d{3}`, `a.c`, `\B-1[a-f]?\b`, `(?:@|#)(?:doc)?:\d`, `(ab|cd)+e?`)
	s, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	exact := ""
	for i := range s.ids {
		if s.ids[i].exact != nil {
			exact += "1"
		} else {
			exact += "0"
		}
	}
	if exact != "1101011011" {
		t.Errorf("exact patterns %s, want 1101011011", exact)
	}
	pieces := []string{"0", "1", "9", "a", "b", "c", "d", "e", "f", "A", "F", "g", "x", "y", "z", "_", "-", ".", ":", "/", "#", "@",
		"doc", "DOC", "chunk", "tenant", "kb", "mem", "12345678", "abcd", "0123456789abcdef", "-1234", "ref_", "K", "k", "-1", "#doc:",
		"123e4567-e89b-12d3-a456-426614174000", "doc_1a", "note_", "src_x"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		var tok []byte
		for k := 1 + r.IntN(8); k > 0; k-- {
			tok = append(tok, pieces[r.IntN(len(pieces))]...)
		}
		want := -1
		for i := range s.ids {
			if loc := s.ids[i].re.FindIndex(tok); loc != nil && (want < 0 || loc[0] < want) {
				want = loc[0]
			}
		}
		k, ok := s.idStart(tok)
		if !ok {
			k = -1
		}
		if k != want {
			t.Fatalf("idStart(%q) = %d, want %d", tok, k, want)
		}
	}
}

// TestFlush: Flush releases a token that ends a delta up to where an id
// could still start in it; what could still become an id waits. Without
// CatalogPrefix (but with a catalog) every token waits. Write alone holds
// the token as before.
func TestFlush(t *testing.T) {
	s := testSpec(t)
	for _, tc := range []struct {
		deltas []string
		want   []string // output after each Write, then Close
	}{
		{[]string{"In", " the", " beginning", "."}, []string{"In", " th", "e beginning", ".", ""}},
		{[]string{"Based", " on"}, []string{"Bas", "ed on", ""}},
		{[]string{"see doc", "_1a2b now"}, []string{"see", " now", ""}},
		{[]string{"abc-doc", "_12ab ok"}, []string{"abc-", " ok", ""}},
		{[]string{"REAL", "ID42 x"}, []string{"", " x", ""}},            // a catalog id's prefix waits
		{[]string{"REAL", "ITY x"}, []string{"", "REALITY x", ""}},      // and goes when it is none
		{[]string{"x/REAL", "ID42 y"}, []string{"x/", " y", ""}},        // a URL segment may be an id
		{[]string{"Ko", "de"}, []string{"Ko", "", "de"}},                // "de" can start a uuid
		{[]string{"0123456789", "abcdef0 ok"}, []string{"", " ok", ""}}, // a hex hash
	} {
		st := s.New(testOptions())
		var got []string
		for _, d := range tc.deltas {
			got = append(got, string(st.Flush(st.Write(nil, []byte(d)))))
		}
		got = append(got, string(st.Close(nil)))
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.deltas, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %q, want %q", tc.deltas, got, tc.want)
				break
			}
		}
	}
	o := testOptions()
	o.CatalogPrefix = nil
	if got := string(s.New(testOptions()).Write(nil, []byte("In"))); got != "" {
		t.Errorf("Write without Flush: %q released early", got)
	}
	flush := func(s *Spec, o Options, in string) string {
		st := s.New(o)
		return string(st.Flush(st.Write(nil, []byte(in))))
	}
	if got := flush(s, o, "In"); got != "" {
		t.Errorf("with a catalog and no CatalogPrefix: %q released early", got)
	}
	o.Catalog = nil
	if got := flush(s, o, "In"); got != "In" {
		t.Errorf("without a catalog: %q released, want all", got)
	}
	// A pattern with too many positions for the analysis: tokens wait.
	c := DefaultConfig()
	c.IDPatterns = append(c.IDPatterns, `x[0-9]{70}`)
	big, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := flush(big, Options{}, "In"); got != "" || big.pre != nil {
		t.Errorf("unanalysable pattern: %q released early", got)
	}
}

// TestCatalogPrefixAsked: Flush asks CatalogPrefix about a token's one- or
// two-byte start once per response, and never about a token that starts
// with one it related to no id; Reset forgets the answers, so a stream
// reused for a response whose catalog has such an id holds the token.
func TestCatalogPrefixAsked(t *testing.T) {
	s := testSpec(t)
	var asked []string
	options := func(ids ...string) Options {
		o := testOptions()
		rel := prefixOf(ids...)
		o.CatalogPrefix = func(p string) bool {
			asked = append(asked, strings.Clone(p))
			return rel(p)
		}
		return o
	}
	st := s.New(options("REALID42"))
	var out []byte
	for _, d := range []string{"The meas", "urements", " measure", "d well", " real", "ly rea", "dy me"} {
		out = st.Flush(st.Write(out, []byte(d)))
	}
	out = st.Close(out)
	if want := "The measurements measured well really ready me"; string(out) != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	if want := []string{"me", "we", "re", "real", "rea"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	asked = nil
	st.Reset(options("measure42"))
	if got := string(st.Flush(st.Write(nil, []byte("The meas")))); got != "The" {
		t.Errorf("after Reset with an id starting \"meas\": %q released, want \"The\"", got)
	}
	if want := []string{"me", "meas"}; !slices.Equal(asked, want) {
		t.Errorf("after Reset: asked %q, want %q", asked, want)
	}
}

// TestFlushCustomPatterns: with patterns of other shapes (assertions in
// the middle or at the end, alternations with and without \b), flushing
// after every byte gives the output of one write, and the auditor finds no
// id left.
func TestFlushCustomPatterns(t *testing.T) {
	c := DefaultConfig()
	c.IDPatterns = []string{`\bref_[0-9]+`, `(?:x|\by)z+`, `^ab`, `[0-9]{3}$`, `(?i)k\d{3}`, `a.c`, `\B-1[a-f]?\b`, `(?:@|#)(?:doc)?:\d`}
	s, err := Compile(c)
	if err != nil || s.pre == nil {
		t.Fatal(err, s.pre == nil)
	}
	pieces := []string{"ref_", "1", "23", "x", "y", "zz", "ab", "k", "K", "a", "c", "-1", "e", "@", "#", "doc", ":", "/", " ", ". ", "word", "REALID42", "library-7", "_", "-"}
	r := rand.New(rand.NewPCG(9, 9))
	o := fuzzOptions(false)
	for range 5000 {
		var in []byte
		for k := r.IntN(14); k >= 0; k-- {
			in = append(in, pieces[r.IntN(len(pieces))]...)
		}
		one := s.New(o)
		ref := one.Close(one.Write(nil, in))
		got, st := chunked(s, o, in, nil)
		if string(got) != string(ref) {
			t.Fatalf("input %q: flushed bytewise %q, one write %q", in, got, ref)
		}
		if a := st.Audit(string(got)); !a.OK() {
			t.Fatalf("input %q output %q: audit %+v", in, got, a)
		}
	}
}

// TestPrefixDFA: the DFAs Flush reads a held token with give what the
// prefix automata's scan gives, for every prefix of random tokens up to the
// early-release limit, with the default and with other pattern shapes.
func TestPrefixDFA(t *testing.T) {
	c := DefaultConfig()
	c.IDPatterns = append(c.IDPatterns, `\bref_[0-9]+`, `(?:x|\by)z+`, `^ab`, `[0-9]+$`, `(?i)k\d{3}`, `a.c`, `\B-1[a-f]?\b`, `(?:@|#)(?:doc)?:\d`, `q[0-9a-z]*r`)
	s, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.pre == nil {
		t.Fatal("no prefix automata")
	}
	// The product of so many patterns is too large: Flush scans with the
	// automata. Fewer patterns have one.
	if len(s.dfas) != len(s.pre) {
		t.Errorf("%d patterns: %d DFAs, want one per pattern", len(s.pre), len(s.dfas))
	}
	c.IDPatterns = append(c.IDPatterns[:3], `\bref_[0-9]+`)
	small, err := Compile(c)
	if err != nil || len(small.dfas) != 1 {
		t.Fatalf("no product DFA for %q (%v)", c.IDPatterns, err)
	}
	var ds []*tokenDFA
	for _, a := range s.pre {
		d, ok := newPrefixDFA(a, s.earlyLim())
		if !ok {
			t.Fatalf("no DFA for %v", a)
		}
		ds = append(ds, d)
	}
	pieces := []string{"0", "1", "9", "a", "b", "e", "f", "A", "F", "g", "x", "z", "_", "-", ".", ":", "/", "#", "@", "q", "r",
		"doc", "DOC", "chunk", "tenant", "kb", "mem", "12345678", "abcd", "0123456789abcdef", "-1234", "n", "no", "te",
		"ref_", "y", "zz", "K", "k", "c", "-1", "@", "#doc:", "deadbeef", "the", "water"}
	r := rand.New(rand.NewPCG(5, 8))
	lim := s.earlyLim()
	for range 20000 {
		var tok []byte
		for k := 1 + r.IntN(6); k > 0; k-- {
			tok = append(tok, pieces[r.IntN(len(pieces))]...)
		}
		tok = tok[:min(len(tok), lim)]
		for i, a := range s.pre {
			d, st := ds[i], uint16(0)
			for n := 1; n <= len(tok); n++ {
				st = d.step(st, tok[n-1])
				got := n - d.ageOf(st)
				if want := a.earliest(tok[:n], 0); got != want {
					t.Fatalf("pattern %q, token %q: DFA earliest %d, scan %d", s.ids[i].re, tok[:n], got, want)
				}
			}
		}
		st, d := uint16(0), &small.dfas[0]
		for n := 1; n <= len(tok); n++ {
			st = d.step(st, tok[n-1])
			want := n
			for _, a := range small.pre {
				want = min(want, a.earliest(tok[:n], 0))
			}
			if got := n - d.ageOf(st); got != want {
				t.Fatalf("token %q: product DFA earliest %d, scans %d", tok[:n], got, want)
			}
		}
	}
}

// TestFlushTablesMatchScan: every Write and every Flush returns exactly
// what it returns when Flush finds where an id could start with the prefix
// automata's scan instead of the DFA tables (one product table, or one per
// pattern) and asks CatalogPrefix every time instead of remembering the
// short token starts it related to no id, for answers cut at random sizes with a Flush after some or all
// deltas; a second Flush releases nothing; and the whole output equals that
// of the same deltas written without any Flush.
func TestFlushTablesMatchScan(t *testing.T) {
	many := DefaultConfig()
	many.IDPatterns = append(many.IDPatterns, `\bref_[0-9]+`, `(?:x|\by)z+`, `^ab`, `[0-9]+$`, `(?i)k\d{3}`, `a.c`, `\B-1[a-f]?\b`, `(?:@|#)(?:doc)?:\d`, `q[0-9a-z]*r`)
	for _, c := range []Config{DefaultConfig(), many} {
		s, err := Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		scan, err := Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		if s.dfas == nil || scan.pre == nil {
			t.Fatalf("%d patterns: no DFA tables or no prefix automata", len(c.IDPatterns))
		}
		scan.dfas = nil // Flush scans with the prefix automata
		pieces := []string{"the ", "water ", "In", " ", ". ", "doc", "_1a2b", "abc-", "REAL", "ID42", "x/", "Ko", "de", "0123456789", "abcdef0",
			"deadbeef", "-1234", "ref_", "12", "zz", "k", "K", "a", "c", "q", "r", "@", "#doc:", "_", "-", ".", "/", "[^1]", "`x`", "\n", "Évian "}
		text := answerText(1 << 14)
		r := rand.New(rand.NewPCG(11, uint64(len(c.IDPatterns))))
		n := 5000
		if testing.Short() {
			n = 500
		}
		for it := range n {
			in := randomInput(r, it%3 == 2, text, 400, pieces, 30)
			o := testOptions()
			if it%2 == 1 {
				o = fuzzOptions(false)
			}
			every := it%4 == 0
			a, b, w := s.New(o), scan.New(o), s.New(o)
			var got, plain []byte
			var calls []string // the deltas so far, "|" after each flushed one
			for i := 0; i < len(in); {
				k := min(1+r.IntN(12), len(in)-i)
				g, ref := a.Write(nil, in[i:i+k]), b.Write(nil, in[i:i+k])
				calls = append(calls, string(in[i:i+k]))
				if every || r.IntN(2) == 0 {
					b.catAsked = [len(b.catAsked)]uint64{} // the scan asks CatalogPrefix every time
					g, ref = a.Flush(g), b.Flush(ref)
					calls[len(calls)-1] += "|"
					// A second Flush finds nothing more, even when it reads
					// the token again instead of seeing it unchanged.
					for _, x := range []*Stream{a, b} {
						x.fLen = -1
						if again := x.Flush(nil); len(again) != 0 {
							t.Fatalf("deltas %q: a second Flush released %q", calls, again)
						}
					}
				}
				if string(g) != string(ref) {
					t.Fatalf("%d patterns, deltas %q: the last gives %q, scan %q", len(c.IDPatterns), calls, g, ref)
				}
				got = append(got, g...)
				plain = w.Write(plain, in[i:i+k])
				i += k
			}
			got, plain = a.Close(got), w.Close(plain)
			if string(got) != string(plain) {
				t.Fatalf("%d patterns, input %q: with Flush %q, without %q", len(c.IDPatterns), in, got, plain)
			}
		}
	}
}
