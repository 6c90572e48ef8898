//go:build race

package proxy

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation counts mean nothing under it. The allocation tests run in the
// CI step without -race (go test -count=1 -run Allocs ./proxy ./gauntlet).
const raceEnabled = true
