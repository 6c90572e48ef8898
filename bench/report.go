package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// LoadReport is the result of `guard bench load`: the proxied run, and the
// direct run against the same upstream when one was given.
type LoadReport struct {
	Started  time.Time   `json:"started"`
	Machine  Machine     `json:"machine"`
	Config   LoadConfig  `json:"config"`
	Pipeline string      `json:"pipeline,omitempty"` // self mode: passthrough | full
	Runs     []RunResult `json:"runs"`
	Overhead *Overhead   `json:"overhead,omitempty"`
}

// Machine describes where the numbers were measured.
type Machine struct {
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
	Note       string `json:"note"`
}

// ThisMachine describes the machine running the bench.
func ThisMachine() Machine {
	return Machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
		OS:   runtime.GOOS + "/" + runtime.GOARCH,
		Note: "load generator, proxy and upstream share this machine's cores; numbers include the generator's own cost"}
}

// Overhead compares the proxied run with the direct run: difference
// (proxy - direct) and ratio (proxy / direct) per percentile, over like
// work only: the proxied answers that reached the upstream (ground,
// fallback, passthrough; a refusal is answered without it and left out)
// against every direct answer. Compared says so in words.
type Overhead struct {
	Compared string        `json:"compared"`
	P50Diff  time.Duration `json:"p50_diff_ns"`
	P90Diff  time.Duration `json:"p90_diff_ns"`
	P99Diff  time.Duration `json:"p99_diff_ns"`
	P50Ratio float64       `json:"p50_ratio"`
	P90Ratio float64       `json:"p90_ratio"`
	P99Ratio float64       `json:"p99_ratio"`
	// TTFT (streams): difference of time to first token.
	TTFTP50Diff time.Duration `json:"ttft_p50_diff_ns,omitempty"`
	TTFTP99Diff time.Duration `json:"ttft_p99_diff_ns,omitempty"`
	// CPUDiff is the difference of CPU time per request (self mode: the
	// proxy's own CPU cost per request).
	CPUDiff time.Duration `json:"cpu_diff_ns"`
}

// Compare computes the overhead of proxied over direct.
func Compare(proxied, direct RunResult) *Overhead {
	ratio := func(a, b time.Duration) float64 {
		if b == 0 {
			return 0 // undefined; JSON has no NaN
		}
		return math.Round(float64(a)/float64(b)*1000) / 1000
	}
	p, d := proxied.UpstreamLatency, direct.UpstreamLatency
	o := &Overhead{
		P50Diff: p.P50 - d.P50, P90Diff: p.P90 - d.P90, P99Diff: p.P99 - d.P99,
		P50Ratio: ratio(p.P50, d.P50), P90Ratio: ratio(p.P90, d.P90), P99Ratio: ratio(p.P99, d.P99),
	}
	o.CPUDiff = proxied.CPUPerRequest - direct.CPUPerRequest
	if proxied.UpstreamTTFT != nil && direct.UpstreamTTFT != nil {
		o.TTFTP50Diff = proxied.UpstreamTTFT.P50 - direct.UpstreamTTFT.P50
		o.TTFTP99Diff = proxied.UpstreamTTFT.P99 - direct.UpstreamTTFT.P99
	}
	o.Compared = fmt.Sprintf("latency of the %d answers of %s that reached the upstream (%s) against the %d answers of %s",
		proxied.UpstreamN, proxied.Name, decisionWords(proxied.Decisions), direct.UpstreamN, direct.Name)
	if n := proxied.Decisions["refuse"]; n > 0 {
		o.Compared += fmt.Sprintf("; %d refusals, answered without the upstream, are left out", n)
	}
	o.Compared += "; CPU per request covers every request of each run"
	return o
}

