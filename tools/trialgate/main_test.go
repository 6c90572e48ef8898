package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConvertedSetsCurrent converts every trial again and checks that the
// committed sets under bench/testdata/gate_trials are what the converter makes
// now: a change to the readers or the chunker that moves a chunk shows
// here, and the sets are regenerated with `go run ./tools/trialgate`.
func TestConvertedSetsCurrent(t *testing.T) {
	trials := filepath.Join("..", "..", "bench", "testdata")
	out := t.TempDir()
	for _, s := range trialSets {
		if _, err := convert(context.Background(), s, filepath.Join(trials, s.trial), filepath.Join(out, s.name)); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for _, f := range []string{"corpus.jsonl", "questions.jsonl"} {
			got, err := os.ReadFile(filepath.Join(out, s.name, f))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(trials, "gate_trials", s.name, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from what the converter makes now (go run ./tools/trialgate)", s.name, f)
			}
		}
	}
}
