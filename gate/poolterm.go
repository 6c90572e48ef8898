package gate

// The question-level cosine term of the relevance model's pool scale
// (AnswerModel.PoolScale). A question about a corpus of one topic is
// close in meaning to its passage and usually to a neighbour too: the mean
// of the two best cosines is steadier than the best alone (one passage
// that happens to share a phrase with an off-topic question). A mean over
// the whole pool was measured and not kept: in a corpus larger than the
// pool it reads the nearest passages only and runs higher than in the
// small dev corpora it was fitted on (docs/quality.md, Run 8c).

// PoolTermK is how many of the first semantic candidates (retrieve's
// order) PoolCosine reads: the models' fitting depth (bench.FitTopK), so
// the reserves a partition adds after its top_k do not move the term.
const PoolTermK = 16

// PoolCosine returns the mean of the two best encoder cosines between the
// question and one of the first PoolTermK semantic candidates (the best
// alone when there is one; 0 when there is none). One pass, no allocation.
func PoolCosine(cands []Candidate) float64 {
	b0, b1 := -2.0, -2.0
	n := 0
	for i := range cands {
		if !cands[i].Semantic {
			continue
		}
		if n == PoolTermK {
			break
		}
		n++
		switch s := cands[i].Sim; {
		case s > b0:
			b0, b1 = s, b0
		case s > b1:
			b1 = s
		}
	}
	switch n {
	case 0:
		return 0
	case 1:
		return b0
	}
	return (b0 + b1) / 2
}
