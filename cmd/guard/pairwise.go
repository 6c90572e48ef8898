package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
)

// pairwiseFlags are the flags of guard judge that belong to --pairwise.
type pairwiseFlags struct {
	on                    *bool
	a, b, out, report     *string
	baseURL, model        *string
	swapShare             *float64
	bootstrap, concurrent *int
}

func addPairwiseFlags(fs *flag.FlagSet) pairwiseFlags {
	return pairwiseFlags{
		on:         fs.Bool("pairwise", false, "offline blind pairwise judge: compare the answers of --a and --b (guard bench answers files)"),
		a:          fs.String("a", "", "pairwise: answers JSONL of configuration A"),
		b:          fs.String("b", "", "pairwise: answers JSONL of configuration B"),
		out:        fs.String("out", "", "pairwise: write one JSON line per question here"),
		report:     fs.String("report", "", "pairwise: write the report as JSON here"),
		baseURL:    fs.String("judge-base-url", "", "pairwise: OpenAI-compatible judge base URL (default: pairwise.base_url)"),
		model:      fs.String("judge-model", "", "pairwise: judge model (default: pairwise.model)"),
		swapShare:  fs.Float64("swap-share", -1, "pairwise: share of questions judged again with sides swapped (default: pairwise.swap_share)"),
		bootstrap:  fs.Int("bootstrap", 0, "pairwise: bootstrap resamples (default: pairwise.bootstrap)"),
		concurrent: fs.Int("judge-concurrency", 0, "pairwise: judge calls in flight (default: pairwise.concurrency)"),
	}
}

// runPairwise is guard judge --pairwise.
func runPairwise(ctx context.Context, fs *flag.FlagSet, pf pairwiseFlags, configPath string, asJSON bool, policy badPolicy) error {
	switch {
	case *pf.a == "" && *pf.b == "":
		return usageErrorf(fs, "--pairwise needs --a and --b")
	case *pf.a == "":
		return usageErrorf(fs, "--pairwise needs --a (the answers of configuration A)")
	case *pf.b == "":
		return usageErrorf(fs, "--pairwise needs --b (the answers of configuration B)")
	}
	full, err := loadFile(configPath)
	if err != nil {
		return err
	}
	cfg := full.Stages.Pairwise
	if *pf.baseURL != "" {
		cfg.BaseURL = *pf.baseURL
	}
	if *pf.model != "" {
		cfg.Model = *pf.model
	}
	if *pf.swapShare >= 0 {
		cfg.SwapShare = *pf.swapShare
	}
	if *pf.bootstrap > 0 {
		cfg.Bootstrap = *pf.bootstrap
	}
	if *pf.concurrent > 0 {
		cfg.Concurrency = *pf.concurrent
	}
	pj, err := judge.NewPairwise(cfg)
	if err == nil {
		defer pj.Close()
	}
	if err != nil {
		return err
	}
	bad := &badLines{w: cliErr, policy: policy}
	a, err := readAnswers(*pf.a, bad)
	if err != nil {
		return err
	}
	b, err := readAnswers(*pf.b, bad)
	if err != nil {
		return err
	}
	run := judge.Match(a, b)
	var lines *bufio.Writer
	if *pf.out != "" {
		f, err := os.Create(*pf.out)
		if err != nil {
			return fmt.Errorf("create %s: %w", *pf.out, err)
		}
		defer f.Close()
		lines = bufio.NewWriter(f)
	}
	err = pj.JudgeAll(ctx, run, func(r judge.PairResult) error {
		if lines == nil {
			return nil
		}
		j, _ := json.Marshal(r)
		lines.Write(j)
		return lines.WriteByte('\n')
	})
	if lines != nil {
		if ferr := lines.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		return err
	}
	rep := judge.Summarize(run, cfg.Bootstrap, cfg.Seed)
	js, _ := json.MarshalIndent(rep, "", "  ")
	if *pf.report != "" {
		if err := os.WriteFile(*pf.report, append(js, '\n'), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if asJSON {
		_, err = fmt.Fprintf(cliOut, "%s\n", js)
		return err
	}
	if err := rep.WriteText(cliOut, *pf.a, *pf.b); err != nil {
		return err
	}
	return bad.finish("answers")
}

// readAnswers reads an answers file; bad lines go through bad (the
// bad-line policy).
func readAnswers(path string, bad *badLines) ([]judge.Answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open answers: %w", err)
	}
	defer f.Close()
	var out []judge.Answer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var a judge.Answer
		why := ""
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			why = jsonReason(err)
		} else if a.ID == "" {
			why = `missing "id"`
		} else if seen[a.ID] {
			why = fmt.Sprintf("duplicate id %q", a.ID)
		}
		if why != "" {
			if err := bad.bad(path, n, why); err != nil {
				return nil, err
			}
			continue
		}
		seen[a.ID] = true
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// benchAnswers is guard bench answers: each question through a running
// proxy (non-stream), the answer stored with its guard report and notes.
func benchAnswers(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench answers", flag.ContinueOnError)
	synopsis(fs, "guard bench answers --target URL --questions Q.jsonl --out A.jsonl [flags]   (Q.jsonl: {\"id\",\"question\"} lines)")
	target := fs.String("target", "", "the proxy's base URL, e.g. http://127.0.0.1:8080/v1")
	questions := fs.String("questions", "", `questions JSONL: {"id","question"} (or "text"; BEIR's "_id")`)
	out := fs.String("out", "", "answers JSONL to write (input of guard judge --pairwise)")
	model := fs.String("model", "mock-1", "model name sent")
	keyEnv := fs.String("key-env", "", "environment variable holding the API key sent as Bearer")
	tenant := fs.String("tenant", "", "X-Tenant-ID header (and the partition --index looks notes up in)")
	kb := fs.String("kb", "", "X-KB-ID header (and the partition --index looks notes up in)")
	indexDir := fs.String("index", "", "snapshot the proxy serves: the cited notes' full text is stored with each answer (default: the claims' evidence)")
	conc := fs.Int("concurrency", 4, "requests in flight")
	timeout := fs.Duration("timeout", 2*time.Minute, "limit of one request")
	policy := addBadFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	var missing []string
	for _, f := range []struct{ name, v string }{{"--target", *target}, {"--questions", *questions}, {"--out", *out}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return missingRequired(fs, missing)
	}
	if *conc < 1 {
		return usageErrorf(fs, "--concurrency must be >= 1")
	}
	bad := &badLines{w: cliErr, policy: policy}
	qs, err := readQuestions(*questions, bad)
	if err != nil {
		return err
	}
	var part *index.Partition
	if *indexDir != "" {
		snap, err := index.Load(*indexDir)
		if err != nil {
			return err
		}
		defer snap.Close()
		t, k := index.DefaultTenant, index.DefaultKB
		if *tenant != "" {
			t = *tenant
		}
		if *kb != "" {
			k = *kb
		}
		if part = snap.Partition(t, k); part == nil {
			return fmt.Errorf("--index %s has no partition %s/%s", *indexDir, t, k)
		}
	}
	key := ""
	if *keyEnv != "" {
		key = os.Getenv(*keyEnv)
	}
	client := &http.Client{Timeout: *timeout}
	res := make([]judge.Answer, len(qs))
	sem := make(chan struct{}, *conc)
	var wg sync.WaitGroup
	for i, q := range qs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res[i] = askProxy(ctx, client, strings.TrimRight(*target, "/"), key, *model, *tenant, *kb, q, part)
		})
	}
	wg.Wait()
	var buf bytes.Buffer
	failed := 0
	decisions := map[string]int{}
	for _, a := range res {
		if a.Error != "" {
			failed++
		}
		var g struct {
			Decision string `json:"decision"`
		}
		json.Unmarshal(a.Guard, &g)
		decisions[g.Decision]++
		j, _ := json.Marshal(a)
		buf.Write(j)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write answers: %w", err)
	}
	fmt.Fprintf(cliOut, "wrote %s: %s (%d failed), decisions: %s\n", *out, plural(len(res), "answer"), failed, countWords(decisions))
	if failed == len(res) && failed > 0 {
		return fmt.Errorf("every request failed, first: %s", res[0].Error)
	}
	return bad.finish(*questions)
}

