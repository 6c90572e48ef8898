package bench

import (
	"context"
	"os"
	"testing"
)

// TestGauntletEndToEnd: over a seeded run of 1,000 answers with invented,
// split, malformed, repeated and leaked markers injected by the simulated
// upstream, every injected fault is removed and no valid citation is lost.
func TestGauntletEndToEnd(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	rep, err := GauntletQuality(context.Background(), n, DefaultGauntletFaults, 7, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep)
	if rep.Injected["invented"] == 0 || rep.Injected["leaked"] == 0 || rep.Injected["malformed"] == 0 || rep.Injected["split"] == 0 {
		t.Fatalf("the run injected too little to mean anything: %v", rep.Injected)
	}
	if !rep.OK() {
		t.Errorf("gauntlet let faults through or lost citations: kept %d/%d, unresolved %d, leaked %d, invented %d; %v",
			rep.ValidKept, rep.ValidCites, rep.UnresolvedLeft, rep.LeakedLeft, rep.InventedLeft, rep.Failures)
	}
}
