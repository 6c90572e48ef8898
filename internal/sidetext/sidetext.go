// Package sidetext finds and rewrites the side texts of an OpenAI chat
// completion or chunk: the texts that are not the answer. They are the
// content of any choice after the first (n is 1, so an upstream should send
// none), and reasoning_content and refusal of every choice. The caller's
// Filter decides what of each may go out.
package sidetext

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Filter is what a turn offers for the side texts. key names one field of
// one choice ("1.content", "0.reasoning_content"); the pieces of a
// streamed field share it.
type Filter interface {
	// Side appends to dst what may go out of delta for key; end closes
	// the key's filter and appends what it still holds.
	Side(key string, dst, delta []byte, end bool) []byte
	// OpenSides lists the keys whose filters may still hold text.
	OpenSides() []string
}

// fields are the fields of a message or delta that are filtered as
// side text (besides the content of the choices after the first).
var fields = [...]string{"reasoning_content", "refusal"}

// Has reports whether a chunk or completion may hold side text: a side
// field anywhere, or a second choice. choices is the raw "choices" array.
func Has(data []byte, choices string) bool {
	// every quoted side field starts with `"re`: one scan finds both
	for i := 0; ; i++ {
		k := bytes.Index(data[i:], fieldLead)
		if k < 0 {
			break
		}
		i += k
		for _, f := range quotedFields {
			if bytes.HasPrefix(data[i:], f) {
				return true
			}
		}
	}
	return strings.Count(choices, `"index"`) > 1 && gjson.Get(choices, "#").Int() > 1
}

// Memo is Has for a stream's chunks, most of which differ from the one
// before only in their content string (a [jsonscan.ChunkMemo] hit): once a
// chunk scanned whole is known to hold no side text, neither in its
// content nor around it, a chunk that has its bytes around the content is
// checked by its content alone. The zero Memo knows nothing.
type Memo struct{ clean bool }

// Has is Has(data, choices) for a chunk whose raw content value is content
// ("" when none). same reports that data has the bytes around its content
// of the chunk Has last saw with same false (a ChunkMemo hit); a chunk that
// is not the same is checked whole and remembered.
//
// The content is a JSON string: a quote inside it is escaped, so a quoted
// side field or "index" can only match in it when its text is exactly that
// word (the match starts at its opening quote and ends at its closing one)
// or it holds an escaped quote, and no match can cross its ends (before it
// is `":`, after it ',', '}' or white space). So a chunk the same as a clean
// one, whose content is neither, holds what the clean one holds outside its
// content, which is nothing (and as many choices).
func (m *Memo) Has(data []byte, choices, content string, same bool) bool {
	if same && m.clean && !mentions(content) {
		return false
	}
	has := Has(data, choices)
	if !same {
		m.clean = !has && !mentions(content)
	}
	return has
}

// mentions reports whether a raw JSON string value may hold a match Has
// looks for: a quote inside it, or a text that is a side field or "index".
func mentions(raw string) bool {
	if len(raw) < 2 {
		return raw != ""
	}
	inner := raw[1 : len(raw)-1]
	return strings.IndexByte(inner, '"') >= 0 || inner == "index" || slices.Contains(fields[:], inner)
}

// quotedFields are fields, quoted as JSON keys; each starts with
// fieldLead.
var quotedFields = func() [][]byte {
	out := make([][]byte, len(fields))
	for i, f := range fields {
		out[i] = []byte(`"` + f + `"`)
		if !bytes.HasPrefix(out[i], fieldLead) {
			panic("sidetext: side field " + f + " does not start with " + string(fieldLead))
		}
	}
	return out
}()

var fieldLead = []byte(`"re`)

// Rewrite runs every side text of data (a completion when obj is
// "message", a chunk when "delta") through f, and, when end, closes every
// filter still open (a stream's last chunk) and appends what they held to
// its field in data, if data has that choice. A completion's fields are
// each whole: their filters are closed at once.
func Rewrite(f Filter, data []byte, obj string, end bool) ([]byte, error) {
	type edit struct{ path, text string }
	var edits []edit
	var err error
	gjson.GetBytes(data, "choices").ForEach(func(pos, choice gjson.Result) bool {
		idx := choice.Get("index").Int()
		names := fields[:]
		if pos.Int() > 0 {
			names = append([]string{"content"}, names...)
		}
		for _, name := range names {
			v := choice.Get(obj + "." + name)
			if v.Type != gjson.String {
				continue
			}
			key := fmt.Sprintf("%d.%s", idx, name)
			out := string(f.Side(key, nil, []byte(v.Str), obj == "message"))
			if out != v.Str {
				edits = append(edits, edit{fmt.Sprintf("choices.%d.%s.%s", pos.Int(), obj, name), out})
			}
		}
		return true
	})
	if end {
		for _, key := range f.OpenSides() {
			tail := f.Side(key, nil, nil, true)
			if len(tail) == 0 {
				continue
			}
			idx, name, _ := strings.Cut(key, ".")
			gjson.GetBytes(data, "choices").ForEach(func(pos, choice gjson.Result) bool {
				if choice.Get("index").String() != idx {
					return true
				}
				p := fmt.Sprintf("choices.%d.%s.%s", pos.Int(), obj, name)
				prev := gjson.GetBytes(data, p).Str
				for i := range edits {
					if edits[i].path == p {
						prev = edits[i].text
						edits = slices.Delete(edits, i, i+1)
						break
					}
				}
				edits = append(edits, edit{p, prev + string(tail)})
				return false
			})
		}
	}
	for _, e := range edits {
		if data, err = sjson.SetBytes(data, e.path, e.text); err != nil {
			return nil, err
		}
	}
	return data, nil
}
