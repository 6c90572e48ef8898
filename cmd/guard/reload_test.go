package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// lockedBuffer is a log sink that serve's goroutines may write while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// entries returns the JSON log lines whose msg is msg.
func (l *lockedBuffer) entries(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("log line %q is not JSON: %v", sc.Text(), err)
		}
		if e["msg"] == msg {
			out = append(out, e)
		}
	}
	return out
}

// serveInProcess runs guard serve with args, its log in a buffer, and
// returns its address, a function sending SIGHUP that returns the
// reload's outcome, and the log. Cleanup stops it with SIGTERM.
func serveInProcess(t *testing.T, args ...string) (addr string, hup func() error, log *lockedBuffer) {
	t.Helper()
	listening := make(chan net.Addr, 1)
	reloaded := make(chan error, 1)
	log = &lockedBuffer{}
	onListen = func(a net.Addr) { listening <- a }
	onReload = func(err error) { reloaded <- err }
	logSink = log
	done := make(chan error, 1)
	go func() { done <- runServe(append(args, "--addr", "127.0.0.1:0")) }()
	select {
	case a := <-listening:
		addr = a.String()
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		if err := <-done; err != nil {
			t.Errorf("serve returned %v", err)
		}
		onListen, onReload, logSink = nil, nil, nil
	})
	hup = func() error {
		t.Helper()
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		return <-reloaded
	}
	return addr, hup, log
}

// TestReloadListsEveryProblem: a SIGHUP with the dozen-mistake file is
// refused, and the one log line lists every problem exactly as guard
// config check does (file:line: key path: plain words), in one structured
// field, with no stack trace; the running configuration stays.
func TestReloadListsEveryProblem(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(cfgPath, []byte("log: {level: info}\npipeline: {enabled: false}\nmodels: {allow: [kept-model]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, hup, log := serveInProcess(t, "--config", cfgPath)
	if err := os.WriteFile(cfgPath, []byte(manyErrors), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := hup(); err == nil {
		t.Fatal("the file with a dozen mistakes was accepted")
	}
	es := log.entries(t, "reload rejected; keeping the running configuration")
	if len(es) != 1 {
		t.Fatalf("%d rejection lines, want 1", len(es))
	}
	if st, ok := es[0]["stacktrace"]; ok {
		t.Errorf("rejection line carries a stack trace: %v", st)
	}
	raw, _ := es[0]["problems"].([]any)
	var lines []string
	for _, r := range raw {
		s, _ := r.(string)
		lines = append(lines, s)
	}
	checkManyErrors(t, cfgPath, lines)

	resp, err := http.Get("http://" + addr + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "kept-model") {
		t.Errorf("after the refused reload /v1/models = %s, want kept-model", b)
	}
}

// TestIndexAddDeletionAfterSIGHUP: guard index add prints what it did
// (and the ids with -v); a server on the old snapshot that is pointed at
// the new one by SIGHUP no longer cites the deleted document, and its
// reload line names the snapshot and its document count.
func TestIndexAddDeletionAfterSIGHUP(t *testing.T) {
	dir := t.TempDir()
	c0 := filepath.Join(dir, "c0.jsonl")
	a1 := filepath.Join(dir, "a1.jsonl")
	v0, v1 := filepath.Join(dir, "v0"), filepath.Join(dir, "v1")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(c0, `{"id":"lockers","title":"Lockers","text":"Large lockers for bags and prams are next to the main entrance. A locker costs one euro coin, returned when you open it."}
{"id":"sauna","title":"Sauna","text":"The sauna and steam room are for adults only and open from ten in the morning until nine in the evening."}
{"id":"lanes","title":"Lanes","text":"The pool has six swimming lanes of fifty metres; two lanes are kept for lessons on weekday mornings."}
`)
	write(a1, `{"id":"lanes","title":"Lanes","text":"The pool has six swimming lanes of fifty metres; two lanes are kept for lessons on weekday mornings."}
{"id":"sauna","title":"Sauna","text":"The sauna and steam room are for adults only and open from eleven in the morning until eight in the evening."}
{"id":"parties","title":"Parties","text":"Birthday parties for children can be booked at the front desk, with a private room and pool time."}
{"id":"lockers","deleted":true}
`)
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", c0, "--out", v0); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "index", "add", "--index", v0, "--corpus", a1, "--delete", "nothere", "--out", v1)
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, stderr)
	}
	if want := "documents: 1 added, 1 replaced, 1 unchanged, 1 removed, 1 to delete not found\n"; !strings.Contains(stdout, want) {
		t.Errorf("add output %q, want %q", stdout, want)
	}
	if strings.Contains(stdout, "  added: parties") {
		t.Errorf("add output lists ids without -v: %q", stdout)
	}
	code, stdout, _ = runCLI(t, "index", "add", "--index", v0, "--corpus", a1, "--out", filepath.Join(dir, "v1b"), "-v")
	for _, want := range []string{"  added: parties\n", "  replaced: sauna\n", "  unchanged: lanes\n", "  removed: lockers\n"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("add -v: exit %d, output %q, want %q", code, stdout, want)
		}
	}

	cfgPath := filepath.Join(dir, "guard.yaml")
	write(cfgPath, "log: {level: info}\npipeline: {index: "+v0+"}\n")
	addr, hup, log := serveInProcess(t, "--config", cfgPath)
	cited := func() []string {
		t.Helper()
		body := `{"model":"m","messages":[{"role":"user","content":"How much does a locker cost for bags and prams?"}]}`
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Citations []string `json:"citations"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.Citations
	}
	if got := cited(); !slices.Contains(got, "lockers") {
		t.Fatalf("before the reload: citations %v, want lockers", got)
	}
	write(cfgPath, "log: {level: info}\npipeline: {index: "+v1+"}\n")
	if err := hup(); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if got := cited(); slices.Contains(got, "lockers") {
		t.Errorf("after the reload: citations %v, want the deleted lockers gone", got)
	}
	es := log.entries(t, "configuration reloaded")
	if len(es) != 1 || es[0]["snapshot"] != v1 || es[0]["docs"] != 3.0 {
		t.Errorf("reload lines %v, want one naming snapshot %s with 3 docs", es, v1)
	}
}
