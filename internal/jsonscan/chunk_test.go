package jsonscan

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// allocEvent is a stream's content delta, %s its content value.
const allocEvent = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"mock-1","choices":[{"index":0,"delta":{"content":%s},"logprobs":null,"finish_reason":null}]}`

// FuzzChunkFields: the one-pass chunk scanner accepts what gjson.Valid
// accepts and finds what gjson finds, and AppendUnescaped reads back what
// encoding/json wrote (the relay's encoder side: FuzzAppendJSONString).
func FuzzChunkFields(f *testing.F) {
	f.Add(`{"id":"x","choices":[{"index":0,"delta":{"content":"a\"b\u00e9\n"},"finish_reason":null}],"usage":null}`, "caf\u00e9 <b>\x00\xff")
	f.Add(`{"error":{"message":"boom"}}`, "\u2028 \xed\xa0\x80")
	f.Add(`{ "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : "stop" } ] , "model":"m" }`, "")
	f.Add(`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, "")
	f.Add(` [1, -0.5e+3, true, false, null, "\u00e9\/"] `, "")
	f.Add(`{"a":01}`, "")
	f.Fuzz(func(t *testing.T, chunk, text string) {
		v, ok := ScanChunk(chunk)
		if ok != gjson.Valid(chunk) {
			t.Fatalf("ScanChunk valid=%v, gjson.Valid=%v for %q", ok, !ok, chunk)
		}
		if ok && !strings.Contains(chunk, `\`) {
			g := gjson.Parse(chunk)
			for _, c := range []struct{ got, path string }{{v.ID, "id"}, {v.Model, "model"}, {v.Err, "error"}, {v.Usage, "usage"},
				{v.Content, "choices.0.delta.content"}, {v.Finish, "choices.0.finish_reason"}} {
				if g.IsObject() && !hasDupKeys(chunk) && c.got != g.Get(c.path).Raw {
					if c.path == "choices.0.delta.content" || c.path == "choices.0.finish_reason" {
						if !strings.HasPrefix(g.Get("choices").Raw, "[") {
							continue
						}
					}
					t.Fatalf("%s: got %q, gjson %q in %s", c.path, c.got, g.Get(c.path).Raw, chunk)
				}
			}
		}
		if utf8.ValidString(text) {
			std, _ := json.Marshal(text)
			if got := AppendUnescaped(nil, string(std[1:len(std)-1])); string(got) != text {
				t.Fatalf("AppendUnescaped(%s) = %q, want %q", std, got, text)
			}
		}
	})
}

// hasDupKeys reports a chunk whose objects repeat a key (gjson takes the
// first, the relay the last, as encoding/json does).
func hasDupKeys(s string) bool {
	_, dup, _ := DuplicateKey([]byte(s), math.MaxInt)
	return dup
}

// BenchmarkScanChunk: the relay's per-event parse (validate and read the
// fields in one pass) next to gjson's validation alone, which the relay
// ran before its own field walk.
func BenchmarkScanChunk(b *testing.B) {
	ev := strings.Replace(allocEvent, "%s", `"The return window is 30 days "`, 1)
	b.Run("ScanChunk", func(b *testing.B) {
		b.SetBytes(int64(len(ev)))
		for b.Loop() {
			if _, ok := ScanChunk(ev); !ok {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("memo", func(b *testing.B) {
		// Deltas that differ only in their content, as a stream's do.
		evs := []string{ev, strings.Replace(allocEvent, "%s", `"from delivery. "`, 1)}
		var m ChunkMemo
		b.SetBytes(int64(len(ev)))
		i := 0
		for b.Loop() {
			if _, ok := m.Scan(evs[i&1]); !ok {
				b.Fatal("invalid")
			}
			i++
		}
	})
	b.Run("gjson.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(ev)))
		for b.Loop() {
			if !gjson.Valid(ev) {
				b.Fatal("invalid")
			}
		}
	})
}

// FuzzChunkMemo: scanning events one after the other through a ChunkMemo
// gives what ScanChunk gives for each (validity and every field, each a
// slice of the event itself), whether the memo takes the shortcut or not.
func FuzzChunkMemo(f *testing.F) {
	ev := func(c string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":` + c + `},"finish_reason":null}]}`
	}
	f.Add(ev(`"a"`), ev(`"bc\"d"`), ev(`"\u00e9"`))
	f.Add(ev(`""`), ev(`"x"`), `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	f.Add(ev(`"a"`), ev(`"a" , "content":"b"`), ev(`"c`))
	f.Add(`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`, `{"choices":[{"delta":{"content":"zz"}}],"choices":[]}`, ev(`1`))
	f.Add(ev(`"a"`), ev(`"a\"`), ev(`"\x01"`))
	f.Add(ev(`"a"`)[:len(ev(`"a"`))-1]+`,"guard":{}}`, ev(`"b"`)[:len(ev(`"b"`))-1]+`,"guard":{}}`, `{"citations":[],"choices":[]}`)
	f.Add(`{"gu\u0061rd":1}`, `{"x":{"guard":1}}`, `{"choices":[{"delta":{"content":"a"},"guard":1}]}`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var m ChunkMemo
		for _, data := range []string{a, b, c, b, a} {
			got, gok := m.Scan(data)
			want, wok := ScanChunk(data)
			if gok != wok {
				t.Fatalf("memo valid=%v, ScanChunk valid=%v for %q", gok, wok, data)
			}
			if !gok {
				continue
			}
			gf, wf := got.fields(), want.fields()
			for i := range gf {
				if *gf[i] != *wf[i] {
					t.Fatalf("field %d: memo %q, ScanChunk %q in %q", i, *gf[i], *wf[i], data)
				}
				if *gf[i] != "" {
					// The relay finds content by its address in the event.
					off := uintptr(unsafe.Pointer(unsafe.StringData(*gf[i]))) - uintptr(unsafe.Pointer(unsafe.StringData(data)))
					if off > uintptr(len(data)-len(*gf[i])) {
						t.Fatalf("field %d %q is not a slice of %q", i, *gf[i], data)
					}
				}
			}
			if got.HasChoice != want.HasChoice {
				t.Fatalf("hasChoice: memo %v, ScanChunk %v in %q", got.HasChoice, want.HasChoice, data)
			}
			// report is what a gjson walk of the members says.
			if ref := refReportMember(data); got.Report != want.Report || want.Report != ref {
				t.Fatalf("report: memo %v, ScanChunk %v, gjson %v in %q", got.Report, want.Report, ref, data)
			}
		}
	})
}

// refReportMember is the reference for Chunk.Report: whether gjson,
// walking the top-level members, finds a "citations" or "guard" key.
func refReportMember(data string) bool {
	found := false
	gjson.Parse(data).ForEach(func(k, _ gjson.Result) bool {
		found = found || k.Str == "citations" || k.Str == "guard"
		return true
	})
	return found
}
