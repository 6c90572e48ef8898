package gauntlet

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// lexState is st without its options (which hold funcs, never equal under
// reflect.DeepEqual) and p8: everything a later call reads.
func lexState(st *Stream) Stream {
	c := *st
	c.opt, c.p8 = Options{}, false // p8 caches a fact about the rest, checked apart
	return c
}

// stateDiff lists the fields in which a (Flush(Write)'s state) and b
// (WriteFlush's) differ.
func stateDiff(a, b Stream) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var d string
	for i := range va.NumField() {
		if fa, fb := fmt.Sprintf("%+v", va.Field(i)), fmt.Sprintf("%+v", vb.Field(i)); fa != fb {
			d += fmt.Sprintf("\n%s: Flush(Write) %s, WriteFlush %s", va.Type().Field(i).Name, fa, fb)
		}
	}
	return d
}

// twinChunked feeds in to two streams for o, cut as chunked cuts it (each
// cuts byte a size 1..16, cycling; none: bytewise): one called as
// Flush(Write(dst, piece)), the other as WriteFlush(dst, piece), except
// where chunked skips the Flush (the next delta is at hand), where both call
// Write alone; now and then both get one more Flush. After every piece it
// checks that both appended the same bytes to dst and that their states are
// equal (past the 256th piece, for every 16th and the last); dst is nil, or
// holds a prefix with no room or some room left, in turn. It checks that
// Close, Counts, Citations and Audit agree, and returns WriteFlush's whole
// output.
func twinChunked(t testing.TB, s *Spec, o Options, in, cuts []byte) []byte {
	t.Helper()
	ref, wf := s.New(o), s.New(o)
	var out []byte
	for i, k := 0, 0; i < len(in); k++ {
		n := 1
		if len(cuts) > 0 {
			n = int(cuts[k%len(cuts)]%16) + 1
		}
		n = min(n, len(in)-i)
		piece := in[i : i+n]
		var d1, d2 []byte
		if k%3 != 0 { // a prefix in dst, with no room (k%3 == 1) or 16 bytes of room
			room := 16 * (k % 3 / 2)
			d1 = append(make([]byte, 0, 2+room), "xy"...)
			d2 = append(make([]byte, 0, 2+room), "xy"...)
		}
		var a, b []byte
		if len(cuts) == 0 || cuts[k%len(cuts)]&16 == 0 {
			a = ref.Flush(ref.Write(d1, piece))
			b = wf.WriteFlush(d2, piece)
		} else {
			a = ref.Write(d1, piece)
			b = wf.Write(d2, piece)
		}
		if k%7 == 6 { // a caller's own Flush in between
			a, b = ref.Flush(a), wf.Flush(b)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("piece %d %q of %q (cuts %v): Flush(Write) %q, WriteFlush %q", k, piece, in, cuts, a, b)
		}
		if k < 256 || k%16 == 0 || i+n == len(in) { // (reflect is slow: a long input's later pieces are sampled)
			if sa, sb := lexState(ref), lexState(wf); !reflect.DeepEqual(sa, sb) {
				t.Fatalf("piece %d %q of %q (cuts %v): states differ after the same output %q:%s", k, piece, in, cuts, a, stateDiff(sa, sb))
			}
		}
		// prose8ok is prose() but for the held token, which may be any token that is not long.
		prose := wf.mode == mText && wf.btRun == 0 && wf.tilde == 0 && wf.col < 0 && !wf.glue && wf.open == 0 && !wf.spaceDel &&
			(wf.hk == hNone || wf.hk == hToken && !wf.long)
		if ok, want := wf.prose8ok(), wf.ncarry == 0 && wf.qh == len(wf.q) && !wf.closed && prose && (wf.noEarly || len(wf.dfas) == 1); ok != want {
			t.Fatalf("piece %d %q of %q (cuts %v): prose8ok %v, want %v", k, piece, in, cuts, ok, want)
		}
		if wf.p8 && !wf.prose8ok() {
			t.Fatalf("piece %d %q of %q (cuts %v): p8 set in a state prose8 does not handle", k, piece, in, cuts)
		}
		if k%3 != 0 {
			b = b[2:]
		}
		out = append(out, b...)
		i += n
	}
	ea, eb := ref.Close(nil), wf.Close(nil)
	if !bytes.Equal(ea, eb) {
		t.Fatalf("input %q (cuts %v): Close %q after Flush(Write), %q after WriteFlush", in, cuts, ea, eb)
	}
	out = append(out, eb...)
	if ca, cb := ref.Counts(), wf.Counts(); !reflect.DeepEqual(ca, cb) {
		t.Fatalf("input %q (cuts %v): counts %+v after Flush(Write), %+v after WriteFlush", in, cuts, ca, cb)
	}
	if ca, cb := ref.Citations(), wf.Citations(); !reflect.DeepEqual(ca, cb) {
		t.Fatalf("input %q (cuts %v): citations %+v after Flush(Write), %+v after WriteFlush", in, cuts, ca, cb)
	}
	if ra, rb := ref.Audit(string(out)), wf.Audit(string(out)); !reflect.DeepEqual(ra, rb) {
		t.Fatalf("input %q (cuts %v): audit %+v with Flush(Write)'s stream, %+v with WriteFlush's", in, cuts, ra, rb)
	}
	if got := wf.WriteFlush([]byte("z"), []byte("after close")); string(got) != "z" {
		t.Fatalf("WriteFlush after Close appended %q", got[1:])
	}
	return out
}

