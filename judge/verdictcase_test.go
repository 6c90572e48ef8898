package judge

import (
	"context"
	"strings"
	"testing"
)

// verdictCase is a claim, the one passage it cites and the verdict
// wanted: "!X" wants any verdict but X.
type verdictCase struct {
	ev, claim string
	want      string
}

// checkVerdicts verifies each case's claim against its passage with v.
func checkVerdicts(t *testing.T, v *Local, tests []verdictCase) {
	t.Helper()
	for _, tt := range tests {
		got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: tt.ev}})
		if err != nil {
			t.Fatal(err)
		}
		if not, ok := strings.CutPrefix(tt.want, "!"); ok && got.Label == not || !ok && got.Label != tt.want {
			t.Errorf("Verify(%q) against %q = %s/%s %s, want %s", tt.claim, tt.ev, got.Label, got.Reason, got.Detail, tt.want)
		}
	}
}
