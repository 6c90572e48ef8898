package bench

import (
	"context"
	"strings"
	"testing"
)

// The follow-up suite runs end to end over HTTP and prints its table; it
// asserts only what the rule is for: more follow-ups right with it on, and
// no off-topic switch grounded.
func TestFollowupQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a snapshot of three corpora and sends ~150 chats")
	}
	var b strings.Builder
	rows, err := FollowupQuality(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	var off, on int
	for _, r := range rows {
		switch r.Conv.Class {
		case "followup":
			if r.right(r.Off) {
				off++
			}
			if r.right(r.On) {
				on++
			}
		case "offtopic":
			if !r.right(r.On) {
				t.Errorf("%s: off-topic switch %q grounded with the rule on", r.Conv.ID, r.Conv.Turns[1])
			}
		}
	}
	if on <= off {
		t.Errorf("follow-ups right: %d with the rule, %d without", on, off)
	}
}
