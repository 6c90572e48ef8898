package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
)

// The encoder's background for the partition coherence
// (index/coherence_background.json): the mean encoder vector of texts no
// served corpus is made of, picked by a fixed stride so the set is the
// same on every run: every 17th SciFact abstract (title first, as the
// index encodes a titled passage) up to 300, and every 101st KJV verse up
// to 300. Neither the dev corpora nor HaluEval enter it.
const (
	backgroundSciFactStride, backgroundKJVStride = 17, 101
	backgroundPerSource                          = 300
)

// EncoderBackground computes the background from dataDir
// (../shared/data).
func EncoderBackground(dataDir string) (index.CoherenceBackground, error) {
	var bg index.CoherenceBackground
	enc, err := encoder.Default()
	if err != nil {
		return bg, err
	}
	var texts []string
	err = scanJSONLStride(filepath.Join(dataDir, "scifact", "corpus.jsonl"), backgroundSciFactStride, func(b []byte) (bool, error) {
		var d struct {
			Title    string   `json:"title"`
			Abstract []string `json:"abstract"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return false, err
		}
		texts = append(texts, lead600(d.Title+". "+strings.Join(d.Abstract, " ")))
		return len(texts) < backgroundPerSource, nil
	})
	if err != nil {
		return bg, fmt.Errorf("scifact: %w", err)
	}
	n := len(texts)
	err = scanJSONLStride(filepath.Join(dataDir, "kjv", "kjv.jsonl"), backgroundKJVStride, func(b []byte) (bool, error) {
		var d struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return false, err
		}
		texts = append(texts, lead600(d.Text))
		return len(texts)-n < backgroundPerSource, nil
	})
	if err != nil {
		return bg, fmt.Errorf("kjv: %w", err)
	}
	bg.Vector = make([]float64, enc.Dims())
	for _, t := range texts {
		for j, x := range enc.Embed(t) {
			bg.Vector[j] += float64(x)
		}
	}
	for j := range bg.Vector {
		bg.Vector[j] = float64(float32(bg.Vector[j] / float64(len(texts))))
	}
	bg.Texts = len(texts)
	bg.Source = fmt.Sprintf("mean embedded-encoder vector of SciFact abstracts (title. abstract, first 600 bytes; every %d lines from the first, %d) and KJV verses (every %d lines, %d) of ../shared/data; guard bench quality --gate --fit",
		backgroundSciFactStride, n, backgroundKJVStride, len(texts)-n)
	return bg, nil
}

// WriteEncoderBackground computes the background and writes it to path.
func WriteEncoderBackground(dataDir, path string) error {
	bg, err := EncoderBackground(dataDir)
	if err != nil {
		return err
	}
	b, err := json.Marshal(bg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// lead600 cuts s to the encoder's 600-byte bound at a word boundary.
func lead600(s string) string {
	if len(s) <= index.EncoderMaxChars {
		return s
	}
	s = s[:index.EncoderMaxChars]
	if i := strings.LastIndexByte(s, ' '); i > index.EncoderMaxChars/2 {
		s = s[:i]
	}
	return s
}

// scanJSONLStride calls f on every stride-th line of path (the first
// included) until f returns false.
func scanJSONLStride(path string, stride int, f func([]byte) (bool, error)) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		if i%stride != 0 {
			continue
		}
		more, err := f(sc.Bytes())
		if err != nil || !more {
			return err
		}
	}
	return sc.Err()
}
