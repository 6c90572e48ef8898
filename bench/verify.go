package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/answer-guard/guard/judge"
)

// VerifyItem is one labelled (claim, evidence) pair of a verifier data set.
type VerifyItem struct {
	ID       string
	Claim    string
	Evidence []judge.Passage
	Gold     string // the data set's own label (SUPPORT, CONTRADICT, NEI, supported, ...)
	Support  bool   // Gold counts as "supported" for the binary score
	// Group is what the fixed train/held-out split hashes (HaluEval's
	// question, WiCE's claim), so that both answers of one HaluEval
	// question fall on the same side.
	Group string
}

// ClassScore is precision and recall of one binary class.
type ClassScore struct {
	Class     string  `json:"class"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Support   int     `json:"support"`
}

// VerifySet is the score of the verifier on one data set.
type VerifySet struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	// BalancedAccuracy of supported vs not supported: the mean of the two
	// recalls. A prediction counts as supported when the verdict is entailment.
	BalancedAccuracy float64      `json:"balanced_accuracy"`
	Classes          []ClassScore `json:"classes"`
	// Confusion[gold][verdict] counts items by the data set's label and the
	// verifier's verdict.
	Confusion map[string]map[string]int `json:"confusion"`
	// PerSentence is the mean verification time per claim.
	PerSentence time.Duration `json:"per_sentence_ns"`
	Errors      int           `json:"errors"`
}

// VerifyReport holds the scores of all data sets found.
type VerifyReport struct {
	Verifier string      `json:"verifier"`
	Sets     []VerifySet `json:"sets"`
	Skipped  []string    `json:"skipped,omitempty"`
	// MeanBalancedAccuracy is the unweighted mean over Sets.
	MeanBalancedAccuracy float64 `json:"mean_balanced_accuracy"`
}

// VerifyQualityWith scores verifier v (name labels the report) on the data
// sets under dataDir (SciFact dev, WiCE dev, HaluEval QA) and writes a
// Markdown report to w. Data sets that are absent are listed in Skipped; an
// error is returned only when none is present or the data is malformed.
func VerifyQualityWith(ctx context.Context, dataDir, name string, v judge.Verifier, w io.Writer) (VerifyReport, error) {
	rep := VerifyReport{Verifier: name}
	loaders := []struct {
		name string
		load func(string) ([]VerifyItem, error)
	}{
		{"scifact-dev", LoadSciFact},
		{"wice-dev", LoadWiCE},
		{"halueval-qa", LoadHaluEval},
	}
	for _, l := range loaders {
		items, err := l.load(dataDir)
		if errors.Is(err, os.ErrNotExist) {
			rep.Skipped = append(rep.Skipped, l.name)
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("load %s: %w", l.name, err)
		}
		set, err := ScoreVerifier(ctx, l.name, v, items)
		if err != nil {
			return rep, err
		}
		rep.Sets = append(rep.Sets, set)
	}
	if len(rep.Sets) == 0 {
		return rep, fmt.Errorf("no verifier data set under %s: %w", dataDir, os.ErrNotExist)
	}
	for _, s := range rep.Sets {
		rep.MeanBalancedAccuracy += s.BalancedAccuracy
	}
	rep.MeanBalancedAccuracy /= float64(len(rep.Sets))
	if w != nil {
		if err := WriteVerifyMarkdown(w, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// DumpSets are the data sets DumpVerify takes, by the name it takes them.
var DumpSets = map[string]func(dataDir string) ([]VerifyItem, error){
	"scifact": LoadSciFact, "wice": LoadWiCE, "halu": LoadHaluEval,
}

// DumpVerify writes every verdict of the local verifier (default
// thresholds) on one data set (scifact, wice or halu) to w as
// tab-separated lines under a header, for error analysis: whether the
// verdict agrees with the gold label, the gold label, the verdict, its
// reason and confidence, the claim and the evidence the verifier quoted.
// Tabs and line breaks inside a field become spaces.
func DumpVerify(ctx context.Context, dataDir, set string, w io.Writer) error {
	load := DumpSets[set]
	if load == nil {
		return fmt.Errorf("verify dump %q: want scifact, wice or halu", set)
	}
	items, err := load(dataDir)
	if err != nil {
		return fmt.Errorf("load %s: %w", set, err)
	}
	v := judge.NewLocal(judge.DefaultConfig().Local)
	field := strings.NewReplacer("\t", " ", "\r", " ", "\n", " ")
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "agree\tgold\tlabel\treason\tconfidence\tclaim\tevidence")
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		vd, err := v.Verify(ctx, it.Claim, it.Evidence)
		if err != nil {
			return fmt.Errorf("verify %q: %w", it.Claim, err)
		}
		agree := (vd.Label == judge.Entailment) == it.Support
		fmt.Fprintf(bw, "%v\t%s\t%s\t%s\t%.2f\t%s\t%s\n", agree, it.Gold, vd.Label, field.Replace(vd.Reason),
			vd.Confidence, field.Replace(it.Claim), field.Replace(vd.Evidence))
	}
	return bw.Flush()
}

// ScoreVerifier runs v on items and scores it.
func ScoreVerifier(ctx context.Context, name string, v judge.Verifier, items []VerifyItem) (VerifySet, error) {
	set := VerifySet{Name: name, N: len(items), Confusion: map[string]map[string]int{}}
	var tp, fn, tn, fp int
	start := time.Now()
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return set, fmt.Errorf("score %s: %w", name, err)
		}
		vd, err := v.Verify(ctx, it.Claim, it.Evidence)
		label := vd.Label
		if err != nil {
			set.Errors++
			label = "error"
		}
		row := set.Confusion[it.Gold]
		if row == nil {
			row = map[string]int{}
			set.Confusion[it.Gold] = row
		}
		row[label]++
		pred := label == judge.Entailment
		switch {
		case it.Support && pred:
			tp++
		case it.Support && !pred:
			fn++
		case !it.Support && pred:
			fp++
		default:
			tn++
		}
	}
	if len(items) > 0 {
		set.PerSentence = time.Since(start) / time.Duration(len(items))
	}
	recS, recN := ratio(tp, tp+fn), ratio(tn, tn+fp)
	set.BalancedAccuracy = (recS + recN) / 2
	set.Classes = []ClassScore{
		{Class: "supported", Precision: ratio(tp, tp+fp), Recall: recS, Support: tp + fn},
		{Class: "not_supported", Precision: ratio(tn, tn+fn), Recall: recN, Support: tn + fp},
	}
	return set, nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteVerifyMarkdown writes rep as Markdown.
func WriteVerifyMarkdown(w io.Writer, rep VerifyReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Verifier quality (%s)\n\n", rep.Verifier)
	b.WriteString("Binary task: supported (verdict entailment) vs not supported (any other verdict).\n\n")
	b.WriteString("| set | n | balanced acc | P supported | R supported | P not | R not | time/claim |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range rep.Sets {
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %s |\n", s.Name, s.N, s.BalancedAccuracy,
			s.Classes[0].Precision, s.Classes[0].Recall, s.Classes[1].Precision, s.Classes[1].Recall, s.PerSentence.Round(time.Microsecond))
	}
	fmt.Fprintf(&b, "\nMean balanced accuracy: %.3f\n", rep.MeanBalancedAccuracy)
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(&b, "\nSkipped (data absent): %s\n", strings.Join(rep.Skipped, ", "))
	}
	verdicts := []string{judge.Entailment, judge.Contradiction, judge.Neutral, judge.Opinion, "error"}
	for _, s := range rep.Sets {
		fmt.Fprintf(&b, "\n### %s confusion (rows: gold label, columns: verdict)\n\n| gold |", s.Name)
		var cols []string
		for _, v := range verdicts {
			for _, row := range s.Confusion {
				if row[v] > 0 {
					cols = append(cols, v)
					break
				}
			}
		}
		for _, c := range cols {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
		golds := make([]string, 0, len(s.Confusion))
		for g := range s.Confusion {
			golds = append(golds, g)
		}
		sort.Strings(golds)
		for _, g := range golds {
			b.WriteString("| " + g + " |")
			for _, c := range cols {
				fmt.Fprintf(&b, " %d |", s.Confusion[g][c])
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write verify report: %w", err)
	}
	return nil
}

// LoadSciFact reads SciFact dev: one item per (claim, evidence abstract)
// labelled SUPPORT or CONTRADICT, and for claims without evidence (NEI) one
// item against all their cited abstracts.
func LoadSciFact(dataDir string) ([]VerifyItem, error) {
	return LoadSciFactClaims(dataDir, "claims_dev.jsonl")
}

// LoadSciFactClaims is LoadSciFact on another claims file (claims_train.jsonl).
func LoadSciFactClaims(dataDir, claimsFile string) ([]VerifyItem, error) {
	dir := filepath.Join(dataDir, "scifact")
	corpus := map[int]judge.Passage{}
	err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d struct {
			DocID    int      `json:"doc_id"`
			Title    string   `json:"title"`
			Abstract []string `json:"abstract"`
		}
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		corpus[d.DocID] = judge.Passage{ID: strconv.Itoa(d.DocID), Title: d.Title, Text: strings.Join(d.Abstract, " ")}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var items []VerifyItem
	err = readJSONL(filepath.Join(dir, claimsFile), func(line []byte) error {
		var c struct {
			ID       int    `json:"id"`
			Claim    string `json:"claim"`
			Evidence map[string][]struct {
				Label string `json:"label"`
			} `json:"evidence"`
			Cited []int `json:"cited_doc_ids"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		if len(c.Evidence) == 0 {
			var ev []judge.Passage
			for i, id := range c.Cited {
				if p, ok := corpus[id]; ok {
					p.N = i + 1
					ev = append(ev, p)
				}
			}
			items = append(items, VerifyItem{ID: strconv.Itoa(c.ID), Claim: c.Claim, Evidence: ev, Gold: "NEI", Group: strconv.Itoa(c.ID)})
			return nil
		}
		docs := make([]string, 0, len(c.Evidence))
		for d := range c.Evidence {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		for _, d := range docs {
			sets := c.Evidence[d]
			id, err := strconv.Atoi(d)
			if err != nil || len(sets) == 0 {
				return fmt.Errorf("claim %d: bad evidence doc %q", c.ID, d)
			}
			p, ok := corpus[id]
			if !ok {
				continue
			}
			p.N = 1
			gold := sets[0].Label
			items = append(items, VerifyItem{ID: fmt.Sprintf("%d/%s", c.ID, d), Claim: c.Claim, Evidence: []judge.Passage{p}, Gold: gold, Support: gold == "SUPPORT", Group: strconv.Itoa(c.ID)})
		}
		return nil
	})
	return items, err
}

