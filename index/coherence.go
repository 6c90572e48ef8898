package index

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sync"
)

// A partition's coherence says whether its passages keep to one topic,
// which is what lets the gate take a question close in meaning to them
// for a question on the corpus's topic (gate.on_topic_coherence). It is
// the mean cosine between two different passages' encoder vectors, each
// taken relative to the encoder's background: the mean vector of a fixed
// set of texts that no served corpus is made of (scientific abstracts and
// Bible verses from ../shared/data). Relative to it, the register that
// any short factual texts share (eight unrelated encyclopedia entries
// measure 0.371 raw) counts less than a shared topic.

//go:embed coherence_background.json
var coherenceBackgroundJSON []byte

// CoherenceBackground is the encoder's background mean (the file
// coherence_background.json; guard bench quality --gate --fit writes it).
type CoherenceBackground struct {
	// Source says which texts it averages and how they were picked.
	Source string `json:"source"`
	// Texts is how many texts it averages.
	Texts int `json:"texts"`
	// Vector is the mean of their encoder vectors.
	Vector []float64 `json:"vector"`
}

var background = sync.OnceValues(func() ([]float64, error) {
	var b CoherenceBackground
	if err := json.Unmarshal(coherenceBackgroundJSON, &b); err != nil {
		return nil, fmt.Errorf("index: embedded coherence_background.json: %w", err)
	}
	if len(b.Vector) != encoderDims {
		return nil, fmt.Errorf("index: embedded coherence_background.json: %d dims, want %d", len(b.Vector), encoderDims)
	}
	return b.Vector, nil
})

// coherenceBasis names the embedded background: the first 12 hex digits
// of the sha256 of its file.
func coherenceBasis() string {
	sum := sha256.Sum256(coherenceBackgroundJSON)
	return hex.EncodeToString(sum[:6])
}

// coherence is the partition's coherence (see above) over pd's live
// encoder vectors, nil without them, with fewer than two live chunks or
// without a usable background. With the n vectors made unit length
// relative to the background it is (|sum|^2 - n) / (n(n-1)): one pass,
// O(n x dims).
func coherence(pd *partData) *float64 {
	n := len(pd.deleted)
	bg, err := background()
	if err != nil || len(pd.enc) == 0 || n == 0 || len(pd.enc) != n*len(bg) {
		return nil
	}
	d := len(bg)
	sum := make([]float64, d)
	c := make([]float64, d)
	live := 0
	for i := range n {
		if pd.deleted[i] {
			continue
		}
		var norm float64
		for j, x := range pd.enc[i*d : (i+1)*d] {
			c[j] = float64(x) - bg[j]
			norm += c[j] * c[j]
		}
		if norm == 0 {
			continue
		}
		live++
		norm = math.Sqrt(norm)
		for j := range c {
			sum[j] += c[j] / norm
		}
	}
	if live < 2 {
		return nil
	}
	var sq float64
	for _, x := range sum {
		sq += x * x
	}
	v := math.Round((sq-float64(live))/float64(live*(live-1))*1000) / 1000 // three decimals, as the anchors
	return &v
}

// Coherence is the partition's DenseCoherence and whether the snapshot
// keeps one measured against this binary's background (a snapshot built
// before coherence was kept, or against another background, has none).
func (p *Partition) Coherence() (float64, bool) {
	if p.coherence == nil {
		return 0, false
	}
	return *p.coherence, true
}

// CoherenceBackgroundChecksum is the sha256 (hex) of the embedded
// background file, for guard --version.
func CoherenceBackgroundChecksum() string {
	sum := sha256.Sum256(coherenceBackgroundJSON)
	return hex.EncodeToString(sum[:])
}
