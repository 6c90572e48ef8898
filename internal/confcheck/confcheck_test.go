package confcheck

import (
	"errors"
	"fmt"
	"reflect"
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
	}{{"", "", 0}, {"prefloor", "prefloorr", 1}, {"adr", "addr", 1}, {"kitten", "sitting", 3}, {"satte", "state", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}} {
		if got := distance(tt.a, tt.b); got != tt.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

type key struct {
	Name   string   `yaml:"name"`
	SHA256 string   `yaml:"sha256"`
	Tenant string   `yaml:"tenant"`
	KBs    []string `yaml:"kbs"`
}

type keys struct {
	Keys []key `yaml:"keys"`
}

// validate is what a section's Validate says of keys: every key needs
// its sha256, tenant and a KB.
func (k keys) validate() error {
	var errs []error
	for i, x := range k.Keys {
		if len(x.SHA256) != 4 {
			errs = append(errs, fmt.Errorf("keys[%d].sha256: want 4 digits", i))
		}
		if x.Tenant == "" {
			errs = append(errs, fmt.Errorf("keys[%d].tenant: required", i))
		}
		if len(x.KBs) == 0 {
			errs = append(errs, fmt.Errorf("keys[%d].kbs: at least one kb required", i))
		}
	}
	return errors.Join(errs...)
}

// TestReportedOnce: one mistake is one problem. A value left out of the
// decode is not reported again by Validate (kbs: k is not also "no kb"),
// nor is the key a misspelt one meant to set (sha for sha256); a list
// item left out keeps the items after it at their index and line; a
// merge key (<<: *anchor) is no unknown key and its keys count.
func TestReportedOnce(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"scalar for a list", "keys:\n  - {name: a, sha256: abcd, tenant: t, kbs: k}\n",
			[]string{`k.yaml:2: keys[0].kbs: must be a list, got "k"`}},
		{"misspelt key", "keys:\n  - name: a\n    sha: abcd\n    tenant: t\n    kbs: [k]\n",
			[]string{"k.yaml:3: keys[0].sha: unknown key (did you mean keys[0].sha256?)"}},
		{"misspelt key beside the right one", "keys:\n  - name: a\n    sha: abcd\n    sha256: abc\n    tenant: t\n    kbs: [k]\n",
			[]string{"k.yaml:3: keys[0].sha: unknown key (did you mean keys[0].sha256?)", "k.yaml:4: keys[0].sha256: want 4 digits"}},
		{"bad item", "keys:\n  - name\n  - name: b\n    sha256: abcd\n    kbs: [k]\n",
			[]string{`k.yaml:2: keys[0]: must be a section of keys (key: value), got "name"`, "k.yaml:3: keys[1].tenant: required"}},
		{"merge key", "keys:\n  - &a {name: a, sha256: abcd, tenant: t, kbs: [k]}\n  - <<: *a\n    name: b\n    tenat: u\n",
			[]string{"k.yaml:5: keys[1].tenat: unknown key (did you mean keys[1].tenant?)"}},
	} {
		var c keys
		f, probs := Decode("k.yaml", []byte(tt.text), &c)
		probs = append(probs, f.Attach(c.validate())...)
		probs.Sort()
		if got := probs.Lines(); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestSuggest: the misspellings operators make of real keys, each with
// the key it meant; a word that means several keys names them; nothing
// for a key that is no misspelling.
func TestSuggest(t *testing.T) {
	fields := map[string]reflect.Type{}
	for _, f := range []string{"sha256", "tenant", "kbs", "max_body_bytes", "max_header_bytes", "read_timeout", "idle_timeout",
		"base_url", "reask_limit", "max_entries", "similarity", "dir", "redis_url", "redis_ttl", "redis_flush", "enabled", "mode", "m", "addr"} {
		fields[f] = nil
	}
	for _, tt := range []struct{ k, want string }{
		{"sha", "sha256"}, {"sha256sum", "sha256"}, {"tenat", "tenant"}, {"kb", "kbs"},
		{"maxBodyBytes", "max_body_bytes"}, {"max-header-bytes", "max_header_bytes"}, {"max_body", "max_body_bytes"},
		{"read_timout", "read_timeout"}, {"timeout", "idle_timeout read_timeout"}, {"baseurl", "base_url"},
		{"reask", "reask_limit"}, {"max_entry", "max_entries"}, {"similarity_threshold", "similarity"},
		{"directory", "dir"}, {"redis", "redis_flush redis_ttl redis_url"}, {"enable", "enabled"},
		{"type", ""}, {"retries", ""}, {"x", ""}, {"ma", ""}, {"tenatn", "tenant"}, {"mdoe", "mode"},
		{"address", "addr"}, {"modes_x", ""},
		// a deletion and more (adress for address, which means addr)
		{"adress", "addr"}, {"adresss", "addr"},
		// short words name no unrelated key (url is not dir, kid not kbs)
		{"url", "base_url redis_url"}, {"kid", ""}, {"ttl", "redis_ttl"}, {"dim", "dir"}, {"mod", "mode"}, {"key", ""}, {"mods", "mode"},
	} {
		if got := strings.Join(suggest(tt.k, fields), " "); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.k, got, tt.want)
		}
	}
}

