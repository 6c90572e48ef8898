package operator

import (
	"context"
	"os"
	"reflect"
	"sync"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/internal/leaktest"
	"github.com/answer-guard/guard/proxy"
)

func TestMain(m *testing.M) {
	leaktest.Main(wrapM{m})
}

// wrapM removes the shared demo snapshot after the tests.
type wrapM struct{ m *testing.M }

func (w wrapM) Run() int {
	code := w.m.Run()
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	return code
}

// demo is the embedded demo corpus indexed once per test binary: a guard
// server with an empty pipeline.index indexes it at every start (tens of
// seconds with the sentence encoder on a loaded machine); these tests
// point pipeline.index at one copy built the same way (index.BuildDemo),
// so a server here serves exactly what guard serve would.
var demo struct {
	once sync.Once
	dir  string
	err  error
}

func demoSnapshot(tb testing.TB) string {
	tb.Helper()
	demo.once.Do(func() {
		dir, err := os.MkdirTemp("", "operator-test-demo-*")
		if err != nil {
			demo.err = err
			return
		}
		demo.dir = dir
		_, demo.err = index.BuildDemo(context.Background(), proxy.DefaultConfig().Stages.Index, dir, zap.NewNop())
	})
	if demo.err != nil {
		tb.Fatalf("index the demo corpus: %v", demo.err)
	}
	return demo.dir
}

// withDemo points a guard configuration that would index the demo corpus
// at start at the shared copy.
func withDemo(tb testing.TB, tc testCfg) testCfg {
	if tc.Pipeline.Enabled && tc.Pipeline.Index == "" && reflect.DeepEqual(tc.Stages.Index, proxy.DefaultConfig().Stages.Index) {
		tc.Pipeline.Index = demoSnapshot(tb)
	}
	return tc
}
