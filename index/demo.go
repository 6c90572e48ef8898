package index

import (
	"bytes"
	"context"
	"embed"
	"fmt"

	"github.com/answer-guard/guard/internal/resident"
	"go.uber.org/zap"
)

// demoFS holds the embedded demo corpus: the handbook of a fictional
// self-hosted product ("Lanternfish", a team knowledge server) with
// lecture, verse and library passages, and its curated memory.
//
//go:embed demo/corpus.jsonl demo/memory.jsonl
var demoFS embed.FS

// demoCorpus returns the embedded demo documents and memory entries.
func demoCorpus() ([]Doc, []MemoryEntry, error) {
	var docs []Doc
	var mem []MemoryEntry
	cb, err := demoFS.ReadFile("demo/corpus.jsonl")
	if err != nil {
		return nil, nil, fmt.Errorf("demo corpus: %w", err)
	}
	err = readLines(bytes.NewReader(cb), func(n int, line []byte) error {
		d, err := parseDocLine(line)
		if err != nil {
			return fmt.Errorf("demo/corpus.jsonl:%d: %w", n, err)
		}
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	mb, err := demoFS.ReadFile("demo/memory.jsonl")
	if err != nil {
		return nil, nil, fmt.Errorf("demo memory: %w", err)
	}
	err = readLines(bytes.NewReader(mb), func(n int, line []byte) error {
		m, err := parseMemoryLine(line)
		if err != nil {
			return fmt.Errorf("demo/memory.jsonl:%d: %w", n, err)
		}
		mem = append(mem, m)
		return nil
	})
	return docs, mem, err
}

// BuildDemo builds the embedded demo corpus and its memory file into out.
func BuildDemo(ctx context.Context, cfg Config, out string, log *zap.Logger, opts ...Option) (Manifest, error) {
	if err := cfg.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("index config: %w", err)
	}
	docs, mem, err := demoCorpus()
	if err != nil {
		return Manifest{}, err
	}
	opts = append(opts, func(o *options) { o.encCache = demoVecs })
	m, err := buildFrom(ctx, cfg, docs, mem, nil, out, log, opts...)
	// The build read the precomputed vectors in place; their pages need
	// not stay resident until the next demo build reads them again.
	resident.PageOut(demoVectorsFile)
	return m, err
}

// BuildDocs builds a snapshot from documents and memory entries already in
// memory (benchmarks, converters for other corpus formats).
func BuildDocs(ctx context.Context, cfg Config, docs []Doc, mem []MemoryEntry, out string, log *zap.Logger, opts ...Option) (Manifest, error) {
	if err := cfg.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("index config: %w", err)
	}
	for i, d := range docs {
		nd, err := normalizeDoc(d)
		if err != nil {
			return Manifest{}, fmt.Errorf("doc %d: %w", i, err)
		}
		docs[i] = nd
	}
	return buildFrom(ctx, cfg, docs, mem, nil, out, log, opts...)
}
