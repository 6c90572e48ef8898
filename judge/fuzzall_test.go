package judge

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeedPairs reads (source, claim) pairs for the whole-path fuzz
// targets: the judge pairs operators met (bench/testdata/judgepairs, each
// claim against its first evidence) and the demo corpus's passages, each
// against its own first sentence.
func fuzzSeedPairs(tb testing.TB) [][2]string {
	tb.Helper()
	var out [][2]string
	files, _ := filepath.Glob("../bench/testdata/judgepairs/*.jsonl")
	for _, name := range files {
		for _, p := range readPairs(tb, name) {
			out = append(out, [2]string{p.Evidence[0], p.Claim})
		}
	}
	f, err := os.Open("../index/demo/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		var r struct{ Text string }
		if json.Unmarshal(sc.Bytes(), &r) == nil && i%4 == 0 {
			s := Split(r.Text)
			if len(s) > 0 {
				out = append(out, [2]string{r.Text, s[0]})
			}
		}
	}
	if len(out) < 20 {
		tb.Fatalf("only %d seed pairs", len(out))
	}
	return out
}

// pairLine is a line of a claim/evidence pairs file (guard judge --pairs).
type pairLine struct {
	ID       string
	Claim    string
	Evidence []string
}

// readPairs reads the pairs of a pairs file that have a claim and
// evidence (a line that is no such pair is passed over).
func readPairs(tb testing.TB, name string) []pairLine {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []pairLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var p pairLine
		if json.Unmarshal(sc.Bytes(), &p) == nil && len(p.Evidence) > 0 {
			out = append(out, p)
		}
	}
	return out
}

var verdictLabels = map[string]bool{Entailment: true, Contradiction: true, Neutral: true, Opinion: true, NotChecked: true}

// checkVerdict holds what any verdict must be: a known label, a
// confidence in [0,1].
func checkVerdict(t *testing.T, where, label string, conf float64) {
	t.Helper()
	if !verdictLabels[label] {
		t.Fatalf("%s: label %q", where, label)
	}
	if math.IsNaN(conf) || conf < 0 || conf > 1 {
		t.Fatalf("%s: confidence %v", where, conf)
	}
}

// FuzzVerifyPair runs the local verifier end to end on any (source
// passage, claim) pair: NewLocal(DefaultConfig().Local).Verify, its
// features, and the Judge's claims path as the proxy takes it (the answer
// split as it streams, each sentence citing the passage, Turn.Check, then
// Finish over the pool and another KB holding the source; and Report on the whole answer). No panic; every
// verdict's label is known and its confidence in [0,1].
func FuzzVerifyPair(f *testing.F) {
	for i, p := range fuzzSeedPairs(f) {
		f.Add(p[0], p[1])
		if i%8 == 0 {
			w := wideners[i/8%len(wideners)]
			f.Add(w.Replace(p[0]), w.Replace(p[1]))
		}
	}
	f.Add("İİİ costs £5 and \xff, or 3 İ", "İ costs £5 \xff and 3")
	f.Add("Open 9am-5pm, Mon–Fri.", "We are open until 5pm on Sundays [1].")
	f.Add("We don\u2019t accept cheques. Parking is \u201cfree\u201d.", "You don\u2019t pay for parking [1]. We\u2019re \u2018open\u2019 [1].")
	l := NewLocal(DefaultConfig().Local)
	cfg := DefaultConfig()
	cfg.Footer = true
	cfg.MinContextChars = 1
	j, err := New(cfg, nil)
	if err != nil {
		f.Fatal(err)
	}
	strictCfg := cfg
	strictCfg.Mode = "strict"
	js, err := New(strictCfg, nil)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, source, claim string) {
		ps := []Passage{{N: 1, ID: "p1", Title: "Prices", Text: source}}
		v, err := l.Verify(ctx, claim, ps)
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != "" {
			checkVerdict(t, "Verify", v.Label, v.Confidence)
		}
		l.Features(claim, ps)

		cited := map[int]Passage{1: ps[0], 2: {N: 2, ID: "p2", Title: source, Text: claim}}
		pool := []Passage{{ID: "p1", Title: "Prices", Text: source}, {ID: "p3", Text: claim}}
		for _, jj := range []*Judge{j, js} {
			turn := jj.Turn(pool)
			sp := NewSplitter()
			answer := claim + " [1]. " + claim + " [2][1]\n\n" + claim
			var claims []Claim
			for i := 0; i < len(answer); i += 7 {
				for _, s := range sp.Feed(answer[i:min(i+7, len(answer))]) {
					c, drop := turn.Check(ctx, s, cited)
					if c.Verdict != "" {
						checkVerdict(t, "Check", c.Verdict, c.Confidence)
						claims = append(claims, c)
					}
					for _, n := range drop {
						if n != 1 && n != 2 {
							t.Fatalf("Check(%q) drops [%d]", s, n)
						}
					}
				}
			}
			for _, s := range sp.Flush() {
				claims = append(claims, turn.Claim(ctx, s, cited))
			}
			r := jj.Finish(ctx, claims, pool[1:], fuzzKB{ps[0]})
			for _, c := range r.Claims {
				checkVerdict(t, "Finish", c.Verdict, c.Confidence)
			}
			r = jj.Report(ctx, answer, cited, pool, nil)
			for _, c := range r.Claims {
				checkVerdict(t, "Report", c.Verdict, c.Confidence)
			}
		}
		StripCitations(claim)
		Citations(claim)
		IsOpinion(claim)
		IsFactual(claim)
	})
}

