package judge

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// The local verifier's decision is a logistic layer over the heuristic
// signals of its best evidence windows (LocalFeatures): P(the cited
// evidence supports the claim). Its weights, the threshold that turns the
// probability into "entailment" and the rule parameters the signals depend
// on (LocalConfig.Entail, Strict, Gather, Conflict) are fitted together on
// training data only (SciFact claims_train, fixed hashed halves of
// HaluEval QA and WiCE dev) by `guard bench quality --verify --fit`, which
// writes localmodel.json; the held-out halves and SciFact dev are only
// ever reported on.

// Feature indexes of LocalFeatures.
const (
	FBias       = iota
	FBestE      // coverage of the claim by its best non-conflicting window
	FGather     // coverage by one passage's non-conflicting windows together
	FBestAny    // coverage by the best window, conflicting or not
	FBag        // coverage by the whole evidence, as a bag of terms
	FMissAnchor // weight share of the claim's anchors (entities, numbers, exclusive words) found nowhere
	FNumConf    // a window covering the claim well states another number
	FPolConf    // a window covering the claim well negates it or says the opposite
	FDirUnmet   // the claim states a change (up/down) no sentence states
	FSubject    // the claim's subject is not what the best window says it of
	FRule       // the rule alone entails (bestE >= need, anchors found)
	FSwap       // the best window names the claim's two entities in swapped roles
	FSim        // sentence-encoder cosine of the claim and its best window (0 without an encoder)
	NumFeatures
)

// FeatureNames name the features in reports and in localmodel.json.
var FeatureNames = [NumFeatures]string{"bias", "best_window", "gather", "best_any", "bag",
	"missing_anchor", "number_conflict", "polarity_conflict", "direction_unmet", "wrong_subject",
	"rule", "swapped_roles", "encoder_similarity"}

// Features is one feature vector.
type Features [NumFeatures]float64

// LocalModel is the fitted decision of the local verifier.
type LocalModel struct {
	// Weights of the logistic layer, indexed by the F* constants.
	Weights Features `json:"weights"`
	// Threshold: entailment when P(supported) >= Threshold.
	Threshold float64 `json:"threshold"`
	// Rule are the fitted rule parameters the features depend on (the
	// defaults of verify.local).
	Rule LocalConfig `json:"rule"`
	// Fit says how and on what the model was fitted.
	Fit string `json:"fit"`
	// NoEncoder is the model fitted on the same data without the encoder
	// similarity, used when the verifier runs without a sentence encoder
	// (nil: this model, with the similarity at 0).
	NoEncoder *LocalModel `json:"no_encoder,omitempty"`
}

// Prob returns P(supported) for f.
func (m *LocalModel) Prob(f Features) float64 {
	var z float64
	for k, w := range m.Weights {
		z += w * f[k]
	}
	return 1 / (1 + math.Exp(-z))
}

//go:embed localmodel.json
var localModelJSON []byte

// DefaultLocalModel is the shipped model (localmodel.json).
var DefaultLocalModel = func() LocalModel {
	var m LocalModel
	if err := json.Unmarshal(localModelJSON, &m); err != nil {
		panic(fmt.Sprintf("judge: embedded localmodel.json: %v", err))
	}
	return m
}()
