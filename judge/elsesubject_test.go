package judge

import (
	"context"
	"testing"
)

// "No one else", "nobody else" name the others than whom the source
// names: no subject of the claim's own, so no wrong subject.
func TestElseIsNoSubject(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	for _, tt := range []struct{ claim, ev, want, why string }{
		{"No one else may use the sauna.", "Only members may use the sauna; no one else may.", Entailment, "covered"},
		{"Nobody else may enter the studio.", "Only staff may enter the studio; nobody else may.", Entailment, "covered"},
		{"Anyone else may use the sauna.", "Only members may use the sauna; no one else may.", Contradiction, "negation"},
		{"Only members may use the sauna.", "Only members may use the sauna; no one else may.", Entailment, "covered"},
	} {
		if got, _ := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, Text: tt.ev}}); got.Label != tt.want || got.Reason != tt.why {
			t.Errorf("Verify(%q, %q) = %s/%s, want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, tt.want, tt.why)
		}
	}
}
