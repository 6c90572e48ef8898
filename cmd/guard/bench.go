package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/answer-guard/guard/bench"
	"github.com/answer-guard/guard/internal/remoteplan"
)

func init() {
	register("bench", "load, quality and chaos benches; record answers for the pairwise judge (bench load|quality|chaos|answers)", runBench, benchSubs...)
}

// benchSubs are guard bench's benches, the table runBench dispatches from.
var benchSubs = []subcommand{{"load", benchLoad}, {"quality", benchQuality}, {"chaos", benchChaos}, {"answers", benchAnswers /* pairwise.go */}}

func runBench(args []string) error {
	const benchUsage = "usage: guard bench load|quality|chaos|answers [flags] (guard bench NAME --help for each)"
	if len(args) == 0 {
		return usageText(args, benchUsage, "guard bench: want a bench: "+subNames(benchSubs))
	}
	if sub := findSub(benchSubs, args[0]); sub != nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return sub.run(ctx, args[1:])
	}
	return usageText(args, benchUsage, fmt.Sprintf("guard bench: unknown bench %q", args[0]))
}

func benchLoad(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench load", flag.ContinueOnError)
	synopsis(fs, "guard bench load --self [--stream] [--pipeline] [flags]", "guard bench load --target URL [--direct URL] [flags]   (loopback only)")
	var (
		cfg             bench.LoadConfig
		direct, prompts string
		out             string
		self, pipeline  bool
		pace            time.Duration
		headers         string
	)
	fs.StringVar(&cfg.Target, "target", "", "proxy base URL (loopback only), e.g. http://127.0.0.1:8080/v1")
	fs.StringVar(&direct, "direct", "", "the same upstream's base URL, hit directly for the overhead comparison (loopback only)")
	fs.IntVar(&cfg.Concurrency, "concurrency", 64, "requests in flight at most (open loop) or workers (closed loop)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "arrival rate in requests/s (open loop); 0 = closed loop")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "length of each run")
	fs.IntVar(&cfg.MaxRequests, "max-requests", 0, "stop each run after this many requests (0 = only the duration bounds it)")
	fs.BoolVar(&cfg.Stream, "stream", false, "stream answers (SSE) and measure time to first token")
	fs.StringVar(&prompts, "prompts", "", "prompts file: one prompt per line, or JSON lines with a \"prompt\" field")
	fs.StringVar(&cfg.Model, "model", "mock-1", "model name sent in requests")
	fs.StringVar(&cfg.Key, "key", "", "API key sent as Authorization: Bearer")
	fs.StringVar(&headers, "header", "", "extra headers, 'Name: value' separated by ';' (e.g. 'X-Tenant-ID: t1')")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "limit of one request")
	fs.IntVar(&cfg.Warmup, "warmup", 200, "unrecorded requests before each run")
	fs.StringVar(&out, "out", "bench-out", "report folder (report.md, report.json, latency-time and latency-hist charts as PNG and SVG; with --self --pipeline stages-proxy.pprof, the profile of the CPU split by stage)")
	fs.BoolVar(&self, "self", false, "start a simulated upstream (pace 0) and a proxy in this process and compare both")
	fs.BoolVar(&pipeline, "pipeline", false, "with --self: run the proxy with the guard pipeline instead of pass-through")
	selfIndex := fs.String("index", "", "with --self --pipeline: index snapshot dir (guard index build) instead of the embedded demo corpus")
	config := fs.String("config", "", "with --self: the proxy's config file (thresholds, verify mode, ...); upstream and mock are the in-process ones")
	fs.DurationVar(&pace, "pace", 0, "with --self: the simulated upstream's delay between streamed events")
	questionCache := fs.Bool("question-cache", false, "with --self --pipeline: keep retrieve.question_cache_mb on (off by default: the prompts repeat, and the run should encode every question)")
	var cpuprofile string
	fs.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	for _, h := range strings.Split(headers, ";") {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return fmt.Errorf("--header %q: want 'Name: value'", h)
		}
		if cfg.Headers == nil {
			cfg.Headers = map[string]string{}
		}
		cfg.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if prompts != "" {
		p, err := bench.ReadPrompts(prompts)
		if err != nil {
			return err
		}
		cfg.Prompts = p
	}
	stopProfile, err := startCPUProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var rep bench.LoadReport
	if self {
		if cfg.Target != "" || direct != "" {
			return usageErrorf(fs, "--self starts its own servers: drop --target and --direct")
		}
		opt := bench.SelfOptions{Load: cfg, Pipeline: pipeline, Pace: pace, Index: *selfIndex, QuestionCache: *questionCache}
		if *config != "" {
			f, err := loadFile(*config)
			if err != nil {
				return err
			}
			opt.Proxy = &f.Config
		}
		rep, err = bench.SelfLoad(ctx, opt, os.Stderr)
	} else {
		if cfg.Target == "" {
			return usageErrorf(fs, "--target is required (or --self)")
		}
		rep, err = runTargets(ctx, cfg, direct)
	}
	if err != nil {
		return err
	}
	if err := bench.WriteReport(out, rep); err != nil {
		return err
	}
	bench.WriteMarkdown(os.Stdout, rep)
	fmt.Fprintf(os.Stderr, "report written to %s/report.md, report.json, latency-time.png/.svg, latency-hist.png/.svg\n", out)
	return nil
}

