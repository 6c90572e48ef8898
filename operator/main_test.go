package operator

import (
	"testing"

	"github.com/answer-guard/guard/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }
