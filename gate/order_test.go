package gate

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// byHigher with slices.SortStableFunc orders as sort.SliceStable did with
// "a > b": ties, NaN and pools longer than one insertion-sort block.
func TestByHigherAsSliceStable(t *testing.T) {
	vals := []float64{0.5, 0.5, 0.9, math.NaN(), 0, 1, 0.25, -1, 0.9, math.NaN(), 0.7}
	for i := range 3000 {
		n := 1 + i%45
		rel := make([]float64, n)
		for k := range rel {
			rel[k] = vals[(i*7+k*k*3+k)%len(vals)]
		}
		want := make([]int, n)
		got := make([]int, n)
		for k := range want {
			want[k], got[k] = k, k
		}
		sort.SliceStable(want, func(a, b int) bool { return rel[want[a]] > rel[want[b]] })
		slices.SortStableFunc(got, func(a, b int) int { return byHigher(rel[a], rel[b]) })
		if !slices.Equal(got, want) {
			t.Fatalf("rel %v: order %v, want %v", rel, got, want)
		}
	}
}

// topicOf reads the words Fields gives, the first nine at most.
func TestTopicOfAsFields(t *testing.T) {
	old := func(c Candidate) string {
		if t := strings.Join(strings.Fields(c.Title), " "); t != "" {
			return t
		}
		words := strings.Fields(c.Text)
		if len(words) <= topicLeadWords {
			return strings.TrimRight(strings.Join(words, " "), ".,;:")
		}
		return strings.TrimRight(strings.Join(words[:topicLeadWords], " "), ".,;:") + " …"
	}
	parts := []string{"Rent", " ", "  ", "\n", "is due.", "\u00a0", "on", "1 October;", "\t", "x", ":", "café"}
	for i := range 3000 {
		var title, text strings.Builder
		for k := range i % 5 {
			title.WriteString(parts[(i*3+k*5)%len(parts)])
		}
		for k := range i % 23 {
			text.WriteString(parts[(i*7+k*k*3+k)%len(parts)])
		}
		c := Candidate{Title: title.String(), Text: text.String()}
		if got, want := topicOf(c), old(c); got != want {
			t.Fatalf("topicOf(%q, %q) = %q, want %q", c.Title, c.Text, got, want)
		}
	}
}
