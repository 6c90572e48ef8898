package encoder

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/index/encoder/modelfile"
)

func TestChecksumMatchesSHA256SUMS(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("model/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == "use-lite-int8.bin" {
			want = f[0]
		}
	}
	if e.Checksum() != want || want == "" {
		t.Errorf("Checksum() = %q, SHA256SUMS says %q", e.Checksum(), want)
	}
	if e.Dims() != 512 {
		t.Errorf("Dims() = %d, want 512", e.Dims())
	}
}

func TestEmbedBatchEqualsEmbed(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "refund", "Can I get my money back?", strings.Repeat("long text ", 200), "tyre", "refund"}
	got := e.EmbedBatch(texts)
	if len(got) != len(texts) {
		t.Fatalf("got %d vectors, want %d", len(got), len(texts))
	}
	for i, tx := range texts {
		if want := e.Embed(tx); !slices.Equal(got[i], want) {
			t.Errorf("EmbedBatch[%d] differs from Embed(%.20q)", i, tx)
		}
	}
	if len(e.EmbedBatch(nil)) != 0 {
		t.Error("EmbedBatch(nil) not empty")
	}
}

// TestParaphraseRanks checks the reason the encoder ships: a customer's
// question is closer to the passage that answers it than to its
// neighbours, with no word in common.
func TestParaphraseRanks(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	passages := []string{
		"Puncture repair costs £8 per wheel, including a new inner tube.",
		"We are open Tuesday to Saturday, 9am to 5:30pm.",
		"Seniors over 65 and students with a valid card pay 4.50 euros.",
		"Returns are accepted within 30 days for a full refund to the original payment method.",
	}
	pv := e.EmbedBatch(passages)
	for _, c := range []struct {
		q    string
		want int
	}{
		{"how much do you charge to fix a flat tyre?", 0},
		{"what are your hours on a saturday?", 1},
		{"Is there a discount for pensioners?", 2},
		{"can I get my money back?", 3},
	} {
		qv := e.Embed(c.q)
		best, bestCos := -1, -2.0
		for i, p := range pv {
			if cs := Cosine(qv, p); cs > bestCos {
				best, bestCos = i, cs
			}
		}
		if best != c.want {
			t.Errorf("%q: nearest passage %d (%.3f), want %d", c.q, best, bestCos, c.want)
		}
	}
}

func TestCosine(t *testing.T) {
	for _, c := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 2}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{[]float32{0, 0}, []float32{1, 0}, 0},
		{[]float32{1}, []float32{1, 0}, 0},
	} {
		if got := Cosine(c.a, c.b); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("Cosine(%v,%v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestLoadRejectsBrokenFiles(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("not a model"), modelBytes[:len(modelBytes)/2], append(slices.Clone(modelBytes), 0)} {
		if _, err := Load(b); err == nil {
			t.Errorf("Load(%d bytes) accepted a broken file", len(b))
		}
	}
	// Encode(Decode(file)) reproduces the file: the quantisation is
	// stable, so the converter's output is reproducible from itself.
	w, err := modelfile.Decode(modelBytes)
	if err != nil {
		t.Fatal(err)
	}
	w.Embedding.Data = make([]float32, len(w.Embedding.Q))
	for i, q := range w.Embedding.Q {
		w.Embedding.Data[i] = float32(q) * w.Embedding.Scale[i/w.Embedding.Cols]
	}
	again, err := modelfile.Encode(w)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, modelBytes) {
		t.Error("Encode(Decode(model)) differs from the model file")
	}
}

// TestDefaultKeepsFile: the embedded file reads back the bytes the
// encoder was loaded from after Default has paged it out.
func TestDefaultKeepsFile(t *testing.T) {
	e, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(modelBytes)
	if got := hex.EncodeToString(sum[:]); got != e.Checksum() {
		t.Errorf("sha256 of the embedded file after Default = %s, want %s", got, e.Checksum())
	}
}
