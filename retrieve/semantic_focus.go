package retrieve

import (
	"github.com/answer-guard/guard/index"
)

// The focus features: what a passage offers the question's rarest words.
// A passage on the question's topic that does not answer it usually lacks
// the one thing asked ("the phone number of the workshop" against the
// workshop's opening hours): the question's highest-IDF words (the
// partition's IDF, so a word the corpus never uses weighs most) find no
// exact, stem or close word-vector match in it. The same word-by-word
// cosines also give the soft coverage of the best sentence (title
// included), so a long page that mentions every word somewhere but
// answers nowhere scores below a short one that answers.

// focusMissBelow is the word-vector cosine below which a question word
// counts as missing from a passage (close paraphrases, "refund" and
// "money", sit above it; mere neighbours of a topic below).
const focusMissBelow = 0.5

// focusQuestion is a question's content words prepared once per turn:
// the words (for the word vectors), their stems (for exact matches) and
// their IDF weights in the queried partition, distinct words only.
type focusQuestion struct {
	words, stems []string
	idf          []float64
	total        float64
	// top are the indexes of the two highest-IDF words (-1 if absent).
	top [2]int
	// scratch is reused across the turn's passages (one goroutine).
	scratch []float64
}

// buffers returns three zeroed slices of scratch: row and sentSum of n
// each, bestOf of one per question word.
func (q *focusQuestion) buffers(n int) (row, sentSum, bestOf []float64) {
	m := len(q.words)
	need := 2*n + m
	if cap(q.scratch) < need {
		q.scratch = make([]float64, need)
	}
	b := q.scratch[:need]
	clear(b)
	return b[:n:n], b[n : 2*n : 2*n], b[2*n:]
}

// newFocusQuestion prepares q's words with the partition's IDF (nil
// weighs every word 1).
func newFocusQuestion(q string, idf func(string) float64) focusQuestion {
	words := index.Words(q)
	stems := index.Tokenize(q)
	fq := focusQuestion{top: [2]int{-1, -1}}
	if len(stems) != len(words) { // the two drop the same words; be safe
		stems = words
	}
	seen := make(map[string]bool, len(words))
	for i, w := range words {
		if seen[stems[i]] {
			continue
		}
		seen[stems[i]] = true
		v := 1.0
		if idf != nil {
			v = idf(stems[i])
		}
		fq.words = append(fq.words, w)
		fq.stems = append(fq.stems, stems[i])
		fq.idf = append(fq.idf, v)
		fq.total += v
	}
	for i, v := range fq.idf {
		switch {
		case fq.top[0] < 0 || v > fq.idf[fq.top[0]]:
			fq.top[1] = fq.top[0]
			fq.top[0] = i
		case fq.top[1] < 0 || v > fq.idf[fq.top[1]]:
			fq.top[1] = i
		}
	}
	return fq
}

// passageFocus is what the focus features need of a passage beyond its
// words: their stems, their word-vector ids and where its sentences end.
type passageFocus struct {
	stems []string
	// stemIDs number the stems within the passage (stemDict maps a stem to
	// its number), so a question word's stem is looked up once per passage
	// and compared as an integer.
	stemIDs  []int32
	stemDict map[string]int32
	// ids are the words' word-vector ids (-1: unknown), nil when the word
	// vectors have no row access or a word is not lowercase ASCII (the
	// per-pair way then).
	ids []int32
	// ends are the end offsets into words of the title (ends[0], 0 when
	// untitled) and of each sentence of the text.
	ends []int
}

// newPassageFocus prepares the focus features of a passage whose words
// (Words(title + ". " + text), as passage() makes them) are words.
func (s *semantic) newPassageFocus(title, text string, words []string) *passageFocus {
	pf := splitPassage(title, text)
	if rv, ok := s.wv.(rowVectors); ok && plain(words) && len(words) == len(pf.stems) {
		pf.ids = make([]int32, len(words))
		for j, w := range words {
			id, known := rv.ID(w)
			if !known {
				id = -1
			}
			pf.ids[j] = id
		}
	}
	return pf
}

// splitPassage cuts title and text into sentences: the cuts fall on
// characters Words splits on anyway, so the offsets line up with the
// passage's words.
func splitPassage(title, text string) *passageFocus {
	pf := &passageFocus{}
	if title != "" {
		pf.stems = index.Tokenize(title)
	}
	pf.ends = append(pf.ends, len(pf.stems))
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '?' && c != '!' && c != ';' && c != '\n' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' {
			continue // 4.50, e.g.
		}
		if st := index.Tokenize(text[start : i+1]); len(st) > 0 {
			pf.stems = append(pf.stems, st...)
			pf.ends = append(pf.ends, len(pf.stems))
		}
		start = i + 1
	}
	if st := index.Tokenize(text[start:]); len(st) > 0 {
		pf.stems = append(pf.stems, st...)
		pf.ends = append(pf.ends, len(pf.stems))
	}
	pf.stemIDs = make([]int32, len(pf.stems))
	pf.stemDict = make(map[string]int32, len(pf.stems))
	for j, st := range pf.stems {
		id, ok := pf.stemDict[st]
		if !ok {
			id = int32(len(pf.stemDict))
			pf.stemDict[st] = id
		}
		pf.stemIDs[j] = id
	}
	return pf
}

