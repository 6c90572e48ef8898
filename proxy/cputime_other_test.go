//go:build !unix

package proxy_test

func cpuSeconds() float64 { return 0 }
