package jsonscan

import (
	"encoding/json"
	goruntime "runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/answer-guard/guard/internal/cputime"
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

// AppendQuotedString writes what json.Marshal writes, byte for byte, for
// every byte value at every offset of a word and past it (skipPlain's
// word-wise test), and for seeded mixed texts.
func TestAppendQuotedAsMarshal(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, _ := json.Marshal(s)
		if got := AppendQuotedString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendQuotedString(%q) = %s, want %s", s, got, want)
		}
	}
	for c := range 256 {
		for at := range 17 {
			b := []byte(strings.Repeat("abcdefgh", 3))
			b[at] = byte(c)
			check(string(b))
			b[at+1] = byte(c ^ 0x04) // its partner in a paired test
			check(string(b))
			b[at+1] = byte(c ^ 0x02)
			check(string(b))
		}
	}
	r := uint64(28)
	alphabet := "aZ09 \"&<>\\\n\t\x01\x7f\u2028é\xff'/="
	for range 5000 {
		var b strings.Builder
		for range 1 + r%40 {
			r = r*6364136223846793005 + 1442695040888963407
			b.WriteByte(alphabet[r>>58%uint64(len(alphabet))])
		}
		check(b.String())
	}
}

// BenchmarkQuotePrompt quotes a grounded system prompt of eight 700-byte
// notes (the upstream body's biggest string) and reports the thread's CPU
// per op (cpu-ns/op), steadier than ns/op on a shared machine.
func BenchmarkQuotePrompt(b *testing.B) {
	prompt := "Answer the user's question using only the numbered notes below.\n" +
		strings.Repeat("[^1] (kind: reference; address: LF-4002) Error LF-4002 means the account is locked after five failed sign-ins; "+
			strings.Repeat("an administrator can unlock it from the console, or it unlocks by itself after 30 minutes. ", 6)+"\n", 8)
	dst := make([]byte, 0, 2*len(prompt))
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.SetBytes(int64(len(prompt)))
	c0 := cputime.Thread()
	for b.Loop() {
		dst = AppendQuotedString(dst[:0], prompt)
	}
	b.ReportMetric(float64(cputime.Thread()-c0)/float64(b.N), "cpu-ns/op")
}
