package proxy

import (
	"fmt"
	"testing"

	"github.com/answer-guard/guard/gate"
)

func TestNoteAddress(t *testing.T) {
	is := noteAddress([]gate.Note{{Address: "HB 1.2"}, {}, {Address: "Gen 3:16"}})
	for tok, want := range map[string]bool{"HB 1.2": true, "HB": true, "1.2": true, "Gen": true, "3:16": true, "Gen 3:16": true, "3": false, "": false} {
		if got := is(tok); got != want {
			t.Errorf("noteAddress(%q) = %v, want %v", tok, got, want)
		}
	}
	if noteAddress(nil)("HB") {
		t.Error("no notes, yet an address")
	}
}

func BenchmarkNoteAddress(b *testing.B) {
	notes := make([]gate.Note, 8)
	for i := range notes {
		notes[i].Address = fmt.Sprintf("HB %d.%d", i+1, i+2)
	}
	b.ReportAllocs()
	for b.Loop() {
		noteAddress(notes)
	}
}
