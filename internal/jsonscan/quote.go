package jsonscan

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// safe marks the ASCII bytes encoding/json writes as they are (HTML
// escaping on: not '<', '>', '&', '"', '\\' or a control byte).
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendQuotedString appends s as a JSON string, as json.Marshal writes
// one: HTML characters escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029
// escaped.
func AppendQuotedString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipPlain(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += n
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += n
			start = i
			continue
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// skipPlain returns the end of the run of whole 8-byte words of s from i
// on that are written as they are: ASCII, no control byte, none of '"',
// '\\', '<', '>', '&'. The zero-byte test (x-lsb)&^x&msb may flag a byte
// after a true zero byte, never miss one, so a word it stops at only goes
// to the exact loop.
func skipPlain(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		q, b, lt, gt, amp := w^('"'*lsb), w^('\\'*lsb), w^('<'*lsb), w^('>'*lsb), w^('&'*lsb)
		if (w|(w-0x20*lsb)&^w|(q-lsb)&^q|(b-lsb)&^b|(lt-lsb)&^lt|(gt-lsb)&^gt|(amp-lsb)&^amp)&msb != 0 {
			break
		}
	}
	return i
}

// AppendQuoted appends text as AppendQuotedString does.
func AppendQuoted(dst, text []byte) []byte {
	return AppendQuotedString(dst, unsafe.String(unsafe.SliceData(text), len(text)))
}
