package proxy

import (
	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
)

// StageConfigs holds the configuration sections of the pipeline stages; it is
// inlined at the top level of the YAML file. Each stage owns its defaults and
// validation.
type StageConfigs struct {
	Index    index.Config    `yaml:"index"`
	Retrieve retrieve.Config `yaml:"retrieve"`
	Gate     gate.Config     `yaml:"gate"`
	Gauntlet gauntlet.Config `yaml:"gauntlet"`
	Verify   judge.Config    `yaml:"verify"`
	// Pairwise is the offline pairwise judge (guard judge --pairwise); the
	// proxy does not use it.
	Pairwise judge.PairwiseConfig `yaml:"pairwise"`
}

func defaultStages() StageConfigs {
	return StageConfigs{Index: index.DefaultConfig(), Retrieve: retrieve.DefaultConfig(),
		Gate: gate.DefaultConfig(), Gauntlet: gauntlet.DefaultConfig(), Verify: judge.DefaultConfig(),
		Pairwise: judge.DefaultPairwiseConfig()}
}

// validate returns each section's problems keyed by section name.
func (s StageConfigs) validate() map[string]error {
	return map[string]error{"index": s.Index.Validate(), "retrieve": s.Retrieve.Validate(),
		"gate": s.Gate.Validate(), "gauntlet": s.Gauntlet.Validate(), "verify": s.Verify.Validate(),
		"pairwise": s.Pairwise.Validate()}
}
