package encoder

import (
	"testing"

	"github.com/answer-guard/guard/index/encoder/modelfile"
)

// TestTokenizerTableAsMap holds the compact vocabulary table to a map of
// piece strings (a later duplicate winning, control pieces unmatched) for
// every piece of the embedded model, plus strings that are no piece.
func TestTokenizerTableAsMap(t *testing.T) {
	w, err := modelfile.Decode(modelBytes)
	if err != nil {
		t.Fatal(err)
	}
	tok := newTokenizer(w.Pieces, w.Scores)
	want := map[string]int32{}
	for i, p := range w.Pieces {
		if i >= reservedPieces {
			want[p] = int32(i)
		}
	}
	probes := append([]string{"", "\u2581zzqxj", "not a piece at all", "\xff"}, w.Pieces...)
	for _, p := range probes {
		id, score, ok := tok.lookup(p)
		wid, wok := want[p]
		if ok != wok || id != wid {
			t.Fatalf("lookup(%q) = %d, %v; want %d, %v", p, id, ok, wid, wok)
		}
		if ok && score != w.Scores[wid] {
			t.Fatalf("lookup(%q) score %v, want %v", p, score, w.Scores[wid])
		}
	}
	for i, p := range w.Pieces {
		if got := string(tok.text[tok.off[i]:tok.off[i+1]]); got != p {
			t.Fatalf("piece %d reads %q, want %q", i, got, p)
		}
	}
}
