package judge

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// cpuNs is this process's user and system CPU time so far.
func cpuNs() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// demoPassages reads the embedded demo corpus (index/demo/corpus.jsonl),
// the notes the proxy's streamed turns cite in guard bench load.
func demoPassages(tb testing.TB) []Passage {
	tb.Helper()
	f, err := os.Open("../index/demo/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var ps []Passage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct{ ID, Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, Passage{ID: r.ID, Title: r.Title, Text: r.Text})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return ps
}

// demoTurns builds turns as the simulated upstream answers a grounded
// demo question: eight notes, three claims, each a sentence of the note it
// cites with its marker, the first after a lead-in.
func demoTurns(tb testing.TB) (notes [][]Passage, claims [][]string) {
	ps := demoPassages(tb)
	for at := 0; at+8 <= len(ps); at += 8 {
		ns := ps[at : at+8]
		var cs []string
		for k, n := range []int{0, 3, 5} {
			sents := Split(ns[n].Text)
			s := sents[k%len(sents)]
			s = s[:len(s)-1] + " [" + strconv.Itoa(n+1) + "]" + s[len(s)-1:]
			if k == 0 {
				s = "Based on the notes: " + s
			}
			cs = append(cs, s)
		}
		notes, claims = append(notes, ns), append(claims, cs)
	}
	return notes, claims
}

// BenchmarkDemoTurnClaims verifies the three claims of one streamed demo
// turn (guard bench load --prompts bench/testdata/demo_prompts.txt): the
// verify stage of a lexical-only guarded turn, per turn.
func BenchmarkDemoTurnClaims(b *testing.B) { benchDemoTurn(b, false) }

// BenchmarkDemoTurnClaimsGoroutine checks each claim on a goroutine of its
// own, as the proxy did before judge.Turn.Inline: the difference to
// BenchmarkDemoTurnClaims is the new goroutines and their stack growth.
func BenchmarkDemoTurnClaimsGoroutine(b *testing.B) { benchDemoTurn(b, true) }

func benchDemoTurn(b *testing.B, spawn bool) {
	j, _ := New(DefaultConfig(), nil)
	notes, claims := demoTurns(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	cpu0 := cpuNs()
	for b.Loop() {
		k := i % len(notes)
		i++
		cited := make(map[int]Passage, 8)
		for n, p := range notes[k] {
			cited[n+1] = p
		}
		turn := j.Turn(notes[k])
		var wg sync.WaitGroup
		for _, s := range claims[k] {
			if spawn {
				wg.Go(func() { turn.Claim(ctx, s, cited) })
			} else {
				turn.Claim(ctx, s, cited)
			}
		}
		wg.Wait()
	}
	// CPU per turn is steadier than ns/op on a shared machine
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}

// analyseUpTo returns the first terms of analyse, stopping at the first
// term that brings the count of non-negation terms to the limit.
func TestAnalyseUpToIsPrefix(t *testing.T) {
	texts := []string{"", "not", "It isn't 5 km away.", "Can't stop, won't stop: 2 million people, 3rd of May.",
		"The unrelated 90 minutes [1] ADAR1 IL6 never", longNote.Text, otherNote.Text}
	for _, p := range demoPassages(t) {
		texts = append(texts, Split(p.Text)...)
	}
	for _, s := range texts {
		all := analyse(s)
		for limit := 1; limit <= 4; limit++ {
			got := analyseUpTo(s, limit)
			if len(got) > len(all) || !reflect.DeepEqual(got, all[:len(got)]) {
				t.Fatalf("analyseUpTo(%q, %d) = %v, not a prefix of %v", s, limit, got, all)
			}
			n := 0
			for k, tm := range got {
				if !tm.neg {
					n++
				}
				if n >= limit && k < len(got)-1 && !tm.neg {
					t.Fatalf("analyseUpTo(%q, %d) goes on after its limit: %v", s, limit, got)
				}
			}
			if n < limit && len(got) != len(all) {
				t.Fatalf("analyseUpTo(%q, %d) stops short: %v of %v", s, limit, got, all)
			}
			var buf [1]term
			if in := analyseAppend(buf[:0], s, limit); !slices.Equal(in, got) {
				t.Fatalf("analyseAppend(buf, %q, %d) = %v, want %v", s, limit, in, got)
			}
		}
	}
}

// IsFactual's look at a claim's first terms allocates nothing for a claim
// in lower case (its terms go to a buffer on the stack).
func TestIsFactualLowerAllocs(t *testing.T) {
	s := "aspirin reduces the risk of heart attack in adults."
	if !isFactualLower(s, s, false) {
		t.Fatalf("isFactualLower(%q) = false", s)
	}
	if n := testing.AllocsPerRun(100, func() { isFactualLower(s, s, false) }); n != 0 {
		t.Errorf("isFactualLower allocates %v times, want 0", n)
	}
}

// IsOpinion finds a cue where a search for each cue after a space does.
func TestIsOpinionAsContains(t *testing.T) {
	old := func(s string) bool {
		l := " " + strings.ToLower(s)
		for _, c := range opinionCues {
			if strings.Contains(l, " "+c) {
				return true
			}
		}
		return false
	}
	texts := []string{"", " ", "I think so.", "i'd", "I'd go", "Arguably the best", "it's best  to", "xi think", "a  i hope",
		"We recommend it", "my favourite", "The amazing Spider", "terrible", "terrible.", "KELVIN \u212a i think", "İ think", "beautifully"}
	for _, p := range demoPassages(t) {
		texts = append(texts, Split(p.Text)...)
	}
	for _, s := range texts {
		for _, v := range []string{s, "I think " + s, s + " personally", strings.ToUpper(s)} {
			if got, want := IsOpinion(v), old(v); got != want {
				t.Errorf("IsOpinion(%q) = %v, want %v", v, got, want)
			}
		}
	}
}

// The span readings wrongSubject and swappedIn keep across claims are
// those they made inline: the clauses, their terms, each sentence's terms
// and voice.
func TestSubjectClausesCachedEqualsFresh(t *testing.T) {
	subjectSpans.reset()
	for _, p := range demoPassages(t)[:40] {
		for _, span := range append(Split(p.Text), p.Text) {
			for range 2 { // a miss, then a hit
				sc := subjectClausesOf(span)
				fresh := newSubjectClauses(span)
				if !reflect.DeepEqual(sc.clauses, fresh.clauses) || !reflect.DeepEqual(sc.terms, fresh.terms) {
					t.Fatalf("clauses of %q differ from a fresh reading", span)
				}
				sents := Split(span)
				got := sc.sentences(span)
				if len(got) != len(sents) {
					t.Fatalf("%d sentences of %q, want %d", len(got), span, len(sents))
				}
				for i, s := range sents {
					if !reflect.DeepEqual(got[i].terms, analyse(s)) || got[i].passive != passive(s) {
						t.Fatalf("sentence %q read differently from its fresh reading", s)
					}
				}
			}
		}
	}
}

// The citation scan finds and strips what citeRe does; StripCitations'
// shortcuts give strings.Fields' result and find every " ." and " ,".
func TestCitationScanAsRegexp(t *testing.T) {
	parts := []string{"[", "]", "1", "12", "1234", "12345", "[1]", "[12]", "[0]", "[9999]", "[10000]", "[ 1]", "[1 ]", "[[2]]",
		"a", " ", "  ", ".", "\t", "\u00a0", "\u2019", "[^1]", "x[3]y", "[1][2]", "[1][1]"}
	texts := []string{"", "[", "[]", "[1", "1]", "[1]", "Stop the service [1].", " [2] lead", "trail [3] ", "[1][2][1] [12345] [x] [4]"}
	for i := range 20000 {
		var b strings.Builder
		for k := range 1 + i%8 {
			b.WriteString(parts[(i*7+k*k*5+k*3)%len(parts)])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := stripCites(s), citeRe.ReplaceAllString(s, ""); got != want {
			t.Fatalf("stripCites(%q) = %q, want %q", s, got, want)
		}
		var want []int
		for _, m := range citeRe.FindAllStringSubmatch(s, -1) {
			n, _ := strconv.Atoi(m[1])
			if !slices.Contains(want, n) {
				want = append(want, n)
			}
		}
		if got := Citations(s); !slices.Equal(got, want) {
			t.Fatalf("Citations(%q) = %v, want %v", s, got, want)
		}
		if singleSpaced(s) && strings.Join(strings.Fields(s), " ") != s {
			t.Fatalf("singleSpaced(%q) but Fields changes it", s)
		}
		if got, want := spacedPunct(s+","), strings.Contains(s+",", " .") || strings.Contains(s+",", " ,"); got != want {
			t.Fatalf("spacedPunct(%q) = %v, want %v", s+",", got, want)
		}
	}
}

// joinFields gives strings.Join(strings.Fields(s), " ") for texts made of
// every ASCII and Unicode space, non-space runes, broken UTF-8 (a lone lead
// byte, a stray continuation byte, a cut rune) and the demo claims.
func TestJoinFieldsAsFields(t *testing.T) {
	parts := []string{"a", "Bc", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2003",
		"\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u200b", "\u2019", "\xc2", "\xe2\x80", "\x80", "\xff", ".", "[1]", "é"}
	texts := []string{"", " ", "a", " a ", "a  b", "\u00a0a\u00a0"}
	_, claims := demoTurns(t)
	for _, c := range claims {
		texts = append(texts, c...)
	}
	for i := range 30000 {
		var b strings.Builder
		for k := range 1 + i%9 {
			b.WriteString(parts[(i*7+k*k*5+k*3+i/len(parts))%len(parts)])
		}
		texts = append(texts, b.String())
	}
	changed := 0
	for _, s := range texts {
		want := strings.Join(strings.Fields(s), " ")
		if got := joinFields(s); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
		if want != s {
			changed++
		}
	}
	if changed < len(texts)/2 {
		t.Fatalf("only %d of %d texts changed by Fields: the test reads too little", changed, len(texts))
	}
}

// The merged lexicon says of every word what the separate lists say.
func TestLexiconIsTheLists(t *testing.T) {
	words := []string{"", "not", "the", "twelve", "lit", "unrelated", "xyzzy"}
	for _, m := range []map[string]struct{}{negations, unNegated, stopwords} {
		for w := range m {
			words = append(words, w)
		}
	}
	for w := range numberWords {
		words = append(words, w)
	}
	for w := range canon {
		words = append(words, w)
	}
	for _, p := range demoPassages(t)[:20] {
		words = append(words, strings.Fields(strings.ToLower(p.Text))...)
	}
	for _, w := range words {
		c := lexicon[w]
		_, neg := negations[w]
		_, un := unNegated[w]
		num, isNum := numberWords[w]
		_, stop := stopwords[w]
		cn, isCanon := canon[w]
		if c.neg != neg || c.unNeg != un || c.numWord != isNum || c.num != num || c.stop != stop || c.canonical != isCanon || c.canon != cn {
			t.Fatalf("lexicon[%q] = %+v", w, c)
		}
	}
}

// Turns verify their claims on goroutines of their own: the per-span and
// per-window readings they share are made and read safely (run with
// -race).
func TestDemoTurnClaimsConcurrent(t *testing.T) {
	j, _ := New(DefaultConfig(), nil)
	notes, claims := demoTurns(t)
	subjectSpans.reset()
	scopeWindows.m.reset()
	ctx := context.Background()
	verdicts := func(k int) []string {
		cited := make(map[int]Passage, 8)
		for n, p := range notes[k] {
			cited[n+1] = p
		}
		turn := j.Turn(notes[k])
		var out []string
		for _, s := range claims[k] {
			c := turn.Claim(ctx, s, cited)
			out = append(out, c.Verdict+" "+c.Reason+" "+c.Evidence)
		}
		return out
	}
	want := make([][]string, len(notes))
	for k := range notes {
		want[k] = verdicts(k)
	}
	subjectSpans.reset()
	scopeWindows.m.reset()
	errs := make(chan string, 4*len(notes))
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for k := range notes {
				k := (k + g*3) % len(notes)
				if got := verdicts(k); !reflect.DeepEqual(got, want[k]) {
					errs <- strings.Join(got, "; ")
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("concurrent verdicts differ: %s", e)
	}
}

// A passage's sentence index (prepared.in) gives the signals the
// per-sentence look-ups give: every demo passage, with each of its
// sentences (and the demo turns' claims) as a claim, against the passage
// and against the passage with a neighbour, indexed and not.
func TestSignalsIndexedEqualsPerSentence(t *testing.T) {
	l := NewLocal(DefaultConfig().Local)
	ps := demoPassages(t)
	unindexed := func(docs []*prepared) []*prepared {
		out := make([]*prepared, len(docs))
		for i, d := range docs {
			c := *d
			c.in = nil
			out[i] = &c
		}
		return out
	}
	_, turns := demoTurns(t)
	checked := 0
	for i, p := range ps {
		docs := []*prepared{prepare(p.Title, p.Text), prepare(ps[(i+1)%len(ps)].Title, ps[(i+1)%len(ps)].Text)}
		for k, d := range docs {
			for si := range d.sents {
				for key := range d.sents[si].stems {
					if d.in[key]&(1<<si) == 0 {
						t.Fatalf("passage %d: sentence %d has %q, the index does not say so", i, si, key)
					}
				}
			}
			for key, m := range d.in {
				for si := range d.sents {
					if _, ok := d.sents[si].stems[key]; ok != (m&(1<<si) != 0) {
						t.Fatalf("passage %d doc %d: index of %q is %b, sentence %d says %v", i, k, key, m, si, ok)
					}
				}
			}
		}
		claims := append(Split(p.Text), turns[i%len(turns)]...)
		for _, c := range claims {
			c = StripCitations(c)
			for _, ds := range [][]*prepared{docs[:1], docs} {
				got, okGot := l.signals(c, ds)
				want, okWant := l.signals(c, unindexed(ds))
				if okGot != okWant || !reflect.DeepEqual(got, want) {
					t.Fatalf("%q against passage %d: indexed signals\n%+v\nper sentence\n%+v", c, i, got, want)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d claims checked", checked)
	}
}

// check's IsFactual, sharing IsOpinion's lowercasing, is IsFactual.
func TestIsFactualLowerAsIsFactual(t *testing.T) {
	texts := []string{"", " ", "#", "Why?", "Note:", "1. I think so.", "- I think it opens at 9.", "I think it opens at 9.",
		"Sure, the pool opens at 9.", "  Rent is due on 1 October.", "Rent is due on 1 October.  ", "3 rooms are free.", "İ think"}
	for _, p := range demoPassages(t) {
		texts = append(texts, Split(p.Text)...)
	}
	for _, s := range texts {
		for _, v := range []string{s, "1) " + s, "> " + s, "I believe " + s} {
			v = StripCitations(v)
			if strings.IndexByte(v, '[') >= 0 {
				continue
			}
			lower := strings.ToLower(v)
			if got, want := isFactualLower(v, lower, hasOpinionCue(lower)), IsFactual(v); got != want {
				t.Errorf("isFactualLower(%q) = %v, IsFactual %v", v, got, want)
			}
		}
	}
}
