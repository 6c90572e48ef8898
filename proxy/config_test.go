package proxy

import (
	"os"
	"strings"
	"testing"
)

func TestStrictDecodeNamesUnknownKeys(t *testing.T) {
	cfg := DefaultConfig()
	err := DecodeConfig([]byte("server:\n  adr: x\ngate:\n  prefloor: 0.2\n  prefloorx: 1\nbogus: 1\n"), &cfg)
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	for _, want := range []string{"line 2: server.adr: unknown key", "line 5: gate.prefloorx: unknown key", "line 6: bogus: unknown key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestValidateReportsEverything(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Upstream.IdleTimeout = 0
	cfg.Stages.Gate.Prefloor = 2
	cfg.Stages.Verify.Mode = "loose"
	err := cfg.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"upstream.idle_timeout", "gate.prefloor", "verify.mode"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

func TestGCConfig(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC/GOMEMLIMIT set: the environment wins")
	}
	defer applyGC(GCConfig{Percent: 100})
	if p, l := applyGC(GCConfig{Percent: 250, MemoryLimit: 1 << 30}); p != 250 || l != 1<<30 {
		t.Errorf("applyGC: percent %d, limit %d", p, l)
	}
	for _, tc := range []struct {
		gc   GCConfig
		want string
	}{
		{GCConfig{Percent: 5}, "server.gc.percent"},
		{GCConfig{Percent: -1}, "needs a memory_limit"},
		{GCConfig{Percent: 100, MemoryLimit: -1}, "server.gc.memory_limit"},
	} {
		cfg := DefaultConfig()
		cfg.Server.GC = tc.gc
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.gc, err, tc.want)
		}
	}
}
