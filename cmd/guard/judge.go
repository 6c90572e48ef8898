package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/judge"
)

func init() {
	register("judge", "verify claim/evidence pairs (JSONL), or compare two answer sets (--pairwise)", runJudge)
}

// judgePair is one input line: evidence items are strings or passage
// objects {"id","title","text"}.
type judgePair struct {
	ID       json.RawMessage   `json:"id"`
	Claim    string            `json:"claim"`
	Evidence []json.RawMessage `json:"evidence"`
}

type judgeLine struct {
	ID         json.RawMessage `json:"id"`
	Verdict    string          `json:"verdict"`
	Confidence float64         `json:"confidence"`
	Severity   string          `json:"severity"`
	Evidence   string          `json:"evidence"`
	Method     string          `json:"method"`
	Reason     string          `json:"reason,omitempty"`
	Error      string          `json:"error,omitempty"`
}

func runJudge(args []string) error {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	synopsis(fs, "guard judge --pairs F.jsonl [--verifier local|llm] [--json] [--strict|--skip-bad]", "guard judge --pairwise --a A.jsonl --b B.jsonl [--judge-base-url URL --judge-model M] [--out F] [--report F]")
	def := judge.DefaultConfig()
	config := fs.String("config", "", "config file: its verify section is the base the flags override (default: built-in defaults)")
	pairs := fs.String("pairs", "", "JSONL file of {\"id\",\"claim\",\"evidence\":[...]} lines (- for stdin)")
	verifier := fs.String("verifier", "local", "local | llm | both (both: LLM, local when it fails)")
	asJSON := fs.Bool("json", false, "print one JSON object per line instead of text")
	baseURL := fs.String("llm-base-url", def.LLM.BaseURL, "OpenAI-compatible base URL of the judge model, e.g. http://127.0.0.1:8081/v1")
	model := fs.String("llm-model", def.LLM.Model, "judge model name")
	keyEnv := fs.String("llm-api-key-env", def.LLM.APIKeyEnv, "environment variable holding the judge API key")
	timeout := fs.Duration("llm-timeout", def.LLM.Timeout, "timeout of one judge call")
	conc := fs.Int("concurrency", def.Concurrency, "concurrent judge calls (llm)")
	policy := addBadFlags(fs)
	pf := addPairwiseFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *pf.on {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return runPairwise(ctx, fs, pf, *config, *asJSON, policy)
	}
	if *pairs == "" {
		return usageErrorf(fs, "--pairs is required")
	}
	full, err := loadFile(*config)
	if err != nil {
		return err
	}
	cfg := full.Stages.Verify
	// flags given on the command line override the file
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "verifier":
			cfg.Verifier = *verifier
		case "llm-base-url":
			cfg.LLM.BaseURL = *baseURL
		case "llm-model":
			cfg.LLM.Model = *model
		case "llm-api-key-env":
			cfg.LLM.APIKeyEnv = *keyEnv
		case "llm-timeout":
			cfg.LLM.Timeout = *timeout
		case "concurrency":
			cfg.Concurrency = *conc
		}
	})
	if err := cfg.Validate(); err != nil {
		return err
	}
	var in io.Reader = os.Stdin
	name := "stdin"
	if *pairs != "-" {
		name = *pairs
		f, err := os.Open(*pairs)
		if err != nil {
			return fmt.Errorf("open pairs: %w", err)
		}
		defer f.Close()
		in = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log, err := zap.NewProduction()
	if err != nil {
		return fmt.Errorf("logger: %w", err)
	}
	defer log.Sync()
	local := judge.NewLocal(cfg.Local)
	var v judge.Verifier = local
	if cfg.Verifier != "local" {
		v = judge.NewLLM(cfg.LLM, cfg.ChainPoll, make(chan struct{}, cfg.Concurrency), log)
	}
	bad := &badLines{w: cliErr, policy: policy}
	if err := judgePairs(ctx, in, name, cliOut, bad, v, local, cfg.Verifier == "both", *asJSON, cfg.Concurrency); err != nil {
		return err
	}
	return bad.finish(name)
}

