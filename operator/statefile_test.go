package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/answer-guard/guard/internal/turnrec"
)

// validGapFile is a gaps.json with n entries, as flush writes it.
func validGapFile(t *testing.T, n int) []byte {
	t.Helper()
	f := gapFile{Version: 1}
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := range n {
		text := fmt.Sprintf("question number %d about topic%d", i, i)
		f.Gaps = append(f.Gaps, &Gap{ID: gapID("t", "k", GapRefused, text), Tenant: "t", KB: "k", Kind: GapRefused, Text: text,
			Count: n - i, FirstSeen: at, LastSeen: at, Status: GapOpen})
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A damaged gaps.json no longer stops the start: the queue starts with
// every entry read before the damage, says so once, and sets the file
// aside; a file from before ids and statuses gets both.
func TestGapFileKeepsWhatItCan(t *testing.T) {
	full := validGapFile(t, 3)
	second := bytes.Index(full, []byte(`{"id"`))
	second += 1 + bytes.Index(full[second+1:], []byte(`{"id"`))
	third := second + 1 + bytes.Index(full[second+1:], []byte(`{"id"`))
	for _, tc := range []struct {
		name    string
		content []byte
		entries int
		damaged bool
	}{
		{"valid", full, 3, false},
		{"empty", nil, 0, true},
		{"blank", []byte("  \n"), 0, true},
		{"truncated in the third entry", full[:third+20], 2, true},
		{"truncated after the second entry", full[:third], 2, true},
		{"cut before the array closes", full[:len(full)-2], 3, true},
		{"not JSON", []byte("\x00\x00\x00garbage"), 0, true},
		{"an entry without text", []byte(`{"version":1,"gaps":[{"tenant":"t","kb":"k","kind":"refused","text":"a b c","count":1},{"tenant":"t","kind":"refused"}]}`), 1, true},
		{"before ids and statuses", []byte(`{"version":1,"gaps":[{"tenant":"t","kb":"k","kind":"refused","text":"How do I export to PDF?","count":2}]}`), 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "gaps.json")
			if err := os.WriteFile(path, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zapcore.InfoLevel)
			q, err := newGapQueue(dir, zap.New(core))
			if err != nil {
				t.Fatalf("newGapQueue: %v, want a start with what could be read", err)
			}
			got := q.list(gapFilter{})
			if len(got) != tc.entries {
				t.Errorf("%d entries, want %d", len(got), tc.entries)
			}
			for _, g := range got {
				if g.ID != gapID(g.Tenant, g.KB, g.Kind, g.Text) || g.Status != GapOpen {
					t.Errorf("entry %+v: want its id and status open", g)
				}
			}
			warned := logs.FilterMessageSnippet("gap queue file damaged").Len()
			_, asideErr := os.Stat(path + ".damaged")
			if tc.damaged && (warned != 1 || asideErr != nil) {
				t.Errorf("damaged file: %d warnings, set aside: %v; want one warning and gaps.json.damaged", warned, asideErr)
			}
			if !tc.damaged && (warned != 0 || asideErr == nil) {
				t.Errorf("sound file: %d warnings, set aside %v", warned, asideErr == nil)
			}
		})
	}
}

// writeFileDurable replaces the file whole and leaves no temp file, also
// when the write fails (here: the directory is gone).
func TestWriteFileDurable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gaps.json")
	for _, body := range []string{"first", "second, longer than the first"} {
		if err := writeFileDurable(path, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != body {
			t.Errorf("file holds %q, want %q", b, body)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the state dir, want only gaps.json", len(ents))
	}
	if err := writeFileDurable(filepath.Join(dir, "missing", "gaps.json"), []byte("x")); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
}

// mountFullTmpfs mounts a tmpfs of size bytes on a new directory and fills
// it until a write fails with ENOSPC; it skips the test where mounting is
// not possible (not root, no mount permission).
func mountFullTmpfs(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full state dir needs a small tmpfs mount, which needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() }) //nolint:errcheck
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			return dir
		}
	}
}

// On a full state dir the gap queue stays in memory (bounded by
// gaps.max_entries), every failing save after the first is not logged
// again, no temp file is left, and Close does not fail the shutdown.
func TestGapQueueOnFullDisk(t *testing.T) {
	dir := mountFullTmpfs(t, 256<<10)
	core, logs := observer.New(zapcore.InfoLevel)
	cfg := DefaultConfig()
	cfg.State.Dir = dir
	cfg.TurnLog.Persist.Dir = dir
	cfg.Gaps.MaxPerKB, cfg.Gaps.MaxEntries = 20, 20
	p, err := New(cfg, fakeHost{protected: true}, zap.New(core))
	if err != nil {
		t.Fatalf("New on a full state dir: %v", err)
	}
	for i := range 50 {
		tr := &turnrec.Turn{Tenant: "t", KB: "k", Query: fmt.Sprintf("question %d about subject%d", i, i), Status: 200,
			Finished: time.Now(), Report: turnrec.Report{Decision: "refuse"}}
		p.RecordTurn(tr)
		p.gapQ.save()
	}
	if n := len(p.gapQ.list(gapFilter{})); n != 20 {
		t.Errorf("%d entries in memory, want the 20 max_entries keeps", n)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close on a full disk: %v, want nil (the failure is logged)", err)
	}
	if n := logs.FilterMessageSnippet("gap queue not saved").Len(); n != 1 {
		t.Errorf("%d warnings for 51 failed saves, want 1", n)
	}
	if n := logs.FilterMessageSnippet("turn log file not written").Len(); n > 1 {
		t.Errorf("%d warnings for the turn log file, want at most 1", n)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file %s left on the full disk", e.Name())
		}
	}
}
