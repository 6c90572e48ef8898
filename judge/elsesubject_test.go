package judge

import "testing"

// "No one else", "nobody else" name the others than whom the source
// names: no subject of the claim's own, so no wrong subject.
func TestElseIsNoSubject(t *testing.T) {
	sauna := "Only members may use the sauna; no one else may."
	checkVerdicts(t, NewLocal(DefaultConfig().Local), []verdictCase{
		{sauna, "No one else may use the sauna.", Entailment},
		{"Only staff may enter the studio; nobody else may.", "Nobody else may enter the studio.", Entailment},
		{sauna, "Anyone else may use the sauna.", Contradiction},
		{sauna, "Only members may use the sauna.", Entailment},
	})
}
