package textcache

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

type val struct{ src, up string }

func (v *val) Source() string { return v.src }
func (v *val) Size() int      { return len(v.src) + len(v.up) }

func TestGetMakesOnceAndChecksTheText(t *testing.T) {
	c := New[*val](1 << 20)
	made := 0
	mk := func(s string) *val { made++; return &val{src: s, up: strings.ToUpper(s)} }
	a := c.Get("alpha", mk)
	if b := c.Get("alpha", mk); b != a || made != 1 {
		t.Errorf("second Get of the same text: made %d times, same value %v", made, b == a)
	}
	if b := c.Get("beta", mk); b.up != "BETA" || made != 2 {
		t.Errorf("another text: %+v, made %d", b, made)
	}
	// A text equal in bytes but built apart hits too.
	if b := c.Get(strings.Clone("alpha"), mk); b != a || made != 2 {
		t.Errorf("equal text built apart: made %d", made)
	}
}

// A shard over its share of the budget starts empty again: the cache stays
// bounded, and every Get still returns its own text's value.
func TestBounded(t *testing.T) {
	c := New[*val](16 * 100) // 100 bytes per shard
	mk := func(s string) *val { return &val{src: s, up: strings.ToUpper(s)} }
	for i := range 2000 {
		s := fmt.Sprintf("text number %d", i)
		if v := c.Get(s, mk); v.src != s || v.up != strings.ToUpper(s) {
			t.Fatalf("Get(%q) = %+v", s, v)
		}
	}
	for i := range c.shards {
		if b := c.shards[i].bytes; b > c.budget {
			t.Errorf("shard %d holds %d bytes, over its %d", i, b, c.budget)
		}
	}
}

func TestConcurrent(t *testing.T) {
	c := New[*val](4 << 10)
	mk := func(s string) *val { return &val{src: s, up: strings.ToUpper(s)} }
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				s := fmt.Sprintf("note %d", (i*7+g)%97)
				if v := c.Get(s, mk); v.src != s {
					t.Errorf("Get(%q) = %q", s, v.src)
					return
				}
			}
		})
	}
	wg.Wait()
}
