package bench

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/answer-guard/guard/gate"
)

// Charts are drawn with gonum/plot and written twice, as NAME.png and
// NAME.svg, into the report folder: the load report's latency over time and
// latency histogram, and the gate report's coverage histogram.

// Chart file base names inside the report folder.
const (
	LatencyTimeChart  = "latency-time"
	LatencyHistChart  = "latency-hist"
	GateCoverageChart = "gate-coverage"
)

// errNoSamples: a run without one successful request has nothing to chart.
var errNoSamples = errors.New("no successful request to chart")

// chartDPI is the PNG resolution: 8 x 4.5 in at 120 dpi is 960 x 540 px.
const chartDPI = 120

var runColors = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

func runColor(i int) color.Color { return runColors[i%len(runColors)] }

// translucent returns c with alpha a (premultiplied, as color.RGBA wants).
func translucent(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 0xff
	return color.RGBA{R: uint8(float64(r>>8) * f), G: uint8(float64(g>>8) * f), B: uint8(float64(b>>8) * f), A: a}
}

var (
	dashP90 = []vg.Length{vg.Points(6), vg.Points(3)}
	dashP99 = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
)

// latencyTimePlot draws p50, p90 and p99 of each second of each run
// (milliseconds over seconds since the run started). Seconds without a
// successful request leave a gap.
func latencyTimePlot(runs []RunResult) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Latency per second (p50 solid, p90 dashed, p99 dotted)"
	p.X.Label.Text = "time since the run started (s)"
	p.Y.Label.Text = "latency (log axis)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = durationLogTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Title.Padding = vg.Points(6)
	points := 0
	lo, hi := math.Inf(1), 0.0
	for ri, r := range runs {
		for pi, pick := range []func(Second) time.Duration{
			func(s Second) time.Duration { return s.P50 },
			func(s Second) time.Duration { return s.P90 },
			func(s Second) time.Duration { return s.P99 },
		} {
			// One line per stretch of seconds with samples.
			var segs []plotter.XYs
			var cur plotter.XYs
			for _, s := range r.Seconds {
				if s.N == 0 {
					if len(cur) > 0 {
						segs, cur = append(segs, cur), nil
					}
					continue
				}
				y := max(ms(pick(s)), 1e-3) // a log axis: at least 1us
				lo, hi = min(lo, y), max(hi, y)
				cur = append(cur, plotter.XY{X: float64(s.T) + 0.5, Y: y})
			}
			if len(cur) > 0 {
				segs = append(segs, cur)
			}
			for si, seg := range segs {
				l, sc, err := plotter.NewLinePoints(seg)
				if err != nil {
					return nil, err
				}
				l.Color = runColor(ri)
				l.Width = vg.Points(1.5)
				l.Dashes = [][]vg.Length{nil, dashP90, dashP99}[pi]
				sc.Color = runColor(ri)
				sc.Radius = vg.Points(1.5)
				sc.Shape = draw.CircleGlyph{}
				p.Add(l, sc)
				if si == 0 {
					p.Legend.Add(fmt.Sprintf("%s %s", r.Name, []string{"p50", "p90", "p99"}[pi]), l)
				}
				points += len(seg)
			}
		}
	}
	if points == 0 {
		return nil, fmt.Errorf("latency over time: %w", errNoSamples)
	}
	// The legend sits beside the data (drawLegendOutside): no headroom.
	p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
	return p, nil
}

// latencyHistPlot draws each run's latency histogram (the report's
// log-spaced bins) on a logarithmic latency axis labelled in time units.
func latencyHistPlot(runs []RunResult) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Latency histogram (log latency axis)"
	p.X.Label.Text = "latency"
	p.Y.Label.Text = "requests per bin"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = durationLogTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Y.Min = 0
	bars, top := 0, 0.0
	for ri, r := range runs {
		h := &plotter.Histogram{FillColor: translucent(runColor(ri), 0x70)}
		h.LineStyle = draw.LineStyle{Color: runColor(ri), Width: vg.Points(0.8)}
		for _, b := range r.Hist {
			if b.Lo <= 0 || b.Hi <= b.Lo {
				continue
			}
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: ms(b.Lo), Max: ms(b.Hi), Weight: float64(b.Count)})
			top = max(top, float64(b.Count))
			bars++
		}
		if len(h.Bins) == 0 {
			continue
		}
		p.Add(h)
		p.Legend.Add(r.Name, h)
	}
	if bars == 0 {
		return nil, fmt.Errorf("latency histogram: %w", errNoSamples)
	}
	p.Title.Padding = vg.Points(6)
	p.Y.Max = top * 1.15
	return p, nil
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// durationLogTicks ticks a logarithmic axis in milliseconds: every 1, 2 and
// 5 of each decade is labelled in a fitting unit (us, ms, s), the other
// integers of the decade are minor ticks.
type durationLogTicks struct{}

