package evrelay

import (
	"testing"
	"testing/synctest"
	"time"
)

// A full budget: TryAcquire fails, Acquire waits and asks the pools to
// shed; a Release hands the slot to the first waiter; a waiter whose time
// runs out gets none; a Release with no waiter tells the loops.
func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewBudget(1)
		sheds, freed := 0, 0
		b.OnShed(func() { sheds++ })
		b.onFreed(func() { freed++ })
		if !b.TryAcquire() || b.TryAcquire() {
			t.Fatal("TryAcquire on a budget of 1: want true then false")
		}
		got := make(chan bool)
		go func() { got <- b.Acquire(time.Second) }()
		synctest.Wait()
		if sheds != 1 {
			t.Errorf("sheds = %d, want 1 (a waiter asks the pools)", sheds)
		}
		b.Release() // to the waiter
		if !<-got || b.Open() != 1 || freed != 0 {
			t.Errorf("after a Release to a waiter: open %d, freed %d; want the slot handed over (1, 0)", b.Open(), freed)
		}
		go func() { got <- b.Acquire(time.Second) }()
		if <-got {
			t.Error("Acquire with the slot held for its whole wait: true, want false")
		}
		b.Release()
		if b.Open() != 0 || freed != 1 {
			t.Errorf("after the last Release: open %d, freed %d; want 0, 1", b.Open(), freed)
		}
	})
}

func TestMaxFromFileLimit(t *testing.T) {
	for _, c := range []struct {
		limit uint64
		want  int
	}{
		{0, 64},
		{256, 64},
		{1024, 384},
		{20000, 9872},
		{1 << 20, (1<<20 - 256) / 2},
		{1 << 40, 1 << 20},
	} {
		if got := MaxFromFileLimit(c.limit); got != c.want {
			t.Errorf("MaxFromFileLimit(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
}