// TestWriteFlushIdentity: over the benchmark's answer and seeded random
// answers of marker- and id-shaped pieces, cut every way up to 9 bytes and
// at random, with and without a catalog, in bail-out mode, with a
// hold-back so short that Flush reads only a token's first bytes and with
// numbers that are ids,
// WriteFlush appends what Flush(Write) does piece by piece, leaves the same
// state, and the whole output is the one-write scan's.
func TestWriteFlushIdentity(t *testing.T) {
	short := DefaultConfig()
	short.MaxMarkerLen = 16
	specs := map[string]*Spec{"default": testSpec(t)}
	if s, err := Compile(short); err != nil {
		t.Fatal(err)
	} else {
		specs["max_marker_len=16"] = s
	}
	// Numbers that are ids: an id shape of 5 digits and dots, and all-digit
	// catalog ids of 4 bytes ("4983" in the bench options' catalog).
	num := DefaultConfig()
	num.IDPatterns = append(num.IDPatterns, `[0-9]{3}\.[0-9]`)
	num.CatalogNumbers, num.CatalogMinLen = true, 4
	if s, err := Compile(num); err != nil {
		t.Fatal(err)
	} else if s.numMin != 5 || specs["default"].numMin != 16 {
		t.Fatalf("numMin %d with a 5-byte id shape of digits and dots, %d by default; want 5, 16", s.numMin, specs["default"].numMin)
	} else {
		specs["numeric ids"] = s
	}
	noPrefix := fuzzOptions(false)
	noPrefix.CatalogPrefix = nil // Flush releases nothing early
	opts := map[string]Options{
		"bench":            testOptions(),
		"fuzz":             fuzzOptions(false),
		"bailout":          fuzzOptions(true),
		"no catalog":       {Notes: fuzzNotes},
		"no CatalogPrefix": noPrefix,
	}
	pieces := []string{"[", "]", "^", "`", " ", "\n", ".", "..", ",", ":", "_", "-", "!", "?", ";", "1", "9",
		"a", "b", "e", "x", "the", "water ", "boils", "Doc", "doc_", "É", "0123abcd", "deadbeef", "REALID42", "Real",
		"John", "library-7", "lib", "[^1]", "[^9]", "```", "~~~", "  ", "。", "(", ")", "etc.", "e.g.", "U.S.", "ok. ",
		"Is it? Yes! ", "abcdefghijklmnopqrstuvwxyz", "feedfacecafebeefdeadbeef", "(doc_1a2b)", "\xe3\x80", "\x82",
		// numbers, ids and footnotes that fit in one short delta
		"3.14", "2024-01-15", "1,000", "kb_9", " kb_9 ", "x.y", "a/b", "4983", "[2]", "[^12]", "[1, 2]", "[^3]. "}
	bench := answerText(8 << 10)
	r := rand.New(rand.NewPCG(12, 8))
	for sn, s := range specs {
		for on, o := range opts {
			t.Run(sn+"/"+on, func(t *testing.T) {
				one := s.New(o)
				ref := one.Close(one.Write(nil, bench))
				for size := 1; size <= 9; size++ {
					if got := twinChunked(t, s, o, bench, []byte{byte(size - 1)}); !bytes.Equal(got, ref) {
						t.Fatalf("answer in %d-byte deltas: WriteFlush's output differs from one write", size)
					}
				}
				n := 1500
				if testing.Short() {
					n = 300
				}
				for range n {
					var in []byte
					for k := r.IntN(30); k >= 0; k-- {
						in = append(in, pieces[r.IntN(len(pieces))]...)
					}
					one := s.New(o)
					ref := one.Close(one.Write(nil, in))
					cuts := []byte{byte(r.IntN(32)), byte(r.IntN(32)), byte(r.IntN(32))}
					if got := twinChunked(t, s, o, in, cuts); !bytes.Equal(got, ref) {
						t.Fatalf("input %q cut %v: WriteFlush's output %q, one write %q", in, cuts, got, ref)
					}
				}
			})
		}
	}
}

