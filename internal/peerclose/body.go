package peerclose

import "io"

// Body is a request body that tells when it is written: an HTTP client
// with no context (fasthttp's) writes it once it holds the connection the
// request goes on, so OnSend is the moment to tie that connection to the
// request (and close it at once if the client already left). A client
// does not retry a request whose body is a stream: Rewind makes it sendable
// again for a retry of the caller's own.
type Body struct {
	B      []byte
	OnSend func() // called before the first byte is written, once per send
	off    int
	sent   bool
}

// Rewind makes b unread again and returns it.
func (b *Body) Rewind() *Body {
	b.off, b.sent = 0, false
	return b
}

func (b *Body) send() {
	if !b.sent {
		b.sent = true
		if b.OnSend != nil {
			b.OnSend()
		}
	}
}

// WriteTo writes the body in one write (what fasthttp calls when it can).
func (b *Body) WriteTo(w io.Writer) (int64, error) {
	b.send()
	n, err := w.Write(b.B[b.off:])
	b.off += n
	return int64(n), err
}

func (b *Body) Read(p []byte) (int, error) {
	b.send()
	if b.off == len(b.B) {
		return 0, io.EOF
	}
	n := copy(p, b.B[b.off:])
	b.off += n
	return n, nil
}
