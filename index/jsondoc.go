package index

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// A help desk or CMS exports its articles as one JSON document, not JSON
// Lines: an array of article objects, or an object that wraps that array
// ({"articles": [...], "count": 18}), often pretty-printed. readJSONLines
// reads such a .json file (or JSONL file) as the list of documents it holds,
// each object as a JSON line would be read, a bad one reported at the line
// it starts on. Operators used to be told to convert it with jq first.

// jsonWholeProbe is how much of a file's start jsonWhole looks at.
const jsonWholeProbe = 4096

// jsonWhole reports whether the file br reads is one JSON document rather
// than JSON Lines: its first character (after a byte-order mark and white
// space) opens an array, or its first line is a lone "{" (an object printed
// over several lines).
func jsonWhole(br *bufio.Reader) bool {
	b, _ := br.Peek(jsonWholeProbe)
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte(utf8BOM)), " \t\r\n")
	if len(b) == 0 {
		return false
	}
	if b[0] == '[' {
		return true
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	return string(bytes.TrimSpace(first)) == "{"
}

// jsonOpensObjectOnFirstLine reports a file whose first line opens an
// object it does not close (`{"agent": "x", "intents": [`): one JSON
// document printed over several lines, when the file parses whole.
func jsonOpensObjectOnFirstLine(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte(utf8BOM)), " \t\r\n")
	first, _, found := bytes.Cut(head, []byte("\n"))
	first = bytes.TrimSpace(first)
	return found && len(first) > 0 && first[0] == '{' && !json.Valid(first)
}