// judgePairs verifies each input line with v (falling back to local on
// error when fallback is set), its claim read as the proxy reads a cited
// claim (judge.CheckedText: without a bare answer word it opens with), and
// writes one result per line, in input
// order; at most conc pairs are in flight. A bad line (not JSON, no claim,
// no evidence) is reported through bad and skipped (under --strict it
// ends the run with its error after the lines before it are written).
func judgePairs(ctx context.Context, in io.Reader, name string, out io.Writer, bad *badLines, v, local judge.Verifier, fallback, asJSON bool, conc int) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	w := bufio.NewWriter(out)
	defer w.Flush()
	type job struct {
		line judgeLine
		done chan struct{}
	}
	queue := make(chan *job, conc)
	var writeErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		counts := map[string]int{}
		start := time.Now()
		n := 0
		for j := range queue {
			<-j.done
			n++
			label := j.line.Verdict
			if j.line.Error != "" {
				label = "error"
			}
			counts[label]++
			if writeErr != nil {
				continue
			}
			if asJSON {
				b, _ := json.Marshal(j.line)
				_, writeErr = fmt.Fprintf(w, "%s\n", b)
			} else {
				_, writeErr = fmt.Fprintf(w, "%s\t%s\t%.3f\t%s\t%q%s\n", j.line.ID, j.line.Verdict, j.line.Confidence, j.line.Severity, j.line.Evidence, errSuffix(j.line.Error))
			}
		}
		if !asJSON && writeErr == nil {
			_, writeErr = fmt.Fprintf(w, "# %s in %s: %s\n", plural(n, "pair"), time.Since(start).Round(time.Millisecond), countWords(counts))
		}
	})
	sem := make(chan struct{}, conc)
	lineNo := 0
	var err error
	for sc.Scan() {
		lineNo++
		raw := sc.Bytes()
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		p, ev, why := parsePair(raw)
		if why != "" {
			if err = bad.bad(name, lineNo, why); err != nil {
				break
			}
			continue
		}
		if p.ID == nil {
			p.ID = json.RawMessage(strconv.Itoa(lineNo))
		}
		j := &job{line: judgeLine{ID: p.ID}, done: make(chan struct{})}
		queue <- j
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; close(j.done) }()
			claim := judge.CheckedText(p.Claim) // as the proxy checks it
			vd, e := v.Verify(ctx, claim, ev)
			if e != nil && fallback {
				j.line.Reason = "llm failed: local verdict"
				vd, e = local.Verify(ctx, claim, ev)
			}
			if e != nil {
				j.line.Error = e.Error()
				return
			}
			j.line.Verdict, j.line.Confidence, j.line.Severity, j.line.Evidence, j.line.Method = vd.Label, vd.Confidence, vd.Severity, vd.Evidence, vd.Method
			if j.line.Reason == "" {
				j.line.Reason = vd.Reason
			}
		}()
	}
	close(queue)
	wg.Wait()
	if err == nil && sc.Err() != nil {
		err = fmt.Errorf("read %s: %w", name, sc.Err())
	}
	if err == nil {
		err = writeErr
	}
	return err
}

// parsePair decodes one --pairs line; why says what is wrong with it.
// A claim and at least one evidence passage with text are required: a
// verdict on nothing would be a made-up "neutral".
func parsePair(raw []byte) (p judgePair, ev []judge.Passage, why string) {
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, nil, jsonReason(err)
	}
	switch {
	case strings.TrimSpace(p.Claim) == "":
		return p, nil, `missing "claim" (the sentence to verify)`
	case len(p.Evidence) == 0:
		return p, nil, `missing "evidence" (a list of passages: text, or {"id","title","text"})`
	}
	ev, err := parseEvidence(p.Evidence)
	if err != nil {
		return p, nil, err.Error()
	}
	return p, ev, ""
}

// countWords prints counts as "2 entailment, 1 neutral", by name.
func countWords(counts map[string]int) string {
	if len(counts) == 0 {
		return "nothing judged"
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return "\terror: " + e
}

func parseEvidence(items []json.RawMessage) ([]judge.Passage, error) {
	out := make([]judge.Passage, 0, len(items))
	for i, raw := range items {
		p := judge.Passage{N: i + 1, ID: strconv.Itoa(i + 1)}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			if strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("evidence %d: empty text", i+1)
			}
			p.Text = s
			out = append(out, p)
			continue
		}
		var o struct {
			ID    string `json:"id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("evidence %d: want text or an object {\"id\",\"title\",\"text\"}", i+1)
		}
		if strings.TrimSpace(o.Text) == "" {
			return nil, fmt.Errorf("evidence %d: no \"text\"", i+1)
		}
		if o.ID != "" {
			p.ID = o.ID
		}
		p.Title, p.Text = o.Title, o.Text
		out = append(out, p)
	}
	return out, nil
}
