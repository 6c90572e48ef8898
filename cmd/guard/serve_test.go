package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeReloadsOnSIGHUP runs guard serve in-process, rewrites its config
// file, sends SIGHUP and sees the new model list, then stops it with SIGTERM.
// The serve loop's test hooks say when it listens and when each reload is
// done, so nothing waits on a clock.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "guard.yaml")
	write := func(models string) {
		b := "log: {level: error}\npipeline: {enabled: false}\nmodels: {allow: [" + models + "]}\n"
		if err := os.WriteFile(cfgPath, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listening := make(chan net.Addr, 1)
	reloaded := make(chan error, 1)
	onListen = func(a net.Addr) { listening <- a }
	onReload = func(err error) { reloaded <- err }
	t.Cleanup(func() { onListen, onReload = nil, nil })

	write("first-model")
	done := make(chan error, 1)
	go func() { done <- runServe([]string{"--config", cfgPath, "--addr", "127.0.0.1:0"}) }()
	addr := (<-listening).String()

	models := func() string {
		t.Helper()
		resp, err := http.Get("http://" + addr + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	hup := func() error {
		t.Helper()
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		return <-reloaded
	}
	if got := models(); !strings.Contains(got, "first-model") {
		t.Fatalf("models %s, want first-model", got)
	}
	write("second-model")
	if err := hup(); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if got := models(); !strings.Contains(got, "second-model") || strings.Contains(got, "first-model") {
		t.Fatalf("after reload: models %s, want only second-model", got)
	}

	// A broken file is rejected and the running configuration stays.
	if err := os.WriteFile(cfgPath, []byte("server: {bogus: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := hup(); err == nil {
		t.Fatal("a file with an unknown key was accepted")
	}
	if got := models(); !strings.Contains(got, "second-model") {
		t.Fatalf("after a rejected reload: models %s, want second-model kept", got)
	}

	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Errorf("serve returned %v", err)
	}
}

// A flag overrides the file until the file itself changes that key: then
// the file wins on SIGHUP, and keeps winning.
func TestServeFlagsYieldToAnEditedFile(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "guard.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := serveFlags{config: cfgPath, upstream: "http://127.0.0.1:9001/v1"}
	steps := []struct {
		file, want string
	}{
		{"log: {level: error}\n", "http://127.0.0.1:9001/v1"},                                                  // flag over the default
		{"log: {level: warn}\n", "http://127.0.0.1:9001/v1"},                                                   // another key changed: flag stays
		{"upstream: {base_url: 'http://127.0.0.1:9002/v1'}\n", "http://127.0.0.1:9002/v1"},                     // the file changed it: file wins
		{"upstream: {base_url: 'http://127.0.0.1:9002/v1'}\nlog: {level: warn}\n", "http://127.0.0.1:9002/v1"}, // and keeps winning
	}
	for i, st := range steps {
		write(st.file)
		cfg, err := f.load()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := cfg.Upstream.BaseURL; got != st.want {
			t.Errorf("step %d: upstream %q, want %q", i, got, st.want)
		}
	}
}

func TestConfigArg(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--addr", "x"}, ""},
		{[]string{"--config", "a.yaml", "--addr", "x"}, "a.yaml"},
		{[]string{"--addr", "x", "-config=b.yaml"}, "b.yaml"},
		{[]string{"--config=c.yaml"}, "c.yaml"},
		{[]string{"--", "--config", "d.yaml"}, ""},
		{[]string{"--config"}, ""},
	}
	for _, tt := range tests {
		if got := configArg(tt.args); got != tt.want {
			t.Errorf("configArg(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestServeFullStateDirExitsZero runs guard serve with its state dir on a
// full 256 KiB tmpfs (root only: it mounts one): chat answers, the gap
// queue answers from memory, and SIGTERM ends serve without an error
// (exit 0) although gaps.json cannot be written.
func TestServeFullStateDirExitsZero(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a 256 KiB tmpfs")
	}
	state := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", state).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", state).Run() }) //nolint:errcheck
	f, err := os.Create(filepath.Join(state, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 512)); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	cfgPath := filepath.Join(t.TempDir(), "guard.yaml")
	body := "log: {level: error}\nstate: {dir: " + state + "}\nturnlog: {persist: {dir: " + state + "}}\ngaps: {flush_interval: 10ms}\n"
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	listening := make(chan net.Addr, 1)
	onListen = func(a net.Addr) { listening <- a }
	t.Cleanup(func() { onListen = nil })
	done := make(chan error, 1)
	go func() { done <- runServe([]string{"--config", cfgPath, "--addr", "127.0.0.1:0"}) }()
	var addr string
	select {
	case a := <-listening:
		addr = a.String()
	case err := <-done:
		t.Fatalf("serve on a full state dir did not start: %v", err)
	}
	for range 3 {
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"What is the capital of Mongolia?"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("chat on a full state dir: %d", resp.StatusCode)
		}
	}
	resp, err := http.Get("http://" + addr + "/v1/guard/gaps")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"count":3`) {
		t.Errorf("gap queue on a full disk: %s, want the question counted 3", b)
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Errorf("serve returned %v on SIGTERM with a full state dir, want nil (exit 0)", err)
	}
	if _, err := os.Stat(filepath.Join(state, "gaps.json")); err == nil {
		t.Error("gaps.json was written to a full disk?")
	}
}
