package index

import (
	"slices"
	"sync"
)

// partitionWords is a partition's vocabulary of surface words, computed
// on first use: a snapshot is read-only, so it never changes after.
type partitionWords struct {
	once         sync.Once
	words, stems []string
}

// Vocabulary returns the distinct content words (as Words makes them:
// lower-cased, stopwords dropped, not stemmed) of the partition's live
// chunks, titles included, sorted, and the Porter stem of each at the same
// position. It is computed on the first call (one pass over the
// partition's text) and kept for the snapshot's life; the slices belong
// to the partition: read them, never modify them. Query expansion reads
// it (retrieve: the words a question's unknown word may become).
func (p *Partition) Vocabulary() (words, stems []string) {
	pw := &p.words
	pw.once.Do(func() {
		seen := map[string]struct{}{}
		for i := range p.chunks {
			if p.deleted[i] {
				continue
			}
			ch := &p.chunks[i]
			for _, text := range [2]string{ch.Title, ch.Text} {
				for _, w := range Words(text) {
					if _, ok := seen[w]; !ok {
						seen[w] = struct{}{}
					}
				}
			}
		}
		pw.words = make([]string, 0, len(seen))
		for w := range seen {
			pw.words = append(pw.words, w)
		}
		slices.Sort(pw.words)
		pw.stems = make([]string, len(pw.words))
		for i, w := range pw.words {
			pw.stems[i] = stem(w)
		}
	})
	return pw.words, pw.stems
}

// KnowsWord reports whether the partition's vocabulary holds word's
// Porter stem (word lower-cased as Words makes it): the lexical lane can
// match it as it is.
func (p *Partition) KnowsWord(word string) bool {
	_, ok := p.local.termID(stem(word), false)
	return ok
}

// Stem is the Porter stem the lexical features use for a lower-cased
// word (cached).
func Stem(word string) string { return stem(word) }
