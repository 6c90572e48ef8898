package index

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCatalogPrefix checks the prefix index against brute force over the
// token-shaped ids: s is a prefix of an id or an id is a prefix of s,
// ignoring case; ids a token cannot hold are left out.
func TestCatalogPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alpha := "ab-_:/1"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	}
	cat := map[string]struct{}{"genesis 1:1": {}, "injdoc-alpha-001": {}}
	for range 300 {
		cat[word(1+r.IntN(6))] = struct{}{}
	}
	p := &Partition{catalog: cat}
	brute := func(s string) bool {
		s = strings.ToLower(s)
		for id := range cat {
			if tokenShaped(id) && (strings.HasPrefix(id, s) || strings.HasPrefix(s, id)) {
				return true
			}
		}
		return false
	}
	queries := []string{"", "Genesis", "genesis 1", "INJDOC", "injdoc-alpha-0011", "injdoc-b", "zzz", strings.Repeat("a", 80)}
	for range 3000 {
		queries = append(queries, word(r.IntN(9)))
	}
	for _, q := range queries {
		if got, want := p.CatalogPrefix(q), brute(q); got != want {
			t.Fatalf("CatalogPrefix(%q) = %v, want %v", q, got, want)
		}
	}
	if a := testing.AllocsPerRun(100, func() { p.CatalogPrefix("INJDOC-alpha") }); a != 0 {
		t.Errorf("CatalogPrefix allocates %v times", a)
	}
	if (&Partition{catalog: map[string]struct{}{"genesis 1:1": {}}}).CatalogPrefix("Genesis") {
		t.Error("an id with a space is indexed")
	}
}
