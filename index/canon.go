package index

import (
	"slices"
	"strings"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/answer-guard/guard/internal/wordforms"
)

// canon maps a word, or its Porter stem, to its group's term (the Porter
// stem of the group's first word): Tokenize reads a group of
// wordforms.Groups (an irregular form and its stem, "sold" and "sell", or
// common synonyms, "shut" and "close") as one term, as the judge's
// verifier does, so a question meets a passage that words it the other way
// in the local reranker and in the gate's features.
var canon = func() map[string]string {
	m := map[string]string{}
	for _, g := range wordforms.Groups {
		ws := strings.Fields(g)
		if slices.ContainsFunc(ws, func(w string) bool { return stopwords[w] }) {
			continue // "every each": Tokenize drops "each" as a stopword
		}
		c := porterstemmer.StemString(ws[0])
		for _, w := range ws {
			m[w] = c
			if st := porterstemmer.StemString(w); m[st] == "" {
				m[st] = c
			}
		}
	}
	return m
}()
