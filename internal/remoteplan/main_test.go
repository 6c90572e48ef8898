package remoteplan_test

import (
	"testing"

	"github.com/answer-guard/guard/internal/leaktest"
)

// TestMain fails the run when a goroutine is left after the tests passed
// (library janitors aside: internal/leaktest).
func TestMain(m *testing.M) { leaktest.Main(m) }
