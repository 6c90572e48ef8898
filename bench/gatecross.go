package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/answer-guard/guard/gate"
)

// The cross-corpus off-topic row of the grounding suite. The dev off-topic
// sets are mostly trivia ("what's the capital of Australia"), far from
// every corpus. The row puts each dev corpus the other dev corpora's
// answerable questions: nothing in the corpus answers them, yet they are
// in its genre (a customer asking a service: "how much is ...", "can I
// ..."), so the gate should handle them per gate.off_topic (fallback, or
// refused as off-topic), and a grounded one is a failure
// (docs/quality.md, Run 12). Contact questions are left out: the gate
// answers "what's your phone number?" from whatever corpus it guards.

// GateCrossSample is how many foreign questions each dev corpus is asked,
// drawn with a fixed seed (gateCrossSeed) from the other corpora's
// answerable questions; 0 (the default) asks all of them, the full cross
// product: 3,430 questions over the eleven dev corpora, about 14 s of CPU
// (eleven index builds and one retrieval per question; 40 per corpus
// takes about 6 s, the builds dominating), a small share of the suite.
// With the trial corpora (89 sets, over 250,000 foreign questions) the
// full product outlasts the rest of the suite: `guard bench quality
// --trials` draws 80 per corpus unless --cross-sample says otherwise.
var GateCrossSample = 0

// gateCrossSeed seeds the draw of foreign questions.
const gateCrossSeed = 12

// GateCross is the cross-corpus off-topic row: per dev corpus and pooled.
type GateCross struct {
	// Sample is the number of foreign questions drawn per corpus (0: all),
	// Seed the seed of the draw.
	Sample int    `json:"sample_per_corpus"`
	Seed   uint64 `json:"seed"`
	// Systems names the systems of each row's Scores, in order.
	Systems []string `json:"systems"`
	// Rows: one per dev corpus, sorted by name, then "pooled".
	Rows []GateCrossRow `json:"rows"`
}

// GateCrossRow is one corpus asked its foreign questions.
type GateCrossRow struct {
	Corpus    string           `json:"corpus"`
	Questions int              `json:"questions"`
	Scores    []GateCrossScore `json:"scores"`
}

// GateCrossScore is how one system handled a corpus's foreign questions:
// Handled per gate.off_topic (the right outcome), Grounded (answered from
// the corpus), RefusedOnTopic (refused as a gap on the corpus's topic, at
// or above bail-out or by on_topic_sim). AboveBailOut counts the questions
// whose relevance reached bail_out_below (docs/quality.md Run 12's figure).
type GateCrossScore struct {
	Handled        int     `json:"handled"`
	Grounded       int     `json:"grounded"`
	RefusedOnTopic int     `json:"refused_on_topic"`
	AboveBailOut   int     `json:"at_or_above_bail_out"`
	HandledRate    float64 `json:"handled_rate"`
}

// gateCrossSystems are the systems of the row, in column order.
var gateCrossSystems = []string{sysLOO, sysLOODef, sysShipped}

// foreignQuestions draws up to k (all when k is 0) of the answerable,
// non-contact questions of the sets other than target, with a seed fixed
// per target: each is marked off-topic, its id prefixed with its corpus.
func foreignQuestions(sets []GateSet, target string, k int) []GateQuestion {
	var pool []GateQuestion
	for _, s := range sets {
		if s.Name == target {
			continue
		}
		for _, q := range s.Questions {
			if !q.Answerable || gate.AskOf(q.Question).Contact {
				continue
			}
			pool = append(pool, GateQuestion{ID: s.Name + ":" + q.ID, Question: q.Question, OffTopic: true})
		}
	}
	if k <= 0 || len(pool) <= k {
		return pool
	}
	h := fnv.New64a()
	h.Write([]byte(target))
	rng := rand.New(rand.NewPCG(gateCrossSeed, h.Sum64()))
	pick := rng.Perm(len(pool))[:k]
	slices.Sort(pick)
	out := make([]GateQuestion, k)
	for i, j := range pick {
		out[i] = pool[j]
	}
	return out
}

