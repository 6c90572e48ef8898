package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeReloadsOnSIGHUP runs guard serve in-process, rewrites its config
// file, sends SIGHUP and sees the new model list, then stops it with SIGTERM.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "guard.yaml")
	write := func(models string) {
		b := "log: {level: error}\npipeline: {enabled: false}\nmodels: {allow: [" + models + "]}\n"
		if err := os.WriteFile(cfgPath, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("first-model")
	done := make(chan error, 1)
	go func() { done <- runServe([]string{"--config", cfgPath, "--addr", addr}) }()

	models := func() string {
		resp, err := http.Get("http://" + addr + "/v1/models")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(models(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("models never listed %q: %s", want, models())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("first-model")
	write("second-model")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("second-model")

	// A broken file is rejected and the running configuration stays.
	os.WriteFile(cfgPath, []byte("server: {bogus: 1}\n"), 0o644)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	time.Sleep(100 * time.Millisecond)
	waitFor("second-model")

	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
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
