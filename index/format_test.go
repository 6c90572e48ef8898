package index

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/answer-guard/guard/index/internal/disk"
	"go.uber.org/zap"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// volatile manifest fields: the build's time and speed, and the base
// snapshot's path.
var volatile = []string{"built_at", "build_seconds", "chunks_per_second", "base"}

// deterministic files are byte for byte the same on every build of the same
// input. The local model and vectors are not (map order in the floating
// point sums of the fit moves the last bits), nor the graph built on them
// or Bleve's segments; the golden lists them by name only.
var deterministic = map[string]bool{
	disk.ChunksFile: true, disk.TermsFile: true, disk.AddressFile: true,
	disk.CatalogFile: true, disk.MemoryFile: true,
}

// snapshotDigest describes the snapshot at dir for the format golden: the
// format version, the manifest without its volatile fields, and every file
// with the SHA-256 of the deterministic ones.
func snapshotDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	raw, err := os.ReadFile(filepath.Join(dir, disk.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	for _, k := range volatile {
		delete(man, k)
	}
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "format %d\nmanifest %s\n", disk.FormatVersion, mj)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == disk.BleveDir:
			fmt.Fprintf(&b, "dir %s\n", rel)
			return filepath.SkipDir
		case d.IsDir(), rel == disk.ManifestFile, rel == disk.AnswerCalibrationFile:
			return nil
		case deterministic[d.Name()]:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "file %s %x\n", rel, sha256.Sum256(data))
		default:
			fmt.Fprintf(&b, "file %s\n", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "format", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: the snapshot format changed (raise disk.FormatVersion and run go test -run TestSnapshotFormat -update if that is meant)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestSnapshotFormat builds the demo corpus and extends it with Add (a
// replaced document, a new one, a pin) and compares both snapshots with
// golden digests. The goldens were first written from snapshots that
// guard index build --demo and guard index add built before the format
// moved into index/internal/disk, so a passing test says this code writes
// the same bytes; Load then reads both back.
func TestSnapshotFormat(t *testing.T) {
	if disk.FormatVersion != 1 {
		t.Fatalf("format version %d: a new version needs new goldens and a loader for version 1 snapshots", disk.FormatVersion)
	}
	ctx := context.Background()
	dir := t.TempDir()
	base, added := filepath.Join(dir, "base"), filepath.Join(dir, "added")
	if _, err := BuildDemo(ctx, DefaultConfig(), base, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	fd := filepath.Join("testdata", "format")
	if _, err := Add(ctx, DefaultConfig(), base, []string{filepath.Join(fd, "add.jsonl")}, []string{filepath.Join(fd, "memory.jsonl")}, added, zap.NewNop()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "demo.golden", snapshotDigest(t, base))
	checkGolden(t, "demo-add.golden", snapshotDigest(t, added))

	// Round trip: what Add wrote is what Load serves.
	s, err := Load(added)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Partition(DefaultTenant, DefaultKB)
	live, slots := 0, 0
	for slot, c := range p.Chunks() {
		live++
		slots = max(slots, slot+1)
		if got := p.Chunk(slot); got != c {
			t.Fatalf("Chunk(%d) = %p, Chunks yields %p", slot, got, c)
		}
	}
	if live != s.Manifest.Chunks || slots != s.Manifest.Partitions[0].Slots {
		t.Errorf("Chunks yields %d live chunks up to slot %d, manifest says %d live of %d slots", live, slots, s.Manifest.Chunks, s.Manifest.Partitions[0].Slots)
	}
	got := p.Resolve("hb-5-4")
	if len(got) != 1 || !strings.Contains(p.Chunk(got[0]).Text, "search index is rebuilt on the next start") {
		t.Fatalf("Resolve(hb-5-4) = %v, want the one replacing chunk", got)
	}
	if a := p.Address("HB 5.4"); !slices.Equal(a, got) {
		t.Errorf("Address(HB 5.4) = %v, want %v", a, got)
	}
	for slot, c := range p.Chunks() {
		if c.ID == "hb-5-4" && slot != got[0] {
			t.Errorf("tombstoned slot %d of hb-5-4 is still live", slot)
		}
	}
	if !p.Contains("FAQ-NEW-1") || len(p.Resolve("faq-new-1")) != 1 {
		t.Error("the added document faq-new-1 is not served")
	}
	pins := 0
	for i, m := range p.Memory() {
		if len(p.MemoryVectors(i)) == 0 {
			t.Errorf("memory %s has no vectors", m.ID)
		}
		if m.ID == "pin-move" {
			pins++
			if sim := p.Local().SparseText("How do I move Lanternfish to another machine?").Cosine(p.MemoryVectors(i)[0]); sim < 0.999 {
				t.Errorf("pin-move: cosine of its own question %.3f, want 1", sim)
			}
		}
	}
	if pins != 1 {
		t.Errorf("pin-move found %d times, want once", pins)
	}
}
