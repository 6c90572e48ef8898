//go:build !unix

package proxy

// openFileLimit is a conservative stand-in where there is no RLIMIT_NOFILE.
func openFileLimit() uint64 { return 4096 }
