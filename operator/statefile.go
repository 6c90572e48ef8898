package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"go.uber.org/zap"
)

// State files: written so that a crash or a power loss leaves either the
// old file or the new one (temp file, fsync, rename, fsync of the
// directory), read so that a damaged file costs what is damaged and no
// more (the loader keeps every entry it can parse, says what it dropped,
// and sets the damaged file aside), and a write that fails (a full disk)
// is logged once per outage, not on every attempt.

// writeFileDurable replaces path with b: a temp file beside it, synced,
// renamed over path, the directory synced so the rename survives a power
// loss. On failure the temp file is removed and path is unchanged.
func writeFileDurable(path string, b []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp) //nolint:errcheck // best effort: the write already failed
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// loadGapFile reads gaps.json, keeping what it can: a missing file is an
// empty queue; an empty, truncated or otherwise damaged one gives every
// entry before the damage, a warning that says how many were read, and the
// file set aside as gaps.json.damaged (so the next save does not erase
// the evidence). Only an unreadable file (permissions, I/O) is an error.
func loadGapFile(path string, log *zap.Logger) ([]*Gap, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	gaps, derr := decodeGapFile(b)
	if derr == nil {
		return gaps, nil
	}
	aside := path + ".damaged"
	if err := os.Rename(path, aside); err != nil {
		aside = ""
	}
	log.Warn("gap queue file damaged: starting with the entries read before the damage",
		zap.String("file", path), zap.Int("entries_read", len(gaps)), zap.Int("bytes", len(b)),
		zap.String("set_aside_as", aside), zap.Error(derr))
	return gaps, nil
}

// decodeGapFile decodes {"version":1,"gaps":[...]} entry by entry: on an
// error it returns the entries decoded before it and the error.
func decodeGapFile(b []byte) ([]*Gap, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var gaps []*Gap
	expect := func(want json.Delim) error {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); !ok || d != want {
			return fmt.Errorf("want %q, got %v", want, t)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return gaps, err
		}
		switch t {
		case "gaps":
			if err := expect('['); err != nil {
				return gaps, err
			}
			for dec.More() {
				var g Gap
				if err := dec.Decode(&g); err != nil {
					return gaps, err
				}
				if g.Tenant == "" || g.Kind == "" || g.Text == "" {
					return gaps, fmt.Errorf("entry %d: tenant, kind and text are required", len(gaps))
				}
				gaps = append(gaps, &g)
			}
			if err := expect(']'); err != nil {
				return gaps, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return gaps, err
			}
		}
	}
	if err := expect('}'); err != nil {
		return gaps, err
	}
	return gaps, nil
}

// onceLog logs a failing operation once per outage: the first failure as
// a warning, further ones not at all, and the first success after them
// as the end of the outage with the count of failures.
type onceLog struct {
	log    *zap.Logger
	what   string
	mu     sync.Mutex
	failed int
}

func (o *onceLog) report(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err == nil {
		if o.failed > 0 {
			o.log.Info(o.what+": writing again", zap.Int("failed_attempts", o.failed))
			o.failed = 0
		}
		return
	}
	if o.failed == 0 {
		o.log.Warn(o.what+" (logged once until a write succeeds; state kept in memory)", zap.Error(err))
	}
	o.failed++
}
