package index

import (
	"errors"
	"fmt"
	"time"
)

// Config holds the index knobs (the top-level `index` section).
type Config struct {
	// ChunkChars is the target maximum size of a chunk in characters; long
	// documents are split on paragraph, then sentence boundaries.
	ChunkChars int `yaml:"chunk_chars"`
	// MinChunkChars merges trailing pieces shorter than this into the
	// previous chunk, and a Markdown or plain-text section shorter than this
	// into its neighbour (docSections).
	MinChunkChars int `yaml:"min_chunk_chars"`
	// Embedder picks the dense lane's embedder: "use" (the embedded
	// Universal Sentence Encoder lite, index/encoder; no network), "hashed"
	// (the hashed TF-IDF LocalModel fitted on the corpus; "local" is its
	// old name) or "remote" (OpenAI-compatible /embeddings). The hashed
	// model is fitted in every mode: it scores lexical relevance and
	// matches curated memory.
	Embedder string `yaml:"embedder"`
	// Local configures the embedded local embedder.
	Local LocalConfig `yaml:"local"`
	// Remote configures the OpenAI-compatible embedder.
	Remote RemoteConfig `yaml:"remote"`
	// CacheMB bounds the embedding cache (ristretto) in megabytes.
	CacheMB int `yaml:"cache_mb"`
	// HNSW configures the dense graph.
	HNSW HNSWConfig `yaml:"hnsw"`
	// Strict fails the build on the first bad corpus or memory line instead
	// of reporting and skipping it.
	Strict bool `yaml:"strict"`
	// Workers bounds embedding parallelism at build time (0 = GOMAXPROCS).
	Workers int `yaml:"workers"`
	// HaluGate checks derived entries (those naming their sources) at
	// build and add time.
	HaluGate HaluGateConfig `yaml:"halugate"`
}

// LocalConfig configures the local hashed TF-IDF embedder.
type LocalConfig struct {
	// Dims is the vector size (features are hashed into it).
	Dims int `yaml:"dims"`
	// BigramWeight weights adjacent-term bigram features relative to unigrams.
	BigramWeight float64 `yaml:"bigram_weight"`
	// CharNgramWeight weighs the hashed character 3-5 grams of each term
	// against the word features in the dense vector (0 = words only).
	CharNgramWeight float64 `yaml:"char_ngram_weight"`
	// Anchors place the corpus statistics on the DESIGN scale at build time:
	// pseudo queries (a few consecutive terms of a chunk) against random
	// chunks (median, p99) and against their own chunk (median).
	Anchors AnchorConfig `yaml:"anchors"`
}

// AnchorConfig holds the calibrated values that the local embedder's
// measured raw cosines are mapped to.
type AnchorConfig struct {
	RandomMedian float64 `yaml:"random_median"` // unrelated, typical
	RandomP99    float64 `yaml:"random_p99"`    // unrelated, 1 in 100
	SameDoc      float64 `yaml:"same_doc"`      // a pseudo query against its own chunk
}

// RemoteConfig configures an OpenAI-compatible embeddings endpoint.
type RemoteConfig struct {
	// BaseURL is the API base, e.g. http://127.0.0.1:8000/v1 ({base}/embeddings is called).
	BaseURL string `yaml:"base_url"`
	// Model is the embedding model name.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the bearer key (may be empty).
	APIKeyEnv string `yaml:"api_key_env"`
	// BatchSize is the number of texts per request.
	BatchSize int `yaml:"batch_size"`
	// Timeout bounds one request.
	Timeout time.Duration `yaml:"timeout"`
	// Retries is the number of retries after a failed request.
	Retries int `yaml:"retries"`
	// Calibration maps the model's raw cosine to the DESIGN scale: knots of
	// [raw, calibrated], increasing. Default identity (modern embedding models
	// are already on the scale the thresholds were written for).
	Calibration [][2]float64 `yaml:"calibration"`
}

// HNSWConfig configures the dense lane's HNSW graph (graphBuilder).
type HNSWConfig struct {
	// M is the links a node keeps on each upper layer; it keeps 2M on
	// the base layer.
	M int `yaml:"m"`
	// Ml is the chance that a node reaches the next layer up.
	Ml float64 `yaml:"ml"`
	// EfSearch is the beam of the search that inserts a node (at build
	// and add time: HNSW's ef_construction). Queries do not read it: the
	// beam of the query search is max(64, k x overfetch), 240 at the
	// retrieve defaults.
	EfSearch int `yaml:"ef_search"`
	// ExactBelow: partitions with fewer live chunks are scanned exactly
	// (SIMD dot products, bounded top-k) instead of through the graph.
	// The exact scan of KJV (31,102 verses) takes p50 1.4-1.9 ms (100k
	// chunks: p50 6.1 ms). Through the graph (graphBuilder, since
	// 2026-11-28) KJV's recall@10 against the exact scan is 0.99 at the
	// retrieve defaults with p50 0.7 ms; coder/hnsw's graph before it
	// gave 0.17, which is why the default is 50,000 (docs/bench.md,
	// 2026-11-24 and 2026-11-28).
	ExactBelow int `yaml:"exact_below"`
}

