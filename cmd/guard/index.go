package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/corpuscal"
	"github.com/answer-guard/guard/internal/gatefeed"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/proxy"
	"github.com/answer-guard/guard/retrieve"
)

func init() {
	register("index", "build, extend (add, delete), query, calibrate, list (chunks) and audit index snapshots (index build|add|query|calibrate|chunks|audit)", runIndex, indexSubs...)
}

// indexSubs are guard index's subcommands, the table runIndex dispatches from.
var indexSubs = []subcommand{
	{"build", func(ctx context.Context, args []string) error { return runIndexBuild(ctx, args, false) }},
	{"add", func(ctx context.Context, args []string) error { return runIndexBuild(ctx, args, true) }},
	{"query", runIndexQuery},
	{"calibrate", runIndexCalibrate},
	{"chunks", func(_ context.Context, args []string) error { return runIndexChunks(args) }},
	{"audit", func(_ context.Context, args []string) error { return runIndexAudit(args) }},
}

// indexSections are the config sections the index command reads.
type indexSections struct {
	Index    index.Config
	Retrieve retrieve.Config
	Gate     gate.Config
	Verify   judge.Config // HaluGate's verifier thresholds and LLM judge
	// Snapshot is pipeline.index: the snapshot serve would load ("" for
	// the embedded demo corpus).
	Snapshot string
	// MaxQueryChars is pipeline.max_query_chars: the proxy cuts each
	// user message to it before retrieval, and so does index query.
	MaxQueryChars int
}

// loadIndexSections reads the whole config file the way serve does (strict
// keys, every problem reported) and keeps the index and retrieve sections.
func loadIndexSections(path string) (indexSections, error) {
	cfg, err := loadFile(path)
	s := indexSections{Index: cfg.Stages.Index, Retrieve: cfg.Stages.Retrieve, Gate: cfg.Stages.Gate, Verify: cfg.Stages.Verify,
		Snapshot: cfg.Pipeline.Index, MaxQueryChars: cfg.Pipeline.MaxQueryChars}
	return s, err
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const indexUsage = `usage:
  guard index build [--config F] (--corpus PATH [--corpus PATH]... | --demo) [--memory F.jsonl...] [--tenant T --kb K] [--strict|--skip-bad] --out DIR
  guard index add   [--config F] --index DIR [--corpus PATH]... [--memory F.jsonl...] [--delete ID...] [--tenant T --kb K] [--strict|--skip-bad] [-v] --out NEWDIR
  guard index query [--config F] [--index DIR] [--tenant T --kb K] [--previous MSG]... [--k N] [--json] "question"
  guard index query [--index DIR] --queries F.jsonl --run OUT [--tag TAG] [--k N]
  guard index calibrate [--config F] --index DIR [--questions N] [--write] [--json]
  guard index chunks --index DIR [--tenant T --kb K] [--doc ID] [--text | --json]
  guard index audit --index DIR [--format text|json|github] [--fail-on high|medium]`

func runIndex(args []string) error {
	if len(args) == 0 {
		return usageText(args, indexUsage, "guard index: want "+subNames(indexSubs))
	}
	if sub := findSub(indexSubs, args[0]); sub != nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return sub.run(ctx, args[1:])
	}
	return usageText(args, indexUsage, fmt.Sprintf("guard index: unknown subcommand %q", args[0]))
}

// cliLogger is a command's logger: warnings, and with verbose everything
// down to debug, in zap's development format on the command's stderr
// (cliErr), never on stdout, which holds what the command prints.
func cliLogger(verbose bool) *zap.Logger {
	return cliLoggerTo(&lockedWriter{w: cliErr}, verbose)
}

// cliLoggerTo is cliLogger writing to w.
func cliLoggerTo(w io.Writer, verbose bool) *zap.Logger {
	level := zap.WarnLevel
	if verbose {
		level = zap.DebugLevel
	}
	ws := zapcore.AddSync(w)
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), ws, level)
	return zap.New(core, zap.Development(), zap.AddCaller(), zap.ErrorOutput(ws))
}

