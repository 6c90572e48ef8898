package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// TestHistoryCarried checks that a multi-turn row of trial 12 keeps its
// earlier user messages, oldest first, beside its last message (one and
// two of them), and that a single-message row gets no history.
func TestHistoryCarried(t *testing.T) {
	i := slices.IndexFunc(trialSets, func(s trialSet) bool { return s.name == "t12-parking" })
	if i < 0 {
		t.Fatal("no t12-parking set")
	}
	s := trialSets[i]
	out := filepath.Join(t.TempDir(), s.name)
	if _, err := convert(context.Background(), s, filepath.Join("..", "..", "bench", "testdata", s.trial), out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]devQuestion{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var q devQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		rows[q.ID] = q
	}
	tests := []struct {
		id, question string
		history      []string
	}{
		{"t12-parking-km1", "And for a second car?", []string{"How much is a residents' permit?"}},
		{"t12-parking-km7", "And what if there are only three weeks left?", []string{"Can I get a refund on my permit?", "How long does the refund take?"}},
		{"t12-parking-k1", "Can I get a residents' permit if my car is a company car?", nil},
	}
	for _, tt := range tests {
		q, ok := rows[tt.id]
		if !ok {
			t.Fatalf("%s: not written", tt.id)
		}
		if q.Question != tt.question || !slices.Equal(q.History, tt.history) {
			t.Errorf("%s: question %q, history %q; want %q, %q", tt.id, q.Question, q.History, tt.question, tt.history)
		}
	}
}
