//go:build !unix

package gauntlet

func cpuSeconds() float64 { return 0 }
