package operator

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// Every threshold the what-if can move counts in sameThresholds: a logged
// turn that differs from the configuration in force in any one of them was
// decided under another configuration. (It once left out on_topic_sim,
// on_topic_coherence, general_above, general_weight and other_business.)
// The planner's mode does not count.
func TestSameThresholdsEveryKey(t *testing.T) {
	base := gate.DefaultConfig()
	var all map[string]any
	j, _ := json.Marshal(thresholdsOf(base))
	if err := json.Unmarshal(j, &all); err != nil {
		t.Fatal(err)
	}
	moved := func(v any) any {
		switch v := v.(type) {
		case float64:
			return v + 1
		case bool:
			return !v
		case string:
			return v + "x"
		}
		t.Fatalf("threshold value %v (%T): no way to move it", v, v)
		return nil
	}
	n := 0
	try := func(name string, body map[string]any, wantSame bool) {
		t.Helper()
		j, _ := json.Marshal(body)
		var th gateThresholds
		if err := json.Unmarshal(j, &th); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := sameThresholds(base, th.apply(base)); got != wantSame {
			t.Errorf("%s moved: sameThresholds = %v, want %v", name, got, wantSame)
		}
		n++
	}
	for k, v := range all {
		if k == "planner" {
			for pk, pv := range v.(map[string]any) {
				if pk == "mode" {
					continue
				}
				try("planner."+pk, map[string]any{"planner": map[string]any{pk: moved(pv)}}, false)
			}
			continue
		}
		try(k, map[string]any{k: moved(v)}, false)
	}
	if n < 20 {
		t.Errorf("only %d thresholds tried", n)
	}
	remote := base
	remote.Planner.Mode = "remote"
	if !sameThresholds(base, remote) {
		t.Error("the planner's mode alone made the configurations differ")
	}
	if !sameThresholds(base, base) {
		t.Error(fmt.Sprint("a configuration differs from itself: ", thresholdsOf(base)))
	}
}