// LoadWiCE reads WiCE dev: each claim against its whole evidence page;
// supported counts as supported, partially_supported and not_supported do
// not.
func LoadWiCE(dataDir string) ([]VerifyItem, error) {
	var items []VerifyItem
	n := 0
	err := readJSONL(filepath.Join(dataDir, "wice", "dev.jsonl"), func(line []byte) error {
		var c struct {
			Label    string   `json:"label"`
			Claim    string   `json:"claim"`
			Evidence []string `json:"evidence"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		n++
		items = append(items, VerifyItem{
			ID: strconv.Itoa(n), Claim: c.Claim, Gold: c.Label, Support: c.Label == "supported", Group: c.Claim,
			Evidence: []judge.Passage{{N: 1, ID: "wice-" + strconv.Itoa(n), Text: strings.Join(c.Evidence, "\n")}},
		})
		return nil
	})
	return items, err
}

// LoadHaluEval reads HaluEval QA: the right answer against the knowledge is
// supported, the hallucinated answer is not. The claim is the answer.
func LoadHaluEval(dataDir string) ([]VerifyItem, error) {
	var items []VerifyItem
	n := 0
	err := readJSONL(filepath.Join(dataDir, "halueval", "qa_one-turn_data.json"), func(line []byte) error {
		var c struct {
			Knowledge    string `json:"knowledge"`
			Question     string `json:"question"`
			Right        string `json:"right_answer"`
			Hallucinated string `json:"hallucinated_answer"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		n++
		ev := []judge.Passage{{N: 1, ID: "halueval-" + strconv.Itoa(n), Text: c.Knowledge}}
		items = append(items,
			VerifyItem{ID: strconv.Itoa(n) + "/right", Claim: c.Right, Evidence: ev, Gold: "right", Support: true, Group: c.Question},
			VerifyItem{ID: strconv.Itoa(n) + "/hallucinated", Claim: c.Hallucinated, Evidence: ev, Gold: "hallucinated", Group: c.Question})
		return nil
	})
	return items, err
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
