package proctune

import (
	"os"
	"strings"
	"testing"
)

// Apply sets GOGC and GOMEMLIMIT from the config and reports what is in
// force (unless the environment variables are set: then they win).
func TestGCApply(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC/GOMEMLIMIT set: the environment wins")
	}
	defer GC{Percent: 100}.Apply()
	if p, l := (GC{Percent: 250, MemoryLimit: 1 << 30}).Apply(); p != 250 || l != 1<<30 {
		t.Errorf("Apply: percent %d, limit %d, want 250, %d", p, l, 1<<30)
	}
	if _, l := (GC{Percent: 100}).Apply(); l != 1<<63-1 {
		t.Errorf("memory_limit 0: limit %d, want none (%d)", l, int64(1<<63-1))
	}
}

func TestGCValidate(t *testing.T) {
	for _, tc := range []struct {
		gc   GC
		want []string // "" = valid
	}{
		{GC{Percent: 400}, nil},
		{GC{Percent: 10}, nil},
		{GC{Percent: 10000, MemoryLimit: 1 << 30}, nil},
		{GC{Percent: -1, MemoryLimit: 1 << 30}, nil},
		{GC{Percent: 5}, []string{"percent: must be -1 or in [10,10000], got 5"}},
		{GC{Percent: 10001}, []string{"percent: must be -1 or in [10,10000]"}},
		{GC{Percent: -1}, []string{"percent: -1 switches the collector off, which needs a memory_limit"}},
		{GC{Percent: 0, MemoryLimit: -1}, []string{"percent: must be", "memory_limit: must be >= 0 bytes, got -1"}},
	} {
		err := tc.gc.Validate()
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("%+v: got %v, want valid", tc.gc, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%+v: valid, want %q", tc.gc, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: got %q, want it to name %q", tc.gc, err, w)
			}
		}
	}
}
