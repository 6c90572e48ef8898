package gate

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/answer-guard/guard/index"
)

// demoGateTurns builds the gate's input for each demo question (guard
// bench load --prompts bench/testdata/demo_prompts.txt) over the embedded
// demo corpus: the 16 passages sharing most of its terms, ranked, with
// their terms prepared as the proxy's cache holds them, and the corpus's
// IDF.
func demoGateTurns(tb testing.TB) (questions []string, pools [][]Candidate, idf func(string) float64) {
	tb.Helper()
	f, err := os.Open("../index/demo/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var all []Candidate
	df := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct{ ID, Title, Kind, Address, URL, Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatal(err)
		}
		c := Candidate{ID: r.ID, Title: r.Title, Kind: r.Kind, Address: r.Address, URL: r.URL, Text: r.Text,
			Lanes: []string{"dense", "lexical"}, Terms: NewPassageTerms(index.Tokenize, r.Title, r.Text)}
		for t := range c.Terms.set {
			df[t]++
		}
		all = append(all, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	idf = func(t string) float64 { return math.Log(1 + float64(len(all))/float64(1+df[t])) }
	qs, err := os.ReadFile("../bench/testdata/demo_prompts.txt")
	if err != nil {
		tb.Fatal(err)
	}
	qsc := bufio.NewScanner(bytes.NewReader(qs))
	for qsc.Scan() {
		q := qsc.Text()
		if q == "" {
			continue
		}
		terms := index.Tokenize(q)
		type scored struct {
			c Candidate
			s float64
		}
		var ss []scored
		for _, c := range all {
			var s float64
			for _, t := range terms {
				if _, ok := c.Terms.set[t]; ok {
					s += idf(t)
				}
			}
			ss = append(ss, scored{c, s})
		}
		slices.SortStableFunc(ss, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
		var pool []Candidate
		for i, x := range ss[:16] {
			c := x.c
			c.Score = x.s
			c.Rerank = 0.95 - float64(i)*0.05
			pool = append(pool, c)
		}
		questions, pools = append(questions, q), append(pools, pool)
	}
	return questions, pools, idf
}

// BenchmarkDemoTurnGate is the gate stage of one lexical-only demo turn,
// as the proxy runs it: the question prepared, the answerability and
// relevance models over 16 candidates, the decision, the local planner and
// the grounded prompt (a scrub that keeps the text).
func BenchmarkDemoTurnGate(b *testing.B) {
	questions, pools, idf := demoGateTurns(b)
	cfg := DefaultConfig()
	am, rm := DefaultAnswerModel(), DefaultRelevanceModel()
	pcfg := cfg
	pcfg.Scrub = func(s string) string { return s }
	cs := make([]Candidate, 16)
	b.ReportAllocs()
	i := 0
	cpu0 := cpuNs()
	for b.Loop() {
		k := i % len(questions)
		i++
		cs = append(cs[:0], pools[k]...)
		q := PrepareQuestion(index.Tokenize, questions[k], idf)
		am.Assess(q, cs)
		rm.Rate(cs, OneTopic(cfg, cs))
		o := Decide(cfg, cs, true, Ask{})
		o = ApplyOutline(o, LocalOutline(cfg, o))
		SystemPrompt(pcfg, o, nil)
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}
