// Package chaos holds the reliability suite: the proxy against a failing
// upstream, vanishing clients, reloads under load, hostile input and many
// tenants. The scenarios live in package bench (so `guard bench chaos` runs
// the same ones); these tests run them in a short form by default and in a
// long form with GUARD_CHAOS_LONG=1.
package chaos

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/answer-guard/guard/bench"
)

func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		// Every goroutine the suite started must be gone after a bounded wait.
		deadline := time.Now().Add(15 * time.Second)
		for runtime.NumGoroutine() > before+3 && time.Now().Before(deadline) {
			http.DefaultTransport.(*http.Transport).CloseIdleConnections()
			time.Sleep(50 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before+3 {
			buf := make([]byte, 1<<20)
			fmt.Fprintf(os.Stderr, "goroutine leak: %d before, %d after\n%s\n", before, n, buf[:runtime.Stack(buf, true)])
			code = 1
		}
	}
	os.Exit(code)
}

func options() bench.ChaosOptions {
	return bench.ChaosOptions{Long: os.Getenv("GUARD_CHAOS_LONG") == "1"}
}

func TestScenarios(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, s := range bench.ChaosScenarios() {
		t.Run(s.Name, func(t *testing.T) {
			if s.Name == "bad_input" {
				t.Skip("run case by case in TestBadInputs")
			}
			r := bench.RunScenario(ctx, s, options())
			if r.Skipped != "" {
				t.Skip(r.Skipped)
			}
			t.Logf("%d requests, outcomes %v, slowest %s, goroutines %d -> %d", r.Requests, r.Outcomes, r.Slowest, r.GoroutinesBefore, r.GoroutinesAfter)
			if r.Requests == 0 {
				t.Errorf("no request was sent")
			}
			for _, p := range r.Problems {
				t.Error(p)
			}
			if r.GoroutinesAfter > r.GoroutinesBefore+3 {
				buf := make([]byte, 1<<20)
				t.Logf("goroutines:\n%s", buf[:runtime.Stack(buf, true)])
			}
		})
	}
}
