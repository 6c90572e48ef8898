//go:build unix

package proxy

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"testing"
)

// procCPU is the process's CPU time so far (user + system), in seconds.
func procCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkRelayTurn is the relay's CPU for one grounded answer (41
// events) through a real lexical-only guard turn (the turn's planning is
// outside the timer), the answer arriving in one read (a burst, as from
// an unpaced upstream) or one event per read (paced).
func BenchmarkRelayTurn(b *testing.B) {
	pipe := lexicalPipeline(b)
	body := burstAnswer()
	s := &Server{m: newMetrics(), log: nopLogger()}
	for _, split := range []string{"whole", "per-event"} {
		cuts := burstSplits(body)[split]
		b.Run(split, func(b *testing.B) {
			b.ReportAllocs()
			// Turns are planned outside the timer, 64 at a time (stopping
			// the timer reads the memory statistics, stopping the world).
			var turns []Turn
			cpu, c0 := 0.0, procCPU()
			for b.Loop() {
				if len(turns) == 0 {
					b.StopTimer()
					cpu += procCPU() - c0
					for range 64 {
						turn, err := pipe.Begin(context.Background(), TurnRequest{Tenant: "default", KB: "default", Model: "mock-1", Stream: true, Query: "What does error LF-4002 mean?"})
						if err != nil {
							b.Fatal(err)
						}
						turns = append(turns, turn)
					}
					c0 = procCPU()
					b.StartTimer()
				}
				relayReads(b, s, io.Discard, body, cuts, false, turns[0])
				turns = turns[1:]
			}
			cpu += procCPU() - c0
			b.ReportMetric(cpu*1e6/float64(b.N), "cpu-us/op")
		})
	}
}

// BenchmarkRelayWords is the relay's cost per event (ns/op, cpu-ns/op)
// through a real lexical-only guard turn, for content deltas of a word or
// two that end no sentence (so no claim is checked): the events of a
// demo answer between its sentence ends, 50 per upstream read or one.
func BenchmarkRelayWords(b *testing.B) {
	pipe := lexicalPipeline(b)
	words := []string{`" The"`, `" account"`, `" is"`, `" locked"`, `" after"`, `" five"`, `" failed"`, `" sign"`, `"-in"`, `" attempts"`,
		`" and"`, `" an"`, `" administrator"`, `" can"`, `" unlock"`, `" it"`, `" from"`, `" the"`, `" console"`, `" [^1]"`}
	for _, burst := range []int{50, 1} {
		b.Run(fmt.Sprintf("burst%d", burst), func(b *testing.B) {
			turn, err := pipe.Begin(context.Background(), TurnRequest{Tenant: "default", KB: "default", Model: "mock-1", Stream: true, Query: "What does error LF-4002 mean?"})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(turn.Abandon)
			step := relayLoopOf(b, turn, burst, io.Discard, words)
			for range 1000 { // grow the buffers
				step()
			}
			b.ReportAllocs()
			c0 := procCPU()
			for b.Loop() {
				step()
			}
			b.ReportMetric((procCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
		})
	}
}
