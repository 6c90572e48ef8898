package operator

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/internal/turnrec"
)

// turnWriter appends logged turns to DIR/turns.jsonl, one JSON object per
// line (the same object GET /v1/guard/turns?id=N returns), off the request
// path: record only wakes it. The file is rotated to
// turns-<UTC time>-<n>.jsonl once it passes max_file_bytes, and the oldest
// rotated files beyond max_files are removed. At start the newest turns
// are read back into the rings (restore).
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
	// werr logs a failing write once per outage (a full disk): the turns
	// stay in the ring in memory; those not written are lost to the file.
	werr onceLog
	// torn: a write failed part-way, so the file may end in a partial
	// line; the next write starts on a new line (the reader skips it).
	torn bool
}

const turnFile = "turns.jsonl"

// startTurnWriter opens the file and starts the writer goroutine; Close
// writes what is left and stops it.
func startTurnWriter(tl *turnLog, cfg TurnPersistConfig, log *zap.Logger) (*turnWriter, error) {
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("turnlog.persist.dir: %w", err)
	}
	w := &turnWriter{tl: tl, cfg: cfg, log: log, quit: make(chan struct{}), done: make(chan struct{}),
		werr: onceLog{log: log, what: "turn log file not written"}}
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
	batch := tl.takeNew(func(r *turnRing) *uint64 { return &r.persisted })
	if len(batch) == 0 {
		return
	}
	bw := bufio.NewWriter(w.f)
	if w.torn {
		bw.WriteByte('\n') //nolint:errcheck // Flush reports it
	}
	var err error
	for i := range batch {
		b, merr := json.Marshal(tl.detail(&batch[i]))
		if merr != nil {
			continue
		}
		b = append(b, '\n')
		if w.size > 0 && w.size+int64(len(b)) > w.cfg.MaxFileBytes {
			if err = bw.Flush(); err != nil {
				break
			}
			if err = w.rotate(); err != nil {
				err = fmt.Errorf("rotate: %w", err)
				break
			}
			bw.Reset(w.f)
		}
		n, _ := bw.Write(b)
		w.size += int64(n)
	}
	if err == nil {
		err = bw.Flush()
	}
	w.torn = err != nil
	w.werr.report(err)
}

