package bench

import (
	"context"
	"io"
	"testing"
)

// End to end through the proxy: numbers the upstream changed against the
// cited note are reported as contradictions with an evidence span, strict
// mode never releases a changed sentence with its citation, unchanged cited
// claims are not called contradicted, and uncited copies of a note are
// classified as missed citations. A long suite (60 answers through the
// whole pipeline in both modes): skipped with -short.
func TestClaimsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("claims end to end over 60 answers: a long suite, skipped with -short")
	}
	reps, err := ClaimsQuality(context.Background(), 60, DefaultClaimFaults, 3, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		t.Logf("%+v", r)
		if r.Changed == 0 || r.MissedFromNotes == 0 {
			t.Fatalf("%s: nothing injected (changed %d, missed %d)", r.Mode, r.Changed, r.MissedFromNotes)
		}
		if r.Caught < r.Changed*9/10 || r.CaughtWithSpan != r.Caught {
			t.Errorf("%s: %d of %d changed numbers reported contradicted (%d with a span)", r.Mode, r.Caught, r.Changed, r.CaughtWithSpan)
		}
		if r.FalseContradictions > r.CitedClaims/20 {
			t.Errorf("%s: %d of %d unchanged cited claims called contradicted", r.Mode, r.FalseContradictions, r.CitedClaims)
		}
		if r.MissedFound < r.MissedFromNotes*8/10 {
			t.Errorf("%s: %d of %d uncited note sentences classified likely_missed", r.Mode, r.MissedFound, r.MissedFromNotes)
		}
		if r.Mode == "strict" && r.StrictCitedChanged != 0 {
			t.Errorf("strict: %d changed sentences released with their citation", r.StrictCitedChanged)
		}
	}
}
