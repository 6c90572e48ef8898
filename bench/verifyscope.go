package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/answer-guard/guard/judge"
)

// The scope-and-condition set (bench/testdata/scope): pairs written for
// issue 29 from several domains (parking, transit, leisure, libraries,
// retail, software, health, travel, education, HR, banking, museums,
// government, restaurants), each a short FAQ-style passage and a claim
// that restates it faithfully or drops, widens or shifts one of its
// conditions. fit.jsonl is the half anything may be tuned on; frozen.jsonl
// was written at the same time (before any tuning, one commit) and is only
// ever reported on.

// ScopeItem is one pair of the scope set.
type ScopeItem struct {
	ID       string `json:"id"`
	Domain   string `json:"domain"`
	Evidence string `json:"evidence"`
	Claim    string `json:"claim"`
	Label    string `json:"label"` // entailment | contradiction | neutral
	Kind     string `json:"kind"`  // faithful | scope_widened | condition_dropped | range_mismatch
}

// scopeDir finds bench/testdata/scope from the repository root or bench/.
func scopeDir() string {
	if _, err := os.Stat("bench/testdata/scope"); err == nil {
		return "bench/testdata/scope"
	}
	return filepath.Join("testdata", "scope")
}

// LoadScope reads one half of the scope set ("fit" or "frozen") as verify
// items: supported when the label is entailment, Gold the kind.
func LoadScope(half string) ([]VerifyItem, error) {
	var items []VerifyItem
	err := readJSONL(filepath.Join(scopeDir(), half+".jsonl"), func(line []byte) error {
		var s ScopeItem
		if err := json.Unmarshal(line, &s); err != nil {
			return err
		}
		if s.ID == "" || s.Claim == "" || s.Evidence == "" {
			return fmt.Errorf("scope item without id, claim or evidence: %s", line)
		}
		items = append(items, VerifyItem{ID: s.ID, Claim: s.Claim, Gold: s.Kind + "/" + s.Label, Support: s.Label == judge.Entailment, Group: s.ID,
			Evidence: []judge.Passage{{N: 1, ID: "scope-" + s.ID, Title: "", Text: s.Evidence}}})
		return nil
	})
	return items, err
}
