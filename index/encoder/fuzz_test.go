package encoder

import (
	"testing"

	"github.com/answer-guard/guard/index/encoder/modelfile"
)

// FuzzEmbed: any text tokenises to ids inside the vocabulary and embeds to
// a finite unit vector (or, for text with no pieces, the model's vector of
// nothing), never a panic.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", " ", "a", "How much is it?", "日本語 🚲", "\xff\xfe", "a  b\t\nc", "ﬁ２"} {
		f.Add(s)
	}
	e, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	vocab := len(e.m.tok.units)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		for _, id := range e.Tokens(s) {
			if id < 0 || int(id) >= vocab {
				t.Fatalf("Tokens(%q): id %d outside the vocabulary", s, id)
			}
		}
		v := e.Embed(s)
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n < 0.999 || n > 1.001 {
			t.Fatalf("Embed(%q): squared norm %v", s, n)
		}
	})
}

// FuzzDecode: a damaged model file is an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(modelBytes[:64])
	f.Add([]byte("AGUSE\x00\x00\x01\x80\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if w, err := modelfile.Decode(b); err == nil && w.Validate() != nil {
			t.Fatal("Decode accepted weights that do not validate")
		}
	})
}
