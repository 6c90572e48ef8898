package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// turnWriter appends logged turns to DIR/turns.jsonl, one JSON object per
// line (the same object GET /v1/guard/turns?id=N returns), off the request
// path: record only wakes it. The file is rotated to
// turns-<UTC time>-<n>.jsonl once it passes max_file_bytes, and the oldest
// rotated files beyond max_files are removed. The file is a record for
// offline analysis; a restart starts with an empty ring.
type turnWriter struct {
	tl   *turnLog
	cfg  TurnPersistConfig
	log  *zap.Logger
	f    *os.File
	size int64
	quit chan struct{}
	done chan struct{}
	once sync.Once
	n    int // rotations so far, to keep two in one clock tick apart
}

const turnFile = "turns.jsonl"

// startTurnWriter opens the file and starts the writer goroutine; Close
// writes what is left and stops it.
func startTurnWriter(tl *turnLog, cfg TurnPersistConfig, log *zap.Logger) (*turnWriter, error) {
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("turnlog.persist.dir: %w", err)
	}
	w := &turnWriter{tl: tl, cfg: cfg, log: log, quit: make(chan struct{}), done: make(chan struct{})}
	if err := w.open(); err != nil {
		return nil, err
	}
	tl.wake = make(chan struct{}, 1)
	go w.run()
	return w, nil
}

func (w *turnWriter) open() error {
	f, err := os.OpenFile(filepath.Join(w.cfg.Dir, turnFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("turnlog.persist.dir: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("turnlog.persist.dir: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

func (w *turnWriter) run() {
	defer close(w.done)
	for {
		select {
		case <-w.tl.wake:
			w.flush()
		case <-w.quit:
			w.flush()
			w.f.Close()
			return
		}
	}
}

// Close writes the turns logged so far and closes the file. It may be
// called more than once.
func (w *turnWriter) Close() {
	w.once.Do(func() { close(w.quit) })
	<-w.done
}

// flush writes every entry not yet written, oldest first.
func (w *turnWriter) flush() {
	tl := w.tl
	tl.mu.RLock()
	rings := make([]*turnRing, 0, len(tl.parts))
	for _, r := range tl.parts {
		rings = append(rings, r)
	}
	tl.mu.RUnlock()
	var batch []turnEntry
	for _, r := range rings {
		r.mu.Lock()
		for _, e := range r.entries {
			if e.seq > r.persisted {
				c := *e
				c.cands, c.outline = slices.Clone(e.cands), slices.Clone(e.outline)
				batch = append(batch, c)
			}
		}
		for _, e := range r.entries {
			r.persisted = max(r.persisted, e.seq)
		}
		r.mu.Unlock()
	}
	if len(batch) == 0 {
		return
	}
	sort.Slice(batch, func(i, j int) bool { return batch[i].seq < batch[j].seq })
	bw := bufio.NewWriter(w.f)
	for i := range batch {
		b, err := json.Marshal(tl.detail(&batch[i]))
		if err != nil {
			continue
		}
		b = append(b, '\n')
		if w.size > 0 && w.size+int64(len(b)) > w.cfg.MaxFileBytes {
			if err := bw.Flush(); err != nil {
				w.log.Warn("turn log file write failed", zap.Error(err))
			}
			if err := w.rotate(); err != nil {
				w.log.Warn("turn log rotation failed", zap.Error(err))
				return
			}
			bw.Reset(w.f)
		}
		n, _ := bw.Write(b)
		w.size += int64(n)
	}
	if err := bw.Flush(); err != nil {
		w.log.Warn("turn log file write failed", zap.Error(err))
	}
}

// rotate renames turns.jsonl aside, opens a new one and removes the oldest
// rotated files beyond max_files.
func (w *turnWriter) rotate() error {
	w.f.Close()
	cur := filepath.Join(w.cfg.Dir, turnFile)
	w.n++
	stamp := time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(cur, filepath.Join(w.cfg.Dir, fmt.Sprintf("turns-%s-%d.jsonl", stamp, w.n))); err != nil {
		return err
	}
	if err := w.open(); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(w.cfg.Dir, "turns-*.jsonl"))
	sort.Strings(old) // the stamp sorts by time
	for len(old) > w.cfg.MaxFiles {
		if err := os.Remove(old[0]); err != nil && !os.IsNotExist(err) {
			return err
		}
		old = old[1:]
	}
	return nil
}

// rotatedFiles lists the rotated files, oldest first (for tests).
func rotatedFiles(dir string) []string {
	old, _ := filepath.Glob(filepath.Join(dir, "turns-*.jsonl"))
	sort.Strings(old)
	for i, o := range old {
		old[i] = strings.TrimPrefix(o, dir+string(filepath.Separator))
	}
	return old
}
