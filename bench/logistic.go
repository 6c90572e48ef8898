package bench

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// fitLogistic fits a logistic model to rows xs (each starting with a bias
// column) and labels ys in {0,1}, minimising the weighted log loss plus
// lambda*|w|^2 (bias excluded) with gonum's BFGS. ws weighs each row (nil:
// all 1). Both fitted models of the quality suites (the gate's
// answerability model, the local verifier's layer) use it.
func fitLogistic(xs [][]float64, ys, ws []float64, lambda float64) ([]float64, error) {
	if len(xs) == 0 {
		return nil, errors.New("no training rows")
	}
	dims := len(xs[0])
	weight := func(i int) float64 {
		if ws == nil {
			return 1
		}
		return ws[i]
	}
	nll := func(w []float64, grad []float64) float64 {
		var loss float64
		if grad != nil {
			clear(grad)
		}
		for i, x := range xs {
			var z float64
			for k := range w {
				z += w[k] * x[k]
			}
			p := 1 / (1 + math.Exp(-z))
			p = min(max(p, 1e-12), 1-1e-12)
			loss -= weight(i) * (ys[i]*math.Log(p) + (1-ys[i])*math.Log(1-p))
			if grad != nil {
				for k := range w {
					grad[k] += weight(i) * (p - ys[i]) * x[k]
				}
			}
		}
		for k := 1; k < len(w); k++ {
			loss += lambda * w[k] * w[k]
			if grad != nil {
				grad[k] += 2 * lambda * w[k]
			}
		}
		return loss
	}
	p := optimize.Problem{
		Func: func(w []float64) float64 { return nll(w, nil) },
		Grad: func(grad, w []float64) { nll(w, grad) },
	}
	res, err := optimize.Minimize(p, make([]float64, dims), nil, &optimize.BFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	return res.X, nil
}