func runTargets(ctx context.Context, cfg bench.LoadConfig, direct string) (bench.LoadReport, error) {
	rep := bench.LoadReport{Started: time.Now(), Machine: bench.ThisMachine(), Config: cfg}
	if direct != "" {
		dcfg := cfg
		dcfg.Target = direct
		if err := dcfg.Validate(); err != nil {
			return rep, fmt.Errorf("--direct: %w", err)
		}
	}
	proxied, err := bench.Run(ctx, "proxy", cfg, os.Stderr)
	if err != nil {
		return rep, err
	}
	rep.Runs = append(rep.Runs, proxied)
	if direct != "" {
		dcfg := cfg
		dcfg.Target = direct
		d, err := bench.Run(ctx, "direct", dcfg, os.Stderr)
		if err != nil {
			return rep, err
		}
		rep.Runs = append(rep.Runs, d)
		rep.Overhead = bench.Compare(proxied, d)
	}
	return rep, nil
}

func benchQuality(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench quality", flag.ContinueOnError)
	synopsis(fs, "guard bench quality [--retrieval] [--verify] [--claims] [--gauntlet] [--followup] [--gate [--fit] [--trials] [--cross-sample N] [--planner remote --config FILE | --planner simulated]] [--dump SET] [--data DIR] [--out DIR]")
	var retrieval, verify, claims, gauntlet, gateSuite, followup bool
	var data, out string
	fs.BoolVar(&retrieval, "retrieval", false, "run the retrieval suite (BEIR SciFact, KJV addresses)")
	fs.BoolVar(&verify, "verify", false, "run the verifier suite (SciFact, WiCE, HaluEval)")
	fs.BoolVar(&claims, "claims", false, "run the end-to-end claims suite (changed numbers and uncited sentences from mockllm, report and strict mode)")
	fs.BoolVar(&gauntlet, "gauntlet", false, "run the marker gauntlet suite (mockllm faults as ground truth)")
	fs.BoolVar(&followup, "followup", false, "run the follow-up suite (two-turn chats over three dev corpora in bench/testdata/followup, through the proxy over HTTP with retrieve.followup off and on)")
	fs.BoolVar(&gateSuite, "gate", false, "run the grounding suite (HaluEval halves + dev corpora in bench/testdata/gate: answerable grounded, on-topic unanswerable refused, off-topic per gate.off_topic; in-sample and each corpus left out)")
	var fit, frozen, dev, trials bool
	fs.BoolVar(&trials, "trials", false, "with --gate: also read the converted operator trials (5-7, 9-43) as dev corpora (bench/testdata/gate_trials): fitted on with --fit, scored in-sample and left out like the eleven in bench/testdata/gate")
	crossSample := -1
	fs.IntVar(&crossSample, "cross-sample", -1, "with --gate: foreign questions asked of each dev corpus in the cross-corpus off-topic row, drawn with a fixed seed (0: all of them; -1: all without --trials, 80 with, since 89 corpora would ask each other over 250,000)")
	fs.BoolVar(&frozen, "frozen", false, "with --gate: also score the frozen corpora in bench/testdata/gate_frozen with the shipped models (nothing is tuned on them)")
	fs.BoolVar(&dev, "dev", false, "with --verify: a development run, the frozen test splits (scored by default) are left out (tune nothing on them, not even by looking)")
	fs.BoolVar(&fit, "fit", false, "with --gate: refit the shipped answerability and relevance models on the training sets and write gate/answermodel.json and gate/relevancemodel.json, and recompute the encoder's coherence background (index/coherence_background.json, embedded: rebuild to use it); with --verify: refit the local verifier's model on its training splits and write judge/localmodel.json")
	fs.StringVar(&data, "data", defaultDataDir(), "evaluation data folder (env GUARD_DATA, default ../shared/data)")
	fs.StringVar(&out, "out", "bench-out", "report folder (quality.md; with --gate also gate-coverage.png and .svg and gate-crosscorpus.json)")
	var planner, config string
	var planConc int
	var planBudget time.Duration
	fs.StringVar(&planner, "planner", "", "with --gate: also measure a remote planner beside the local one: remote (gate.planner of --config, which must set mode remote, base_url and model; base_url upstream uses its upstream.base_url) or simulated (the built-in simulated upstream's scripted planner: a simulation, no model)")
	fs.StringVar(&config, "config", "", "with --planner remote: the config file whose gate.planner (and upstream, for base_url: upstream) the planner step calls; the suite's thresholds and models are not read from it")
	fs.IntVar(&planConc, "planner-concurrency", 4, "with --planner: planner calls in flight at most (>= 1)")
	fs.DurationVar(&planBudget, "planner-budget", 15*time.Minute, "with --planner: time for all planner calls; once spent, the remaining questions fall back to the local planner and count as degraded")
	var dump string
	fs.StringVar(&dump, "dump", "", "instead of scoring: write every verdict of the local verifier on one data set (scifact, wice or halu) as tab-separated lines to <out>/verify-<set>.tsv, for error analysis")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if dump != "" {
		if bench.DumpSets[dump] == nil {
			return usageErrorf(fs, "--dump %q: want scifact, wice or halu", dump)
		}
		return dumpVerify(ctx, data, dump, out)
	}
	bench.GateFit, bench.VerifyFit, bench.GateFrozen = fit && gateSuite, fit && verify, frozen && gateSuite
	bench.GateTrials = trials && gateSuite
	switch {
	case crossSample < -1:
		return usageErrorf(fs, "--cross-sample %d: want 0 (all) or more", crossSample)
	case crossSample >= 0:
		bench.GateCrossSample = crossSample
	case trials:
		bench.GateCrossSample = 80
	}
	spec, err := plannerSpec(fs, planner, config, planConc, planBudget, gateSuite)
	if err != nil {
		return err
	}
	bench.GatePlanner = spec
	bench.VerifyFrozen = !dev
	var want []string
	for name, on := range map[string]bool{"retrieval": retrieval, "verify": verify, "claims": claims, "gauntlet": gauntlet, "gate": gateSuite, "followup": followup} {
		if on {
			want = append(want, name)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	bench.ChartDir = out
	path := out + "/quality.md"
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	results, qerr := bench.Quality(ctx, data, want, f)
	if err := f.Close(); err != nil {
		return err
	}
	for _, r := range results {
		status := "ok"
		if r.Err != "" {
			status = r.Err
		}
		fmt.Fprintf(os.Stderr, "%-10s %8s  %s\n", r.Suite, r.Elapsed.Round(time.Millisecond), status)
	}
	fmt.Fprintf(os.Stderr, "report written to %s\n", path)
	return qerr
}

// plannerSpec is the suite's remote planner step from bench quality's
// flags (nil with no --planner).
func plannerSpec(fs *flag.FlagSet, planner, config string, conc int, budget time.Duration, gateSuite bool) (*bench.PlannerSpec, error) {
	if planner == "" {
		if config != "" {
			return nil, usageErrorf(fs, "--config is read only with --planner remote")
		}
		return nil, nil
	}
	if !gateSuite {
		return nil, usageErrorf(fs, "--planner needs --gate")
	}
	if conc < 1 || budget <= 0 {
		return nil, usageErrorf(fs, "--planner-concurrency must be >= 1 and --planner-budget > 0")
	}
	spec := &bench.PlannerSpec{Concurrency: conc, Budget: budget}
	switch planner {
	case "simulated":
		if config != "" {
			return nil, usageErrorf(fs, "--planner simulated plans on the built-in simulated upstream: drop --config")
		}
		spec.Simulated = true
		return spec, nil
	case "remote":
	default:
		return nil, usageErrorf(fs, "--planner %q: want remote or simulated", planner)
	}
	if config == "" {
		return nil, usageErrorf(fs, "--planner remote needs --config FILE with gate.planner (mode: remote, base_url, model)")
	}
	f, err := loadFile(config)
	if err != nil {
		return nil, err
	}
	pc := f.Config.Stages.Gate.Planner
	if pc.Mode != "remote" {
		return nil, fmt.Errorf("--planner remote: %s has no remote planner (gate.planner.mode is %q; set mode: remote, base_url and model)", config, pc.Mode)
	}
	if spec.Config, err = remoteplan.Resolve(pc, f.Config.Upstream.BaseURL, f.Config.Upstream.APIKeyEnv); err != nil {
		return nil, fmt.Errorf("--planner remote: %s: %w", config, err)
	}
	return spec, nil
}

// dumpVerify writes bench.DumpVerify's lines for set to out/verify-<set>.tsv.
func dumpVerify(ctx context.Context, data, set, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, "verify-"+set+".tsv")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = bench.DumpVerify(ctx, data, set, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "verdicts written to %s\n", path)
	return nil
}

func defaultDataDir() string {
	if d := os.Getenv("GUARD_DATA"); d != "" {
		return d
	}
	return "../shared/data"
}

func benchChaos(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench chaos", flag.ContinueOnError)
	synopsis(fs, "guard bench chaos [--list] [--only NAME] [--long]")
	var long, list bool
	var only string
	fs.BoolVar(&long, "long", os.Getenv("GUARD_CHAOS_LONG") == "1", "long form: many more requests per scenario")
	fs.StringVar(&only, "only", "", "comma-separated scenario names (default all)")
	fs.BoolVar(&list, "list", false, "list the scenarios and what each expects")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if list {
		for _, s := range bench.ChaosScenarios() {
			fmt.Printf("%-28s %s\n", s.Name, s.Expect)
		}
		return nil
	}
	var names []string
	if only != "" {
		names = strings.Split(only, ",")
	}
	results, err := bench.RunChaos(ctx, bench.ChaosOptions{Long: long}, names...)
	bench.WriteChaosTable(os.Stdout, results)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if !r.OK() {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scenarios failed", failed, len(results))
	}
	return nil
}

// startCPUProfile profiles the whole process into path until the returned
// stop is called; an empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
