package proxy

import (
	"strings"
	"testing"

	"github.com/answer-guard/guard/internal/proctune"
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
	cfg.Server.EventLoop = "yes"
	err := cfg.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"upstream.idle_timeout", "gate.prefloor", "verify.mode", "server.event_loop: must be auto, on or off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

// server.gc's problems are reported under their config path.
func TestGCConfig(t *testing.T) {
	for _, tc := range []struct {
		gc   proctune.GC
		want string
	}{
		{proctune.GC{Percent: 5}, "server.gc.percent"},
		{proctune.GC{Percent: -1}, "needs a memory_limit"},
		{proctune.GC{Percent: 100, MemoryLimit: -1}, "server.gc.memory_limit"},
	} {
		cfg := DefaultConfig()
		cfg.Server.GC = tc.gc
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.gc, err, tc.want)
		}
	}
}