// rotate renames turns.jsonl aside, opens a new one and removes the oldest
// rotated files beyond max_files.
func (w *turnWriter) rotate() error {
	w.f.Close()
	cur := filepath.Join(w.cfg.Dir, turnFile)
	w.n++
	stamp := time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(cur, filepath.Join(w.cfg.Dir, fmt.Sprintf("turns-%s-%d.jsonl", stamp, w.n))); err != nil {
		if oerr := w.open(); oerr != nil { // keep appending to the file we have
			return errors.Join(err, oerr)
		}
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

// storedTurn is one line of turns.jsonl read back: a turn's detail, as
// written (its derived fields, relevance, checks and floored, are
// recomputed from the thresholds on restore).
type storedTurn = turnDetail

// restore loads the newest persisted turns (at most size x max_partitions,
// oldest first) back into the rings at start, so the console and the
// what-if see the turns from before a restart. Restored turns get new ids;
// their gate configuration is rebuilt from the thresholds they were
// decided with, so the what-if stays exact for them. It returns how many
// turns it restored and how many lines it skipped as unreadable.
func (tl *turnLog) restore(dir string) (restored, skipped int) {
	files := append(rotatedFiles(dir), turnFile)
	budget := tl.cfg.Size * tl.cfg.MaxPartitions
	var chunks [][]storedTurn // newest file first
	total := 0
	for i := len(files) - 1; i >= 0 && total < budget; i-- {
		f, err := os.Open(filepath.Join(dir, files[i]))
		if err != nil {
			continue
		}
		var lines []storedTurn
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			var st storedTurn
			if err := json.Unmarshal(sc.Bytes(), &st); err != nil || st.Tenant == "" {
				skipped++
				continue
			}
			lines = append(lines, st)
		}
		if sc.Err() != nil {
			skipped++
		}
		f.Close()
		chunks = append(chunks, lines)
		total += len(lines)
	}
	var all []storedTurn
	for i := len(chunks) - 1; i >= 0; i-- {
		all = append(all, chunks[i]...)
	}
	if len(all) > budget {
		all = all[len(all)-budget:]
	}
	for i := range all {
		tl.push(&all[i])
	}
	return len(all), skipped
}

// push puts one restored turn into its ring as already persisted.
func (tl *turnLog) push(st *storedTurn) {
	r := tl.ring(st.Tenant, st.KB)
	r.mu.Lock()
	defer r.mu.Unlock()
	var e *turnEntry
	if len(r.entries) < tl.cfg.Size {
		e = &turnEntry{}
		r.entries = append(r.entries, e)
	} else {
		e = r.entries[r.next]
		r.next = (r.next + 1) % len(r.entries)
	}
	at, _ := time.Parse(time.RFC3339Nano, st.Time)
	dur := func(k string) time.Duration { return time.Duration(st.LatencyMS[k] * float64(time.Millisecond)) }
	stages := make(map[string]float64, len(st.LatencyMS))
	for k, v := range st.LatencyMS {
		if k != "total" && k != "ttft" && k != "upstream_wait" {
			stages[k] = v
		}
	}
	// (offTopic: a line written before the row said it has the checks.)
	*e = turnEntry{seq: tl.seq.Add(1), at: at.UnixNano(), tenant: st.Tenant, kb: st.KB, model: st.Model, stream: st.Stream,
		status: st.Status, decision: st.Decision, cov: st.Coverage,
		offTopic: st.OffTopic || st.Checks["off_topic"], total: dur("total"), ttft: dur("ttft"), wait: dur("upstream_wait"),
		rep: turnrec.Report{Decision: st.Decision, Citations: st.Citations, Markers: st.Markers, Claims: st.Claims,
			Summary: st.Summary, Degraded: st.Degraded, LatencyMS: stages},
		cands: e.cands[:0], outline: e.outline[:0]}
	// The questions setting in force applies to restored turns too.
	switch tl.cfg.Questions {
	case questionsKeep:
		e.qlen, e.qcut = copy(e.q[:], st.Question), st.QuestionCut
	case questionsHash:
		if st.Question != "" {
			e.qhash = maphash.String(tl.seed, st.Question)
		} else if st.QuestionHash != "" {
			fmt.Sscanf(st.QuestionHash, "%x", &e.qhash)
		}
	}
	if st.Thresholds != nil {
		cfg := st.Thresholds.apply(gate.DefaultConfig())
		if p := st.Thresholds.Planner; p != nil && p.Mode != nil {
			cfg.Planner.Mode = *p.Mode
		}
		e.cfg, e.traced, e.rerankActive, e.remote = &cfg, true, st.RerankActive, st.Planner == "remote"
		if st.Ask != nil { // absent in turns logged before it was kept: the zero Ask, as they were decided
			e.ask = *st.Ask
		}
		if st.Coherence != nil {
			e.coherence = *st.Coherence
		}
		for _, c := range st.Cands {
			e.cands = append(e.cands, candRec{id: c.ID, title: c.Title, kind: c.Kind, address: c.Address,
				score: c.Score, rerank: c.Rerank, answer: c.Answer, relevance: c.Relevance, forced: c.Forced, typeHit: c.TypeHit, lanes: c.Lanes})
			if c.Sim != nil {
				e.cands[len(e.cands)-1].sim, e.cands[len(e.cands)-1].semantic = *c.Sim, true
			}
		}
		for _, id := range st.Outline {
			for j, c := range e.cands {
				if c.id == id {
					e.outline = append(e.outline, int16(j))
					break
				}
			}
		}
	}
	r.last = max(r.last, e.at)
	r.persisted = e.seq
}
