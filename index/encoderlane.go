package index

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/internal/disk"
	"go.uber.org/zap"
)

// Encoder is what the index needs of the embedded sentence encoder
// (index/encoder): the dense lane's vectors with embedder "use".
type Encoder interface {
	Dims() int
	Embed(text string) []float32
	Checksum() string
}

const (
	encoderModelName = "use-lite-int8"
	encoderDims      = 512
)

// EncoderText is the text of a chunk that the encoder embeds: the title
// and the text joined with ". ", cut to at most 600 bytes at a space (the
// encoder reads 128 pieces, about 550 characters, at most). The snapshot's
// encoder vectors and retrieve's semantic features both embed this text,
// so a cosine to a stored vector equals one computed afresh (the rule
// mirrors retrieve/semantic.go: keep the two the same).
func EncoderText(c *Chunk) string {
	text := c.Text
	if c.Title != "" {
		text = c.Title + ". " + text
	}
	if len(text) <= EncoderMaxChars {
		return text
	}
	if i := strings.LastIndexByte(text[:EncoderMaxChars], ' '); i > EncoderMaxChars/2 {
		return text[:i]
	}
	return text[:EncoderMaxChars]
}

// EncoderMaxChars bounds the bytes of a passage (title included) or a
// question that the embedded encoder reads.
const EncoderMaxChars = 600

// defaultEncoder returns the embedded encoder (loaded once per process).
func defaultEncoder() (Encoder, error) {
	e, err := encoder.Default()
	if err != nil {
		return nil, fmt.Errorf("embedded encoder: %w", err)
	}
	return e, nil
}

// WithProgress makes Build and Add write a progress line (passages
// encoded, passages per second) to w every two seconds while the encoder
// embeds, and a summary line at the end.
func WithProgress(w io.Writer) Option { return func(o *options) { o.progress = w } }

// progress counts encoded passages across the partitions of one build.
type progress struct {
	w     io.Writer
	log   *zap.Logger
	total int
	done  atomic.Int64
	start time.Time
	mu    sync.Mutex
	last  time.Time
}

func newProgress(w io.Writer, log *zap.Logger, total int) *progress {
	now := time.Now()
	return &progress{w: w, log: log, total: total, start: now, last: now}
}

func (p *progress) add(n int) {
	d := p.done.Add(int64(n))
	if p.w == nil || !p.mu.TryLock() {
		return
	}
	defer p.mu.Unlock()
	if now := time.Now(); now.Sub(p.last) >= 2*time.Second {
		p.last = now
		of := ""
		if p.total > 0 {
			of = fmt.Sprintf("/%d", p.total)
		}
		fmt.Fprintf(p.w, "encoder: %d%s passages, %.0f/s\n", d, of, float64(d)/now.Sub(p.start).Seconds())
	}
}

// plural is word with an "s" unless n is 1.
func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func (p *progress) finish() {
	d := p.done.Load()
	if d == 0 {
		return
	}
	secs := time.Since(p.start).Seconds()
	rate := float64(d) / max(secs, 1e-9)
	if p.w != nil {
		fmt.Fprintf(p.w, "encoder: %d %s in %.1fs, %.0f/s\n", d, plural(d, "passage"), secs, rate)
	}
	p.log.Info("encoded passages", zap.Int64("passages", d), zap.Float64("seconds", secs), zap.Float64("per_s", rate))
}

func countChunks(groups map[[2]string]*partData) int {
	n := 0
	for _, pd := range groups {
		n += len(pd.chunks)
	}
	return n
}

// vecCache remembers encoder vectors by text, up to max entries (then it
// stops adding). BuildDemo uses one for the life of the process: the demo
// corpus is fixed, and a server that reloads, or a test suite that starts
// many, would otherwise encode it again each time.
type vecCache struct {
	mu       sync.Mutex
	max      int
	checksum string
	vecs     map[string][]float32
	// seed, when set, is consulted before vecs: vectors computed ahead
	// of time (the demo corpus's, demovecs.go), used only while their
	// encoder checksum is the running encoder's.
	seed func() (*demoSeed, error)
}

var demoVecs = &vecCache{max: 4096, seed: loadDemoSeed}

func (c *vecCache) get(enc Encoder, text string) []float32 {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seed != nil {
		if s, err := c.seed(); err == nil && s.checksum == enc.Checksum() {
			if v := s.vec(demoKeyOf(text)); v != nil {
				return v
			}
		}
	}
	if c.checksum != enc.Checksum() {
		return nil
	}
	return c.vecs[text]
}

func (c *vecCache) put(enc Encoder, text string, v []float32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checksum != enc.Checksum() {
		c.checksum, c.vecs = enc.Checksum(), map[string][]float32{}
	}
	if len(c.vecs) < c.max {
		c.vecs[text] = v
	}
}

// encodePartition embeds chunks from slot first on with the encoder into
// pd.enc (enc nil: nothing to do) on workers(cfg) goroutines, through
// cache when it is not nil. A new partition (first 0) also gets its dense
// calibration.
func encodePartition(ctx context.Context, cfg Config, enc Encoder, pd *partData, first int, prog *progress, cache *vecCache) error {
	if enc == nil {
		return nil
	}
	n := len(pd.chunks) - first
	d := enc.Dims()
	pd.enc = append(pd.enc, make([]float32, n*d)...)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers(cfg), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= n || ctx.Err() != nil {
					return
				}
				i := first + j
				text := EncoderText(&pd.chunks[i])
				v := cache.get(enc, text)
				if v == nil {
					v = enc.Embed(text)
					cache.put(enc, text, v)
				}
				copy(pd.enc[i*d:(i+1)*d], v)
				prog.add(1)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if first == 0 {
		pd.encCalib, pd.encAnchors = calibrateEncoder(cfg.Local.Anchors, enc, pd, cache)
	}
	return nil
}