func (durationLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		dec := math.Pow(10, e)
		for i := 1; i < 10; i++ {
			v := dec * float64(i)
			t := plot.Tick{Value: v}
			if i == 1 || i == 2 || i == 5 {
				t.Label = fmtTick(time.Duration(math.Round(v * 1e6)))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// fmtTick prints a round duration briefly: 200us, 5ms, 1s.
func fmtTick(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return trimZero(float64(d)/1e3) + "us"
	case d < time.Second:
		return trimZero(float64(d)/1e6) + "ms"
	}
	return trimZero(d.Seconds()) + "s"
}

func trimZero(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g", v), ".0") }

// gateCoveragePlots draws two coverage histograms of the gate suite side
// by side: the highest calibrated relevance (coverage max) of each
// question, answerable and unanswerable apart, in-sample (each set under a
// model fitted on it) and out-of-sample (each set under a model that never
// saw it), with the gate's thresholds from cfg as vertical lines.
func gateCoveragePlots(rep GateReport, cfg gate.Config) ([]*plot.Plot, error) {
	in, out := gateChartRows(rep)
	// One count axis for both panels, so their bars compare.
	maxCount := 1.0
	for _, rows := range [][]GateRow{in, out} {
		for _, vs := range coverageSeries(rows) {
			for _, c := range coverageCounts(vs) {
				maxCount = max(maxCount, c)
			}
		}
	}
	var plots []*plot.Plot
	for _, part := range []struct {
		title string
		rows  []GateRow
	}{{"in-sample", in}, {"out-of-sample", out}} {
		p, err := coveragePlot(part.title, part.rows, cfg, maxCount)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	return plots, nil
}

// gateChartRows picks the rows of the gate chart so that each question
// appears once per panel: in-sample, the shipped models on the dev
// corpora; out-of-sample, each dev corpus under the models fitted without
// it and the shipped models on the sets outside their fit (HaluEval).
func gateChartRows(rep GateReport) (in, out []GateRow) {
	for _, r := range rep.Rows {
		switch {
		case r.System == sysShipped && r.Fit == "in-sample":
			in = append(in, r)
		case (r.System == sysLOO || r.System == sysShipped) && r.Fit == "out-of-sample":
			out = append(out, r)
		}
	}
	return in, out
}

// coverageBins is the gate chart's number of bins over [0, 1].
const coverageBins = 20

// coverageSeries returns the coverage max of the answerable and of the
// unanswerable questions of rows.
func coverageSeries(rows []GateRow) [2][]float64 {
	var s [2][]float64
	for _, r := range rows {
		s[0] = append(s[0], r.Score.AnswerableMax...)
		s[1] = append(s[1], r.Score.UnanswerableMax...)
	}
	return s
}

// coverageCounts bins vs into coverageBins equal bins over [0, 1].
func coverageCounts(vs []float64) []float64 {
	counts := make([]float64, coverageBins)
	for _, v := range vs {
		counts[min(max(int(v*coverageBins), 0), coverageBins-1)]++
	}
	return counts
}

func coveragePlot(title string, rows []GateRow, cfg gate.Config, maxCount float64) (*plot.Plot, error) {
	series := coverageSeries(rows)
	ans, unans := series[0], series[1]
	var sets []string
	for _, r := range rows {
		sets = append(sets, r.Set)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Gate coverage, %s (%d answerable, %d unanswerable)", title, len(ans), len(unans))
	p.X.Label.Text = "coverage max (calibrated answerability)\n" + wrapList(sets, 70)
	p.Y.Label.Text = "questions"
	p.X.Min, p.X.Max = 0, 1
	var xt []plot.Tick
	for i := 0; i <= 20; i++ {
		t := plot.Tick{Value: float64(i) / 20}
		if i%2 == 0 {
			t.Label = fmt.Sprintf("%.1f", t.Value)
		}
		xt = append(xt, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, part := range []struct {
		name string
		vs   []float64
	}{{"answerable", ans}, {"unanswerable", unans}} {
		h := &plotter.Histogram{Width: 1.0 / coverageBins, FillColor: translucent(runColor(i), 0x70)}
		h.LineStyle = draw.LineStyle{Color: runColor(i), Width: vg.Points(0.8)}
		for b, c := range coverageCounts(part.vs) {
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: float64(b) / coverageBins, Max: float64(b+1) / coverageBins, Weight: c})
		}
		p.Add(h)
		p.Legend.Add(part.name, h)
	}
	// The legend sits beside the data (drawLegendOutside).
	lineTop := maxCount * 1.1
	p.Y.Max = maxCount * 1.15
	p.Title.Padding = vg.Points(6)
	for i, th := range []struct {
		name string
		v    float64
	}{
		{"planner.min_support", cfg.Planner.MinSupport},
		{"bail_out_below", cfg.BailOutBelow},
		{"sufficient_max", cfg.SufficientMax},
		{"good_enough_max", cfg.GoodEnoughMax},
	} {
		l, err := plotter.NewLine(plotter.XYs{{X: th.v, Y: 0}, {X: th.v, Y: lineTop}})
		if err != nil {
			return nil, err
		}
		l.Color = thresholdColors[i]
		l.Width = vg.Points(1.5)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s %.2f", th.name, th.v), l)
	}
	return p, nil
}

var thresholdColors = []color.Color{
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// wrapList joins names with ", " and breaks the line before it exceeds
// width characters.
func wrapList(names []string, width int) string {
	var b strings.Builder
	line := 0
	for i, n := range names {
		if i > 0 {
			if line+2+len(n) > width {
				b.WriteString(",\n")
				line = 0
			} else {
				b.WriteString(", ")
				line += 2
			}
		}
		b.WriteString(n)
		line += len(n)
	}
	return "sets: " + b.String()
}

// drawLegendOutside draws p into c with its legend in a column at the
// right, beside the data rather than over it, its top level with the top
// of the data area. It returns the rectangles the plot and the legend
// were drawn in (the legend's is empty when p has no legend entries).
func drawLegendOutside(p *plot.Plot, c draw.Canvas) (plotR, legendR vg.Rectangle) {
	leg := p.Legend
	leg.Padding = max(leg.Padding, vg.Points(2))
	w := leg.Rectangle(c).Size().X
	if w == 0 {
		p.Draw(c)
		return c.Rectangle, vg.Rectangle{}
	}
	gap := vg.Points(8)
	pc := draw.Crop(c, 0, -(w + 2*gap), 0, 0)
	p.Legend = plot.NewLegend()
	p.Draw(pc)
	p.Legend = leg
	top := p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding + gap
	lc := draw.Crop(c, c.Size().X-(w+gap), 0, 0, -top)
	leg.Top, leg.Left = true, true
	leg.Draw(lc)
	return pc.Rectangle, leg.Rectangle(lc)
}

// saveChart draws plots side by side (one row) at w x h and writes
// dir/base.png and dir/base.svg.
func saveChart(dir, base string, w, h vg.Length, plots ...*plot.Plot) error {
	if len(plots) == 0 {
		return errors.New("save chart: no plots")
	}
	for _, format := range []string{"png", "svg"} {
		var c vg.CanvasWriterTo
		switch format {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(chartDPI), vgimg.UseBackgroundColor(color.White))}
		case "svg":
			c = vgsvg.NewWith(vgsvg.UseWH(w, h))
		}
		dc := draw.New(c)
		if format == "svg" {
			// vgsvg leaves the background transparent.
			dc.SetColor(color.White)
			dc.Fill(dc.Rectangle.Path())
		}
		if len(plots) == 1 {
			drawLegendOutside(plots[0], dc)
		} else {
			tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4}
			for i, p := range plots {
				drawLegendOutside(p, tiles.At(dc, i, 0))
			}
		}
		path := filepath.Join(dir, base+"."+format)
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("write chart: %w", err)
		}
		_, err = c.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// WriteLoadCharts writes the load report's two charts into dir.
func WriteLoadCharts(dir string, runs []RunResult) error {
	tp, err := latencyTimePlot(runs)
	if err != nil {
		return err
	}
	if err := saveChart(dir, LatencyTimeChart, 8*vg.Inch, 4.5*vg.Inch, tp); err != nil {
		return err
	}
	hp, err := latencyHistPlot(runs)
	if err != nil {
		return err
	}
	return saveChart(dir, LatencyHistChart, 8*vg.Inch, 4.5*vg.Inch, hp)
}

// WriteGateChart writes the gate report's coverage chart into dir.
func WriteGateChart(dir string, rep GateReport, cfg gate.Config) error {
	ps, err := gateCoveragePlots(rep, cfg)
	if err != nil {
		return err
	}
	return saveChart(dir, GateCoverageChart, 12*vg.Inch, 5*vg.Inch, ps...)
}