type question struct{ ID, Text string }

func readQuestions(path string, bad *badLines) ([]question, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	var out []question
	for n, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var q struct {
			ID       json.RawMessage `json:"id"`
			BID      json.RawMessage `json:"_id"`
			Question string          `json:"question"`
			Text     string          `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			if err := bad.bad(path, n+1, jsonReason(err)); err != nil {
				return nil, err
			}
			continue
		}
		id := q.ID
		if len(id) == 0 {
			id = q.BID
		}
		text := q.Question
		if text == "" {
			text = q.Text
		}
		if len(id) == 0 || strings.TrimSpace(text) == "" {
			if err := bad.bad(path, n+1, `want an "id" and a "question"`); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, question{strings.Trim(string(id), `"`), text})
	}
	return out, nil
}

// askProxy sends one question and keeps the answer, its guard report and
// its notes (the cited passages).
func askProxy(ctx context.Context, client *http.Client, target, key, model, tenant, kb string, q question, part *index.Partition) judge.Answer {
	a := judge.Answer{ID: q.ID, Question: q.Text}
	body, _ := json.Marshal(map[string]any{"model": model, "messages": []map[string]string{{"role": "user", "content": q.Text}}})
	req, err := http.NewRequestWithContext(ctx, "POST", target+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	if kb != "" {
		req.Header.Set("X-KB-ID", kb)
	}
	resp, err := client.Do(req)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil || resp.StatusCode != 200 {
		a.Error = fmt.Sprintf("status %d: %s %v", resp.StatusCode, clip(string(rb), 200), err)
		return a
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Guard json.RawMessage `json:"guard"`
	}
	if err := json.Unmarshal(rb, &out); err != nil || len(out.Choices) == 0 {
		a.Error = "not a chat completion: " + clip(string(rb), 200)
		return a
	}
	a.Answer, a.Guard = out.Choices[0].Message.Content, out.Guard
	var g struct {
		Citations []struct {
			N     int    `json:"n"`
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"citations"`
		Claims []struct {
			Citations []int  `json:"citations"`
			Evidence  string `json:"evidence"`
		} `json:"claims"`
	}
	json.Unmarshal(out.Guard, &g)
	for _, c := range g.Citations {
		n := judge.Note{ID: c.ID, Title: c.Title}
		if part != nil {
			var texts []string
			for _, i := range part.Resolve(c.ID) {
				texts = append(texts, part.Chunk(i).Text)
			}
			n.Text = strings.Join(texts, "\n")
		}
		if n.Text == "" {
			var ev []string
			for _, cl := range g.Claims {
				for _, k := range cl.Citations {
					if k == c.N && cl.Evidence != "" {
						ev = append(ev, cl.Evidence)
					}
				}
			}
			n.Text = strings.Join(ev, " … ")
		}
		a.Notes = append(a.Notes, n)
	}
	return a
}
