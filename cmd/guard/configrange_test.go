package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rangeRE finds a numeric range a configs/guard.yaml comment states:
// "[a,b]", "(a,b]", "[a,b)" (with or without "in"); boundRE a lower bound "(>= n)",
// "; >= n" or "(> 0)".
var (
	rangeRE = regexp.MustCompile(`([\[(])\s*(-?[0-9.]+)\s*,\s*(-?[0-9.]+)\s*([\])])`)
	boundRE = regexp.MustCompile(`(?:\(|; )(>=?) ?(-?[0-9.]+)\)?`)
	leafRE  = regexp.MustCompile(`^( *)([a-z_0-9]+): (-?[0-9.]+|[0-9][0-9hms.]*)  # (.*)$`)
	keyRE   = regexp.MustCompile(`^( *)([a-z_0-9]+):`)
)

// TestShippedConfigRangesAreEnforced reads every numeric range that a
// comment of configs/guard.yaml states and checks the validator agrees: a
// value just outside it is refused with the key's path, a value on a closed
// end is not refused for this key. A comment and the code cannot drift apart
// unnoticed.
func TestShippedConfigRangesAreEnforced(t *testing.T) {
	b, err := os.ReadFile("../../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	probes := 0
	var stack []string
	for _, line := range strings.Split(string(b), "\n") {
		m := leafRE.FindStringSubmatch(line)
		if m == nil {
			if k := keyRE.FindStringSubmatch(line); k != nil {
				depth := len(k[1]) / 4
				stack = append(stack[:min(depth, len(stack))], k[2])
			}
			continue
		}
		depth := len(m[1]) / 4
		stack = append(stack[:min(depth, len(stack))], m[2])
		path := strings.Join(stack, ".")
		unit := "" // probes of a duration are written in seconds
		if _, err := strconv.ParseFloat(m[3], 64); err != nil {
			unit = "s"
		}
		comment := m[4]
		type probe struct {
			v      float64
			accept bool
		}
		var ps []probe
		if r := rangeRE.FindStringSubmatch(comment); r != nil {
			lo, _ := strconv.ParseFloat(r[2], 64)
			hi, _ := strconv.ParseFloat(r[3], 64)
			if r[1] == "[" {
				ps = append(ps, probe{lo - 1, false}, probe{lo, true})
			} else {
				ps = append(ps, probe{lo, false})
			}
			if r[4] == "]" {
				ps = append(ps, probe{hi + 1, false}, probe{hi, true})
			} else {
				ps = append(ps, probe{hi, false})
			}
		} else if r := boundRE.FindStringSubmatch(comment); r != nil {
			lo, _ := strconv.ParseFloat(r[2], 64)
			if r[1] == ">=" {
				ps = append(ps, probe{lo - 1, false}, probe{lo, true})
			} else {
				ps = append(ps, probe{lo, false})
			}
		}
		for _, p := range ps {
			var y strings.Builder
			for i, k := range stack[:len(stack)-1] {
				y.WriteString(strings.Repeat("    ", i) + k + ":\n")
			}
			val := strconv.FormatFloat(p.v, 'f', -1, 64) + unit
			y.WriteString(strings.Repeat("    ", len(stack)-1) + stack[len(stack)-1] + ": " + val + "\n")
			f := filepath.Join(dir, "probe.yaml")
			if err := os.WriteFile(f, []byte(y.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			probes++
			_, err := loadFile(f)
			switch {
			case p.accept && err != nil && strings.Contains(err.Error(), " "+path+":"):
				// (a refusal naming only another key is that key's cross-key
				// bound, stated in its own comment: agree in [1, votes])
				t.Errorf("%s: %s is on the range its comment states (%q) but is refused: %v", path, val, comment, err)
			case !p.accept && err == nil:
				t.Errorf("%s: %s is outside the range its comment states (%q) but is accepted", path, val, comment)
			case !p.accept && !strings.Contains(err.Error(), " "+path+":"):
				t.Errorf("%s: %s refused without naming the key: %v", path, val, err)
			}
		}
	}
	t.Logf("%d probes of the ranges configs/guard.yaml states", probes)
	if probes < 100 {
		t.Errorf("only %d probes: the comment parser no longer reads configs/guard.yaml", probes)
	}
}