// The values of Config.Embedder (and Manifest.Embedder).
const (
	EmbedderUSE    = "use"
	EmbedderHashed = "hashed"
	EmbedderRemote = "remote"
)

// canonicalEmbedder maps the old name "local" (snapshots and configs
// written before the encoder) to "hashed".
func canonicalEmbedder(s string) string {
	if s == "local" {
		return EmbedderHashed
	}
	return s
}

// DefaultConfig returns the defaults of DESIGN.md.
func DefaultConfig() Config {
	return Config{
		ChunkChars:    1200,
		MinChunkChars: 200,
		Embedder:      EmbedderUSE,
		Local: LocalConfig{
			Dims:            384,
			BigramWeight:    0.5,
			CharNgramWeight: 2,
			Anchors:         AnchorConfig{RandomMedian: 0.10, RandomP99: 0.35, SameDoc: 0.95},
		},
		Remote: RemoteConfig{
			BatchSize:   64,
			Timeout:     10 * time.Second,
			Retries:     2,
			Calibration: [][2]float64{{0, 0}, {1, 1}},
		},
		CacheMB:  64,
		HNSW:     HNSWConfig{M: 16, Ml: 0.25, EfSearch: 64, ExactBelow: 50000},
		HaluGate: defaultHaluGate(),
	}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.ChunkChars < 100 || c.ChunkChars > 100000 {
		bad("chunk_chars: must be in [100,100000], got %d", c.ChunkChars)
	}
	if c.MinChunkChars < 0 || c.MinChunkChars >= c.ChunkChars {
		bad("min_chunk_chars: must be in [0,chunk_chars), got %d", c.MinChunkChars)
	}
	switch canonicalEmbedder(c.Embedder) {
	case EmbedderUSE, EmbedderHashed:
	case EmbedderRemote:
		if c.Remote.BaseURL == "" {
			bad("remote.base_url: required when embedder is remote")
		}
		if c.Remote.Model == "" {
			bad("remote.model: required when embedder is remote")
		}
	default:
		bad("embedder: must be use, hashed (or its old name local) or remote, got %q", c.Embedder)
	}
	if c.Local.Dims < 16 || c.Local.Dims > 4096 {
		bad("local.dims: must be in [16,4096], got %d", c.Local.Dims)
	}
	if c.Local.BigramWeight < 0 || c.Local.BigramWeight > 2 {
		bad("local.bigram_weight: must be in [0,2], got %g", c.Local.BigramWeight)
	}
	if c.Local.CharNgramWeight < 0 || c.Local.CharNgramWeight > 4 {
		bad("local.char_ngram_weight: must be in [0,4], got %g", c.Local.CharNgramWeight)
	}
	a := c.Local.Anchors
	if !(a.RandomMedian > 0 && a.RandomMedian < a.RandomP99 && a.RandomP99 < a.SameDoc && a.SameDoc < 1) {
		bad("local.anchors: need 0 < random_median < random_p99 < same_doc < 1, got %g %g %g", a.RandomMedian, a.RandomP99, a.SameDoc)
	}
	if c.Remote.BatchSize < 1 || c.Remote.BatchSize > 2048 {
		bad("remote.batch_size: must be in [1,2048], got %d", c.Remote.BatchSize)
	}
	if c.Remote.Timeout <= 0 {
		bad("remote.timeout: must be > 0, got %s", c.Remote.Timeout)
	}
	if c.Remote.Retries < 0 || c.Remote.Retries > 10 {
		bad("remote.retries: must be in [0,10], got %d", c.Remote.Retries)
	}
	if err := (Calibration{Knots: c.Remote.Calibration}).validate(); err != nil {
		bad("remote.calibration: %v", err)
	}
	if c.CacheMB < 0 || c.CacheMB > 65536 {
		bad("cache_mb: must be in [0,65536], got %d", c.CacheMB)
	}
	if c.HNSW.M < 2 || c.HNSW.M > 256 {
		bad("hnsw.m: must be in [2,256], got %d", c.HNSW.M)
	}
	if c.HNSW.Ml <= 0 || c.HNSW.Ml >= 1 {
		bad("hnsw.ml: must be in (0,1), got %g", c.HNSW.Ml)
	}
	if c.HNSW.EfSearch < 1 || c.HNSW.EfSearch > 4096 {
		bad("hnsw.ef_search: must be in [1,4096], got %d", c.HNSW.EfSearch)
	}
	if c.HNSW.ExactBelow < 0 {
		bad("hnsw.exact_below: must be >= 0, got %d", c.HNSW.ExactBelow)
	}
	if c.Workers < 0 || c.Workers > 256 {
		bad("workers: must be in [0,256], got %d", c.Workers)
	}
	errs = append(errs, c.HaluGate.validate()...)
	return errors.Join(errs...)
}
