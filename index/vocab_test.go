package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
)

func TestVocabularyAndKnowsWord(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Embedder = EmbedderHashed
	docs := []Doc{
		{ID: "a", Title: "Puncture Repairs", Text: "A puncture costs 8 pounds per wheel."},
		{ID: "b", Text: "Seniors and students pay less."},
	}
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := BuildDocs(context.Background(), cfg, docs, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	words, stems := p.Vocabulary()
	want := []string{"8", "costs", "less", "pay", "per", "pounds", "puncture", "repairs", "seniors", "students", "wheel"}
	if !slices.Equal(words, want) {
		t.Errorf("Vocabulary words %v, want %v", words, want)
	}
	for i, w := range words {
		if stems[i] != Stem(w) {
			t.Errorf("stem of %q: %q, want %q", w, stems[i], Stem(w))
		}
	}
	for w, want := range map[string]bool{"punctures": true, "repair": true, "senior": true, "tyre": false, "pensioners": false} {
		if got := p.KnowsWord(w); got != want {
			t.Errorf("KnowsWord(%q) = %v, want %v", w, got, want)
		}
	}
}
