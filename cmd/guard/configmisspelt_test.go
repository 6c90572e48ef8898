package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/answer-guard/guard/check"
	"github.com/answer-guard/guard/internal/confcheck"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// misspellings are the ways a key is commonly mistyped: a letter dropped
// (last or middle), two neighbours swapped, a letter doubled, the
// underscores dropped or written as - or camelCase, a plural s.
func misspellings(k string) []string {
	var out []string
	if len(k) > 3 {
		m := len(k) / 2
		out = append(out, k[:len(k)-1], k[:m]+k[m+1:], k[:m-1]+k[m:m+1]+k[m-1:m]+k[m+1:], k[:m+1]+k[m:])
	}
	if w := strings.Split(k, "_"); len(w) > 1 {
		out = append(out, strings.Join(w, ""), strings.Join(w, "-"))
		for i := 1; i < len(w); i++ {
			w[i] = strings.ToUpper(w[i][:1]) + w[i][1:]
		}
		out = append(out, strings.Join(w, ""))
	} else {
		out = append(out, k+"s")
	}
	return out
}

// TestEveryKeyMisspelt: every key of configs/guard.yaml, misspelt in
// each common way, is an unknown key whose did-you-mean names it (alone
// or among at most three). Two are told apart from a neighbour only by
// what was dropped: check.uncited_k written uncited_ reads as
// check.uncited, and index.hnsw.m written ms as index.hnsw.ml.
func TestEveryKeyMisspelt(t *testing.T) {
	b, err := os.ReadFile("../../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	keyPaths(root.Content[0], "", paths)
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	skip := map[string]bool{"check.uncited_": true, "index.hnsw.ms": true}
	n := 0
	for _, p := range sorted {
		parents, key := "", p
		if i := strings.LastIndexByte(p, '.'); i >= 0 {
			parents, key = p[:i], p[i+1:]
		}
		for _, typo := range misspellings(key) {
			tp := strings.TrimPrefix(parents+"."+typo, ".")
			if paths[tp] || skip[tp] {
				continue
			}
			// the typo alone, under its sections
			var text strings.Builder
			depth := 0
			if parents != "" {
				for _, s := range strings.Split(parents, ".") {
					fmt.Fprintf(&text, "%s%s:\n", strings.Repeat("  ", depth), s)
					depth++
				}
			}
			fmt.Fprintf(&text, "%s%s: 1\n", strings.Repeat("  ", depth), typo)
			f := guardFile{Config: proxy.DefaultConfig(), Operator: operator.DefaultConfig(), Mock: mockllm.DefaultConfig(), Check: check.DefaultConfig()}
			_, probs := confcheck.Decode("guard.yaml", []byte(text.String()), &f)
			n++
			if len(probs) != 1 || probs[0].Path != tp || !strings.Contains(probs[0].Msg, "did you mean") {
				t.Errorf("%s written %s: %v, want one unknown key with a did-you-mean", p, typo, probs.Lines())
				continue
			}
			named := false
			for _, s := range strings.FieldsFunc(probs[0].Msg, func(r rune) bool { return r == ' ' || r == ',' || r == '?' || r == '(' || r == ')' }) {
				named = named || s == p
			}
			if !named {
				t.Errorf("%s written %s: %q does not name it", p, typo, probs[0].Msg)
			}
		}
	}
	if n < 1000 {
		t.Errorf("%d misspellings tried, want the whole file's (over 1000)", n)
	}
}

// TestEveryKeyOneProblem: every key of configs/guard.yaml given a wrong
// value (a list, a section, a word, a negative, a huge and a zero
// number) alone in a file is one problem, at that key (or one per list
// item under it), never also a second line for the same key or a
// complaint about another key's default that follows from it; a value
// that breaks only a rule with another key's default is one problem at
// that key.
func TestEveryKeyOneProblem(t *testing.T) {
	b, err := os.ReadFile("../../configs/guard.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	leaves := map[string]string{}
	leafValues(root.Content[0], "", leaves)
	sorted := make([]string, 0, len(leaves))
	for p := range leaves {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	tried := 0
	for _, p := range sorted {
		segs := strings.Split(p, ".")
		for _, bad := range []string{"[1, 2]", "{a: 1}", "zzz", "-7", "1e12", "0"} {
			var text strings.Builder
			for i, s := range segs[:len(segs)-1] {
				fmt.Fprintf(&text, "%s%s:\n", strings.Repeat("  ", i), s)
			}
			fmt.Fprintf(&text, "%s%s: %s\n", strings.Repeat("  ", len(segs)-1), segs[len(segs)-1], bad)
			f := guardFile{Config: proxy.DefaultConfig(), Operator: operator.DefaultConfig(), Mock: mockllm.DefaultConfig(), Check: check.DefaultConfig()}
			cf, probs := confcheck.Decode("guard.yaml", []byte(text.String()), &f)
			probs = append(probs, cf.Attach(f.validate())...)
			tried++
			// A value right alone may break a rule with another key's
			// default (low_from: 0 against high_below's 0.4): that one
			// problem is at the other key.
			seen := map[string]bool{}
			at, elsewhere := false, false
			for _, pr := range probs {
				if seen[pr.Path] {
					t.Errorf("%s: %s: %v: %s twice", p, bad, probs.Lines(), pr.Path)
				}
				seen[pr.Path] = true
				if pr.Path == p || strings.HasPrefix(pr.Path, p+"[") {
					at = true
				} else {
					elsewhere = true
				}
			}
			if at && elsewhere || elsewhere && len(probs) > 1 {
				t.Errorf("%s: %s: %v, want one problem at the key (or one per item)", p, bad, probs.Lines())
			}
		}
	}
	if tried < 1000 {
		t.Errorf("%d values tried, want the whole file's (over 1000)", tried)
	}
}