// lockedWriter serialises writes to w: a command's logger and the
// encoder's progress lines share its stderr from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func runIndexBuild(ctx context.Context, args []string, add bool) error {
	name := "build"
	if add {
		name = "add"
	}
	fs := flag.NewFlagSet("index "+name, flag.ContinueOnError)
	if add {
		synopsis(fs, "guard index add [--config F] --index DIR [--corpus PATH]... [--memory F.jsonl...] [--delete ID...] [--tenant T --kb K] [--strict|--skip-bad] [-v] --out NEWDIR")
	} else {
		synopsis(fs, "guard index build [--config F] (--corpus PATH [--corpus PATH]... | --demo) [--memory F.jsonl...] [--tenant T --kb K] [--strict|--skip-bad] --out DIR")
	}
	var corpus, memory multiFlag
	cfgPath := fs.String("config", "", "config file (default: built-in defaults)")
	fs.Var(&corpus, "corpus", "corpus file (JSON Lines or a JSON export, CSV, Excel .xlsx, a WordPress export .xml, YAML, Markdown, HTML, text, reStructuredText, Word .docx, OpenDocument .odt) or folder of them (repeatable)")
	fs.Var(&memory, "memory", "curated-memory JSONL file (repeatable)")
	out := fs.String("out", "", "output snapshot dir (must not exist or be empty)")
	var base *string
	var demo *bool
	if add {
		base = fs.String("index", "", "base snapshot dir (required)")
	} else {
		demo = fs.Bool("demo", false, "build the embedded demo corpus")
	}
	policy := addBadFlags(fs)
	var deletes multiFlag
	var tenant, kb string
	if add {
		fs.Var(&deletes, "delete", "remove the document with this id (repeatable; in --tenant/--kb)")
		fs.StringVar(&tenant, "tenant", index.DefaultTenant, "tenant of --delete, and of the corpus documents and memory entries that name none (every Markdown, HTML, text, reStructuredText, Word and OpenDocument file)")
		fs.StringVar(&kb, "kb", index.DefaultKB, "KB of --delete, and of the corpus documents and memory entries that name none (every Markdown, HTML, text, reStructuredText, Word and OpenDocument file)")
	} else {
		fs.StringVar(&tenant, "tenant", index.DefaultTenant, "tenant of the corpus documents and memory entries that name none (every Markdown, HTML, text, reStructuredText, Word and OpenDocument file)")
		fs.StringVar(&kb, "kb", index.DefaultKB, "KB of the corpus documents and memory entries that name none (every Markdown, HTML, text, reStructuredText, Word and OpenDocument file)")
	}
	verbose := fs.Bool("v", false, "log progress (add: and list the ids added, replaced, unchanged, removed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q: give each corpus path its own --corpus", fs.Arg(0))
	}
	for _, n := range [][2]string{{"tenant", tenant}, {"kb", kb}} {
		if !index.ValidName(n[1]) {
			return usageErrorf(fs, "--%s %q: 1-64 letters, digits, '.', '-' or '_', the first a letter or digit", n[0], n[1])
		}
	}
	cfg, err := loadIndexSections(*cfgPath)
	if err != nil {
		return err
	}
	ic := cfg.Index
	if *policy.strict {
		ic.Strict = true
	}
	if add && (*base == "" || *out == "" || len(corpus)+len(memory)+len(deletes) == 0) {
		// Name every one that is missing, not the first checked.
		var miss []string
		if *base == "" {
			miss = append(miss, "--index")
		}
		if *out == "" {
			miss = append(miss, "--out")
		}
		if len(corpus)+len(memory)+len(deletes) == 0 {
			miss = append(miss, "at least one --corpus, --memory or --delete")
		}
		return missingRequired(fs, miss)
	}
	if *out == "" {
		if !add && !*demo && len(corpus) == 0 {
			return usageErrorf(fs, "--corpus (or --demo) and --out are required")
		}
		return usageErrorf(fs, "--out is required")
	}
	if base == nil {
		base = new(string)
	}
	if demo == nil {
		demo = new(bool)
	}
	errw := &lockedWriter{w: cliErr} // logs and progress; stdout holds the summary and the id listing
	log := cliLoggerTo(errw, *verbose)
	defer log.Sync()
	hv, err := haluGateVerifier(ic.HaluGate, cfg.Verify, log)
	if err != nil {
		return err
	}
	if unread, err := index.UnreadFiles(corpus); err == nil && len(unread) > 0 {
		shown := unread
		if len(shown) > 10 {
			shown = shown[:10]
		}
		more := ""
		if len(unread) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(unread)-len(shown))
		}
		are := "are"
		if len(unread) == 1 {
			are = "is"
		}
		fmt.Fprintf(cliErr, "not indexed: %s in the corpus folders %s hidden or not %s: %s%s\n",
			plural(len(unread), "file"), are, index.CorpusFileTypes, strings.Join(shown, ", "), more)
	}
	var man index.Manifest
	var changes index.Changes
	switch {
	case add:
		if err := checkSnapshotDir(*base); err != nil {
			return err
		}
		refs := make([]index.DocRef, len(deletes))
		for i, id := range deletes {
			refs[i] = index.DocRef{Tenant: tenant, KB: kb, ID: id}
		}
		man, err = index.Add(ctx, ic, *base, corpus, memory, *out, log, index.WithVerifier(hv),
			index.WithDelete(refs...), index.WithChanges(&changes), index.WithProgress(errw), index.WithPartition(tenant, kb))
	case *demo:
		if tenant != index.DefaultTenant || kb != index.DefaultKB {
			return usageErrorf(fs, "--tenant and --kb place --corpus documents; the demo corpus keeps its own partition")
		}
		man, err = index.BuildDemo(ctx, ic, *out, log, index.WithProgress(errw))
	default:
		if len(corpus) == 0 {
			return usageErrorf(fs, "--corpus (or --demo) is required")
		}
		man, err = index.Build(ctx, ic, corpus, memory, *out, log, index.WithVerifier(hv), index.WithProgress(errw), index.WithPartition(tenant, kb))
	}
	if err != nil {
		return err
	}
	bad := &badLines{w: cliErr, policy: policy}
	for _, l := range man.BadLines {
		bad.n++
		fmt.Fprintln(cliErr, l)
	}
	if man.Docs == 0 && !add {
		// A server on it would answer every question from general knowledge.
		os.RemoveAll(*out)
		return fmt.Errorf("no document was read from %s: nothing indexed, no snapshot written", strings.Join(corpus, ", "))
	}
	// Counts in words ("1 doc", "2 docs"); scripts read the snapshot's
	// manifest.json (docs, chunks, memory, partitions), not this line.
	fmt.Fprintf(cliOut, "snapshot %s: %s, %s, %s, %s, %s, %.1fs (%.0f chunks/s), embedder %s (%s, %d dims)\n",
		*out, plural(man.Docs, "doc"), plural(man.Chunks, "chunk"), plural(len(man.Partitions), "partition"),
		plural(man.Memory, "memory entry"), plural(len(man.BadLines), "bad line"), man.BuildSeconds, man.ChunksPerSecond,
		man.Embedder, man.Model, man.Dims)
	if add {
		printChanges(cliOut, changes, *verbose)
		for _, w := range addedTwice(*out, changes.Added) {
			fmt.Fprintln(cliErr, "warning: "+w)
		}
	}
	for _, w := range danglingRefs(*out) {
		fmt.Fprintln(cliErr, "warning: "+w)
	}
	if h := man.HaluGate; h != nil && h.Derived > 0 {
		fmt.Fprintf(cliOut, "halugate: %s (%d checked, %d unchanged), %s, %d not supported; risk high %d, medium %d, low %d, unchecked %d; %d kept out of retrieval (guard index audit --index %s)\n",
			plural(h.Derived, "derived entry"), h.Checked, h.Reused, plural(h.Claims, "claim"), h.Flagged, h.High, h.Medium, h.Low, h.Unchecked, h.Excluded, *out)
	}
	// The corpus's own calibration, stored in the snapshot.
	cals, err := corpuscal.Snapshot(ctx, *out, ic, cfg.Retrieve, cfg.Gate, corpuscal.DefaultQuestions, true, log)
	if err != nil {
		return fmt.Errorf("snapshot %s is built, but its calibration failed: %w", *out, err)
	}
	// Say whether the gate applies it: a new operator read the map as the
	// gate's own (operator trial 7), while by default it is only kept.
	applied := ""
	if !cfg.Gate.CorpusCalibration {
		applied = " (kept in the snapshot, not applied: gate.corpus_calibration is false)"
	}
	for _, c := range cals {
		fmt.Fprintf(cliOut, "calibration %s/%s: %s%s\n", c.Tenant, c.KB, calibrationLine(c), applied)
	}
	return bad.finish("snapshot " + *out + " written without them")
}

