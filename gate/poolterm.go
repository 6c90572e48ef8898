package gate

// The question-level cosine terms of the relevance model's pool scale
// (AnswerModel.PoolScale). A question about a corpus of one topic is
// close in meaning to several of its passages, not only to the best one:
// the mean of the three best cosines is steadier than the best alone
// (one passage that happens to share a phrase), and the mean over the
// pool says how close the question is to the corpus as a whole, which a
// paraphrase in everyday words keeps when its best passage's cosine is
// low ("how do I give up my allotment?" has 0.12 with its passage and
// shares two words with it). docs/quality.md, Run 8c.

// PoolTermK is how many of the first semantic candidates (retrieve's
// order) PoolCosines reads: the models' fitting depth (bench.FitTopK),
// so the reserves a partition adds after its top_k do not move the terms.
const PoolTermK = 16

// PoolCosines returns, over the first PoolTermK semantic candidates, the
// mean of the three best encoder cosines between the question and a
// candidate (of as many as there are, when fewer) and the mean cosine;
// both are 0 when no candidate is semantic. One pass, no allocation.
func PoolCosines(cands []Candidate) (top3, mean float64) {
	b := [3]float64{-2, -2, -2}
	var sum float64
	n := 0
	for i := range cands {
		if !cands[i].Semantic {
			continue
		}
		if n == PoolTermK {
			break
		}
		s := cands[i].Sim
		sum += s
		n++
		switch {
		case s > b[0]:
			b[0], b[1], b[2] = s, b[0], b[1]
		case s > b[1]:
			b[1], b[2] = s, b[1]
		case s > b[2]:
			b[2] = s
		}
	}
	if n == 0 {
		return 0, 0
	}
	k := min(n, 3)
	for _, s := range b[:k] {
		top3 += s
	}
	return top3 / float64(k), sum / float64(n)
}
