package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/answer-guard/guard/gate"
)

// QualitySuite runs one quality suite on dataDir and writes its Markdown
// section to w.
type QualitySuite func(ctx context.Context, dataDir string, w io.Writer) error

// qualitySuites lists the suites `guard bench quality` knows, in report
// order.
var qualitySuites = []struct {
	name string
	run  QualitySuite
}{
	{"retrieval", func(ctx context.Context, dataDir string, w io.Writer) error {
		_, err := RetrievalQuality(ctx, dataDir, w)
		return err
	}},
	{"verify", func(ctx context.Context, dataDir string, w io.Writer) error {
		_, err := VerifyQualityFit(ctx, dataDir, VerifyFit, localModelPath(), w)
		return err
	}},
	{"claims", func(ctx context.Context, _ string, w io.Writer) error {
		reps, err := ClaimsQuality(ctx, 300, DefaultClaimFaults, 11, w)
		for _, r := range reps {
			if err == nil && r.Mode == "strict" && r.StrictCitedChanged > 0 {
				err = fmt.Errorf("strict mode released %d changed sentences with their citation", r.StrictCitedChanged)
			}
		}
		if err != nil {
			return err
		}
		_, err = ClaimsQuality(ctx, 300, ParaphraseClaimFaults, 11, w)
		return err
	}},
	{"gate", func(ctx context.Context, dataDir string, w io.Writer) error {
		rep, err := GateQuality(ctx, dataDir, gateDevDir(), GateFit, gateModelPath(), w)
		if err != nil {
			return err
		}
		WriteGateReport(w, rep)
		dev, err := gateDevSets(gateDevDir())
		if err != nil {
			return err
		}
		if err := DevRetrievalRanks(ctx, dev, w); err != nil {
			return err
		}
		if _, err := DevRetrieveOrder(ctx, dev, w); err != nil {
			return err
		}
		if ChartDir == "" {
			return nil
		}
		if err := writeGateCrossJSON(ChartDir, rep.CrossCorpus); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nThe cross-corpus off-topic row's figures: %s in the report folder.\n", GateCrossJSON)
		if err := WriteGateChart(ChartDir, rep, gate.DefaultConfig()); err != nil {
			return err
		}
		fmt.Fprintf(w, "\n![gate coverage](%s.svg)\n", GateCoverageChart)
		return nil
	}},
	{"followup", func(ctx context.Context, _ string, w io.Writer) error {
		_, err := FollowupQuality(ctx, w)
		return err
	}},
	{"gauntlet", func(ctx context.Context, _ string, w io.Writer) error {
		rep, err := GauntletQuality(ctx, 1000, DefaultGauntletFaults, 7, w)
		if err == nil && !rep.OK() {
			err = fmt.Errorf("gauntlet let faults through or lost citations: %v", rep.Failures)
		}
		return err
	}},
}

// GateFit makes the gate suite refit the shipped answerability model on its
// training sets and write it to gate/answermodel.json (guard bench quality
// --gate --fit).
var GateFit bool

// ChartDir is the report folder the gate suite writes its coverage chart
// into (gate-coverage.png and .svg, beside quality.md) with the
// cross-corpus row's figures (gate-crosscorpus.json); empty writes none.
var ChartDir string

// gateDevDir is bench/testdata/gate seen from the repository root (the
// command) or from package bench (tests).
func gateDevDir() string {
	for _, d := range []string{"bench/testdata/gate", "testdata/gate"} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return "bench/testdata/gate"
}

func gateModelPath() string {
	if _, err := os.Stat("gate"); err == nil {
		return "gate/answermodel.json"
	}
	return "../gate/answermodel.json"
}

// QualityResult is the outcome of one suite.
type QualityResult struct {
	Suite   string        `json:"suite"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Err     string        `json:"error,omitempty"`
}

// Quality runs the selected suites (all when want is empty) on dataDir and
// writes one Markdown report to w. A failing or missing suite is reported in
// its section and in the returned error; the other suites still run.
func Quality(ctx context.Context, dataDir string, want []string, w io.Writer) ([]QualityResult, error) {
	sel := map[string]bool{}
	for _, s := range want {
		sel[s] = true
	}
	for s := range sel {
		known := false
		for _, q := range qualitySuites {
			known = known || q.name == s
		}
		if !known {
			return nil, fmt.Errorf("unknown quality suite %q: want retrieval, verify, claims, gate, followup or gauntlet", s)
		}
	}
	if _, err := os.Stat(dataDir); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	// The report (and any error in it) names the data folder as given, or
	// relative to the working directory when given absolute (GUARD_DATA):
	// no machine's absolute path in a committed report.
	dataDir = relPath(dataDir)
	fmt.Fprintf(w, "# Quality report\n\n- data: %s\n- started: %s\n- machine: %s, %d CPUs\n\n",
		dataDir, time.Now().Format(time.RFC3339), ThisMachine().OS, ThisMachine().CPUs)
	var out []QualityResult
	var errs []error
	for _, q := range qualitySuites {
		if len(sel) > 0 && !sel[q.name] {
			continue
		}
		fmt.Fprintf(w, "## Suite: %s\n\n", q.name)
		r := QualityResult{Suite: q.name}
		t0 := time.Now()
		var section bytes.Buffer
		err := q.run(ctx, dataDir, &section)
		r.Elapsed = time.Since(t0)
		w.Write(section.Bytes()) //nolint:errcheck // a failed write shows in the final error of the caller's writer
		if err != nil {
			r.Err = err.Error()
			errs = append(errs, fmt.Errorf("suite %s: %w", q.name, err))
			fmt.Fprintf(w, "\n**not scored**: %v\n", err)
		}
		fmt.Fprintf(w, "\n(%s in %s)\n\n", q.name, r.Elapsed.Round(time.Millisecond))
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// relPath returns p with forward slashes, relative to the working directory
// when p is absolute (p itself when it cannot be made relative). The
// relative form opens the same file from the same working directory.
func relPath(p string) string {
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, p); err == nil {
				p = r
			}
		}
	}
	return filepath.ToSlash(p)
}
