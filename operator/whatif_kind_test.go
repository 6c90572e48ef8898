package operator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// kindWhatIf is the part of a what-if response the primary_kind tests read.
type kindWhatIf struct {
	Turns       int `json:"turns"`
	Changed     int `json:"changed"`
	OtherConfig int `json:"decided_under_other_config"`
	Exact       struct {
		Checked    int `json:"checked"`
		Mismatched int `json:"mismatched"`
	} `json:"exact"`
	Transitions []struct {
		From     string `json:"from"`
		To       string `json:"to"`
		Count    int    `json:"count"`
		Examples []struct {
			ID     uint64 `json:"id"`
			Tenant string `json:"tenant"`
		} `json:"examples"`
	} `json:"transitions"`
	Checks map[string]struct {
		Before int `json:"before"`
		After  int `json:"after"`
	} `json:"checks"`
	Absent []string `json:"primary_kind_absent"`
	Gate   struct {
		PrimaryKind string `json:"primary_kind"`
	} `json:"gate"`
}

// rawReq sends body and returns the status and the body received.
func rawReq(t *testing.T, method, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The what-if moves gate.primary_kind: the turn list offers each
// partition's kinds, an unknown kind is a 400 that lists them, and a moved
// kind changes exactly the turns whose sufficiency the gate's rule says it
// changes, computed here from each turn's candidates (kind, floored) and
// coverage. A partition without the kind counts every chunk, as the proxy
// does: tenant shop (a corpus that never sets kind, so all "library") is
// decided with every chunk counting under primary_kind lecture, the
// what-if at the configured thresholds changes none of its turns, and a
// what-if kind it lacks leaves it as it is.
func TestWhatIfPrimaryKind(t *testing.T) {
	ctx := context.Background()
	ic := proxy.DefaultConfig().Stages.Index
	src := filepath.Join(t.TempDir(), "shop.jsonl")
	shop := []string{
		`{"id":"shop-1","tenant":"shop","title":"Puncture repair","text":"Puncture repair costs 8 pounds per wheel, including a new inner tube. Most punctures are repaired while you wait."}`,
		`{"id":"shop-2","tenant":"shop","title":"Opening hours","text":"The bike shop is open Tuesday to Saturday, 9am to 5:30pm. We are closed on Sundays, Mondays and bank holidays."}`,
		`{"id":"shop-3","tenant":"shop","title":"Annual service","text":"An annual service costs 60 pounds: we true the wheels, adjust the gears and brakes, and check the chain for wear."}`,
		`{"id":"shop-4","tenant":"shop","title":"Puncture repair prices","text":"A puncture repair is 8 pounds per wheel; a tubeless puncture repair with sealant is 12 pounds per wheel."}`,
	}
	if err := os.WriteFile(src, []byte(strings.Join(shop, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "v2")
	if _, err := index.Add(ctx, ic, demoSnapshot(t), []string{src}, nil, snap, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	ts := startGuard(t, func(c *testCfg) { c.Pipeline.Index = snap })
	root := strings.TrimSuffix(ts.base, "/v1")
	runScripted(t, ts)
	for _, q := range []string{"How much is a puncture repair per wheel?", "When is the bike shop open on Saturday?", "What does an annual service cost?"} {
		askGap(t, ts.base, "shop", q, false)
	}

	// The turn list: each partition with its kinds.
	var tb struct {
		Partitions []struct {
			Tenant string   `json:"tenant"`
			KB     string   `json:"kb"`
			Kinds  []string `json:"kinds"`
		} `json:"partitions"`
		Turns []struct {
			ID     uint64 `json:"id"`
			Tenant string `json:"tenant"`
			KB     string `json:"kb"`
		} `json:"turns"`
	}
	if code := opReq(t, "GET", root+"/v1/guard/turns", nil, "", &tb); code != 200 {
		t.Fatalf("GET turns: %d", code)
	}
	kinds := map[string]string{}
	for _, p := range tb.Partitions {
		kinds[p.Tenant] = strings.Join(p.Kinds, ",")
	}
	if kinds["default"] != "lecture,library,verse" || kinds["shop"] != "library" {
		t.Fatalf("partition kinds %v, want default lecture,library,verse and shop library", kinds)
	}

	// An unknown kind: 400 with the kinds of the partitions in scope.
	for _, tc := range []struct {
		hdr  map[string]string
		want string
	}{
		{nil, "lecture, library, verse"},
		{map[string]string{"X-Tenant-ID": "shop"}, "the kinds there: library ("},
	} {
		code, body := rawReq(t, "POST", root+"/v1/guard/whatif", tc.hdr, `{"gate":{"primary_kind":"lectures"}}`)
		if code != 400 || !strings.Contains(body, `"unknown_kind"`) || !strings.Contains(body, `"gate.primary_kind"`) || !strings.Contains(body, tc.want) {
			t.Errorf("unknown kind as %v: %d %s, want 400 unknown_kind listing %q", tc.hdr, code, body, tc.want)
		}
	}

	// Each turn's survivors by kind, and its coverage, from its detail.
	type turnIn struct {
		tenant   string
		decision string
		max      float64
		kinds    []string // of the survivors
	}
	turns := map[uint64]turnIn{}
	for _, row := range tb.Turns {
		var d struct {
			Turn struct {
				Decision string `json:"decision"`
				Coverage struct {
					Max float64 `json:"max"`
				} `json:"coverage"`
				Cands []struct {
					Kind    string `json:"kind"`
					Floored bool   `json:"floored"`
				} `json:"candidate_list"`
			} `json:"turn"`
		}
		if code := opReq(t, "GET", fmt.Sprintf("%s/v1/guard/turns?id=%d", root, row.ID), nil, "", &d); code != 200 {
			t.Fatalf("turn %d: %d", row.ID, code)
		}
		in := turnIn{tenant: row.Tenant, decision: d.Turn.Decision, max: d.Turn.Coverage.Max}
		for _, c := range d.Turn.Cands {
			if !c.Floored {
				in.kinds = append(in.kinds, c.Kind)
			}
		}
		turns[row.ID] = in
	}
	def := proxy.DefaultConfig().Stages.Gate
	// sufficient is the gate's rule with primary kind k for a turn of a
	// partition whose chunks have kinds pk.
	sufficient := func(in turnIn, k string, pk []string) bool {
		n := 0
		for _, kind := range in.kinds {
			if k == "" || !slices.Contains(pk, k) || kind == k {
				n++
			}
		}
		return in.max >= def.SufficientMax && n >= def.PrimaryMin
	}
	partKinds := map[string][]string{"default": {"lecture", "library", "verse"}, "shop": {"library"}}

	// With good_enough_max at 1 sufficiency alone grounds a turn, so the
	// primary kind decides (on the demo most grounded turns have a
	// coverage above the default good_enough_max, which grounds them
	// whatever the kind).
	changedAny := false
	for _, tc := range []struct {
		name, body, kind string
		good             float64
		absent           []string
	}{
		{"as configured", `{"examples":100}`, def.PrimaryKind, def.GoodEnoughMax, []string{"shop/default"}},
		{"as configured, good_enough_max 1", `{"gate":{"good_enough_max":1},"examples":100}`, def.PrimaryKind, 1, []string{"shop/default"}},
		{"none", `{"gate":{"primary_kind":"","good_enough_max":1},"examples":100}`, "", 1, []string{}},
		{"library", `{"gate":{"primary_kind":"library","good_enough_max":1},"examples":100}`, "library", 1, []string{}},
		{"verse", `{"gate":{"primary_kind":"verse","good_enough_max":1},"examples":100}`, "verse", 1, []string{"shop/default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r kindWhatIf
			if code := opReq(t, "POST", root+"/v1/guard/whatif", nil, tc.body, &r); code != 200 {
				t.Fatalf("whatif: %d", code)
			}
			if r.Turns != len(turns) || r.Exact.Checked != len(turns) || r.Exact.Mismatched != 0 || r.OtherConfig != 0 {
				t.Errorf("%d turns, exact %+v, %d under another config; want %d, every one exact, 0", r.Turns, r.Exact, r.OtherConfig, len(turns))
			}
			if r.Gate.PrimaryKind != tc.kind || !slices.Equal(r.Absent, tc.absent) {
				t.Errorf("primary_kind %q absent in %v, want %q absent in %v", r.Gate.PrimaryKind, r.Absent, tc.kind, tc.absent)
			}
			// The sufficiency count, and each turn's move, from the rule.
			wantSuff, wantMoves := 0, map[uint64]string{}
			for id, in := range turns {
				now := sufficient(in, tc.kind, partKinds[in.tenant])
				if now {
					wantSuff++
				}
				good := now || in.max >= tc.good
				switch {
				case in.decision == "ground" && !good:
					wantMoves[id] = "ground->refuse" // between bail-out and good enough
				case in.decision == "refuse" && good:
					wantMoves[id] = "refuse->ground" // unless the planner keeps no note
				}
			}
			if got := r.Checks["sufficient"].After; got != wantSuff {
				t.Errorf("sufficient after: %d turns, want %d", got, wantSuff)
			}
			got := map[uint64]string{}
			for _, tr := range r.Transitions {
				for _, x := range tr.Examples {
					got[x.ID] = tr.From + "->" + tr.To
				}
			}
			for id, mv := range got {
				if wantMoves[id] != mv {
					t.Errorf("turn %d (%s) moves %s, the rule says %q", id, turns[id].tenant, mv, wantMoves[id])
				}
			}
			for id, mv := range wantMoves {
				if mv == "ground->refuse" && got[id] != mv {
					t.Errorf("turn %d (%s) should move %s, got %q", id, turns[id].tenant, mv, got[id])
				}
			}
			if r.Changed != len(got) {
				t.Errorf("changed %d, %d turns in the transitions", r.Changed, len(got))
			}
			if r.Changed > 0 {
				changedAny = true
			}
			if tc.body == `{"examples":100}` && r.Changed != 0 {
				t.Errorf("at the configured thresholds %d turns change, want 0", r.Changed)
			}
		})
	}
	if !changedAny {
		t.Error("no primary_kind moved a decision: the test would prove nothing")
	}
	// The shop's turns grounded although no chunk there is a lecture.
	var shopGround int
	for _, in := range turns {
		if in.tenant == "shop" && in.decision == "ground" {
			shopGround++
		}
	}
	if shopGround == 0 {
		t.Error("no shop turn grounded: the partition-without-the-kind rule is not exercised")
	}
}