// focusScores are one passage's focus features.
type focusScores struct {
	// focus is the IDF-weighted soft coverage (a stem match counts 1),
	// miss the IDF-weighted share of question words below focusMissBelow,
	// worst the lower best cosine of the two highest-IDF words, sent the
	// best sentence's IDF-weighted soft coverage (title included).
	focus, miss, worst, sent float64
}

// focusAll sets the focus features of every candidate (pss[i] is cands[i]'s
// passage). As coverAll does for the soft coverage, each distinct
// (question word, passage word) cosine is one SIMD dot per turn; words
// that are not lowercase ASCII go the per-pair way.
func (s *semantic) focusAll(q *focusQuestion, pss []*passageSem, cands []Candidate) {
	if len(q.words) == 0 || q.total <= 0 {
		return
	}
	rv, ok := s.wv.(rowVectors)
	batched := ok && plain(q.words)
	var sim []float64
	var nIDs int
	var pslots [][]int32
	if batched {
		sc := coverPool.Get().(*coverScratch) // the soft coverage's scratch, free again by now
		defer coverPool.Put(sc)
		lists := make([][]int32, len(pss))
		for i, ps := range pss {
			if ps.focus != nil {
				lists[i] = ps.focus.ids // nil when the passage's words are not plain
			}
		}
		pslots, sim, nIDs = sc.pairTable(rv, q.words, lists)
	} else {
		pslots = make([][]int32, len(pss))
	}
	for i, ps := range pss {
		sl := pslots[i]
		if batched && sl != nil {
			cands[i].setFocus(q.scores(ps, sl, sim, nIDs, nil))
			continue
		}
		cos := func(qi, j int) float64 { return s.wv.Similarity(q.words[qi], ps.words[j]) }
		cands[i].setFocus(q.scores(ps, nil, nil, 0, cos))
	}
}

// scores computes one passage's focus features. With sl set, the cosine
// of question word qi and passage word j is sim[qi*nIDs+sl[j]] (0 when
// sl[j] < 0); else cos(qi, j).
func (q *focusQuestion) scores(ps *passageSem, sl []int32, sim []float64, nIDs int, cos func(qi, j int) float64) focusScores {
	var fs focusScores
	pf := ps.focus
	if pf == nil || len(pf.stems) != len(ps.words) {
		return fs // not aligned (cannot happen with passage()'s text); leave the focus features 0
	}
	nSent := len(pf.ends)
	// row[k] is a question word's best match within span k (0: the title,
	// then each sentence); the same word or stem counts 1.
	row, sentSum, bestOf := q.buffers(nSent)
	for i := range q.words {
		qs, ok := pf.stemDict[q.stems[i]]
		if !ok {
			qs = -1
		}
		var simRow []float64
		if sl != nil {
			simRow = sim[i*nIDs : (i+1)*nIDs]
		}
		start := 0
		for k, end := range pf.ends {
			r := 0.0
			for j := start; j < end; j++ {
				if pf.stemIDs[j] == qs {
					r = 1
					break
				}
				switch {
				case sl == nil:
					r = max(r, cos(i, j))
				case sl[j] >= 0:
					r = max(r, simRow[sl[j]])
				}
			}
			row[k] = r
			start = end
		}
		best := 0.0
		for _, v := range row {
			best = max(best, v)
		}
		bestOf[i] = best
		fs.focus += q.idf[i] * best
		if best < focusMissBelow {
			fs.miss += q.idf[i]
		}
		if nSent == 1 {
			sentSum[0] += q.idf[i] * row[0]
		}
		for k := 1; k < nSent; k++ {
			sentSum[k] += q.idf[i] * max(row[0], row[k])
		}
	}
	fs.focus /= q.total
	fs.miss /= q.total
	for _, v := range sentSum {
		fs.sent = max(fs.sent, v/q.total)
	}
	fs.worst = 1
	for _, t := range q.top {
		if t >= 0 {
			fs.worst = min(fs.worst, bestOf[t])
		}
	}
	return fs
}

// setFocus copies fs onto c.
func (c *Candidate) setFocus(fs focusScores) {
	c.Focus, c.FocusMiss, c.FocusWorst, c.SentSoft = fs.focus, fs.miss, fs.worst, fs.sent
}
