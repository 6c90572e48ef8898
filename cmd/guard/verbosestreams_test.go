package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexAddVerboseStreams: `guard index add -v` prints its summary and
// the id listing on stdout and its logs (debug included) and the
// encoder's progress on stderr, never the one in the other.
func TestIndexAddVerboseStreams(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "plants")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(corpus, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("watering.md", "# Watering\n\n## Houseplants\n\nWater when the top two centimetres of compost are dry.\n")
	write("feeding.md", "# Feeding\n\nFeed every two weeks from March to September at half strength.\n")
	snap, next := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", corpus, "--out", snap); code != 0 {
		t.Fatalf("index build: exit %d: %s", code, stderr)
	}
	write("repotting.md", "# Repotting\n\nRepot every one to two years, in spring.\n")

	code, stdout, stderr := runCLI(t, "index", "add", "-v", "--index", snap, "--corpus", corpus, "--out", next)
	if code != 0 {
		t.Fatalf("index add -v: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"documents: 1 added, 0 replaced, 2 unchanged, 0 removed\n", "  added: repotting.md\n", "  unchanged: feeding.md watering.md\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// stdout is the summary lines and the listing only
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		ok := false
		for _, p := range []string{"snapshot ", "documents: ", "  added: ", "  unchanged: ", "calibration ", "halugate: "} {
			ok = ok || strings.HasPrefix(l, p)
		}
		if !ok {
			t.Errorf("stdout line %q is neither the summary nor the id listing", l)
		}
	}
	for _, want := range []string{"\tDEBUG\t", "\tINFO\t", "snapshot built", "encoder: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q (the -v logs):\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "added: ") || strings.Contains(stderr, "documents: ") {
		t.Errorf("stderr holds the listing:\n%s", stderr)
	}
}
