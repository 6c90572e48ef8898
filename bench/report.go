package bench

import (
	"encoding/json"
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
// (proxy - direct) and ratio (proxy / direct) per percentile.
type Overhead struct {
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
	o := &Overhead{
		P50Diff: proxied.Latency.P50 - direct.Latency.P50, P90Diff: proxied.Latency.P90 - direct.Latency.P90,
		P99Diff:  proxied.Latency.P99 - direct.Latency.P99,
		P50Ratio: ratio(proxied.Latency.P50, direct.Latency.P50), P90Ratio: ratio(proxied.Latency.P90, direct.Latency.P90),
		P99Ratio: ratio(proxied.Latency.P99, direct.Latency.P99),
	}
	o.CPUDiff = proxied.CPUPerRequest - direct.CPUPerRequest
	if proxied.TTFT != nil && direct.TTFT != nil {
		o.TTFTP50Diff = proxied.TTFT.P50 - direct.TTFT.P50
		o.TTFTP99Diff = proxied.TTFT.P99 - direct.TTFT.P99
	}
	return o
}

// WriteReport writes report.md, report.json and latency.svg into dir.
func WriteReport(dir string, rep LoadReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create report dir: %w", err)
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
	md.WriteString("\n![latency](latency.svg)\n")
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("write report.md: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "latency.svg"), []byte(LatencySVG(rep.Runs)), 0o644); err != nil {
		return fmt.Errorf("write latency.svg: %w", err)
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
	fmt.Fprintf(w, "| run | sent | ok | errors | dropped | req/s | p50 | p90 | p99 | p99.9 | max |")
	if c.Stream {
		fmt.Fprintf(w, " TTFT p50 | TTFT p99 |")
	}
	fmt.Fprintf(w, " sched. lag p99 | CPU/req |\n|---|---|---|---|---|---|---|---|---|---|---|")
	if c.Stream {
		fmt.Fprintf(w, "---|---|")
	}
	fmt.Fprintln(w, "---|---|")
	for _, r := range rep.Runs {
		errs := 0
		for _, n := range r.Errors {
			errs += n
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.0f | %s | %s | %s | %s | %s |", r.Name, r.Sent, r.OK, errs, r.Dropped,
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
	if o := rep.Overhead; o != nil {
		fmt.Fprintf(w, "\n## Proxy overhead vs direct upstream\n\n| percentile | difference | ratio |\n|---|---|---|\n")
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

var runColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd"}

// LatencySVG draws two panels: p50/p90/p99 per second over time for each
// run, and the latency histogram of each run (log-scaled latency axis).
func LatencySVG(runs []RunResult) string {
	const W, H, pad = 900, 640, 60
	const panelH = 230
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", W, H, W, H)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")

	// Panel 1: percentiles over time.
	top := 40
	var maxT int
	var maxLat time.Duration
	for _, r := range runs {
		maxT = max(maxT, len(r.Seconds))
		for _, s := range r.Seconds {
			maxLat = max(maxLat, s.P99)
		}
	}
	maxT = max(maxT, 1)
	maxLat = max(maxLat, time.Microsecond)
	plotW := W - 2*pad
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14">latency per second (p50 solid, p90 dashed, p99 dotted)</text>`+"\n", pad, top-15)
	axes(&b, pad, top, plotW, panelH, fmt.Sprintf("%ds", maxT), fmtDur(maxLat))
	for ri, r := range runs {
		col := runColors[ri%len(runColors)]
		for pi, pick := range []func(Second) time.Duration{
			func(s Second) time.Duration { return s.P50 },
			func(s Second) time.Duration { return s.P90 },
			func(s Second) time.Duration { return s.P99 },
		} {
			var pts []string
			for _, s := range r.Seconds {
				if s.N == 0 {
					continue
				}
				x := pad + int(float64(s.T)+0.5)*plotW/maxT
				y := top + panelH - int(float64(pick(s))/float64(maxLat)*panelH)
				pts = append(pts, fmt.Sprintf("%d,%d", x, y))
			}
			dash := []string{"", ` stroke-dasharray="6,3"`, ` stroke-dasharray="2,3"`}[pi]
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>`+"\n", col, dash, strings.Join(pts, " "))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", W-pad-120, top+15+14*ri, col, esc(r.Name))
	}

	// Panel 2: histogram on a shared log axis.
	top2 := top + panelH + 90
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	maxCount := 1
	for _, r := range runs {
		for _, h := range r.Hist {
			lo, hi = min(lo, h.Lo), max(hi, h.Hi)
			maxCount = max(maxCount, h.Count)
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14">latency histogram (log scale)</text>`+"\n", pad, top2-15)
	if hi > lo {
		axes(&b, pad, top2, plotW, panelH, fmtDur(hi), fmt.Sprint(maxCount))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", pad, top2+panelH+15, fmtDur(lo))
		xOf := func(d time.Duration) float64 {
			return float64(pad) + (math.Log10(float64(d))-math.Log10(float64(lo)))/(math.Log10(float64(hi))-math.Log10(float64(lo)))*float64(plotW)
		}
		for ri, r := range runs {
			col := runColors[ri%len(runColors)]
			for _, h := range r.Hist {
				if h.Count == 0 {
					continue
				}
				x0, x1 := xOf(h.Lo), xOf(h.Hi)
				hgt := float64(h.Count) / float64(maxCount) * panelH
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.45"/>`+"\n",
					x0, float64(top2+panelH)-hgt, max(x1-x0-1, 1), hgt, col)
			}
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func axes(b *strings.Builder, x, y, w, h int, xMax, yMax string) {
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", x, y+h, x+w, y+h)
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", x, y, x, y+h)
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", x+w, y+h+15, esc(xMax))
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", x-4, y+10, esc(yMax))
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">0</text>`+"\n", x-4, y+h)
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
