package confcheck

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Level   float64       `yaml:"level"`
	Wait    time.Duration `yaml:"wait"`
	Idle    time.Duration `yaml:"idle"`
	Names   []string      `yaml:"names"`
	Pair    [2]float64    `yaml:"pair"`
	Weights map[string]int
}

type cfg struct {
	Name   string `yaml:"name"`
	On     bool   `yaml:"on"`
	Count  int    `yaml:"count"`
	Inner  inner  `yaml:"inner"`
	Skip   string `yaml:"-"`
	hidden int
}

// TestDecode: every problem of a file in one pass, with its line and key
// path, in plain words; what is good still decodes over the defaults.
func TestDecode(t *testing.T) {
	text := `name: guard
on: perhaps
count: 1.5
inner:
  levle: 2
  level: high
  wait: 30s
  names: one
  idle: 30
  pair: [1, 2, 3]
  weights: {a: 1, b: x}
extra:
  deep: 1
name: again
`
	c := cfg{Count: 7, Inner: inner{Level: 0.5}}
	f, probs := Decode("g.yaml", []byte(text), &c)
	want := []string{
		`g.yaml:2: on: "perhaps" is not true or false`,
		`g.yaml:3: count: "1.5" is not a whole number`,
		`g.yaml:5: inner.levle: unknown key (did you mean inner.level?)`,
		`g.yaml:6: inner.level: "high" is not a number`,
		`g.yaml:8: inner.names: must be a list, got "one"`,
		`g.yaml:9: inner.idle: "30" has no unit`,
		`g.yaml:10: inner.pair: must be a list of exactly 2 values, got 3`,
		`g.yaml:11: inner.weights.b: "x" is not a number`,
		`g.yaml:12: extra: unknown key`,
		`g.yaml:14: name: set twice (first at line 1)`,
	}
	got := probs.Lines()
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range min(len(got), len(want)) {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want %q", i, got[i], want[i])
		}
	}
	if c.Name != "guard" || c.Inner.Wait != 30*time.Second || c.Count != 7 || c.Inner.Level != 0.5 || c.Inner.Weights["a"] != 1 {
		t.Errorf("decoded %+v: want the good keys set and the bad ones left at their defaults", c)
	}
	// Validate's messages are placed at their key, or the nearest
	// enclosing key in the file, or without a line.
	att := f.Attach(errors.Join(errors.New("inner.wait: too long"), errors.New("inner.absent: required"),
		errors.New("nowhere: bad"), errors.New("a sentence: with a colon")))
	wantAtt := []string{"g.yaml:7: inner.wait: too long", "g.yaml:4: inner.absent: required", "g.yaml: nowhere: bad", "g.yaml: a sentence: with a colon"}
	for i, w := range wantAtt {
		if i >= len(att) || att[i].String() != w {
			t.Errorf("attached %d = %v, want %q", i, att, w)
		}
	}
}

func TestDistanceAndSuggest(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"prefloor", "prefloorr", 1}, {"adr", "addr", 1}, {"kitten", "sitting", 3}} {
		if got := distance(tt.a, tt.b); got != tt.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}
