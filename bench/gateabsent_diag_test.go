package bench

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/wordvec"
)

// TestZZDiagAbsent (G13DIAG=1, go test -v): for each dev question, its
// words whose stem the corpus never uses, with frequency rank and nearest
// corpus word by word-vector cosine (Run 15's data-level check).
func TestZZDiagAbsent(t *testing.T) {
	if os.Getenv("G13DIAG") == "" {
		t.Skip()
	}
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	sets, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		stems := map[string]bool{}
		var words []string
		seen := map[string]bool{}
		for _, d := range s.Docs {
			for _, w := range index.Words(d.Title + " " + d.Text) {
				stems[index.Stem(w)] = true
				if !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
		slices.Sort(words)
		for _, q := range s.Questions {
			line := fmt.Sprintf("%s\t%s\t%s\t", s.Name, q.class(), q.Question)
			for _, w := range index.Words(q.Question) {
				if stems[index.Stem(w)] {
					continue
				}
				id, ok := wv.ID(w)
				best, bw := -1.0, ""
				for _, v := range words {
					if c := wv.Similarity(w, v); c > best {
						best, bw = c, v
					}
				}
				line += fmt.Sprintf(" %s(r%d,%v)~%s:%.2f", w, id, ok, bw, best)
			}
			fmt.Println(line)
		}
	}
}

// TestZZDiagSibling (G13DIAG=1): for each dev question and each of its
// answer passages (answerable) or related passages (unanswerable), the
// question's words absent from the passage with the passage's nearest
// word not in the question (the sibling-substitution check of Run 15).
func TestZZDiagSibling(t *testing.T) {
	if os.Getenv("G13DIAG") == "" {
		t.Skip()
	}
	wv, err := wordvec.Default()
	if err != nil {
		t.Fatal(err)
	}
	sets, err := DevGateSets("testdata/gate")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		docs := map[string]index.Doc{}
		for _, d := range s.Docs {
			docs[d.ID] = d
		}
		for _, q := range s.Questions {
			ids := q.AnswerIDs
			if !q.Answerable {
				ids = q.RelatedIDs
			}
			qs := map[string]bool{}
			for _, w := range index.Words(q.Question) {
				qs[index.Stem(w)] = true
			}
			for _, id := range ids {
				d, ok := docs[id]
				if !ok {
					continue
				}
				pw := index.Words(d.Title + " " + d.Text)
				ps := map[string]bool{}
				for _, w := range pw {
					ps[index.Stem(w)] = true
				}
				line := fmt.Sprintf("%s\t%s\t%s\t%s\t", s.Name, q.class(), id, q.Question)
				for _, w := range index.Words(q.Question) {
					if ps[index.Stem(w)] {
						continue
					}
					wid, _ := wv.ID(w)
					best, bw, brank := -1.0, "", int32(0)
					for _, v := range pw {
						if qs[index.Stem(v)] {
							continue
						}
						if c := wv.Similarity(w, v); c > best {
							vid, _ := wv.ID(v)
							best, bw, brank = c, v, vid
						}
					}
					line += fmt.Sprintf(" %s(r%d)~%s(r%d):%.2f", w, wid, bw, brank, best)
				}
				fmt.Println(line)
			}
		}
	}
}
