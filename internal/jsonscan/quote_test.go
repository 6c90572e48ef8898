package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendQuoted: the proxy's content codec round-trips with
// encoding/json (a JSON string body unescaped by jsonscan reads back as
// written).
func FuzzAppendQuoted(f *testing.F) {
	f.Add("caf\u00e9 <b>\x00\xff")
	f.Add("\u2028 \xed\xa0\x80")
	f.Fuzz(func(t *testing.T, text string) {
		enc := AppendQuoted(nil, []byte(text))
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("AppendQuoted(%q) = %s: %v", text, enc, err)
		}
		want := strings.ToValidUTF8(text, "\ufffd")
		if utf8.ValidString(text) && back != text || !utf8.ValidString(text) && back != want && back != string([]rune(text)) {
			t.Fatalf("round trip of %q: %q", text, back)
		}
		if utf8.ValidString(text) {
			std, _ := json.Marshal(text)
			if got := AppendUnescaped(nil, string(std[1:len(std)-1])); string(got) != text {
				t.Fatalf("AppendUnescaped(%s) = %q, want %q", std, got, text)
			}
		}
	})
}