// readJSONDocument reads a file that is JSON documents rather than JSON
// Lines (jsonWhole): an array of documents; objects printed over several
// lines one after another (as jq prints them), each a document; or an
// object with one field that holds an array of objects and no passage text
// of its own (a help desk's wrapper), whose elements are the documents.
// Each document is read as parseDocLineIn reads a JSON line and handed to
// keep with the line it starts on; a bad one is a *LineError (returned at
// once when strict). JSON that does not parse stops the file with a
// *LineError at the line of the fault.
func readJSONDocument(r io.Reader, path string, strict bool, bad *[]*LineError, part DocRef, keep func(Doc, int) error) error {
	b, report, err := wholeFile(r, path, strict, bad)
	if b == nil {
		return err
	}
	lineAt := func(off int) int { return 1 + bytes.Count(b[:min(off, len(b))], []byte("\n")) }
	// values calls fn with each JSON value of b[base:end] that dec reads
	// (dec at the value or the array element before it) and the offset in
	// b where it starts, until dec has no more; a value that does not
	// parse is reported at its line and ends the file.
	errStop := errors.New("stop")
	values := func(dec *json.Decoder, base int, fn func(raw json.RawMessage, at int) error) error {
		for dec.More() {
			at := base + int(dec.InputOffset())
			for at < len(b) && strings.IndexByte(" \t\r\n,", b[at]) >= 0 {
				at++
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				var se *json.SyntaxError
				if errors.As(err, &se) {
					at = base + int(se.Offset)
				}
				if rerr := report(lineAt(at), plainJSONError(err)); rerr != nil {
					return rerr
				}
				return errStop
			}
			if err := fn(raw, at); err != nil {
				return err
			}
		}
		return nil
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	n := 0
	doc := func(raw json.RawMessage, at int) error {
		n++
		d, err := parseDocLineIn(withID(raw, fmt.Sprintf("%s-%d", stem, n)), part)
		if err != nil {
			return report(lineAt(at), err)
		}
		return keep(d, lineAt(at))
	}
	// array reads the array that starts at b[at:] as documents.
	array := func(at int) error {
		dec := json.NewDecoder(bytes.NewReader(b[at:]))
		if _, err := dec.Token(); err != nil { // [
			return report(lineAt(at), plainJSONError(err))
		}
		return values(dec, at, doc)
	}
	if lead := len(b) - len(bytes.TrimLeft(b, " \t\r\n")); lead < len(b) && b[lead] == '[' {
		err = array(lead)
	} else {
		err = values(json.NewDecoder(bytes.NewReader(b)), 0, func(raw json.RawMessage, at int) error {
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return doc(raw, at) // not an object: parseDocLineIn says so
			}
			list := articleList(obj)
			if list == "" {
				return doc(raw, at)
			}
			// the list's offset: walk the object's keys to its value
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.Token() // {
			for dec.More() {
				k, _ := dec.Token()
				if k == list {
					off := at + int(dec.InputOffset())
					for off < len(b) && b[off] != '[' {
						off++
					}
					return array(off)
				}
				var skip json.RawMessage
				dec.Decode(&skip)
			}
			return nil
		})
	}
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// wholeFile reads a corpus file that is read whole (a JSON or YAML
// document), its byte-order mark dropped, and returns it with the
// reporter of its bad lines (a *LineError returned when strict, else kept
// in bad). A file that is not UTF-8 is reported at line 1: b is nil then,
// and so it is on a read error; err is what the reader returns.
func wholeFile(r io.Reader, path string, strict bool, bad *[]*LineError) (b []byte, report func(line int, err error) error, err error) {
	report = func(line int, err error) error {
		le := &LineError{File: path, Line: line, Err: err}
		if strict {
			return le
		}
		*bad = append(*bad, le)
		return nil
	}
	if b, err = io.ReadAll(r); err != nil {
		return nil, report, fmt.Errorf("read %s: %w", path, err)
	}
	b = bytes.TrimPrefix(b, []byte(utf8BOM))
	if err := checkUTF8(b); err != nil {
		return nil, report, report(1, err)
	}
	return b, report, nil
}

// jsonIDKeys are the fields that name a document of a JSON export with no
// "id": a slug, a shop's handle, a chatbot intent's name or tag.
var jsonIDKeys = []string{"slug", "handle", "name", "tag", "intent", "key"}

// withID gives a document of a JSON export (an array, a wrapper's list)
// that has no "id" or "_id" one: its first jsonIDKeys string that makes a
// good id (ValidName), else def (the file's stem and the document's
// number, as a CSV sheet without an id column names its rows). A
// hand-made or chatbot export has none, and each document was a "missing
// id" bad line. Anything that is not such an object is returned as is.
func withID(raw json.RawMessage, def string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	if _, ok := obj["id"]; ok {
		return raw
	}
	if _, ok := obj["_id"]; ok {
		return raw
	}
	id := def
	for _, k := range jsonIDKeys {
		var s string
		if v, ok := obj[k]; ok && json.Unmarshal(v, &s) == nil && ValidName(strings.TrimSpace(s)) {
			id = strings.TrimSpace(s)
			break
		}
	}
	obj["id"], _ = json.Marshal(id)
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// articleList is the field of a JSON object that holds its documents: the
// one field whose value is an array of objects, when the object has no
// passage text of its own (text or a fieldAliases alias). "" otherwise.
func articleList(obj map[string]json.RawMessage) string {
	if _, ok := obj["text"]; ok {
		return ""
	}
	for _, a := range fieldAliases {
		if _, ok := obj[a.alias]; ok && a.field == "text" {
			return ""
		}
	}
	found := ""
	for k, v := range obj {
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) != nil || len(arr) == 0 {
			continue
		}
		if t := bytes.TrimSpace(arr[0]); len(t) == 0 || t[0] != '{' {
			continue
		}
		if found != "" {
			return "" // two lists: which one is meant is not ours to guess
		}
		found = k
	}
	return found
}

// bodyHTMLRE finds markup in a passage's text: a closing tag of a block or
// inline element, or a line break tag. A help desk's article body is HTML
// ("<p>We move pianos.</p><ul><li>...</li></ul>").
var bodyHTMLRE = regexp.MustCompile(`(?i)</(?:p|div|li|ul|ol|h[1-6]|strong|em|b|i|a|span|table|tr|td|th|blockquote|section|article)\s*>|<br\s*/?>`)

// htmlBody converts a JSON line's or CSV row's text that is HTML (an
// exported article body) into text as an HTML page's body is read:
// paragraphs, lists, tables and headings (as sections) kept, the tags and
// entities gone. The markup was indexed and shown to the model as written.
func htmlBody(d *Doc) {
	if !bodyHTMLRE.MatchString(d.Text) {
		return
	}
	md, _, _, err := htmlMarkdown(d.Text)
	if err != nil || strings.TrimSpace(md) == "" {
		return
	}
	d.Text, _, d.sections = markdownText(md)
	d.markdown = true
}

// unpublished reads an exported article's or row's publication state: a
// "draft" of true, a "published" of false, or a "status" of draft,
// unpublished, archived or hidden (help desks and shop platforms export
// their drafts beside the live pages) makes d an unpublished document,
// read as a deletion: a build leaves it out (and says how many), an add
// removes the live version it replaces. Any other value, or none, leaves d
// as it is. The fields stay in meta.
func unpublished(d *Doc) {
	for k, v := range d.Meta {
		var off bool
		switch strings.ToLower(k) {
		case "draft":
			off = truth(v) == 1
		case "published", "is_published", "visible":
			off = truth(v) == 0
		case "status", "state":
			s, _ := v.(string)
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "draft", "unpublished", "archived", "hidden":
				off = true
			}
		}
		if off {
			d.unpublished, d.Deleted = true, true
			return
		}
	}
}

