// Package jsonscan holds the request path's single-pass JSON scanners: the
// duplicate-key and depth check of a request body (DuplicateKey) and the
// reader of an upstream chat-completion chunk (ScanChunk, ChunkMemo). They
// allocate nothing on the common path and read what gjson and
// encoding/json would, proven by fuzz targets against both.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DuplicateKey returns the first object key in b that repeats a key of the
// same object, and dup true; and deep true when b nests deeper than
// maxDepth. b need not be valid JSON yet: the scan stops at the depth
// limit, so a hostile body costs no memory, and a duplicate found before
// that is reported with it (the caller checks deep first).
//
// The proxy reads the first occurrence of a key (gjson); typical upstreams
// read the last (Go's encoding/json, Python's json), and Go's encoding/json
// matches struct fields case-insensitively. A body with both {"model":"a"}
// and {"model":"b"} (or "Model", or "mod\u0065l") could pass the guard's
// checks as one request and reach the upstream as another, so such a body
// is refused. Keys are compared after unescaping, under Unicode case
// folding. Cost: one pass over the bytes, no allocation for objects of up
// to 16 plain keys (BenchmarkDuplicateKeyScan).
func DuplicateKey(b []byte, maxDepth int) (key string, dup, deep bool) {
	st := dupScanners.Get().(*dupScanner)
	key, dup, deep = st.scan(b, maxDepth)
	clear(st.stack[:st.high]) // drop references into b
	dupScanners.Put(st)
	return key, dup, deep
}

var dupScanners = sync.Pool{New: func() any { return &dupScanner{stack: make([]dupFrame, 0, 8)} }}

type dupFrame struct {
	object    bool
	expectKey bool
	keys      [16][]byte          // the first plain keys, compared with bytes.EqualFold
	n         int                 // keys seen
	fold      map[string]struct{} // past 16 keys, or for escaped keys: folded forms
}

type dupScanner struct {
	stack []dupFrame
	high  int // the most frames in use during the scan: what to clear
}

func (s *dupScanner) scan(b []byte, maxDepth int) (key string, dup, deep bool) {
	s.stack, s.high = s.stack[:0], 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			if len(s.stack) == maxDepth {
				return key, dup, true
			}
			s.push(b[i] == '{')
		case '}', ']':
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
		case ',':
			if top := s.top(); top != nil && top.object {
				top.expectKey = true
			}
		case '"':
			j, escaped := stringEnd(b, i+1)
			if top := s.top(); !dup && top != nil && top.object && top.expectKey {
				top.expectKey = false
				key, dup = top.add(b[i+1:j], escaped)
			}
			i = j
		}
	}
	return key, dup, false
}

func (s *dupScanner) push(object bool) {
	if len(s.stack) < cap(s.stack) {
		s.stack = s.stack[:len(s.stack)+1]
		f := &s.stack[len(s.stack)-1]
		f.object, f.expectKey, f.n, f.fold = object, object, 0, nil
	} else {
		s.stack = append(s.stack, dupFrame{object: object, expectKey: object})
	}
	s.high = max(s.high, len(s.stack))
}

func (s *dupScanner) top() *dupFrame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// stringEnd returns the index of the quote closing the string whose
// content starts at i, and whether the string has an escape. Strings are
// most of a chat body: the quote is found with bytes.IndexByte, and the
// byte loop runs only over a stretch with a backslash.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	q := -1 // the first quote at or after i, once looked for
	for i < len(b) {
		if q < i {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return len(b), escaped || bytes.IndexByte(b[i:], '\\') >= 0
			}
			q = i + j
		}
		bs := bytes.IndexByte(b[i:q], '\\')
		if bs < 0 {
			return q, escaped
		}
		// An escape before the quote: step over the escaped byte (which
		// may be that quote) and go on.
		escaped = true
		i += bs + 2
	}
	return len(b), escaped
}

// add records raw (the key's bytes between its quotes) and reports whether
// the object already had it, with the key as the client wrote it.
func (f *dupFrame) add(raw []byte, escaped bool) (string, bool) {
	if !escaped && f.fold == nil && f.n < len(f.keys) {
		for _, k := range f.keys[:f.n] {
			if bytes.EqualFold(k, raw) {
				return string(raw), true
			}
		}
		f.keys[f.n] = raw
		f.n++
		return "", false
	}
	if f.fold == nil {
		f.fold = make(map[string]struct{}, 2*len(f.keys))
		for _, k := range f.keys[:f.n] {
			f.fold[foldKey(string(k))] = struct{}{}
		}
	}
	key := string(raw)
	if escaped {
		var u string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &u) == nil {
			key = u
		}
	}
	fk := foldKey(key)
	if _, dup := f.fold[fk]; dup {
		return key, true
	}
	f.fold[fk] = struct{}{}
	f.n++
	return "", false
}

// foldKey maps s to one representative of its case-folding class (each
// rune to the smallest rune of its unicode.SimpleFold orbit), so two keys
// are equal under bytes.EqualFold exactly when their fold keys are equal.
func foldKey(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		if m < utf8.RuneSelf {
			sb.WriteByte(byte(m))
		} else {
			sb.WriteRune(m)
		}
	}
	return sb.String()
}
