//go:build !race

package gauntlet

const raceEnabled = false
