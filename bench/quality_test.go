package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report names the data folder as given, or relative to the working
// directory when given absolute, also in a suite's error.
func TestQualityNamesDataRelatively(t *testing.T) {
	abs := t.TempDir() // absolute, and without halueval: the gate suite fails at once
	var b strings.Builder
	_, err := Quality(context.Background(), abs, []string{"gate"}, &b)
	if err == nil {
		t.Fatal("gate suite without HaluEval: want an error")
	}
	rel := relPath(abs)
	if filepath.IsAbs(rel) {
		t.Fatalf("relPath(%q) = %q, want a relative path", abs, rel)
	}
	if st, err := os.Stat(rel); err != nil || !st.IsDir() {
		t.Fatalf("relPath(%q) = %q does not name the same folder: %v", abs, rel, err)
	}
	// (the relative form ends with the absolute one: cut it out first)
	if strings.Contains(strings.ReplaceAll(b.String(), rel, ""), abs) || strings.Contains(strings.ReplaceAll(err.Error(), rel, ""), abs) {
		t.Errorf("report or error names the absolute path %s:\n%s\n%v", abs, b.String(), err)
	}
	if !strings.Contains(b.String(), "- data: "+rel+"\n") {
		t.Errorf("report header does not name the data folder as %s:\n%s", rel, b.String())
	}
	if got := relPath("../shared/data"); got != "../shared/data" {
		t.Errorf("relPath of a relative path changed it to %q", got)
	}
}

// skipHeavy skips a quality suite over ../shared/data under the race
// detector (raceEnabled); .ci/run runs these suites in a step of their own
// without it (go test -run 'Quality|Verify' ./bench, no -short).
func skipHeavy(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("quality suite skipped under the race detector: .ci/run runs it without -race")
	}
}