// fuzzKB is another knowledge base that holds p for any sentence.
type fuzzKB struct{ p Passage }

func (k fuzzKB) Find(context.Context, string) (string, Passage, bool) { return "other", k.p, true }

// TestFuzzSeedPairsVerify runs the whole-path fuzz body's invariants over
// the seed pairs in a plain test (go test -short runs it).
func TestFuzzSeedPairsVerify(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	for _, p := range fuzzSeedPairs(t) {
		v, err := l.Verify(context.Background(), p[1], []Passage{{N: 1, ID: "p", Text: p[0]}})
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != "" {
			checkVerdict(t, strings.TrimSpace(p[1]), v.Label, v.Confidence)
		}
	}
}

// wideners rewrite a text so that strings.ToLower's copy of it is longer
// (İ, invalid UTF-8) or shorter (the Kelvin sign, typographic quotes) than
// it: an index found in the copy and used on the text is out of place or
// out of range.
var wideners = []*strings.Replacer{
	strings.NewReplacer("i", "İ", "I", "İ"),
	strings.NewReplacer("k", "\u212a", "K", "\u212a", "s", "\u017f"),
	strings.NewReplacer(" ", " \xff", ",", "\xc0,"),
	strings.NewReplacer("a", "Ⱥ", "e", "ẞ", " ", "\u00a0"),
	// typographic quotes, which the verifier reads as ASCII ones in a
	// shorter copy (normQuotes)
	strings.NewReplacer("'", "\u2019", `"`, "\u201d", "o", "o\u2019", ", ", "\u201c, "),
}

// TestVerifyWideningRunes runs the whole verifier path over the seed
// pairs with their letters swapped for runes whose lower case changes
// length (the class of splitItems' panic), the claim and the source each.
func TestVerifyWideningRunes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MinContextChars = 1
	j, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLocal(DefaultConfig().Local)
	ctx := context.Background()
	pairs := fuzzSeedPairs(t)
	if testing.Short() {
		pairs = pairs[:len(pairs)/3]
	}
	for _, p := range pairs {
		for _, w := range wideners {
			for _, pr := range [][2]string{{w.Replace(p[0]), p[1]}, {p[0], w.Replace(p[1])}, {w.Replace(p[0]), w.Replace(p[1])}} {
				ps := []Passage{{N: 1, ID: "p", Text: pr[0]}}
				if v, _ := l.Verify(ctx, pr[1], ps); v.Label != "" {
					checkVerdict(t, pr[1], v.Label, v.Confidence)
				}
				r := j.Report(ctx, pr[1]+" [1]", map[int]Passage{1: ps[0]}, ps, nil)
				for _, c := range r.Claims {
					checkVerdict(t, c.Text, c.Verdict, c.Confidence)
				}
			}
		}
	}
}
