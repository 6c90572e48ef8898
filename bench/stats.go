package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// percentiles computes exact percentiles (nearest rank) of ds. ds is sorted
// in place.
func percentiles(ds []time.Duration) Percentiles {
	p := Percentiles{N: len(ds)}
	if len(ds) == 0 {
		return p
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	p.Mean = sum / time.Duration(len(ds))
	p.P50 = rank(ds, 0.50)
	p.P90 = rank(ds, 0.90)
	p.P99 = rank(ds, 0.99)
	p.P999 = rank(ds, 0.999)
	p.Max = ds[len(ds)-1]
	return p
}

// rank is the nearest-rank percentile q of sorted ds.
func rank(ds []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// perSecond buckets samples by the second they were sent in.
func perSecond(samples []sample) []Second {
	var buckets [][]time.Duration
	var errs []int
	for _, s := range samples {
		t := int(s.at / time.Second)
		for len(buckets) <= t {
			buckets = append(buckets, nil)
			errs = append(errs, 0)
		}
		if s.kind != "" {
			errs[t]++
			continue
		}
		buckets[t] = append(buckets[t], s.lat)
	}
	out := make([]Second, len(buckets))
	for t, b := range buckets {
		p := percentiles(b)
		out[t] = Second{T: t, N: len(b), Errors: errs[t], P50: p.P50, P90: p.P90, P99: p.P99}
	}
	return out
}

// HistBin counts latencies in [Lo, Hi).
type HistBin struct {
	Lo    time.Duration `json:"lo_ns"`
	Hi    time.Duration `json:"hi_ns"`
	Count int           `json:"count"`
}

// histogram bins latencies on a log scale, 8 bins per decade, from the
// smallest to the largest sample.
func histogram(ds []time.Duration) []HistBin {
	if len(ds) == 0 {
		return nil
	}
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	lo = max(lo, time.Microsecond)
	const perDecade = 8
	start := math.Floor(math.Log10(float64(lo)) * perDecade)
	end := math.Floor(math.Log10(float64(max(hi, lo)))*perDecade) + 1
	n := int(end - start)
	bins := make([]HistBin, n)
	for i := range bins {
		bins[i].Lo = time.Duration(math.Pow(10, (start+float64(i))/perDecade))
		bins[i].Hi = time.Duration(math.Pow(10, (start+float64(i)+1)/perDecade))
	}
	for _, d := range ds {
		i := int(math.Floor(math.Log10(float64(max(d, lo)))*perDecade) - start)
		bins[min(max(i, 0), n-1)].Count++
	}
	return bins
}

// fmtDur prints a duration with 3 significant digits in a fitting unit.
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fus", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
