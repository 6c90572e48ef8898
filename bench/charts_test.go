package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/answer-guard/guard/gate"
)

// checkChart asserts dir/base.png decodes as a PNG of the chart's size
// with more than a blank page on it, and dir/base.svg is well-formed XML
// whose root is <svg> and which draws paths and text. It returns the SVG's
// text content.
func checkChart(t *testing.T, dir, base string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, base+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s.png: %v", base, err)
	}
	b := img.Bounds()
	if b.Dx() < 900 || b.Dy() < 500 {
		t.Errorf("%s.png is %dx%d, want at least 900x500", base, b.Dx(), b.Dy())
	}
	colors := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colors[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
		}
	}
	if len(colors) < 8 {
		t.Errorf("%s.png has %d colours: nothing drawn", base, len(colors))
	}

	raw, err := os.ReadFile(filepath.Join(dir, base+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	var root string
	var text strings.Builder
	elems := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s.svg is not well-formed XML: %v", base, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			elems[tok.Name.Local]++
		case xml.CharData:
			text.Write(tok)
			text.WriteByte(' ')
		}
	}
	if root != "svg" || elems["path"] < 10 || elems["text"] < 5 {
		t.Errorf("%s.svg: root <%s>, %d paths, %d texts; want <svg> with axes, lines and labels", base, root, elems["path"], elems["text"])
	}
	return text.String()
}

// A ten-second run of two targets, one second without a successful
// request, latencies from 300us to 40ms.
func chartRuns() []RunResult {
	var runs []RunResult
	for i, name := range []string{"proxy", "direct"} {
		var all []time.Duration
		r := RunResult{Name: name}
		for s := range 10 {
			if s == 6 {
				r.Seconds = append(r.Seconds, Second{T: s, Errors: 3})
				continue
			}
			var ds []time.Duration
			for k := range 200 {
				d := time.Duration(300+k*k*(i+1)) * time.Microsecond
				ds = append(ds, d+time.Duration(s)*50*time.Microsecond)
			}
			all = append(all, ds...)
			p := percentiles(slices.Clone(ds))
			r.Seconds = append(r.Seconds, Second{T: s, N: len(ds), P50: p.P50, P90: p.P90, P99: p.P99})
		}
		r.Latency = percentiles(slices.Clone(all))
		r.Hist = histogram(all)
		runs = append(runs, r)
	}
	return runs
}

func TestLoadChartsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := WriteLoadCharts(dir, chartRuns()); err != nil {
		t.Fatal(err)
	}
	checkChart(t, dir, LatencyTimeChart)
	text := checkChart(t, dir, LatencyHistChart)
	// The log axis is labelled in time units at 1, 2 and 5 of each decade.
	for _, want := range []string{"500us", "1ms", "2ms", "5ms", "10ms", "20ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("histogram axis lacks the label %q: %s", want, text)
		}
	}
}

// A run without one successful request still writes its report, says
// why there is no chart, and writes none.
func TestReportWithoutSamples(t *testing.T) {
	dir := t.TempDir()
	rep := LoadReport{Config: LoadConfig{Concurrency: 1, Duration: time.Second},
		Runs: []RunResult{{Name: "proxy", Errors: map[string]int{"http_502": 4}, Seconds: []Second{{T: 0, Errors: 4}}}}}
	if err := WriteReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "no charts: ") {
		t.Errorf("report.md does not say why it has no chart:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, LatencyTimeChart+".png")); !os.IsNotExist(err) {
		t.Errorf("chart written for a run without samples (stat: %v)", err)
	}
}

func TestDurationLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range (durationLogTicks{}).Ticks(0.3, 40) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"100us", "200us", "500us", "1ms", "2ms", "5ms", "10ms", "20ms", "50ms", "100ms", "200ms", "500ms"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	if got := (durationLogTicks{}).Ticks(0, 1); got != nil {
		t.Errorf("ticks for a non-positive range: %v", got)
	}
}

func TestGateChartFiles(t *testing.T) {
	score := func(ans, unans []float64) GateScore {
		return GateScore{Answerable: len(ans), Unanswerable: len(unans), AnswerableMax: ans, UnanswerableMax: unans}
	}
	rep := GateReport{Rows: []GateRow{
		{System: sysBefore, Set: "halueval-train", Fit: "main's model", Score: score([]float64{0.99}, nil)},
		{System: sysShipped, Set: "halueval-train", Fit: "out-of-sample", Score: score([]float64{0.9, 0.8}, []float64{0.1, 0.2})},
		{System: sysShipLex, Set: "halueval-train", Fit: "out-of-sample", Score: score([]float64{0.9}, []float64{0.1})},
		{System: sysLOO, Set: "bikes", Fit: "out-of-sample", Score: score([]float64{0.7}, []float64{0.3, 0.45})},
		{System: sysShipped, Set: "bikes", Fit: "in-sample", Score: score([]float64{0.75, 0.72, 0.5, 0.6}, []float64{0.25, 0.2, 0.1})},
		{System: sysShipped, Set: "hotel", Fit: "frozen test", Score: score([]float64{0.86}, []float64{0.14})},
	}}
	in, out := gateChartRows(rep)
	sets := func(rows []GateRow) (s []string) {
		for _, r := range rows {
			s = append(s, r.System+"/"+r.Set)
		}
		return s
	}
	if got, want := sets(in), []string{sysShipped + "/bikes"}; !slices.Equal(got, want) {
		t.Errorf("in-sample rows %v, want %v", got, want)
	}
	if got, want := sets(out), []string{sysShipped + "/halueval-train", sysLOO + "/bikes"}; !slices.Equal(got, want) {
		t.Errorf("out-of-sample rows %v, want %v (each question once)", got, want)
	}
	dir := t.TempDir()
	cfg := gate.DefaultConfig()
	if err := WriteGateChart(dir, rep, cfg); err != nil {
		t.Fatal(err)
	}
	text := checkChart(t, dir, GateCoverageChart)
	for _, want := range []string{"in-sample (4 answerable, 3 unanswerable)", "out-of-sample (3 answerable, 4 unanswerable)",
		"bail_out_below 0.40", "sufficient_max 0.55", "good_enough_max 0.65", fmt.Sprintf("planner.min_support %.2f", cfg.Planner.MinSupport)} {
		if !strings.Contains(text, want) {
			t.Errorf("gate chart lacks %q: %s", want, text)
		}
	}
}

// The legend of every chart sits beside the plot, not over its data: the
// legend's rectangle starts right of where the plot (axes and data) ends,
// below the title, and inside the canvas.
func TestLegendOutsideData(t *testing.T) {
	tp, err := latencyTimePlot(chartRuns())
	if err != nil {
		t.Fatal(err)
	}
	hp, err := latencyHistPlot(chartRuns())
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*plot.Plot{"latency-time": tp, "latency-hist": hp} {
		c := draw.New(vgimg.New(8*vg.Inch, 4.5*vg.Inch))
		plotR, legR := drawLegendOutside(p, c)
		if legR.Size().X <= 0 || legR.Size().Y <= 0 {
			t.Errorf("%s: no legend drawn", name)
			continue
		}
		if legR.Min.X < plotR.Max.X {
			t.Errorf("%s: legend starts at x=%v, inside the plot (which ends at x=%v)", name, legR.Min.X, plotR.Max.X)
		}
		if legR.Max.X > c.Max.X || legR.Min.Y < c.Min.Y || legR.Max.Y >= c.Max.Y {
			t.Errorf("%s: legend %v not inside the canvas %v below its top", name, legR, c.Rectangle)
		}
	}
}