// TestWriteFlushAllocs proves WriteFlush allocates nothing per delta in
// steady state, for the deltas of TestWriteAllocs and 8-byte prose deltas.
func TestWriteFlushAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under -race (sync.Pool drops items)")
	}
	s := testSpec(t)
	o := testOptions()
	st := s.New(o)
	dst := make([]byte, 0, 1<<16)
	deltas := [][]byte{
		[]byte("Plain wo"), []byte("rds of a"), []byte("n answer"), []byte(", with n"), []byte("umbers 3"),
		[]byte(".14 and "), []byte("1974 e.g"), []byte(". a kb_9"), []byte(" cited ["), []byte("^1]. As "), []byte("[2] and "),
		[]byte("in [^3]."), []byte(" [^1][^2"), []byte("]. Then "),
		[]byte("Plain words of an answer, with numbers 3.14 and 2020 "),
		[]byte("cited [^1] and [^2][^2] then [^99] and [^x1] and [^ 3]. "),
		[]byte("split [^"), []byte("1"), []byte("]. Next [car"), []byte("d:Lecture 1] ok. "),
		[]byte("leak doc_0123456789ab and 123e4567-e89b-12d3-a456-426614174000 and REALID42. "),
		[]byte("code `[^9]` and\n```\n[^9]\n```\n"),
		[]byte("Évian 日本語 🙂 [^4]. "), []byte("\xe6\x97"), []byte("\xa5 end. "),
		[]byte("https://example.org/a/very/long/path/that/keeps/going/and/going/for/more/than/64/bytes ok. "),
	}
	for range 3 {
		for _, d := range deltas {
			dst = st.WriteFlush(dst[:0], d)
		}
	}
	for i, d := range deltas {
		if a := testing.AllocsPerRun(200, func() { dst = st.WriteFlush(dst[:0], d) }); a != 0 {
			t.Errorf("delta %d %q: %v allocs per WriteFlush, want 0", i, d, a)
		}
	}
	cs := chunks(answerText(8<<10), 8)
	if a := testing.AllocsPerRun(20, func() {
		st.Reset(o)
		for _, c := range cs {
			dst = st.WriteFlush(dst[:0], c)
		}
	}); a != 0 {
		t.Errorf("an answer in 8-byte deltas: %v allocs, want 0", a)
	}
}

// A relay passes each delta through WriteFlush as it arrives: a word that
// ends a delta goes out up to where an id could start in it ("boi"), a
// number waits for its end ("100"), an invented citation is dropped.
// TestLettersSpaces checks the word-wide letter and space test against
// the byte tables for every byte in every lane, next to every byte.
func TestLettersSpaces(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			for i := range 7 {
				w := uint64(0x4141414141414141) // 'A' in the other lanes
				w = w&^(0xffff<<(8*i)) | uint64(a)<<(8*i) | uint64(b)<<(8*i+8)
				lt, sp := lettersSpaces(w)
				for j, c := range [2]int{a, b} {
					k := uint(8*(i+j) + 7)
					if got, want := lt>>k&1 == 1, fastKind[c] == fLetter; got != want {
						t.Fatalf("byte %#x in lane %d after %#x: letter %v, want %v", c, i+j, a, got, want)
					}
					if got, want := sp>>k&1 == 1, c == ' '; got != want {
						t.Fatalf("byte %#x in lane %d: space %v, want %v", c, i+j, got, want)
					}
				}
			}
		}
	}
}

func ExampleStream_WriteFlush() {
	s, _ := Compile(DefaultConfig())
	st := s.New(Options{})
	var out []byte
	for _, d := range []string{"Water boi", "ls at 100 C", " [^9]. Bas", "ed on"} {
		n := len(out)
		out = st.WriteFlush(out, []byte(d))
		fmt.Printf("%q\n", out[n:])
	}
	fmt.Printf("%q\n", st.Close(out))
	// Output:
	// "Water boi"
	// "ls at 100"
	// " C. Bas"
	// "ed on"
	// "Water boils at 100 C. Based on"
}

// TestTwoDigitCitations: with more than nine sources cited, the tenth and
// later are numbered [10], [11], ..., in one write and through WriteFlush.
func TestTwoDigitCitations(t *testing.T) {
	s := testSpec(t)
	var o Options
	var in, want strings.Builder
	for n := 1; n <= 12; n++ {
		o.Notes = append(o.Notes, gate.Note{N: 13 - n, ID: fmt.Sprintf("src%d", n)})
		fmt.Fprintf(&in, "Fact %d [^%d]. ", n, 13-n)
		fmt.Fprintf(&want, "Fact %d [%d]. ", n, n)
	}
	st := s.New(o)
	if got := string(st.Close(st.Write(nil, []byte(in.String())))); got != want.String() {
		t.Fatalf("got %q, want %q", got, want.String())
	}
	if c := st.Citations(); len(c) != 12 || c[9].N != 10 || c[9].ID != "src10" {
		t.Fatalf("citations %+v, want 12 with [10] = src10", c)
	}
	if got := twinChunked(t, s, o, []byte(in.String()), []byte{7}); string(got) != want.String() {
		t.Fatalf("WriteFlush in 8-byte deltas: got %q, want %q", got, want.String())
	}
}
