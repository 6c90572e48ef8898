package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/answer-guard/guard/internal/leaktest"
)

// TestMain fails the run when a goroutine is left after the tests passed
// (library janitors aside: internal/leaktest).
//
// One known leak is ignored here until proxy fixes it: proxy.NewPipeline
// makes its passage-terms cache (ristretto, two goroutines) when the
// factory is made and closes it only with a pipeline the factory built, so
// `guard serve` with pipeline.enabled false never closes it.
func TestMain(m *testing.M) {
	leaktest.Main(m,
		goleak.IgnoreAnyFunction("github.com/dgraph-io/ristretto/v2.(*Cache[...]).processItems"),
		goleak.IgnoreAnyFunction("github.com/dgraph-io/ristretto/v2.(*defaultPolicy[...]).processItems"))
}
