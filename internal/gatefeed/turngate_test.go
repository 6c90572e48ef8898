package gatefeed

import (
	"context"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
)

// TestTurnGatePrimaryKind checks TurnGate's primary-kind rule as the
// proxy's Begin applies it: a partition that holds no chunk of
// primary_kind is decided with primary_kind cleared (every survivor
// counts), one that holds it with primary_kind kept; the caller's config
// is never changed.
func TestTurnGatePrimaryKind(t *testing.T) {
	docs := []index.Doc{
		{ID: "restore", Title: "Restoring a backup", Text: "To restore a backup, stop the service and run the restore command with the backup's path. The restore recreates the database."},
		{ID: "rotate", Title: "Rotating keys", Text: "Rotate the signing keys every ninety days with the keys rotate command; old keys stay valid for a day."},
	}
	for _, tc := range []struct {
		name, kind, want string
	}{{"no lecture", "", ""}, {"lecture", "lecture", "lecture"}} {
		t.Run(tc.name, func(t *testing.T) {
			ds := make([]index.Doc, len(docs))
			for i, d := range docs {
				d.Kind = tc.kind
				ds[i] = d
			}
			e := testEngine(t, func(ctx context.Context, ic index.Config, dir string) (index.Manifest, error) {
				return index.BuildDocs(ctx, ic, ds, nil, dir, zap.NewNop())
			})
			rq := TurnQuery(index.DefaultTenant, index.DefaultKB, "hi, how do I restore a backup? thanks!", "", "")
			res, err := e.Retrieve(context.Background(), rq)
			if err != nil {
				t.Fatal(err)
			}
			cfg := gate.DefaultConfig()
			turn := TurnGate(cfg, gate.DefaultAnswerModel(), gate.DefaultRelevanceModel(), rq, res, Candidates(res.Candidates))
			if got := turn.Config.PrimaryKind; got != tc.want {
				t.Errorf("primary_kind decided with = %q, want %q", got, tc.want)
			}
			if cfg.PrimaryKind != "lecture" {
				t.Errorf("caller's primary_kind changed to %q", cfg.PrimaryKind)
			}
			if got, want := turn.Question, "how do I restore a backup?"; got != want {
				t.Errorf("question = %q, want %q", got, want)
			}
			if got := turn.Outcome.Decision; got != gate.Ground {
				t.Errorf("decision = %s, want ground (checks %v)", got, turn.Outcome.Checks)
			}
			if len(turn.Cands) != len(res.Candidates) || len(turn.Cands) == 0 || turn.Cands[0].Relevance == 0 {
				t.Errorf("cands not rated: %d of %d", len(turn.Cands), len(res.Candidates))
			}
		})
	}
}
