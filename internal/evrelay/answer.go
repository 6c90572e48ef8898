package evrelay

import (
	"bytes"
	"strconv"
)

// Framing is how an HTTP/1.1 answer's body is delimited.
type Framing uint8

// Body framings of an answer.
const (
	BodyNone    Framing = iota // no body follows the header
	BodyLength                 // Content-Length bytes follow
	BodyChunked                // a chunked body follows (decode it with a Dechunker)
)

// AnswerHead is what ParseAnswerHead keeps of an answer's header.
type AnswerHead struct {
	Status      int     // the status code
	StatusText  []byte  // the status line after "HTTP/1.x ": code and reason (points into the header)
	Body        Framing // BodyNone also for a Content-Length of 0
	Length      int64   // the Content-Length, -1 when there is none
	ContentType []byte  // the Content-Type values, appended to the caller's buffer
	Close       bool    // Connection: close
}

// ParseAnswerHead parses the header h of an HTTP/1.1 answer (status line
// to the blank line, "\r\n\r\n" included). noBody: the request was a HEAD,
// so no body follows whatever the header says. The Content-Type values
// are appended to ctype (pass a reused buffer cut to length 0). An answer
// read to close (no length, not chunked) or with a Transfer-Encoding
// other than chunked is ErrBadAnswer.
func ParseAnswerHead(h []byte, noBody bool, ctype []byte) (AnswerHead, error) {
	a := AnswerHead{Length: -1, ContentType: ctype}
	line, rest, _ := bytes.Cut(h, []byte("\r\n"))
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return a, ErrBadAnswer
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return a, ErrBadAnswer
	}
	a.Status, a.StatusText = code, line[9:]
	for len(rest) > 2 {
		var hl []byte
		hl, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, val, ok := bytes.Cut(hl, []byte(":"))
		if !ok {
			return a, ErrBadAnswer
		}
		val = bytes.TrimSpace(val)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil || n < 0 {
				return a, ErrBadAnswer
			}
			a.Length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(val, []byte("chunked")) {
				return a, ErrBadAnswer
			}
			a.Body = BodyChunked
		case bytes.EqualFold(name, []byte("Content-Type")):
			a.ContentType = append(a.ContentType, val...)
		case bytes.EqualFold(name, []byte("Connection")):
			a.Close = bytes.EqualFold(val, []byte("close"))
		}
	}
	switch {
	case noBody || code < 200 || code == 204 || code == 304:
		a.Body = BodyNone
	case a.Body == BodyChunked:
	case a.Length > 0:
		a.Body = BodyLength
	case a.Length == 0:
		a.Body = BodyNone
	default:
		return a, ErrBadAnswer // read to close: not supported
	}
	return a, nil
}

// States of the chunked-body decoder.
const (
	csSize = iota
	csExt
	csData
	csDataCR
	csDataLF
	csTrailer
	csTrailerLine
	csTrailerLF
)

// Dechunker decodes a chunked body fed to it in pieces of any size. Its
// zero value is ready for a new body.
type Dechunker struct {
	remain int64 // bytes left of the current chunk (its size while reading it)
	state  uint8
	digits int
}

// Decode appends the data of the chunked body bytes b to dst. done
// reports that the last chunk and its trailer have come; extra, that b
// went on past them. A malformed body (or a chunk size of more than 15
// hex digits) is ErrBadAnswer.
func (d *Dechunker) Decode(dst, b []byte) (out []byte, done, extra bool, err error) {
	for len(b) > 0 {
		switch d.state {
		case csSize:
			ch := b[0]
			switch {
			case ch >= '0' && ch <= '9', ch >= 'a' && ch <= 'f', ch >= 'A' && ch <= 'F':
				if d.digits == 15 {
					return dst, false, false, ErrBadAnswer
				}
				d.remain = d.remain<<4 | int64(unhex(ch))
				d.digits++
				b = b[1:]
			case d.digits > 0 && (ch == '\r' || ch == ';' || ch == ' ' || ch == '\t'):
				d.state = csExt
			default:
				return dst, false, false, ErrBadAnswer
			}
		case csExt:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				return dst, false, false, nil
			}
			b = b[i+1:]
			d.digits = 0
			if d.remain == 0 {
				d.state = csTrailer
			} else {
				d.state = csData
			}
		case csData:
			take := min(int64(len(b)), d.remain)
			dst = append(dst, b[:take]...)
			b = b[take:]
			if d.remain -= take; d.remain == 0 {
				d.state = csDataCR
			}
		case csDataCR, csDataLF:
			if b[0] == '\r' && d.state == csDataCR {
				d.state = csDataLF
				b = b[1:]
				continue
			}
			if b[0] != '\n' {
				return dst, false, false, ErrBadAnswer
			}
			b = b[1:]
			d.state = csSize
		case csTrailer:
			switch b[0] {
			case '\r':
				d.state = csTrailerLF
				b = b[1:]
			case '\n':
				return dst, true, len(b) > 1, nil
			default:
				d.state = csTrailerLine
			}
		case csTrailerLine:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				return dst, false, false, nil
			}
			b = b[i+1:]
			d.state = csTrailer
		case csTrailerLF:
			if b[0] != '\n' {
				return dst, false, false, ErrBadAnswer
			}
			return dst, true, len(b) > 1, nil
		}
	}
	return dst, false, false, nil
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
