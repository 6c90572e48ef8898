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
