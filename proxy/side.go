package proxy

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/answer-guard/guard/gauntlet"
)

// sideFilter is what a turn offers for the text of a response that is not
// the answer: the content of any choice after the first (n is 1, so an
// upstream should send none), and reasoning_content and refusal of every
// choice. Leaked ids and every marker are deleted from it (a gauntlet
// stream in bail-out mode: these texts cite nothing). key names one field
// of one choice; the pieces of a streamed field share it.
type sideFilter interface {
	// Side appends to dst what may go out of delta for key; end closes
	// the key's filter and appends what it still holds.
	Side(key string, dst, delta []byte, end bool) []byte
	// OpenSides lists the keys whose filters may still hold text.
	OpenSides() []string
}

var _ sideFilter = (*guardTurn)(nil)

func (t *guardTurn) Side(key string, dst, delta []byte, end bool) []byte {
	st := t.sides[key]
	if st == nil {
		if t.sides == nil {
			t.sides = map[string]*gauntlet.Stream{}
		}
		o := t.stOpts
		o.Bailout, o.OnDrop = true, nil
		st = t.p.spec.New(o)
		t.sides[key] = st
	}
	if end {
		dst = st.Close(st.Write(dst, delta))
		delete(t.sides, key)
		return dst
	}
	return st.WriteFlush(dst, delta)
}

func (t *guardTurn) OpenSides() []string {
	keys := make([]string, 0, len(t.sides))
	for k := range t.sides {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sideFields are the fields of a message or delta that are filtered as
// side text (besides the content of the choices after the first).
var sideFields = [...]string{"reasoning_content", "refusal"}

// hasSideText reports whether a chunk or completion may hold side text: a
// side field anywhere, or a second choice.
func hasSideText(data []byte, choices string) bool {
	for _, f := range sideFields {
		if bytes.Contains(data, []byte(`"`+f+`"`)) {
			return true
		}
	}
	return strings.Count(choices, `"index"`) > 1 && gjson.Get(choices, "#").Int() > 1
}

// filterSides runs every side text of data (a completion when obj is
// "message", a chunk when "delta") through f, and, when end, closes every
// filter still open (a stream's last chunk) and appends what they held to
// its field in data, if data has that choice.
func filterSides(f sideFilter, data []byte, obj string, end bool) ([]byte, error) {
	type edit struct{ path, text string }
	var edits []edit
	var err error
	gjson.GetBytes(data, "choices").ForEach(func(pos, choice gjson.Result) bool {
		idx := choice.Get("index").Int()
		fields := sideFields[:]
		if pos.Int() > 0 {
			fields = append([]string{"content"}, fields...)
		}
		for _, name := range fields {
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
