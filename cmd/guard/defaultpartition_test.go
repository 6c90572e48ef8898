package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A corpus built into one KB (--kb plants) and served with auth off: a chat
// that sends no X-KB-ID goes to default/default, finds nothing and falls
// back, so every such chat was a silent fallback. config check and serve's
// start now warn, naming the partitions the snapshot has; a snapshot that
// has default/default is not warned about.
func TestNoDefaultPartitionWarned(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "plants")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "repotting.md"), []byte("# Repotting\n\nRepot a houseplant in spring, into a pot 2 to 5 cm wider.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snap")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", folder, "--kb", "plants", "--out", snap); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	cfgPath := filepath.Join(dir, "guard.yaml")
	if err := os.WriteFile(cfgPath, []byte("server: {addr: 127.0.0.1:0}\npipeline: {index: "+snap+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "snapshot " + snap + " has no partition default/default, so a chat that sends no X-Tenant-ID / X-KB-ID header finds nothing and falls back (degraded: corpus); it has: default/plants"
	code, stdout, _ := runCLI(t, "config", "check", "--config", cfgPath)
	if code != 0 || !strings.Contains(stdout, "warning: "+want) {
		t.Errorf("config check: exit %d, output %q; want 0 and %q", code, stdout, want)
	}
	_, _, log := serveInProcess(t, "--index", snap)
	es := log.entries(t, "no default partition")
	if len(es) != 1 || fmt.Sprint(es[0]["problem"]) != want {
		t.Errorf("serve: warnings %v, want one: %q", es, want)
	}

	demo := filepath.Join(dir, "demo")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", folder, "--out", demo); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(cfgPath, []byte("server: {addr: 127.0.0.1:0}\npipeline: {index: "+demo+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runCLI(t, "config", "check", "--config", cfgPath); code != 0 || strings.Contains(stdout, "warning") {
		t.Errorf("config check of a snapshot with default/default: exit %d, output %q", code, stdout)
	}
}

// TestConfigCheckSnapshotDir: a pipeline.index that is not a snapshot (a
// path that does not exist, a corpus folder) was "ok" to guard config check
// while guard serve refused to start with it (trial 5); it is now a problem,
// listed with the file's others at the key's line, exit 1.
func TestConfigCheckSnapshotDir(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "policy")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "cover.md"), []byte("# Cover\n\nThe excess is 250 pounds.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "guard.yaml")
	for _, tc := range []struct{ index, extra, want string }{
		{filepath.Join(dir, "nosuch"), "", "pipeline.index: index " + filepath.Join(dir, "nosuch") + ": no such snapshot directory"},
		{folder, "gate: {off_topc: refuse}\n", "pipeline.index: index " + folder + ": this is a corpus, not an index snapshot"},
	} {
		if err := os.WriteFile(cfgPath, []byte("pipeline: {index: "+tc.index+"}\n"+tc.extra), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, _ := runCLI(t, "config", "check", "--config", cfgPath)
		n := "1 problem"
		if tc.extra != "" {
			n = "2 problems"
		}
		if code != 1 || !strings.Contains(stdout, cfgPath+":1: "+tc.want) || !strings.Contains(stdout, cfgPath+": "+n+"\n") {
			t.Errorf("%s: exit %d, output %q; want 1, %q and %s", tc.index, code, stdout, tc.want, n)
		}
	}
}
