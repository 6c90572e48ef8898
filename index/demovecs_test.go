package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/answer-guard/guard/index/encoder"
	"go.uber.org/zap"
)

var updateDemoVectors = flag.Bool("update-demo-vectors", false, "recompute index/demo/vectors.bin with the embedded encoder")

// TestDemoVectors checks that the precomputed demo vectors cover every
// chunk the demo build encodes, were computed with the embedded encoder,
// and equal a fresh encoding. With -update-demo-vectors it writes them.
func TestDemoVectors(t *testing.T) {
	enc, err := encoder.Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docs, mem, err := demoCorpus()
	if err != nil {
		t.Fatal(err)
	}
	if *updateDemoVectors {
		fresh := &vecCache{max: 1 << 20}
		if _, err := buildFrom(ctx, DefaultConfig(), docs, mem, nil, t.TempDir(), zap.NewNop(), func(o *options) { o.encCache = fresh }); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := writeDemoVectors(&buf, enc.Checksum(), fresh.vecs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("demo", "vectors.bin"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seed, err := decodeDemoVectors(mustRead(t, filepath.Join("demo", "vectors.bin")))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := seed.checksum, enc.Checksum(); got != want {
		t.Fatalf("demo vectors computed with encoder %s, the binary embeds %s: run go test ./index -run TestDemoVectors -update-demo-vectors", got, want)
	}
	// Every chunk the demo build encodes has a vector: a build through a
	// cache holding only the seed encodes nothing.
	counting := &countingEncoder{Encoder: enc}
	seeded := &vecCache{seed: func() (*demoSeed, error) { return seed, nil }}
	out := t.TempDir()
	if _, err := buildFrom(ctx, DefaultConfig(), docs, mem, nil, out, zap.NewNop(), func(o *options) { o.encCache = seeded; o.encoder = counting }); err != nil {
		t.Fatal(err)
	}
	if counting.n.Load() != 0 {
		t.Errorf("the demo build encoded %d chunks the vectors file lacks: run go test ./index -run TestDemoVectors -update-demo-vectors", counting.n.Load())
	}
	// The stored vectors are the encoder's: a few chunks encoded afresh.
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition("default", "default")
	checked := 0
	for i, c := range p.Chunks() {
		if i%50 != 0 {
			continue
		}
		text := EncoderText(c)
		if cos := encoder.Cosine(enc.Embed(text), seed.vec(demoKeyOf(text))); cos < 0.9999 {
			t.Errorf("chunk %s: stored vector cosine %.6f to a fresh encoding", c.ID, cos)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no chunk checked")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countingEncoder counts the texts it is asked to embed.
type countingEncoder struct {
	Encoder
	n atomic.Int64
}

func (c *countingEncoder) Embed(text string) []float32 {
	c.n.Add(1)
	return c.Encoder.Embed(text)
}

// TestDemoSeedLookup: every entry of the vectors file is found by its key
// and decodes to the file's floats; a key not in the file finds nothing.
func TestDemoSeedLookup(t *testing.T) {
	s, err := decodeDemoVectors(demoVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	size := 16 + 4*s.dims
	for i := range s.n {
		e := s.entries[i*size : (i+1)*size]
		got := s.vec(demoKey(e[:16]))
		if len(got) != s.dims {
			t.Fatalf("entry %d: %d dims, want %d", i, len(got), s.dims)
		}
		for j, x := range got {
			if want := math.Float32frombits(binary.LittleEndian.Uint32(e[16+4*j:])); math.Float32bits(x) != math.Float32bits(want) {
				t.Fatalf("entry %d dim %d: got %v, want %v", i, j, x, want)
			}
		}
	}
	if v := s.vec(demoKeyOf("no chunk has this text")); v != nil {
		t.Errorf("absent key: got %d dims, want nil", len(v))
	}
}