// calibrateEncoder measures the encoder's raw cosines on the partition's
// own chunks as the local model's calibrate does: pseudo queries (a
// window of a few consecutive words of a chunk) against a random other
// chunk (median, p99: unrelated) and against their own chunk (median: on
// topic), mapped onto the configured anchors. No labels, no report set:
// only the corpus being indexed. 200 pseudo queries at most.
func calibrateEncoder(a AnchorConfig, enc Encoder, pd *partData, cache *vecCache) (*Calibration, [3]float64) {
	n := len(pd.chunks)
	d := enc.Dims()
	rng := rand.New(rand.NewPCG(3, 4))
	var random, self []float64
	const queryWords = 6
	for i := 0; i < 400 && len(self) < 200 && n > 1; i++ {
		x := rng.IntN(n)
		if pd.deleted[x] {
			continue
		}
		words := strings.Fields(pd.chunks[x].Text)
		if len(words) < 2*queryWords {
			continue
		}
		s := rng.IntN(len(words) - queryWords + 1)
		text := strings.Join(words[s:s+queryWords], " ")
		q := cache.get(enc, text)
		if q == nil {
			q = enc.Embed(text)
			cache.put(enc, text, q)
		}
		self = append(self, encoder.Cosine(q, pd.enc[x*d:(x+1)*d]))
		if y := rng.IntN(n); y != x && !pd.deleted[y] {
			random = append(random, encoder.Cosine(q, pd.enc[y*d:(y+1)*d]))
		}
	}
	q := func(xs []float64, p float64, def float64) float64 {
		if len(xs) < 20 {
			return def
		}
		slices.Sort(xs)
		return xs[int(p*float64(len(xs)-1))]
	}
	// Defaults measured on the demo corpus, for partitions too small to
	// measure.
	rmed := q(random, 0.5, 0.10)
	rp99 := max(q(random, 0.99, 0.35), rmed+0.01)
	sd := min(max(q(self, 0.5, 0.55), rp99+0.05), 0.98)
	rmed = max(rmed, -0.98)
	// Three decimals: the anchors do not need more, and the manifest
	// then reads the same whichever SIMD path computed the cosines.
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	rmed, rp99, sd = r3(rmed), r3(rp99), r3(sd)
	return &Calibration{Knots: [][2]float64{{-1, 0}, {rmed, a.RandomMedian}, {rp99, a.RandomP99}, {sd, a.SameDoc}, {1, 1}}},
		[3]float64{rmed, rp99, sd}
}

// CheckEmbedder refuses a configuration whose index.embedder differs from
// the one that built the snapshot: the dense lane's query vectors would
// live in another space than the stored ones.
func (s *Snapshot) CheckEmbedder(cfg Config) error {
	built, want := canonicalEmbedder(s.Manifest.Embedder), canonicalEmbedder(cfg.Embedder)
	if built != want {
		return fmt.Errorf("index snapshot %s was built with embedder %q but index.embedder is %q: rebuild the index with %q or set index.embedder: %s",
			s.Dir, built, want, want, built)
	}
	return nil
}

// EmbedQuery returns the query vector of text in the space the dense lane
// searches when that space is local: the encoder's (embedder "use") or the
// hashed model's (embedder "hashed", and the fallback of "remote", whose
// query vectors come from the remote embedder).
func (p *Partition) EmbedQuery(text string) []float32 {
	if p.enc != nil {
		return p.enc.Embed(text)
	}
	return p.local.EmbedText(text)
}

// Encoder returns the embedded encoder when the partition's dense lane
// uses it, else nil.
func (p *Partition) Encoder() Encoder { return p.enc }

// loadEncoder maps the partition's encoder vectors and checks that this
// binary embeds the encoder that built them.
func (p *Partition) loadEncoder(dir string, pi PartitionInfo, man Manifest) error {
	enc, err := defaultEncoder()
	if err != nil {
		return err
	}
	if man.EncoderChecksum != enc.Checksum() {
		return fmt.Errorf("encoder vectors were built by encoder model %.12s, this binary embeds %.12s: rebuild the index", man.EncoderChecksum, enc.Checksum())
	}
	if p.encVecs, p.encMap, err = disk.MapF32(filepath.Join(dir, disk.EncoderVectorsFile)); err != nil {
		return err
	}
	if len(p.encVecs) != len(p.chunks)*encoderDims {
		return fmt.Errorf("encoder vectors: %d floats for %d chunks x %d dims", len(p.encVecs), len(p.chunks), encoderDims)
	}
	p.enc = enc
	p.encCalib = Calibration{Knots: [][2]float64{{-1, 0}, {1, 1}}}
	if pi.DenseCalibration != nil {
		p.encCalib = *pi.DenseCalibration
	}
	if pi.DenseCoherence != nil && pi.DenseCoherenceBasis == coherenceBasis() {
		p.coherence = pi.DenseCoherence
	}
	return nil
}