// gateCrossCorpus asks each of sets its foreign questions (foreignQuestions,
// k per corpus) and scores them with systems(corpus), one system per
// column of names.
func gateCrossCorpus(ctx context.Context, sets []GateSet, k int, names []string, systems func(corpus string) []gateSystem) (GateCross, error) {
	x := GateCross{Sample: k, Seed: gateCrossSeed, Systems: names}
	sorted := slices.Clone(sets)
	slices.SortFunc(sorted, func(a, b GateSet) int { return strings.Compare(a.Name, b.Name) })
	pooled := GateCrossRow{Corpus: "pooled", Scores: make([]GateCrossScore, len(names))}
	for _, s := range sorted {
		cases, err := prepareGateSet(ctx, GateSet{Name: s.Name, Docs: s.Docs, Questions: foreignQuestions(sorted, s.Name, k)})
		if err != nil {
			return x, fmt.Errorf("cross-corpus: %w", err)
		}
		row := GateCrossRow{Corpus: s.Name, Questions: len(cases)}
		for i, sys := range systems(s.Name) {
			g := sys.score(cases)
			sc := GateCrossScore{Handled: g.OffHandled, Grounded: g.Causes["off-topic: grounded"]}
			sc.RefusedOnTopic = g.OffTopic - sc.Handled - sc.Grounded
			sc.HandledRate = ratio(sc.Handled, g.OffTopic)
			// Every case is off-topic: score kept each one's coverage max.
			for _, m := range g.UnanswerableMax {
				if m >= sys.cfg.BailOutBelow {
					sc.AboveBailOut++
				}
			}
			row.Scores = append(row.Scores, sc)
			p := &pooled.Scores[i]
			p.Handled, p.Grounded, p.RefusedOnTopic = p.Handled+sc.Handled, p.Grounded+sc.Grounded, p.RefusedOnTopic+sc.RefusedOnTopic
			p.AboveBailOut += sc.AboveBailOut
		}
		pooled.Questions += row.Questions
		x.Rows = append(x.Rows, row)
	}
	for i := range pooled.Scores {
		pooled.Scores[i].HandledRate = ratio(pooled.Scores[i].Handled, pooled.Questions)
	}
	x.Rows = append(x.Rows, pooled)
	return x, nil
}

// gateCrossHeader explains the row at the top of the gate report.
const gateCrossHeader = `The cross-corpus off-topic row (after the pooled table) asks each dev corpus the other dev corpora's answerable questions (contact questions left out): nothing in the corpus answers them, but unlike the off-topic sets (mostly trivia) they are in its genre ("how much is ...", "can I ..."). Right is per gate.off_topic (fallback, or refused as off-topic); grounded, or refused as on the corpus's topic, is wrong. The off-topic column above does not measure this.`

// writeGateCross writes the cross-corpus table.
func writeGateCross(w io.Writer, x GateCross) {
	if len(x.Rows) == 0 {
		return
	}
	sample := "the full cross product (every such question, no sample)"
	if x.Sample > 0 {
		sample = fmt.Sprintf("%d foreign questions per corpus, drawn with seed %d from the other corpora's answerable questions (not the full cross product, to bound the suite's time)", x.Sample, x.Seed)
	}
	fmt.Fprintf(w, "\nCross-corpus off-topic row: each dev corpus asked other dev corpora's answerable questions (off-topic for it, in its genre); %s. Cells: handled per off_topic of those asked, then how many were grounded (g), refused as on-topic (r: at or above bail-out, or below it by on_topic_sim) and at or above bail-out (b). Left-out columns: each corpus's fold (fitted without it), as in the rows above.\n\n", sample)
	fmt.Fprint(w, "| corpus | foreign questions |")
	for _, s := range x.Systems {
		fmt.Fprintf(w, " %s |", s)
	}
	fmt.Fprint(w, "\n|---|---:|")
	for range x.Systems {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, r := range x.Rows {
		name := r.Corpus
		if name == "pooled" {
			name = "**pooled**"
		}
		fmt.Fprintf(w, "| %s | %d |", name, r.Questions)
		for _, s := range r.Scores {
			fmt.Fprintf(w, " %s; g %d, r %d, b %d |", frac(s.Handled, r.Questions), s.Grounded, s.RefusedOnTopic, s.AboveBailOut)
		}
		fmt.Fprintln(w)
	}
}

// GateCrossJSON is the file the gate suite writes the cross-corpus row
// to, in the report folder beside quality.md.
const GateCrossJSON = "gate-crosscorpus.json"

// writeGateCrossJSON writes x to dir/GateCrossJSON.
func writeGateCrossJSON(dir string, x GateCross) error {
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, GateCrossJSON), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", GateCrossJSON, err)
	}
	return nil
}
