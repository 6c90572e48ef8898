package gate

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/index"
)

// gateSeedPairs are the dev gate sets' questions
// (bench/testdata/gate/*/questions.jsonl), every third one, each with a
// passage of its own corpus (the sets' corpora in turn, so every one of
// the 160 passages, contact pages included, is some question's note).
func gateSeedPairs(tb testing.TB) [][2]string {
	tb.Helper()
	dirs, _ := filepath.Glob("../bench/testdata/gate/*")
	var out [][2]string
	for _, dir := range dirs {
		var texts []string
		readLines(tb, filepath.Join(dir, "corpus.jsonl"), func(b []byte) {
			var p struct{ Text string }
			if json.Unmarshal(b, &p) == nil {
				texts = append(texts, p.Text)
			}
		})
		i := 0
		readLines(tb, filepath.Join(dir, "questions.jsonl"), func(b []byte) {
			var q struct{ Question string }
			if json.Unmarshal(b, &q) == nil && len(texts) > 0 && i%3 == 0 {
				out = append(out, [2]string{q.Question, texts[i/3%len(texts)]})
			}
			i++
		})
	}
	if len(out) < 20 {
		tb.Fatalf("only %d seed questions", len(out))
	}
	return out
}

func readLines(tb testing.TB, name string, line func([]byte)) {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line(sc.Bytes())
	}
}

// FuzzGateTurn runs the gate's reading of a turn on any question and any
// note text (seeded with the dev gate sets' questions and passages, some
// with their letters swapped for runes whose lower case changes length): the question read (PrepareQuestion, AskOf, the contact and
// answer-type detectors), the answerability and relevance models, Decide,
// the refusal text with the closest topics, LocalOutline and the grounded
// prompt, over a fixed demo pool (demoGateTurns) with the fuzzed note as
// one more passage (its text, and a title of it). No panic; AskOf agrees
// with the prepared question; the Ask type is a known name; Answer and
// Relevance are in [0,1]; the outline indexes the survivors, best first,
// at most planner.max_outline of them.
func FuzzGateTurn(f *testing.F) {
	_, pools, idf := demoGateTurns(f)
	// runes whose lower case is longer (İ, invalid UTF-8) or shorter (the
	// Kelvin sign) than they are: an index found in strings.ToLower's copy
	// and used on the text lands out of place (judge.splitItems' panic)
	wideners := []*strings.Replacer{strings.NewReplacer("i", "İ", "I", "İ"),
		strings.NewReplacer("k", "\u212a", "K", "\u212a", "s", "\u017f"),
		strings.NewReplacer(" ", " \xff", ",", "\xc0,", "@", "@\xff")}
	for i, p := range gateSeedPairs(f) {
		q, note := p[0], p[1]
		f.Add(q, note)
		if i%4 == 0 {
			w := wideners[i/4%len(wideners)]
			f.Add(w.Replace(q), w.Replace(note))
		}
	}
	for _, s := range []string{"Call 01632 960 123 or email help@example.org, 12 High Street, AB1 2CD.",
		"Open Mon–Fri 9am–5pm, Sat 10:00-16:00", "İİİ\xff@\xc0.İ 9 İ Street", "whats your phone number?"} {
		f.Add(s, s)
	}
	cfg := DefaultConfig()
	cfg.ClosestTopics = 3
	pcfg := cfg
	pcfg.Scrub = func(s string) string { return s }
	am, rm := DefaultAnswerModel(), DefaultRelevanceModel()
	cs := make([]Candidate, 0, 18)
	f.Fuzz(func(t *testing.T, question, note string) {
		hasStreetAddress(note)
		hasOpeningHours(note)
		hasEmailAddress(note)
		hasName(note)
		for typ := range answerType(numTypes) {
			hasType(typ, note)
		}
		askedType(question)
		leadWords(note)

		ask := AskOf(question)
		if !slices.Contains(typeNames[:], ask.Type) {
			t.Fatalf("AskOf(%q).Type = %q", question, ask.Type)
		}
		ask.Also()
		q := PrepareQuestion(index.Tokenize, question, idf)
		if q.Ask() != ask {
			t.Fatalf("AskOf(%q) = %+v, prepared %+v", question, ask, q.Ask())
		}
		pool := pools[len(question)%len(pools)]
		cs = append(cs[:0], pool...)
		cs = append(cs, Candidate{ID: "fuzz-note", Title: "Contact", Text: note, Lanes: []string{"lexical"},
			Score: 0.5, Rerank: 0.9, Terms: NewPassageTerms(index.Tokenize, "Contact", note)})
		cs = append(cs, Candidate{ID: "fuzz-title", Title: note, Text: note, Lanes: []string{"dense"}, Score: 0.4})
		am.Assess(q, cs)
		rm.Rate(cs, OneTopic(cfg, cs))
		for _, c := range cs {
			if !(c.Answer >= 0 && c.Answer <= 1) || !(c.Relevance >= 0 && c.Relevance <= 1) {
				t.Fatalf("candidate %s: answer %v, relevance %v", c.ID, c.Answer, c.Relevance)
			}
		}
		for _, a := range []Ask{ask, {Type: "phone", Contact: true}, {Contact: true}} {
			o := Decide(cfg, cs, true, a)
			outline := LocalOutline(cfg, o)
			if len(outline) > cfg.Planner.MaxOutline {
				t.Fatalf("outline %v longer than %d", outline, cfg.Planner.MaxOutline)
			}
			for k, i := range outline {
				if i < 0 || i >= len(o.Survivors) || k > 0 && o.Survivors[i].Answer > o.Survivors[outline[k-1]].Answer && !o.Checks["contact_hit"] {
					t.Fatalf("outline %v over %d survivors", outline, len(o.Survivors))
				}
			}
			o = ApplyOutline(o, outline)
			if o.Decision == Refuse {
				if m := RefusalMessage(cfg, o); m == "" {
					t.Fatal("empty refusal")
				}
			} else {
				SystemPrompt(pcfg, o, []string{note})
			}
		}
		for _, topic := range closest(cfg, cs, true) {
			if strings.TrimSpace(topic) == "" {
				t.Fatalf("closest topic %q", topic)
			}
		}
		PoolCosine(cs)
	})
}