// decisionWords lists decision counts in words: "ground 812, fallback 3".
func decisionWords(ds map[string]int) string {
	var parts []string
	for _, k := range []string{"ground", "fallback", "passthrough", "none"} {
		if n := ds[k]; n > 0 {
			name := k
			if k == "none" {
				name = "no guard decision"
			}
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	var other []string
	for k, n := range ds {
		switch k {
		case "ground", "fallback", "passthrough", "none", "refuse":
		default:
			other = append(other, fmt.Sprintf("%s %d", k, n))
		}
	}
	sort.Strings(other)
	parts = append(parts, other...)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// WriteReport writes report.md, report.json and the latency charts
// (latency-time and latency-hist, PNG and SVG) into dir, and for each run
// with a stage split the CPU profile it comes from, as
// stages-<run>.pprof (go tool pprof -tagfocus=stage=verify ...).
func WriteReport(dir string, rep LoadReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report dir: %w", err)
	}
	for _, r := range rep.Runs {
		if r.Stages == nil || len(r.Stages.profile) == 0 {
			continue
		}
		name := "stages-" + r.Name + ".pprof"
		if err := os.WriteFile(filepath.Join(dir, name), r.Stages.profile, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report.json: %w", err)
	}
	var md strings.Builder
	WriteMarkdown(&md, rep)
	switch err := WriteLoadCharts(dir, rep.Runs); {
	case errors.Is(err, errNoSamples):
		fmt.Fprintf(&md, "\n(no charts: %v)\n", err)
	case err != nil:
		return err
	default:
		fmt.Fprintf(&md, "\n![latency over time](%s.svg)\n\n![latency histogram](%s.svg)\n", LatencyTimeChart, LatencyHistChart)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("write report.md: %w", err)
	}
	return nil
}

// WriteMarkdown renders the report as Markdown.
func WriteMarkdown(w io.Writer, rep LoadReport) {
	c := rep.Config
	mode := fmt.Sprintf("open loop at %g req/s, at most %d in flight", c.Rate, c.Concurrency)
	if c.Rate == 0 {
		mode = fmt.Sprintf("closed loop, %d workers back to back", c.Concurrency)
	}
	kind := "non-stream"
	if c.Stream {
		kind = "stream"
	}
	fmt.Fprintf(w, "# Load report\n\n")
	fmt.Fprintf(w, "- started: %s\n- mode: %s, %s, duration %s", rep.Started.Format(time.RFC3339), mode, kind, c.Duration)
	if c.MaxRequests > 0 {
		fmt.Fprintf(w, ", at most %d requests", c.MaxRequests)
	}
	fmt.Fprintln(w)
	if rep.Pipeline != "" {
		fmt.Fprintf(w, "- proxy pipeline: %s\n", rep.Pipeline)
	}
	m := rep.Machine
	fmt.Fprintf(w, "- machine: %d CPUs (GOMAXPROCS %d), %s, %s. %s.\n\n", m.CPUs, m.GOMAXPROCS, m.OS, m.GoVersion, m.Note)
	fmt.Fprintf(w, "| run | offered | sent | ok | errors | dropped | req/s | p50 | p90 | p99 | p99.9 | max |")
	if c.Stream {
		fmt.Fprintf(w, " TTFT p50 | TTFT p99 |")
	}
	fmt.Fprintf(w, " sched. lag p99 | CPU/req |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
	if c.Stream {
		fmt.Fprintf(w, "---|---|")
	}
	fmt.Fprintln(w, "---|---|")
	for _, r := range rep.Runs {
		errs := 0
		for _, n := range r.Errors {
			errs += n
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %.0f | %s | %s | %s | %s | %s |", r.Name, r.Sent+r.Dropped, r.Sent, r.OK, errs, r.Dropped,
			r.Throughput, fmtDur(r.Latency.P50), fmtDur(r.Latency.P90), fmtDur(r.Latency.P99), fmtDur(r.Latency.P999), fmtDur(r.Latency.Max))
		if c.Stream {
			if r.TTFT != nil {
				fmt.Fprintf(w, " %s | %s |", fmtDur(r.TTFT.P50), fmtDur(r.TTFT.P99))
			} else {
				fmt.Fprintf(w, " - | - |")
			}
		}
		fmt.Fprintf(w, " %s | %s |\n", fmtDur(r.Lag.P99), fmtDur(r.CPUPerRequest))
	}
	for _, r := range rep.Runs {
		if len(r.Errors) == 0 {
			continue
		}
		kinds := make([]string, 0, len(r.Errors))
		for k := range r.Errors {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "\nerrors of %s:", r.Name)
		for _, k := range kinds {
			fmt.Fprintf(w, " %s=%d", k, r.Errors[k])
		}
		fmt.Fprintln(w)
	}
	for _, r := range rep.Runs {
		if len(r.Resources) < 2 {
			continue
		}
		first, last := r.Resources[0], r.Resources[len(r.Resources)-1]
		maxG, maxR := 0, int64(0)
		for _, x := range r.Resources {
			maxG, maxR = max(maxG, x.Goroutines), max(maxR, x.RSSBytes)
		}
		fmt.Fprintf(w, "\nprocess during %s: goroutines %d at 1s, %d at the end (max %d); RSS %d MiB at 1s, %d MiB at the end (max %d MiB)\n",
			r.Name, first.Goroutines, last.Goroutines, maxG, first.RSSBytes>>20, last.RSSBytes>>20, maxR>>20)
	}
	fmt.Fprintf(w, "\noffered = sent + dropped (open loop: an arrival that finds every slot busy is dropped, not sent); sent = ok + errors.\n")
	for _, r := range rep.Runs {
		if len(r.Decisions) > 0 && !(len(r.Decisions) == 1 && r.Decisions["none"] > 0) {
			fmt.Fprintf(w, "\nanswers of %s by guard decision: %s", r.Name, decisionWords(r.Decisions))
			if n := r.Decisions["refuse"]; n > 0 {
				fmt.Fprintf(w, ", refuse %d", n)
			}
			fmt.Fprintln(w)
		}
	}
	writeStages(w, rep.Runs)
	if o := rep.Overhead; o != nil {
		fmt.Fprintf(w, "\n## Proxy overhead vs direct upstream\n\nCompared: %s.\n\n| percentile | difference | ratio |\n|---|---|---|\n", o.Compared)
		fmt.Fprintf(w, "| p50 | %s | %.3f |\n| p90 | %s | %.3f |\n| p99 | %s | %.3f |\n",
			fmtSigned(o.P50Diff), o.P50Ratio, fmtSigned(o.P90Diff), o.P90Ratio, fmtSigned(o.P99Diff), o.P99Ratio)
		if c.Stream {
			fmt.Fprintf(w, "| TTFT p50 | %s | |\n| TTFT p99 | %s | |\n", fmtSigned(o.TTFTP50Diff), fmtSigned(o.TTFTP99Diff))
		}
		fmt.Fprintf(w, "| CPU per request | %s | |\n", fmtSigned(o.CPUDiff))
	}
}

func fmtSigned(d time.Duration) string {
	if d < 0 {
		return "-" + fmtDur(-d)
	}
	return "+" + fmtDur(d)
}
