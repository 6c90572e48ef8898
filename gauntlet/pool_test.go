package gauntlet

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/answer-guard/guard/gate"
)

// otherOptions is another turn's options: other notes (more than the
// linear-scan limit, so Reset's map is used), another catalog, bail-out.
func otherOptions(r *rand.Rand) Options {
	var notes []gate.Note
	for i := range 20 {
		notes = append(notes, gate.Note{N: i + 1, ID: fmt.Sprintf("doc_z%d", r.IntN(12)), Title: "Z", Address: fmt.Sprintf("Part %d", i)})
	}
	return Options{
		Notes:         notes,
		Bailout:       r.IntN(3) == 0,
		Catalog:       func(id string) bool { return id == "REALID42" || id == "ZED9" },
		CatalogPrefix: prefixOf("REALID42", "ZED9"),
	}
}

// streamRun is everything a turn reads of a stream: what it released per
// delta, the citations, the counts and the audit of the released answer.
type streamRun struct {
	Out    []string
	Cites  []Citation
	Counts Counts
	Audit  AuditReport
}

func feed(st *Stream, text []byte, size int, flush bool) streamRun {
	var r streamRun
	var all []byte
	for _, c := range chunks(text, size) {
		var out []byte
		if flush {
			out = st.WriteFlush(nil, c)
		} else {
			out = st.Write(nil, c)
		}
		r.Out = append(r.Out, string(out))
		all = append(all, out...)
	}
	out := st.Close(nil)
	r.Out = append(r.Out, string(out))
	all = append(all, out...)
	r.Cites = append([]Citation(nil), st.Citations()...)
	r.Counts = st.Counts()
	r.Audit = st.Audit(string(all))
	return r
}

// A stream from the pool (Get after Put) behaves as a new one (New), event
// by event, whatever the stream put back did: another turn's notes and
// catalog, bail-out or not, closed or left in the middle of a marker (a
// client gone). So a turn that gives its stream back once it is done
// passes nothing of its answer to the next turn, of any tenant.
func TestGetAsNew(t *testing.T) {
	s := testSpec(t)
	r := rand.New(rand.NewPCG(28, 6))
	text := answerText(6 << 10)
	for i := range 60 {
		// The previous turn: another tenant's options, fed a part of
		// another text, closed or not.
		prev := s.Get(otherOptions(r))
		other := answerText(200 + r.IntN(2000))
		other = other[r.IntN(len(other)/2):]
		for range 20 { // tokens that start as this turn's ids do
			at := r.IntN(len(other))
			w := []string{" 49ers ", " Johnny ", " 4 ", " J "}[r.IntN(4)]
			other = append(other[:at:at], append([]byte(w), other[at:]...)...)
		}
		for _, c := range chunks(other, 1+r.IntN(40)) {
			prev.WriteFlush(nil, c)
		}
		if r.IntN(2) == 0 {
			prev.Close(nil)
		}
		s.Put(prev)

		o := testOptions()
		o.Bailout = i%5 == 4
		part := text[r.IntN(len(text)/2):]
		part = part[:len(part)/2+r.IntN(len(part)/2)]
		for range 40 { // ids of this turn's catalog, which the other's lacks
			at := r.IntN(len(part))
			id := []string{" 4983 ", " 4983", " John 3:16.", " REALID42,"}[r.IntN(4)]
			part = append(part[:at:at], append([]byte(id), part[at:]...)...)
		}
		size, flush := 1+r.IntN(60), i%2 == 0
		pooled := s.Get(o)
		if pooled != prev {
			// sync.Pool may drop what it was given (a GC between Put and
			// Get): then this round checks nothing new, and says so.
			t.Logf("round %d: the pool gave a new stream", i)
		}
		got := feed(pooled, part, size, flush)
		want := feed(s.New(o), part, size, flush)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (delta %d bytes, flush %v): pooled stream\n%+v\nnew stream\n%+v", i, size, flush, got, want)
		}
		s.Put(pooled)
	}
}

// A stream given back keeps no note, citation or address of its turn.
func TestPutKeepsNothing(t *testing.T) {
	s := testSpec(t)
	st := s.Get(testOptions())
	st.Close(st.Write(nil, []byte("See [^1] and [^4], Lecture 1 [card: Lecture 1].")))
	st.Audit("See [1] and [2].")
	s.Put(st)
	for i, src := range st.srcs[:cap(st.srcs)] {
		if src != (source{}) {
			t.Errorf("srcs[%d] kept %+v", i, src)
		}
	}
	for i, c := range st.cites[:cap(st.cites)] {
		if c != (Citation{}) {
			t.Errorf("cites[%d] kept %+v", i, c)
		}
	}
	for i, a := range st.addrs[:cap(st.addrs)] {
		if a != "" {
			t.Errorf("addrs[%d] kept %q", i, a)
		}
	}
	if len(st.exempt) != 0 || len(st.byID) != 0 || st.opt.Catalog != nil || st.opt.Notes != nil {
		t.Errorf("kept exempt %v, byID %v, options %+v", st.exempt, st.byID, st.opt)
	}
}

// BenchmarkTurnStream is a turn's gauntlet stream made and ended: new per
// turn (as before pooling), or from the pool and given back, with eight
// notes and one short answer written.
func BenchmarkTurnStream(b *testing.B) {
	s := testSpec(b)
	o := testOptions()
	for i := range 3 {
		o.Notes = append(o.Notes, gate.Note{N: 6 + i, ID: fmt.Sprintf("doc_c%d", i), Title: "C", Address: fmt.Sprintf("Part %d", i)})
	}
	answer := []byte("Error LF-4002 means the account is locked [^1].")
	for _, pooled := range []bool{false, true} {
		name := "new"
		if pooled {
			name = "pooled"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var dst []byte
			for b.Loop() {
				var st *Stream
				if pooled {
					st = s.Get(o)
				} else {
					st = s.New(o)
				}
				dst = st.Close(st.WriteFlush(dst[:0], answer))
				if pooled {
					s.Put(st)
				}
			}
		})
	}
}
