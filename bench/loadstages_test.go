package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// pb builds protobuf messages for the parser's tests.
type pb []byte

func (b pb) varint(field int, v uint64) pb {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

func (b pb) bytes(field int, m []byte) pb {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

func (b pb) packed(field int, vs ...uint64) pb {
	var m []byte
	for _, v := range vs {
		m = binary.AppendUvarint(m, v)
	}
	return b.bytes(field, m)
}

func TestProfileByLabel(t *testing.T) {
	strs := []string{"", "samples", "count", "cpu", "nanoseconds", "stage", "embed", "gate", "other-key"}
	var p pb
	p = p.bytes(1, pb{}.varint(1, 1).varint(2, 2))
	p = p.bytes(1, pb{}.varint(1, 3).varint(2, 4))
	label := func(k, v uint64) []byte { return pb{}.varint(1, k).varint(2, v) }
	p = p.bytes(2, pb{}.packed(1, 1, 2).packed(2, 3, 30e6).bytes(3, label(5, 6)))
	p = p.bytes(2, pb{}.packed(2, 1, 10e6).bytes(3, label(8, 7)).bytes(3, label(5, 7)))
	p = p.bytes(2, pb{}.packed(2, 2, 20e6))                                // no label
	p = p.bytes(2, pb{}.varint(2, 1).varint(2, 5e6).bytes(3, label(5, 6))) // unpacked values
	for _, s := range strs {
		p = p.bytes(6, []byte(s))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(p)
	zw.Close()
	got, n, err := profileByLabel(&gz, "stage")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"embed": 35e6, "gate": 10e6, "": 20e6}
	if n != 4 || len(got) != len(want) {
		t.Fatalf("got %v over %d samples, want %v over 4", got, n, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stage %q: got %d ns, want %d", k, got[k], v)
		}
	}
}

func TestProfileByLabelReadsRuntimeProfiles(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip("a CPU profile is already running:", err)
	}
	pprof.StopCPUProfile()
	if _, _, err := profileByLabel(&buf, "stage"); err != nil {
		t.Fatalf("runtime/pprof's own profile: %v", err)
	}
}

func TestSplitStagesSharesTheProcessCPU(t *testing.T) {
	s := splitStages(map[string]int64{"embed": 60, "relay": 20, "loadgen": 10, "": 10}, 100, 10*time.Millisecond)
	var got []string
	for _, st := range s.Stages {
		got = append(got, st.Stage+"="+st.PerRequest.String())
	}
	if want := "embed=6ms relay=2ms loadgen=1ms other=1ms"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
	if s.Proxy != 8*time.Millisecond || s.Harness != time.Millisecond {
		t.Errorf("proxy %s, harness %s; want 8ms (embed + relay) and 1ms (loadgen; other in neither)", s.Proxy, s.Harness)
	}
	var md bytes.Buffer
	writeStages(&md, []RunResult{{Name: "proxy", CPUPerRequest: 10 * time.Millisecond, Stages: s}})
	for _, want := range []string{"| embed | 6.000 ms | 60.0% |", "| **bench harness (upstream, loadgen)** | **1.000 ms** | |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
