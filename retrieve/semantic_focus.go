package retrieve

import (
	"slices"
	"strings"
	"unicode"

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
	// slot are the indexes of the ask slot's words (index.AskSlot);
	// quantity says the question asks for a quantity, a time or a date,
	// count that it asks how many of the slot's thing.
	slot            []int
	quantity, count bool
	// scratch is reused across the turn's passages (one goroutine).
	scratch []float64
}

// buffers returns four zeroed slices of scratch: row, sentSum and sentSlot
// of n each, bestOf of one per question word.
func (q *focusQuestion) buffers(n int) (row, sentSum, sentSlot, bestOf []float64) {
	m := len(q.words)
	need := 3*n + m
	if cap(q.scratch) < need {
		q.scratch = make([]float64, need)
	}
	b := q.scratch[:need]
	clear(b)
	return b[:n:n], b[n : 2*n : 2*n], b[2*n : 3*n : 3*n], b[3*n:]
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
	as := index.AskSlot(q)
	fq.quantity, fq.count = as.Quantity, as.Count
	for _, w := range as.Words {
		st := index.Tokenize(w)
		if len(st) != 1 {
			continue
		}
		for i, qs := range fq.stems {
			if qs == st[0] && !slices.Contains(fq.slot, i) {
				fq.slot = append(fq.slot, i)
			}
		}
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
	// nearNum[j] says a number, a price, a time or a date word sits within
	// slotNumWindow words of word j; countOf[j] that a number sits just
	// before it ("84 stations": the count of stations).
	nearNum, countOf []bool
}

// slotNumWindow is how near (in content words) a number must sit to the
// ask slot's match to answer a quantity question ("84 stations" does not
// answer "how many bikes").
const slotNumWindow = 4

// numberish reports a word that states a quantity, a price, a time or a
// date: one with a digit, a number word, a day or a month.
func numberish(w string) bool {
	for _, r := range w {
		if unicode.IsDigit(r) {
			return true
		}
	}
	return numberWords[w]
}

var numberWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
forty fifty sixty hundred thousand million half quarter twice dozen free noon midnight monday tuesday wednesday
thursday friday saturday sunday weekday weekdays weekend weekends daily weekly monthly yearly annually january
february march april june july august september october november december am pm`) {
		m[w] = true
		for _, st := range index.Tokenize(w) { // and its stem, for passages whose words are not at hand
			m[st] = true
		}
	}
	return m
}()

// markNumbers sets pf.nearNum from the passage's words (or its stems).
func (pf *passageFocus) markNumbers(words []string) {
	if len(words) != len(pf.stems) {
		words = pf.stems
	}
	pf.nearNum = make([]bool, len(words))
	pf.countOf = make([]bool, len(words))
	for j, w := range words {
		if !numberish(w) {
			continue
		}
		for k := j + 1; k <= min(len(words)-1, j+2); k++ {
			pf.countOf[k] = true
		}
		for k := max(0, j-slotNumWindow); k <= min(len(words)-1, j+slotNumWindow); k++ {
			pf.nearNum[k] = true
		}
	}
}

// newPassageFocus prepares the focus features of a passage whose words
// (Words(title + ". " + text), as passage() makes them) are words.
func (s *semantic) newPassageFocus(title, text string, words []string) *passageFocus {
	pf := splitPassage(title, text)
	pf.markNumbers(words)
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
	// slot is the ask slot's worst-matched word's best match in the
	// passage, slotSent the same within its best sentence (title
	// included); both 1 when the question has no slot. qtyMiss is 1 when
	// the question asks for a quantity and no number sits near a match of
	// its slot (anywhere in the passage when it has no slot).
	slot, slotSent, qtyMiss float64
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
	row, sentSum, sentSlot, bestOf := q.buffers(nSent)
	for k := range sentSlot {
		sentSlot[k] = 1
	}
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
		if slices.Contains(q.slot, i) {
			if nSent == 1 {
				sentSlot[0] = min(sentSlot[0], row[0])
			}
			for k := 1; k < nSent; k++ {
				sentSlot[k] = min(sentSlot[k], max(row[0], row[k]))
			}
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
	fs.slot, fs.slotSent = 1, 1
	if len(q.slot) > 0 {
		for _, i := range q.slot {
			fs.slot = min(fs.slot, bestOf[i])
		}
		fs.slotSent = 0
		for k, v := range sentSlot {
			if k > 0 || nSent == 1 { // the title is scored with each sentence
				fs.slotSent = max(fs.slotSent, v)
			}
		}
	}
	if q.quantity && !q.slotNumber(pf, sl, sim, nIDs, cos) {
		fs.qtyMiss = 1
	}
	return fs
}

// slotNumber reports a number near a match (the same stem, or a cosine at
// or above focusMissBelow) of one of the slot's words (for a count
// question, just before it); with no slot, a number anywhere in the
// passage.
func (q *focusQuestion) slotNumber(pf *passageFocus, sl []int32, sim []float64, nIDs int, cos func(qi, j int) float64) bool {
	if len(q.slot) == 0 {
		return slices.Contains(pf.nearNum, true)
	}
	for _, i := range q.slot {
		qs, ok := pf.stemDict[q.stems[i]]
		if !ok {
			qs = -1
		}
		near := pf.nearNum
		if q.count {
			near = pf.countOf
		}
		for j, ok := range near {
			if !ok {
				continue
			}
			switch {
			case pf.stemIDs[j] == qs:
				return true
			case sl == nil:
				if cos(i, j) >= focusMissBelow {
					return true
				}
			case sl[j] >= 0 && sim[i*nIDs+int(sl[j])] >= focusMissBelow:
				return true
			}
		}
	}
	return false
}

// setFocus copies fs onto c.
func (c *Candidate) setFocus(fs focusScores) {
	c.Focus, c.FocusMiss, c.FocusWorst, c.SentSoft = fs.focus, fs.miss, fs.worst, fs.sent
	c.SlotSoft, c.SlotSent, c.QtyMiss = fs.slot, fs.slotSent, fs.qtyMiss
}
