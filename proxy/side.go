package proxy

import (
	"slices"

	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/sidetext"
)

// A guard turn filters the side texts of a response (internal/sidetext:
// other choices, reasoning_content, refusal): leaked ids and every marker
// are deleted from them (a gauntlet stream in bail-out mode per field:
// these texts cite nothing).
var _ sidetext.Filter = (*guardTurn)(nil)

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
