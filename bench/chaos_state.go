package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// The state dir fills up (issue 30): the operator plane writes its turn
// log (turns.jsonl) and gap queue (gaps.json) to a 256 KiB tmpfs under
// load, the turn log fills it, then a filler takes the last bytes, and a
// second wave runs on the full disk. Chat must not notice; the gap queue
// stays in memory (bounded by gaps.max_entries); each failing file is
// logged once, not per request or per flush; and shutdown, the SIGTERM
// path whose result is guard serve's exit status, returns nil (exit 0).
//
// A real ENOSPC needs a small file system: the scenario mounts a tmpfs,
// which needs root; elsewhere it is skipped and says why (there is no
// honest unprivileged way to fill a directory without filling the whole
// disk it is on).

const stateDirBytes = 256 << 10

// offTopicQuestions are questions the demo corpus cannot answer: each
// becomes an entry of the gap queue.
var offTopicQuestions = []string{
	"What is the capital of Mongolia?",
	"How tall is Mount Everest?",
	"Who wrote the novel Moby Dick?",
	"What is the boiling point of ethanol?",
	"How many moons does Jupiter have?",
	"What is the population of Reykjavik?",
}

// mountStateDir mounts a tmpfs of size bytes on a new temp dir; umount
// removes it.
func mountStateDir(size int) (dir string, umount func(), err error) {
	if os.Geteuid() != 0 {
		return "", nil, errors.New("needs root to mount a 256 KiB tmpfs for a real ENOSPC")
	}
	dir, err = os.MkdirTemp("", "guard-chaos-state-")
	if err != nil {
		return "", nil, err
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("mount tmpfs: %v %s", err, strings.TrimSpace(string(out)))
	}
	return dir, func() {
		exec.Command("umount", dir).Run() //nolint:errcheck // best effort
		os.Remove(dir)
	}, nil
}

// fillDir writes a filler file into dir until the file system says ENOSPC.
func fillDir(dir string) error {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return nil
		}
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

func scenarioStateDirFull(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	dir, umount, err := mountStateDir(stateDirBytes)
	if err != nil {
		r.Skipped = err.Error()
		return
	}
	defer umount()
	core, logs := observer.New(zapcore.WarnLevel)
	log := zap.New(core)
	if opt.Log != nil {
		log = zap.New(zapcore.NewTee(opt.Log.Core(), core))
	}
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	ip, err := StartInProcessWith(mcfg, func(c *proxy.Config) {
		c.Server.ShutdownGrace = 5 * time.Second
	}, func(o *operator.Config) {
		o.State.Dir = dir
		o.TurnLog.Persist.Dir = dir
		o.Gaps.FlushInterval = 20 * time.Millisecond
	}, log)
	if err != nil {
		r.problem("start servers: %v", err)
		return
	}
	c := newChaosClient(ip.ProxyURL, 20*time.Second)
	closed := false
	defer func() {
		c.close()
		if !closed {
			ip.Close() //nolint:errcheck // already failed
		}
	}()
	wave := func(n int) {
		for i := range n {
			q := demoQuestions[i%len(demoQuestions)]
			if i%3 == 0 {
				q = offTopicQuestions[(i/3)%len(offTopicQuestions)]
			}
			r.record(c.chat(ctx, chatBody(q, i%2 == 0), nil), "200 done", refusedByGuard)
		}
	}
	// Wave 1 fills the tmpfs with turns.jsonl; a filler takes what is left.
	wave(opt.n(60, 600))
	if err := fillDir(dir); err != nil {
		r.problem("fill the state dir: %v", err)
		return
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Bavail != 0 {
		r.problem("the state dir is not full after the filler (%d blocks free, %v)", st.Bavail, err)
	}
	// Wave 2 runs on the full disk; new gaps make the queue dirty.
	extra := "Which river flows through Ulaanbaatar?"
	r.record(c.chat(ctx, chatBody(extra, false), nil), "200 done", refusedByGuard)
	wave(opt.n(60, 600))
	// The gap queue answers from memory with every off-topic question.
	var gq struct {
		Total int `json:"total"`
		Data  []struct {
			Text string `json:"text"`
		} `json:"data"`
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", strings.TrimSuffix(ip.ProxyURL, "/v1")+"/v1/guard/gaps?status=all&limit=100000", nil)
	if err := getJSON(c.http, req, &gq); err != nil {
		r.problem("gaps: %v", err)
	} else {
		have := map[string]bool{}
		for _, g := range gq.Data {
			have[g.Text] = true
		}
		for _, q := range append(offTopicQuestions, extra) {
			if !have[q] {
				r.problem("the gap queue lost %q on the full disk (%d entries)", q, gq.Total)
			}
		}
		if gq.Total > operator.DefaultConfig().Gaps.MaxEntries {
			r.problem("the gap queue holds %d entries, above gaps.max_entries", gq.Total)
		}
	}
	// Shutdown is what SIGTERM runs; guard serve exits with its error.
	c.close()
	closed = true
	if err := ip.Close(); err != nil {
		r.problem("shutdown on a full state dir: %v (guard serve would exit 1)", err)
	}
	for _, m := range []string{"gap queue not saved", "turn log file not written"} {
		if n := logs.FilterMessageSnippet(m).Len(); n != 1 {
			r.problem("%q logged %d times over the run, want once (the disk was full)", m, n)
		}
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				r.problem("temp file %s left in the state dir", e.Name())
			}
		}
	}
}

// getJSON sends req with client and decodes a 200 JSON body into v.
func getJSON(client *http.Client, req *http.Request, v any) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %s", resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
