package corpuscal

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/retrieve"
)

// Each partition is calibrated on its own passages only, the result is
// stored in the snapshot, and retrieval hands the queried partition's
// calibration to the gate.
func TestSnapshotCalibrationPerPartition(t *testing.T) {
	ctx := context.Background()
	var docs []index.Doc
	for i := range 12 {
		docs = append(docs,
			index.Doc{ID: fmt.Sprintf("rail-%d", i), Tenant: "rail", KB: "rules",
				Text: fmt.Sprintf("Rule %d. Passengers with bicycles board at coach %d and must fold the frame. A carrier costs %d pounds on weekdays.", i, i+1, i+3)},
			index.Doc{ID: fmt.Sprintf("boat-%d", i), Tenant: "boat", KB: "faq",
				Text: fmt.Sprintf("Lifeboat station %d keeps a crew of %d volunteers. The boathouse opens for visitors every Sunday afternoon.", i, i+4)})
	}
	docs = append(docs, index.Doc{ID: "boat-only", Tenant: "boat", KB: "faq", Text: "The harbour master answers radio calls on channel sixteen day and night."})
	dir := filepath.Join(t.TempDir(), "snap")
	icfg := index.DefaultConfig()
	if _, err := index.BuildDocs(ctx, icfg, docs, nil, dir, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	cals, err := Snapshot(ctx, dir, icfg, retrieve.DefaultConfig(), gate.DefaultConfig(), 60, true, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if len(cals) != 2 {
		t.Fatalf("%d calibrations, want one per partition", len(cals))
	}
	for _, c := range cals {
		if c.Questions == 0 || c.Found == 0 || c.A <= 0 {
			t.Errorf("%s/%s: %+v", c.Tenant, c.KB, c)
		}
	}

	snap, err := index.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := retrieve.New(retrieve.DefaultConfig(), icfg, snap, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Isolation: a partition's pseudo-questions only ever retrieve its own
	// passages, and count only its own passage as the answer.
	for _, part := range [][2]string{{"rail", "rules"}, {"boat", "faq"}} {
		a, err := Ask(ctx, e, snap, part[0], part[1], 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range a.Questions {
			_, cands, _, err := a.Ask(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cands {
				if !snap.Partition(part[0], part[1]).Contains(c.ID) {
					t.Errorf("%v: pseudo-question %q retrieved %s from another partition", part, q.Text, c.ID)
				}
			}
		}
		res, err := e.Retrieve(ctx, retrieve.Query{Tenant: part[0], KB: part[1], Text: "what does it cost"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Calibration == nil || res.Calibration.Tenant != part[0] || res.Calibration.KB != part[1] {
			t.Errorf("%v: retrieval carries calibration %+v, want the partition's own", part, res.Calibration)
		}
	}
}