// addedTwice lists the documents guard index add added whose text is that
// of another document of their partition: the same file under a second id,
// as when a subfolder of the folder the base was built from is given to
// --corpus (ids are paths relative to the folder given).
func addedTwice(dir string, added []index.DocRef) []string {
	if len(added) == 0 {
		return nil
	}
	snap, err := index.Load(dir)
	if err != nil {
		return nil
	}
	defer snap.Close()
	byPart := map[[2]string][]string{}
	for _, r := range added {
		k := [2]string{r.Tenant, r.KB}
		byPart[k] = append(byPart[k], r.ID)
	}
	var out []string
	for k, ids := range byPart {
		p := snap.Partition(k[0], k[1])
		if p == nil {
			continue
		}
		text := map[string]string{}
		var order []string
		for _, c := range p.Chunks() {
			if _, ok := text[c.DocID]; !ok {
				order = append(order, c.DocID)
			}
			text[c.DocID] += c.Text + "\n"
		}
		isNew := map[string]bool{}
		for _, id := range ids {
			isNew[id] = true
		}
		for _, id := range ids {
			for _, other := range order {
				if other != id && !isNew[other] && text[other] == text[id] {
					out = append(out, fmt.Sprintf("added %q (%s/%s) has the text of %q already there: ids are paths relative to the --corpus folder, so give the folder the base was built from (or --delete the old id)",
						id, k[0], k[1], other))
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// danglingRefs lists the curated-memory refs of the snapshot at dir that
// name no document or chunk of their partition (a folder corpus's ids are
// paths such as billing/plans.md, so plans.md names nothing): such a pin
// or note can never bring its passage in.
func danglingRefs(dir string) []string {
	snap, err := index.Load(dir)
	if err != nil {
		return nil
	}
	defer snap.Close()
	var out []string
	for _, pi := range snap.Manifest.Partitions {
		p := snap.Partition(pi.Tenant, pi.KB)
		if p == nil {
			continue
		}
		for _, m := range p.Memory() {
			for _, ref := range m.Refs {
				if len(p.Resolve(ref)) > 0 {
					continue
				}
				what := m.Question
				if m.Type == "note" {
					what = m.Note
				}
				out = append(out, fmt.Sprintf("memory %s %q (%s/%s): ref %q is not a document of the partition, so it never reaches the notes",
					m.Type, clip(what, 60), pi.Tenant, pi.KB, ref))
			}
		}
	}
	return out
}

// printChanges says what guard index add did to its input documents:
// one line of counts, and with verbose the ids under each heading.
func printChanges(w io.Writer, c index.Changes, verbose bool) {
	fmt.Fprintf(w, "documents: %d added, %d replaced, %d unchanged, %d removed", len(c.Added), len(c.Replaced), len(c.Unchanged), len(c.Removed))
	if len(c.NotFound) > 0 {
		fmt.Fprintf(w, ", %d to delete not found", len(c.NotFound))
	}
	fmt.Fprintln(w)
	for _, g := range []struct {
		name   string
		refs   []index.DocRef
		always bool
	}{{"added", c.Added, false}, {"replaced", c.Replaced, false}, {"unchanged", c.Unchanged, false},
		{"removed", c.Removed, false}, {"not found (nothing deleted)", c.NotFound, true}} {
		if len(g.refs) == 0 || !verbose && !g.always {
			continue
		}
		fmt.Fprintf(w, "  %s:", g.name)
		for _, r := range g.refs {
			fmt.Fprintf(w, " %s", r)
		}
		fmt.Fprintln(w)
	}
}

const calibrateUsage = `usage: guard index calibrate [--config F] --index DIR [--questions N] [--write] [--json]

Prints each partition's answerability calibration: how many pseudo-questions
(made from the corpus's own passages) were asked, where the model's
probability fell for the passage a question came from and for the best other
passage, the fitted map sigmoid(a*logit(p)+b), and the raw probability each
gate threshold corresponds to on this corpus. The gate applies it only with
gate.corpus_calibration: true; the thresholds in the config still decide.
Without --write it prints the calibration stored in the snapshot (measuring
it when the snapshot has none); with --write it measures again and stores it.`

func runIndexCalibrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("index calibrate", flag.ContinueOnError)
	cfgPath := fs.String("config", "", "config file (default: built-in defaults)")
	dir := fs.String("index", "", "snapshot dir (required)")
	n := fs.Int("questions", corpuscal.DefaultQuestions, "pseudo-questions per partition (>= 1)")
	write := fs.Bool("write", false, "measure again and store the result in the snapshot")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprintln(fs.Output(), calibrateUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *dir == "" {
		return usageErrorf(fs, "--index is required")
	}
	if *n < 1 {
		return usageErrorf(fs, "--questions must be >= 1, got %d", *n)
	}
	cfg, err := loadIndexSections(*cfgPath)
	if err != nil {
		return err
	}
	if err := checkSnapshotDir(*dir); err != nil {
		return err
	}
	cals, err := index.ReadAnswerCalibration(*dir)
	if err != nil {
		return err
	}
	if *write || cals == nil {
		if cals, err = corpuscal.Snapshot(ctx, *dir, cfg.Index, cfg.Retrieve, cfg.Gate, *n, *write, cliLogger(false)); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(cliOut)
		enc.SetIndent("", "  ")
		return enc.Encode(cals)
	}
	for _, c := range cals {
		fmt.Printf("%s/%s\n  %s\n  fit: %s\n", c.Tenant, c.KB, calibrationLine(c), c.Fit)
		fmt.Printf("  own passage      p10 p25 p50 p75 p90: %s\n  best other one   p10 p25 p50 p75 p90: %s\n", fmtQuantiles(c.Pos), fmtQuantiles(c.Neg))
		names := make([]string, 0, len(c.CutPoints))
		for k := range c.CutPoints {
			names = append(names, k)
		}
		sort.Strings(names)
		fmt.Println("  cut points (gate threshold -> raw answerability on this corpus):")
		for _, k := range names {
			fmt.Printf("    %-20s %.3f\n", k, c.CutPoints[k])
		}
	}
	if !cfg.Gate.CorpusCalibration {
		fmt.Println("(gate.corpus_calibration is false: the gate compares the model's probabilities as they are)")
	}
	return nil
}

func calibrationLine(c index.AnswerCalibration) string {
	return fmt.Sprintf("%d pseudo-questions, %d found their passage, map sigmoid(%.2f*logit(p)%+.2f)", c.Questions, c.Found, c.A, c.B)
}

func fmtQuantiles(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

const queryUsage = `usage: guard index query [--config F] [--index DIR] [--tenant T --kb K] [--previous MSG]... [--k N] [--json] "question"
       guard index query [--index DIR] --queries F.jsonl --run OUT [--tag TAG] [--k N]

Reads the question as the proxy reads a chat's last user message (greetings
and courtesies trimmed; with --previous, the user messages before it, oldest
first, so a follow-up is read with them), retrieves, and prints the gate's
verdict under the config's gate section (built-in defaults without --config)
before the ranked candidates: decision, reason, coverage max against the
thresholds, the general-question rule, the on-topic rule, and per candidate
its relevance as the thresholds compare it, its answerability and whether
the local planner keeps it. The remote planner is never called. --k changes
the list the gate sees. With --queries it writes a TREC run and no verdict.`

func runIndexQuery(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("index query", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), queryUsage); fs.PrintDefaults() }
	cfgPath := fs.String("config", "", "config file (default: built-in defaults)")
	dir := fs.String("index", "", "snapshot dir (default: --config's pipeline.index, as serve loads it; without one, the embedded demo corpus, built into a temp dir)")
	tenant := fs.String("tenant", index.DefaultTenant, "tenant")
	kb := fs.String("kb", index.DefaultKB, "knowledge base")
	k := fs.Int("k", 0, "keep the top k (default: retrieve.top_k); retrieve.reserves can add more (verse: 2, library: 2 by default, so --k 1 lists 2 on a corpus that never sets kind)")
	asJSON := fs.Bool("json", false, "print JSON")
	queries := fs.String("queries", "", `queries JSONL, one {"id","text"} per line ("_id" as in BEIR also accepted): write a TREC run`)
	run := fs.String("run", "", "TREC run output file (with --queries)")
	tag := fs.String("tag", "guard", "TREC run tag")
	var previous multiFlag
	fs.Var(&previous, "previous", "an earlier user message of the chat (up to 2, oldest first): the question may follow up on it")
	verbose := fs.Bool("v", false, "log progress")
	policy := addBadFlags(fs)
	pos, err := parseInterspersed(fs, args) // flags after the question too
	if err != nil {
		return err
	}
	kSet := false
	fs.Visit(func(f *flag.Flag) { kSet = kSet || f.Name == "k" })
	if kSet && *k <= 0 {
		return usageErrorf(fs, "--k must be > 0, got %d", *k)
	}
	q := strings.TrimSpace(strings.Join(pos, " "))
	switch {
	case *queries != "" && len(pos) > 0:
		return usageErrorf(fs, "give either a question or --queries, not both")
	case *queries != "" && *run == "":
		return usageErrorf(fs, "--queries needs --run (the TREC run file to write)")
	case *queries == "" && q == "":
		return usageErrorf(fs, `a question is required: guard index query [flags] "question"`)
	case *queries != "" && len(previous) > 0:
		return usageErrorf(fs, "--previous goes with a question, not --queries")
	case len(previous) > 2:
		return usageErrorf(fs, "--previous: at most 2 (the proxy reads a turn with the two user messages before it), got %d", len(previous))
	}
	cfg, err := loadIndexSections(*cfgPath)
	if err != nil {
		return err
	}
	if *k > 0 {
		cfg.Retrieve.TopK = *k
		cfg.Retrieve.PoolCap = max(cfg.Retrieve.PoolCap, *k)
	}
	log := cliLogger(*verbose)
	defer log.Sync()
	if *dir == "" {
		*dir = cfg.Snapshot // what serve would answer from
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "guard-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = tmp + "/snap"
		if _, err := index.BuildDemo(ctx, cfg.Index, *dir, log); err != nil {
			return err
		}
	}
	if err := checkSnapshotDir(*dir); err != nil {
		return err
	}
	snap, err := index.Load(*dir)
	if err != nil {
		return err
	}
	if err := snap.CheckEmbedder(cfg.Index); err != nil {
		snap.Close()
		return err
	}
	if err := checkPartition(snap, *dir, *tenant, *kb); err != nil {
		snap.Close()
		return err
	}
	eng, err := retrieve.New(cfg.Retrieve, cfg.Index, snap, log)
	if err != nil {
		snap.Close()
		return err
	}
	defer eng.Close()
	if *queries != "" {
		bad := &badLines{w: cliErr, policy: policy}
		if err := writeRun(ctx, eng, *tenant, *kb, *queries, *run, *tag, bad); err != nil {
			return err
		}
		return bad.finish(*queries)
	}
	var prev, before string // the user messages before the question, as a chat's
	if n := len(previous); n > 0 {
		prev = previous[n-1]
		if n > 1 {
			before = previous[n-2]
		}
	}
	// cut as the proxy cuts them (pipeline.max_query_chars)
	cut := func(s string) string {
		if cfg.MaxQueryChars <= 0 {
			return s
		}
		return proxy.CutUTF8(s, cfg.MaxQueryChars)
	}
	rq := gatefeed.TurnQuery(*tenant, *kb, cut(q), cut(prev), cut(before))
	start := time.Now()
	res, err := eng.Retrieve(ctx, rq)
	if err != nil {
		return err
	}
	took := time.Since(start)
	source := "built-in defaults"
	if *cfgPath != "" {
		source = "gate section of " + *cfgPath
	}
	v := decideQuery(cfg.Gate, source, q, len(previous), rq, res)
	if *asJSON {
		enc := json.NewEncoder(cliOut)
		enc.SetIndent("", "  ")
		return enc.Encode(queryJSON(q, *tenant, *kb, took, res, v))
	}
	printVerdict(cliOut, v)
	printResult(cliOut, res, took, v)
	return nil
}

// checkPartition reports a --tenant/--kb the snapshot has no partition for
// (a typo would otherwise print an empty result), naming the ones it has.
func checkPartition(snap *index.Snapshot, dir, tenant, kb string) error {
	if snap.Partition(tenant, kb) != nil {
		return nil
	}
	have := make([]string, 0, len(snap.Manifest.Partitions))
	for _, p := range snap.Manifest.Partitions {
		have = append(have, "--tenant "+p.Tenant+" --kb "+p.KB)
	}
	if len(have) == 0 {
		return fmt.Errorf("snapshot %s is empty: it has no partition (its build read no document)", dir)
	}
	return fmt.Errorf("snapshot %s has no partition tenant %q, kb %q; it has: %s", dir, tenant, kb, strings.Join(have, "; "))
}

// queryJSON is the --json shape of guard index query: snake_case keys,
// one object per ranked note, and the gate's verdict.
func queryJSON(q, tenant, kb string, took time.Duration, res retrieve.Result, v queryVerdict) any {
	type note struct {
		Rank    int      `json:"rank"`
		ID      string   `json:"id"`
		DocID   string   `json:"doc_id"`
		Title   string   `json:"title"`
		Kind    string   `json:"kind"`
		Address string   `json:"address"`
		URL     string   `json:"url"`
		Score   float64  `json:"score"`
		Rerank  float64  `json:"rerank"`
		Answer  float64  `json:"answer"` // answerability: P(the passage answers the question)
		Lanes   []string `json:"lanes"`
		Forced  bool     `json:"forced"`
		Text    string   `json:"text"`
		// Relevance is the score the gate's thresholds compare
		// (gate.relevance, lowered by the general rule when it applied);
		// Kept: the local planner keeps it as a note.
		Relevance float64 `json:"relevance"`
		Kept      bool    `json:"kept"`
	}
	type memo struct {
		Text  string   `json:"text"`
		Refs  []string `json:"refs"`
		Score float64  `json:"score"`
	}
	answer := v.answers()
	notes := make([]note, len(res.Candidates))
	for i, c := range res.Candidates {
		notes[i] = note{i + 1, c.ID, c.DocID, c.Title, c.Kind, c.Address, c.URL, c.Score, c.Rerank, answer[i], c.Lanes, c.Forced, c.Text,
			v.relevance[i], v.kept[i]}
	}
	memory := make([]memo, len(res.Memory))
	for i, m := range res.Memory {
		memory[i] = memo{m.Text, m.Refs, m.Score}
	}
	degraded := res.Degraded
	if degraded == nil {
		degraded = []string{}
	}
	return map[string]any{"query": q, "tenant": tenant, "kb": kb, "took_ms": float64(took.Microseconds()) / 1000,
		"notes": notes, "memory": memory, "rerank_active": res.RerankActive, "short_circuit": res.ShortCircuit, "degraded": degraded,
		"verdict": verdictJSON(v)}
}

func printResult(w io.Writer, res retrieve.Result, took time.Duration, v queryVerdict) {
	answer := v.answers()
	fmt.Fprintf(w, "%-4s %-28s %-18s %-8s %6s %6s %6s %6s %-4s  %-22s %s\n", "rank", "id", "address", "kind", "score", "rerank", "relev", "answer", "kept", "lanes", "forced")
	for i, c := range res.Candidates {
		kept := "-"
		if v.kept[i] {
			kept = "yes"
		}
		fmt.Fprintf(w, "%-4d %-28s %-18s %-8s %6.3f %6.3f %6.3f %6.3f %-4s  %-22s %v\n", i+1, clip(c.ID, 28), clip(c.Address, 18), clip(c.Kind, 8),
			c.Score, c.Rerank, v.relevance[i], answer[i], kept, strings.Join(c.Lanes, ","), c.Forced)
	}
	for _, m := range res.Memory {
		fmt.Fprintf(w, "memory note (%.3f, refs %v): %s\n", m.Score, m.Refs, clip(m.Text, 100))
	}
	fmt.Fprintf(w, "rerank_active=%v short_circuit=%v degraded=%v took=%s\n", res.RerankActive, res.ShortCircuit, res.Degraded, took.Round(10*time.Microsecond))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// writeRun answers every BEIR query and writes a TREC run file
// (qid Q0 docid rank score tag), one line per distinct document.
func writeRun(ctx context.Context, eng *retrieve.Engine, tenant, kb, queries, out, tag string, bad *badLines) error {
	f, err := os.Open(queries)
	if err != nil {
		return fmt.Errorf("open queries: %w", err)
	}
	defer f.Close()
	o, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	bw := bufio.NewWriter(o)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, line := 0, 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		qid, text, why := parseQueryLine(sc.Bytes())
		if why != "" {
			if err := bad.bad(queries, line, why); err != nil {
				o.Close()
				return err
			}
			continue
		}
		res, err := eng.Retrieve(ctx, retrieve.Query{Tenant: tenant, KB: kb, Text: text})
		if err != nil {
			o.Close()
			return fmt.Errorf("query %s: %w", qid, err)
		}
		seen := map[string]bool{}
		rank := 0
		for _, c := range res.Candidates {
			if seen[c.DocID] {
				continue
			}
			seen[c.DocID] = true
			rank++
			// trec_eval orders by the score column, not the rank: a score
			// falling with rank keeps the guard's order (rerank order, then
			// reserves), which neither the calibrated nor the rerank score
			// is monotone in.
			fmt.Fprintf(bw, "%s Q0 %s %d %.6f %s\n", qid, c.DocID, rank, float64(1000-rank), tag)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		o.Close()
		return fmt.Errorf("read queries %s: %w", queries, err)
	}
	if err := bw.Flush(); err != nil {
		o.Close()
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	fmt.Fprintf(cliOut, "wrote %s: %s\n", out, plural(n, "query"))
	return nil
}

// parseQueryLine reads one --queries line: {"id","text"} (or BEIR's
// "_id"); an id may be a number. why says what is wrong.
func parseQueryLine(b []byte) (id, text, why string) {
	var q struct {
		ID   json.RawMessage `json:"id"`
		BEIR json.RawMessage `json:"_id"`
		Text *string         `json:"text"`
	}
	if err := json.Unmarshal(b, &q); err != nil {
		return "", "", jsonReason(err)
	}
	raw := q.ID
	if len(raw) == 0 || string(raw) == "null" {
		raw = q.BEIR
	}
	var s string
	var num json.Number
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", "", `missing "id" (or "_id")`
	case json.Unmarshal(raw, &s) == nil:
		id = strings.TrimSpace(s)
	case json.Unmarshal(raw, &num) == nil:
		id = num.String()
	default:
		return "", "", `field "id" must be text or a number`
	}
	switch {
	case id == "":
		return "", "", `empty "id"`
	case strings.ContainsAny(id, " \t"):
		return "", "", fmt.Sprintf("id %q contains a space (a TREC run cannot hold it)", id)
	case q.Text == nil:
		return "", "", `missing "text" (the question)`
	case strings.TrimSpace(*q.Text) == "":
		return "", "", `empty "text"`
	}
	return id, *q.Text, ""
}
