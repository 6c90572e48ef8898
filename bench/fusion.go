package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
	"github.com/answer-guard/guard/retrieve"
)

// DenseWeightMax bounds the weights DevRetrieveOrder may pick: the largest
// of the grid at which SciFact train (BEIR, the local reranker's own
// tuning set; --retrieval) keeps hybrid + rerank nDCG@10 >= 0.708, its
// figure with term match alone. Measured 0.708 at 0, 0.711 at 0.5, 0.709
// at 1, 0.694 at 1.5 (the encoder reads a long abstract's opening only).
const DenseWeightMax = 1.0

// DenseWeightGrid are the values of retrieve.rerank.dense_weight the
// retrieve-order table tries: the weight of the dense lane's pool-relative
// cosine in the local reranker's order.
var DenseWeightGrid = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 6}

// orderRanks are the answerable questions' ranks (1-based, 0 = not
// retrieved) of one set under each weight of DenseWeightGrid.
type orderRanks struct {
	set   string
	ranks [][]int // [weight][question]
}

func (o orderRanks) stats(wi int) rankStats {
	var s rankStats
	for _, r := range o.ranks[wi] {
		s.add(r)
	}
	return s
}

// retrieveOrderRanks indexes s with embedder and ranks its answerable
// questions in retrieve's order under every weight of DenseWeightGrid.
func retrieveOrderRanks(ctx context.Context, s GateSet, embedder string) (orderRanks, error) {
	out := orderRanks{set: s.Name}
	def := proxy.DefaultConfig()
	ic, rc := def.Stages.Index, def.Stages.Retrieve
	ic.Embedder = embedder
	rc.Semantic = false // the order does not depend on the gate's features
	snap, err := setSnapshot(ctx, s, ic)
	if err != nil {
		return out, err
	}
	defer snap.Close()
	for _, w := range DenseWeightGrid {
		c := rc
		c.Rerank.DenseWeight = w
		e, err := retrieve.New(c, ic, nil, zap.NewNop())
		if err != nil {
			return out, err
		}
		var ranks []int
		for _, q := range s.Questions {
			if !q.Answerable {
				continue
			}
			res, err := e.RetrieveFrom(ctx, snap, q.turnQuery())
			if err != nil {
				e.Close()
				return out, fmt.Errorf("%s: %s: %w", s.Name, q.ID, err)
			}
			rank := 0
			for i, r := range res.Candidates {
				if slices.Contains(q.AnswerIDs, r.DocID) {
					rank = i + 1
					break
				}
			}
			ranks = append(ranks, rank)
		}
		e.Close()
		out.ranks = append(out.ranks, ranks)
	}
	return out, nil
}

// DevRetrieveOrder is the table behind retrieve.rerank.dense_weight, with
// the encoder dense lane: R@1 and MRR of retrieve's order on the
// answerable dev questions (a) with term match alone (weight 0), (b) with
// the weight picked on the other corpora, each corpus left out in turn
// (the weight up to DenseWeightMax that maximises their pooled MRR, ties
// to the smaller), and
// (c) in-sample per weight. It returns the weight picked on all corpora.
func DevRetrieveOrder(ctx context.Context, sets []GateSet, w io.Writer) (float64, error) {
	fmt.Fprintln(w, "\nRetrieve order with the encoder lane fused in (retrieve.rerank.dense_weight: the weight of the question's encoder cosine to each pool member, as a z-score within the pool, in the order of the local reranker's pool), answerable dev questions, R@1 / MRR:")
	var all []orderRanks
	for _, s := range sets {
		o, err := retrieveOrderRanks(ctx, s, index.EmbedderUSE)
		if err != nil {
			return 0, err
		}
		all = append(all, o)
	}
	best := func(skip string) int {
		bi, bv := 0, -1.0
		for wi, dw := range DenseWeightGrid {
			if dw > DenseWeightMax {
				break
			}
			var st rankStats
			for _, o := range all {
				if o.set != skip {
					st.merge(o.stats(wi))
				}
			}
			if v := st.rr / float64(max(st.n, 1)); v > bv+1e-9 {
				bi, bv = wi, v
			}
		}
		return bi
	}
	fmt.Fprintf(w, "\n| set | term match alone (weight 0) R@1 | MRR | weight picked without this set | left out R@1 | MRR |\n|---|---:|---:|---:|---:|---:|\n")
	var zero, loo rankStats
	for _, o := range all {
		wi := best(o.set)
		z, l := o.stats(0), o.stats(wi)
		zero.merge(z)
		loo.merge(l)
		fmt.Fprintf(w, "| %s | %s | %g | %s |\n", o.set, r1mrr(z), DenseWeightGrid[wi], r1mrr(l))
	}
	wAll := best("")
	fmt.Fprintf(w, "| all | %s | (on all: %g) | %s |\n", r1mrr(zero), DenseWeightGrid[wAll], r1mrr(loo))
	var cells []string
	for wi, dw := range DenseWeightGrid {
		var st rankStats
		for _, o := range all {
			st.merge(o.stats(wi))
		}
		cells = append(cells, fmt.Sprintf("%g: %s", dw, strings.ReplaceAll(r1mrr(st), " | ", " / ")))
	}
	fmt.Fprintf(w, "\nIn-sample, pooled, per weight (R@1 / MRR): %s\n", strings.Join(cells, "; "))
	return DenseWeightGrid[wAll], nil
}

// r1mrr formats R@1 and MRR as two table cells.
func r1mrr(s rankStats) string {
	if s.n == 0 {
		return "- | -"
	}
	return fmt.Sprintf("%.3f | %.3f", s.r1/float64(s.n), s.rr/float64(s.n))
}
