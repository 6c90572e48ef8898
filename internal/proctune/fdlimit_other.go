//go:build !unix

package proctune

// OpenFileLimit is a conservative stand-in where there is no RLIMIT_NOFILE.
func OpenFileLimit() uint64 { return 4096 }
