package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/answer-guard/guard/check"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
)

func init() {
	register("check", "citation audit of Markdown documents against the corpus", runCheck)
}

const checkUsage = `usage: guard check [--config F] [--index DIR] [--tenant T --kb K] [--fail-on critical|warning|info|high|medium|low]
                   [--format text|json|github] [--min-context N] [--no-uncited] FILE.md...

Exit status: 0 no finding at or above --fail-on, 1 one or more, 2 a usage
error or an unreadable file, config or index.`

// runCheck exits by itself: 0 clean, 1 when a finding is at or above
// --fail-on, 2 on a usage error (bad flags, unreadable file or index).
func runCheck(args []string) error {
	code, err := checkMain(args)
	if err != nil {
		fmt.Fprintf(cliErr, "guard check: %v\n", err)
	}
	return exitCode(code)
}

func checkMain(args []string) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), checkUsage); fs.PrintDefaults() }
	def := check.DefaultConfig()
	cfgPath := fs.String("config", "", "config file (default: built-in defaults)")
	dir := fs.String("index", "", "snapshot dir (default: the embedded demo corpus, built into a temp dir)")
	tenant := fs.String("tenant", index.DefaultTenant, "tenant")
	kb := fs.String("kb", index.DefaultKB, "knowledge base")
	failOn := fs.String("fail-on", "", "exit 1 when a finding is at or above this severity: critical|warning|info, or high|medium|low (= critical|warning|info) (default "+def.FailOn+")")
	format := fs.String("format", "", "output: text|json|github (default "+def.Format+")")
	minCtx := fs.Int("min-context", -1, "override verify.min_context_chars: a document whose resolved sources total fewer characters is not verified")
	noUncited := fs.Bool("no-uncited", false, "do not look uncited sentences up in the corpus")
	verbose := fs.Bool("v", false, "log progress")
	files, err := parseInterspersed(fs, args) // flags after the files too
	if err != nil {
		var code exitCode
		errors.As(err, &code)
		return int(code), nil // parseFlags has printed the usage
	}
	if len(files) == 0 {
		return 2, errors.New("no file given\n" + checkUsage)
	}
	cfg, err := loadFile(*cfgPath)
	if err != nil {
		return 2, err
	}
	cc := cfg.Check // the file's check section, the flags over it
	if *failOn != "" {
		cc.FailOn = *failOn
	}
	if *format != "" {
		cc.Format = *format
	}
	if *noUncited {
		cc.Uncited = false
	}
	if err := cc.Validate(); err != nil {
		return 2, err
	}
	vc := cfg.Stages.Verify
	if *minCtx >= 0 {
		vc.MinContextChars = *minCtx
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil {
			return 2, err
		} else if st.IsDir() {
			return 2, fmt.Errorf("%s is a directory: give Markdown files", f)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := cliLogger(*verbose)
	defer log.Sync()
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "guard-demo-")
		if err != nil {
			return 2, err
		}
		defer os.RemoveAll(tmp)
		*dir = tmp + "/snap"
		if _, err := index.BuildDemo(ctx, cfg.Stages.Index, *dir, log); err != nil {
			return 2, err
		}
	}
	if err := checkSnapshotDir(*dir); err != nil {
		return 2, err
	}
	snap, err := index.Load(*dir)
	if err != nil {
		return 2, err
	}
	if err := checkPartition(snap, *dir, *tenant, *kb); err != nil {
		snap.Close()
		return 2, err
	}
	part := snap.Partition(*tenant, *kb)
	// the other partitions, to name the one that holds a citation this one
	// lacks (same tenant first)
	var others []*index.Partition
	for _, same := range []bool{true, false} {
		for _, pi := range snap.Manifest.Partitions {
			if (pi.Tenant == *tenant) == same {
				if p := snap.Partition(pi.Tenant, pi.KB); p != nil && p != part {
					others = append(others, p)
				}
			}
		}
	}
	eng, err := retrieve.New(cfg.Stages.Retrieve, cfg.Stages.Index, snap, log)
	if err != nil {
		snap.Close()
		return 2, err
	}
	defer eng.Close()
	j, err := judge.New(vc, log)
	if err != nil {
		return 2, err
	}
	spec, err := gauntlet.Compile(cfg.Stages.Gauntlet)
	if err != nil {
		return 2, err
	}
	ck, err := check.New(cc, check.Deps{Partition: part, Others: others, Retriever: eng, Tenant: *tenant, KB: *kb, Judge: j,
		Local: judge.NewLocal(vc.Local), Spec: spec, AddressPatterns: cfg.Stages.Retrieve.AddressPatterns}, log)
	if err != nil {
		return 2, err
	}
	var all []check.Finding
	for _, f := range files {
		fs, err := ck.CheckFile(ctx, f)
		if err != nil {
			return 2, err
		}
		all = append(all, fs...)
	}
	if err := check.Write(cliOut, cc.Format, all, ck.Stats()); err != nil {
		return 2, err
	}
	if n := check.AtOrAbove(all, cc.FailOn); n > 0 {
		return 1, fmt.Errorf("%s at or above %s", plural(n, "finding"), cc.FailOn)
	}
	return 0, nil
}
