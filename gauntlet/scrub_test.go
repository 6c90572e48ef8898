package gauntlet

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// ScrubCatalog removes real ids of the catalog by the stream's token rules
// and leaves prose whole: a slug id that is a word goes only where it
// stands as a reference.
func TestScrubCatalog(t *testing.T) {
	spec, err := Compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cat := map[string]bool{"hb-0402": true, "lockers": true, "sauna-2": true, "123456": true, "John-3-16": true}
	isID := func(s string) bool { return cat[s] }
	keep := func(s string) bool { return s == "John-3-16" }
	for _, tc := range []struct{ in, want string }{
		{"see hb-0402 for details", "see  for details"},
		{"see hb-0402.", "see ."},
		{"(`hb-0402`) and \"hb-0402\"", "(``) and \"\""},
		{"at https://ex.org/docs/hb-0402 now", "at https://ex.org/docs/ now"},
		{"hb-04021 and xhb-0402 stay", "hb-04021 and xhb-0402 stay"},
		{"Larger lockers for bags", "Larger lockers for bags"},
		{"see [lockers] or `lockers`", "see [] or ``"},
		{"sauna-2 is open", " is open"},
		{"room 123456 stays", "room 123456 stays"},
		{"John-3-16 is this note's address", "John-3-16 is this note's address"},
	} {
		if got := spec.ScrubCatalog(tc.in, isID, keep); got != tc.want {
			t.Errorf("ScrubCatalog(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := spec.ScrubCatalog("hb-0402", nil, nil); got != "hb-0402" {
		t.Errorf("no catalog: %q", got)
	}
}

// scrubCatalogRef is ScrubCatalog as it was before NoteScrub: one pass
// that looks each token up as it meets it. NoteScrub must cut exactly as
// it does.
func scrubCatalogRef(s *Spec, text string, isID, keep func(string) bool) string {
	if isID == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if class[text[i]] != cTok {
			i++
			continue
		}
		j := i
		for j < len(text) && class[text[j]] == cTok {
			j++
		}
		core := text[i : j-trailing([]byte(text[i:j]))]
		if k, ok := catalogCutRef(s, text, i, core, isID, keep); ok {
			b.WriteString(text[last : i+k])
			last = i + len(core)
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func catalogCutRef(s *Spec, text string, i int, core string, isID, keep func(string) bool) (int, bool) {
	if len(core) < s.catalogMinLen || keep != nil && keep(core) {
		return 0, false
	}
	if !s.catalogNumbers && strings.Trim(core, "0123456789") == "" {
		return 0, false
	}
	if !hasNonLetter([]byte(core)) {
		j := i + len(core)
		wrapped := i > 0 && j < len(text) && strings.IndexByte("[<{`", text[i-1]) >= 0 && strings.IndexByte("]>}`", text[j]) >= 0
		return 0, wrapped && isID(core)
	}
	if isID(core) {
		return 0, true
	}
	start, split := 0, false
	for k := 0; k <= len(core); k++ {
		if k < len(core) && !isURLSep(core[k]) {
			continue
		}
		if k < len(core) {
			split = true
		}
		if seg := core[start:k]; split && len(seg) >= s.catalogMinLen && isID(seg) {
			return start, true
		}
		start = k + 1
	}
	return 0, false
}

// noteTexts are seeded note-like texts holding catalog ids in every
// position the token rules know: whole, wrapped, glued, as URL and path
// segments, with trailing punctuation, and id shapes Scrub removes.
func noteTexts(n int) []string {
	r := rand.New(rand.NewPCG(3, 9))
	parts := []string{"see", "the", "lockers", "[lockers]", "`lockers`", "<sauna-2>", "hb-0402", "hb-0402.", "hb-04021",
		"xhb-0402", "https://ex.org/docs/hb-0402", "ex.org/hb-0402#top", "a/sauna-2/b", "123456", "John-3-16", "John-3-16:",
		"550e8400-e29b-41d4-a716-446655440000", "doc_12345", "KB-000123", "(hb-0402)", "{lockers}", "9am", "e.g.", "£8",
		"hb", "/", "-", "[^2]", "[1]", "open\nlate", "ab-cd", "ab/cd/ef", "x", "Sauna-2", "HB-0402"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + r.IntN(30) {
			b.WriteString(parts[r.IntN(len(parts))])
			if r.IntN(4) > 0 {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

// ScrubNote cuts exactly what ScrubCatalog(Scrub(text)) cut before it was
// split into a cached preparation and a per-turn lookup, on a hit as on a
// miss, with and without keep, for the default spec and one that looks up
// short and all-digit tokens.
func TestScrubNoteEqualsScrubCatalog(t *testing.T) {
	def, err := Compile(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.CatalogMinLen, cfg.CatalogNumbers = 2, true
	wide, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cat := map[string]bool{"hb-0402": true, "lockers": true, "sauna-2": true, "123456": true, "John-3-16": true,
		"ab": true, "cd": true, "ex.org": true, "docs": true, "HB-0402": true}
	isID := func(s string) bool { return cat[s] }
	keep := func(s string) bool { return s == "John-3-16" || s == "docs" }
	for _, spec := range []*Spec{def, wide} {
		for _, text := range noteTexts(3000) {
			for _, kp := range []func(string) bool{nil, keep} {
				want := scrubCatalogRef(spec, spec.Scrub(text), isID, kp)
				for pass := range 2 { // a miss, then a hit
					if got := spec.ScrubNote(text, isID, kp); got != want {
						t.Fatalf("pass %d: ScrubNote(%q) = %q, want %q", pass, text, got, want)
					}
				}
				if got, want := spec.ScrubCatalog(text, isID, kp), scrubCatalogRef(spec, text, isID, kp); got != want {
					t.Fatalf("ScrubCatalog(%q) = %q, want %q", text, got, want)
				}
			}
		}
		if got, want := spec.ScrubNote("hb-0402 doc_12345", nil, nil), spec.Scrub("hb-0402 doc_12345"); got != want {
			t.Errorf("no catalog: %q, want %q", got, want)
		}
	}
}

// BenchmarkScrubNote is the per-turn cost of scrubbing one note of about
// 700 bytes for the prompt: "cached" looks the prepared text's tokens up
// in the catalog (the proxy's path from the second turn on), "uncached"
// scrubs id shapes and walks the tokens as every turn did before.
func BenchmarkScrubNote(b *testing.B) {
	spec, err := Compile(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Puncture repair costs 8 per wheel, see hb-0402 or https://ex.org/docs/kb-77 (9am-5:30pm). ", 8)
	cat := map[string]bool{"hb-0402": true, "kb-77": true}
	isID := func(s string) bool { return cat[s] }
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			spec.ScrubNote(text, isID, nil)
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			scrubCatalogRef(spec, spec.Scrub(text), isID, nil)
		}
	})
}
