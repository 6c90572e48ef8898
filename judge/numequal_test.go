package judge

import (
	"math"
	"testing"
	"unsafe"
)

// keptNumEqual is numEqual as it was when a term kept its unit's dimension
// and its value in the base unit, made when the term was analysed.
func keptNumEqual(claim, ev term, cdim, edim string, cbase, ebase float64) bool {
	if cdim != "" && cdim == edim && units[claim.unit] != units[ev.unit] {
		tol := 1e-9
		if cdim != "time" {
			tol = 0.005
		}
		return math.Abs(cbase-ebase) <= tol*math.Max(math.Abs(cbase), math.Abs(ebase))
	}
	if claim.num == ev.num {
		return true
	}
	p := math.Pow(10, float64(claim.dec))
	return claim.dec > 0 && math.Round(ev.num*p) == math.Round(claim.num*p)
}

// numEqual and dim, reading a unit's dimension and factor from units, agree
// with the dimension and base value a term used to keep, for every pair of
// numbers from texts with units of each dimension, written in words and
// figures, with multipliers and decimals.
func TestNumEqualAsKept(t *testing.T) {
	texts := []string{
		"90 minutes", "1.5 hours", "5400 seconds", "two days", "48 hours", "in 1897", "3 weeks", "21 days",
		"38 metres (125 ft)", "38 m", "125 feet", "12 km", "12,000 m", "7.5 miles", "12.07 kilometres", "3 inches",
		"7.62 cm", "2 kg", "2000 grams", "2.0 kilos", "500 mg", "0.5 g", "3.5 percent", "3.49", "3", "19,114 adults",
		"2 million people", "2,000,000", "one hour", "sixty minutes", "1 yr", "365 days", "0 s", "0 m",
		"1.25 mi", "2011.68 metres", "10 mm", "1 centimetre", "100 ft", "30.48 m", "38.1 m", "12.05 km", "90.2 minutes",
	}
	type num struct {
		t    term
		dim  string
		base float64
	}
	var nums []num
	for _, s := range texts {
		for _, tm := range analyse(s) {
			if !tm.isNum {
				continue
			}
			n := num{t: tm}
			if tm.unit != "" {
				u, ok := units[tm.unit]
				if !ok {
					t.Fatalf("analyse(%q): unit %q not in units", s, tm.unit)
				}
				n.dim, n.base = u.dim, tm.num*u.f
			}
			nums = append(nums, n)
		}
	}
	if len(nums) < len(texts) {
		t.Fatalf("%d numbers from %d texts", len(nums), len(texts))
	}
	converted := 0
	for _, a := range nums {
		if got := a.t.dim(); got != a.dim {
			t.Errorf("dim of %+v = %q, want %q", a.t, got, a.dim)
		}
		for _, b := range nums {
			got := numEqual(a.t, b.t)
			want := keptNumEqual(a.t, b.t, a.dim, b.dim, a.base, b.base)
			if got != want {
				t.Errorf("numEqual(%+v, %+v) = %v, want %v", a.t, b.t, got, want)
			}
			if got && a.dim != "" && a.t.unit != b.t.unit && a.t.num != b.t.num {
				converted++
			}
		}
	}
	if converted == 0 {
		t.Error("no pair matched across units: the test reads nothing of the conversion")
	}
	if sz := unsafe.Sizeof(term{}); sz > 64 {
		t.Errorf("term is %d bytes, want at most 64", sz)
	}
}
