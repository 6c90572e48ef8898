//go:build unix

package proxy

import "syscall"

// openFileLimit raises the soft RLIMIT_NOFILE to the hard limit and
// returns it. The Go runtime already does so at start on Linux and macOS
// (os package, Go 1.19 and later); raising it here again keeps the sizing
// right when something lowered it since. Where the limit cannot be read,
// it returns 4096.
func openFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 4096
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = l.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			l = raised
		}
	}
	return uint64(l.Cur) //nolint:unconvert // int64 on some BSDs
}
