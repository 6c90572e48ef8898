//go:build race

package gauntlet

// raceEnabled: the race detector makes sync.Pool (and so regexp) drop
// items at random, so allocation counts mean nothing under it.
const raceEnabled = true
