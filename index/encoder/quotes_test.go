package encoder

import (
	"slices"
	"testing"
)

// A phone's typographic apostrophes and quotes embed as the ASCII ones:
// same pieces, same vector.
func TestTypographicQuotesSameVector(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{
		{"what's a good recipe for flapjacks", "what’s a good recipe for flapjacks"},
		{"my boy hasn't been done, can he stay", "my boy hasnʼt been done, can he stay"},
		{`the "family" ticket`, "the “family” ticket"},
		{"a 5' table", "a 5′ table"},
	} {
		if a, b := e.Tokens(p[0]), e.Tokens(p[1]); !slices.Equal(a, b) {
			t.Errorf("%q pieces %v, %q pieces %v: want the same", p[0], a, p[1], b)
		}
		if c := Cosine(e.Embed(p[0]), e.Embed(p[1])); c < 0.999999 {
			t.Errorf("cosine(%q, %q) = %.6f, want 1", p[0], p[1], c)
		}
	}
}