// truth reads a JSON boolean or a sheet's cell as 1 (true, yes, 1), 0
// (false, no, 0) or -1 (anything else).
func truth(v any) int {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "1":
			return 1
		case "false", "no", "0":
			return 0
		}
	case float64:
		if x == 1 {
			return 1
		}
		if x == 0 {
			return 0
		}
	}
	return -1
}

// warnUnpublished says how many unpublished documents a build left out,
// naming the first few.
func warnUnpublished(log *zap.Logger, ids []string) {
	if len(ids) == 0 {
		return
	}
	log.Warn("unpublished documents left out (draft true, published false or status draft)", zap.Int("count", len(ids)), zap.Strings("ids", ids[:min(len(ids), 5)]))
}

// A spreadsheet saved as CSV by Excel on Windows, or a text file from an
// older editor, is often Windows-1252, not UTF-8: its £ signs and curly
// quotes are single bytes (operator trial 31's bowling alley FAQ; trial 8
// was told to convert with iconv). A file that is not UTF-8 and holds no
// UTF-8 sequence at all is read as Windows-1252, as a browser reads an
// HTML page that declares nothing (htmlDecode); Latin-1 reads the same
// letters. A file of two encodings (UTF-8 sequences and stray bytes) is
// left as it is, and checkUTF8 names its first bad byte.

// legacyText is b as UTF-8: decoded from UTF-16 when it opens with a
// UTF-16 byte-order mark, from Windows-1252 when legacy1252 says so.
func legacyText(b []byte) []byte {
	if bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		// UTF-16 with its byte-order mark: Windows Notepad's "Unicode"
		// (operator trial 43's advice charity FAQ)
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(b)
		if err != nil {
			return b
		}
		return out
	}
	if !legacy1252(b) {
		return b
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return b
	}
	return out
}

// legacyProbe is how much of a file of many documents legacyReader reads
// before it decides: the whole file is read only when it is not UTF-8.
const legacyProbe = 64 << 10

// legacyReader is r (the file at path) as UTF-8: r itself when its start is
// UTF-8 or the file is of two encodings, else the whole file decoded from
// Windows-1252 (legacy1252).
func legacyReader(r io.Reader, path string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, legacyProbe)
	head, _ := br.Peek(legacyProbe)
	if utf8.Valid(trimPartialRune(head)) {
		return br, nil // the usual case: no copy of the file
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return bytes.NewReader(legacyText(b)), nil
}

// trimPartialRune drops a UTF-8 sequence cut off at the end of b (a probe
// that stops inside a character).
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if c := b[len(b)-i]; c >= 0xC0 { // a lead byte: is its sequence whole?
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	return b
}

// legacy1252 reports a file that is not UTF-8 and holds no UTF-8 sequence
// of two or more bytes, nor a UTF-16 byte-order mark: a single-byte
// encoding. Windows-1252 leaves five bytes undefined; a file with one is
// not it either.
func legacy1252(b []byte) bool {
	if utf8.Valid(b) || bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		return false
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			i++
			continue
		}
		if c == 0x81 || c == 0x8D || c == 0x8F || c == 0x90 || c == 0x9D {
			return false
		}
		if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError && size > 1 {
			return false // a UTF-8 sequence: a file of two encodings
		}
		i++
	}
	return true
}
