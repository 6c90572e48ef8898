package index

import (
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index/internal/disk"
	"github.com/answer-guard/guard/internal/evaldata"
)

// BenchmarkMemoryBreakdown100k loads a 100,000-chunk snapshot (KJV verses
// repeated) and attributes the heap it holds to its parts by releasing them
// one at a time, with a GC before each reading. Run with -benchtime 1x; it
// needs ../shared/data (or GUARD_DATA).
func BenchmarkMemoryBreakdown100k(b *testing.B) {
	docs, _, err := ReadDocs([]string{evaldata.KJV(b)}, true)
	if err != nil {
		b.Fatal(err)
	}
	var all []Doc
	for c := 0; len(all) < 100000; c++ {
		for _, d := range docs {
			if len(all) == 100000 {
				break
			}
			d.Kind = "verse"
			if c > 0 {
				d.ID, d.Meta = d.ID+" (copy "+strconv.Itoa(c)+")", nil
			}
			all = append(all, d)
		}
	}
	dir := filepath.Join(b.TempDir(), "snap")
	if _, err := BuildDocs(context.Background(), DefaultConfig(), all, nil, dir, zap.NewNop()); err != nil {
		b.Fatal(err)
	}
	all, docs = nil, nil
	heap := func() float64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		h0 := heap()
		s, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		p := s.Partition(DefaultTenant, DefaultKB)
		total := heap() - h0
		b.ReportMetric(total, "total-MB")
		prev := heap()
		release := func(name string, drop func()) {
			drop()
			now := heap()
			b.ReportMetric(prev-now, name+"-MB")
			prev = now
		}
		release("chunks", func() { p.chunks, p.deleted = nil, nil })
		release("terms", func() { p.terms = disk.Terms{} })
		release("graph", func() { p.graph = nil })
		release("local-model", func() { p.local = nil })
		release("id-maps", func() { p.address, p.aliases, p.catalog, p.byID = slotIndex{}, nil, nil, slotIndex{} })
		release("memory", func() { p.memory, p.memVecs = nil, nil })
		b.ReportMetric(prev-h0, "rest-MB") // Bleve's in-heap part, vector mapping headers
		runtime.KeepAlive(s)
		s.Close()
	}
}