type pool struct {
	Cap   int           `yaml:"cap"`
	TopK  int           `yaml:"top_k"`
	Knots [][2]int      `yaml:"knots"`
	Other int           `yaml:"other"`
	Wait  time.Duration `yaml:"wait"`
}

// validate says what pool's Validate would: ranges, a rule between two
// keys, a rule over the whole list, an independent rule.
func (p pool) validate() error {
	var errs []error
	if p.Cap < 1 {
		errs = append(errs, fmt.Errorf("cap: must be >= 1, got %d", p.Cap))
	}
	if p.Cap > 100 {
		errs = append(errs, fmt.Errorf("cap: must be <= 100, got %d", p.Cap))
	}
	if p.Cap%2 != 0 {
		errs = append(errs, errors.New("cap: must be even"))
	}
	if p.TopK > p.Cap {
		errs = append(errs, fmt.Errorf("top_k: must be in [1,cap], got %d", p.TopK))
	}
	for i := 1; i < len(p.Knots); i++ {
		if p.Knots[i][0] <= p.Knots[i-1][0] {
			errs = append(errs, fmt.Errorf("knots: knot %d: must increase", i))
		}
	}
	if p.Other < 0 {
		errs = append(errs, fmt.Errorf("other: must be >= 0 (unlike cap), got %d", p.Other))
	}
	return errors.Join(errs...)
}

// TestAttachOneLinePerMistake: a key's messages share one line; a rule
// with a key the file sets wrongly is not also reported at the default
// it meets (top_k's, against cap: 0); a list that held a bad item is not
// judged as a whole; a key the file sets keeps its problem whatever it
// names; a rule broken by a good value stays, at the other key.
func TestAttachOneLinePerMistake(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"two messages of one key", "cap: 501\n", []string{"p.yaml:1: cap: must be <= 100, got 501; must be even"}},
		{"a rule with a wrong key", "cap: 0\n", []string{"p.yaml:1: cap: must be >= 1, got 0"}},
		{"a rule with a wrongly typed key", "cap: lots\ntop_k: 3\n", []string{`p.yaml:1: cap: "lots" is not a number`}},
		{"both set", "cap: 0\ntop_k: 9\n", []string{"p.yaml:1: cap: must be >= 1, got 0", "p.yaml:2: top_k: must be in [1,cap], got 9"}},
		{"a good value breaks a rule", "cap: 4\n", []string{"p.yaml: top_k: must be in [1,cap], got 5"}},
		{"independent", "cap: 0\nother: -1\n", []string{"p.yaml:1: cap: must be >= 1, got 0", "p.yaml:2: other: must be >= 0 (unlike cap), got -1"}},
		{"a bad knot", "knots: [[1, 1], x, [0, 0]]\n", []string{`p.yaml:1: knots[1]: must be a list, got "x"`}},
	} {
		c := pool{Cap: 10, TopK: 5}
		f, probs := Decode("p.yaml", []byte(tt.text), &c)
		probs = append(probs, f.Attach(c.validate())...)
		probs.Sort()
		got := probs.Lines()
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

type uniqueCfg struct {
	KBs   []string            `yaml:"kbs" confcheck:"unique"`
	Words map[string][]string `yaml:"words" confcheck:"unique"`
	Pairs [][2]float64        `yaml:"pairs"`
	Any   []string            `yaml:"any"`
}

// TestDecodeUnique: an item listed twice in a list tagged unique (or in
// one list of a map of them) is a problem at the repeat's line; other
// lists may repeat values.
func TestDecodeUnique(t *testing.T) {
	text := `kbs: [a, b, a, a]
words:
  x: [one, two]
  y:
    - one
    - one
pairs: [[0.5, 0.5]]
any: [a, a]
`
	var c uniqueCfg
	_, probs := Decode("u.yaml", []byte(text), &c)
	want := []string{
		`u.yaml:1: kbs[2]: "a" is listed twice (first at line 1); list each once`,
		`u.yaml:1: kbs[3]: "a" is listed twice (first at line 1); list each once`,
		`u.yaml:6: words.y[1]: "one" is listed twice (first at line 5); list each once`,
	}
	if got := probs.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
