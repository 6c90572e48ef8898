package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/answer-guard/guard/internal/cpustage"
)

// StageSplit is the CPU time per completed request of each stage of the
// in-process proxy, the simulated upstream and the load generator: the
// process's CPU time per request (getrusage) shared out as a CPU profile
// of the measured run (100 samples a second per busy thread), grouped by
// the goroutine's cpustage label, shares it out. The profiler misses
// some ticks on a loaded machine, so its shares are used, not its sum.
type StageSplit struct {
	Stages []StageCPU `json:"stages"` // pipeline order, then upstream, loadgen, other
	// Proxy is the sum of the proxy's stages (retrieval lanes, gate,
	// planner, verify, relay) per request.
	Proxy time.Duration `json:"proxy_per_request_ns"`
	// Harness is the bench's own part per request: the simulated upstream
	// and the load generator (upstream + loadgen). "other" (the garbage
	// collector, the runtime) is in neither sum.
	Harness time.Duration `json:"harness_per_request_ns"`
	Samples int           `json:"samples"`
	// Note says why there is no split (a CPU profile was already running).
	Note string `json:"note,omitempty"`
	// profile is the CPU profile the split comes from (pprof format, its
	// samples labelled by stage); WriteReport saves it.
	profile []byte
}

// StageCPU is one stage's CPU time per completed request and its share of
// the profiled CPU time.
type StageCPU struct {
	Stage      string        `json:"stage"`
	PerRequest time.Duration `json:"per_request_ns"`
	Share      float64       `json:"share"`
}

// stageOrder is the report's order; "other" is CPU time of goroutines
// without a stage (the garbage collector's workers, the runtime).
var stageOrder = []string{"embed", "dense", "lexical", "retrieve", "rerank", "semantic", "gate", "planner", "verify", "relay",
	"upstream", "loadgen", "other"}

// benchParts are the stages that are not the proxy's.
var benchParts = map[string]bool{"upstream": true, "loadgen": true, "other": true}

// startStageProfile starts a CPU profile of this process; the returned
// function stops it and splits perReq, the process's CPU time per
// completed request over the same window, by stage. When a profile is
// already running (guard bench load --cpuprofile) the split is empty with
// a note.
func startStageProfile() func(perReq time.Duration) *StageSplit {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return func(time.Duration) *StageSplit {
			return &StageSplit{Note: "no stage split: " + err.Error()}
		}
	}
	return func(perReq time.Duration) *StageSplit {
		pprof.StopCPUProfile()
		raw := buf.Bytes() // reading buf below moves past them, leaves them
		byStage, samples, err := profileByLabel(&buf, cpustage.Key)
		if err != nil {
			return &StageSplit{Note: "no stage split: " + err.Error()}
		}
		s := splitStages(byStage, samples, perReq)
		s.profile = raw
		return s
	}
}

// splitStages shares perReq out by the profile's CPU nanoseconds by stage
// label ("" = none).
func splitStages(byStage map[string]int64, samples int, perReq time.Duration) *StageSplit {
	s := &StageSplit{Samples: samples}
	var total int64
	for _, v := range byStage {
		total += v
	}
	byStage["other"] += byStage[""]
	delete(byStage, "")
	names := slices.Clone(stageOrder)
	for k := range byStage {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for _, name := range names {
		v, ok := byStage[name]
		if !ok {
			continue
		}
		st := StageCPU{Stage: name}
		if total > 0 {
			st.Share = float64(v) / float64(total)
			st.PerRequest = time.Duration(st.Share * float64(perReq))
		}
		switch {
		case !benchParts[name]:
			s.Proxy += st.PerRequest
		case name != "other":
			s.Harness += st.PerRequest
		}
		s.Stages = append(s.Stages, st)
	}
	return s
}

// writeStages renders the split of each run that has one.
func writeStages(w io.Writer, runs []RunResult) {
	for _, r := range runs {
		s := r.Stages
		if s == nil {
			continue
		}
		fmt.Fprintf(w, "\n## CPU per request by stage (%s)\n\n", r.Name)
		if s.Note != "" {
			fmt.Fprintf(w, "%s\n", s.Note)
			continue
		}
		fmt.Fprintf(w, "The process's CPU per request (%s) shared out by a CPU profile of the run (%d samples at 100/s per busy thread; a stage under 20 samples is noise).\n\n",
			fmtStageDur(r.CPUPerRequest), s.Samples)
		fmt.Fprintf(w, "| stage | CPU/req | share |\n|---|---|---|\n")
		for _, st := range s.Stages {
			fmt.Fprintf(w, "| %s | %s | %.1f%% |\n", st.Stage, fmtStageDur(st.PerRequest), 100*st.Share)
		}
		fmt.Fprintf(w, "| **proxy (all but upstream, loadgen, other)** | **%s** | |\n", fmtStageDur(s.Proxy))
		fmt.Fprintf(w, "| **bench harness (upstream, loadgen)** | **%s** | |\n", fmtStageDur(s.Harness))
	}
}

func fmtStageDur(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}

// labelled runs f with the goroutine labelled as stage (goroutines f
// starts inherit it) and restores the caller's labels after.
func labelled(stage string, f func()) {
	pprof.Do(context.Background(), pprof.Labels(cpustage.Key, stage), func(context.Context) { f() })
}

// profileByLabel sums a CPU profile's (gzipped profile.proto, as
// runtime/pprof writes it) CPU nanoseconds by the value of one string
// label ("" for samples without it). It reads only the fields it needs.
func profileByLabel(r io.Reader, key string) (map[string]int64, int, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("read profile: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, 0, fmt.Errorf("read profile: %w", err)
	}
	type sampleRec struct {
		values []int64
		labels [][2]int64 // key, str (string table indexes)
	}
	var (
		strs    []string
		types   []int64 // sample_type[i].type
		samples []sampleRec
	)
	err = pbFields(b, func(field int, v uint64, sub []byte) error {
		switch field {
		case 1: // sample_type
			return pbFields(sub, func(f int, v uint64, _ []byte) error {
				if f == 1 {
					types = append(types, int64(v))
				}
				return nil
			})
		case 2: // sample
			var s sampleRec
			err := pbFields(sub, func(f int, v uint64, sub []byte) error {
				switch f {
				case 2: // value: packed (sub) or one varint
					if sub == nil {
						s.values = append(s.values, int64(v))
						return nil
					}
					for len(sub) > 0 {
						x, n := binary.Uvarint(sub)
						if n <= 0 {
							return errors.New("bad packed value")
						}
						s.values = append(s.values, int64(x))
						sub = sub[n:]
					}
				case 3: // label
					var l [2]int64
					err := pbFields(sub, func(f int, v uint64, _ []byte) error {
						if f == 1 || f == 2 {
							l[f-1] = int64(v)
						}
						return nil
					})
					s.labels = append(s.labels, l)
					return err
				}
				return nil
			})
			samples = append(samples, s)
			return err
		case 6: // string_table
			strs = append(strs, string(sub))
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read profile: %w", err)
	}
	str := func(i int64) string {
		if i < 0 || int(i) >= len(strs) {
			return ""
		}
		return strs[i]
	}
	vi := len(types) - 1 // runtime/pprof: samples/count, cpu/nanoseconds
	for i, t := range types {
		if str(t) == "cpu" {
			vi = i
		}
	}
	if vi < 0 {
		return nil, 0, errors.New("read profile: no sample types")
	}
	out := map[string]int64{}
	for _, s := range samples {
		if vi >= len(s.values) {
			continue
		}
		name := ""
		for _, l := range s.labels {
			if str(l[0]) == key {
				name = str(l[1])
			}
		}
		out[name] += s.values[vi]
	}
	return out, len(samples), nil
}

// pbFields calls f for each field of a protobuf message: v for varint,
// fixed64 and fixed32 fields, sub for length-delimited ones.
func pbFields(b []byte, f func(field int, v uint64, sub []byte) error) error {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("bad tag")
		}
		b = b[n:]
		field := int(tag >> 3)
		var v uint64
		var sub []byte
		switch tag & 7 {
		case 0:
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return errors.New("bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return errors.New("short fixed64")
			}
			v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return errors.New("bad length")
			}
			sub, b = b[n:n+int(l)], b[n+int(l):]
			if sub == nil {
				sub = []byte{}
			}
		case 5:
			if len(b) < 4 {
				return errors.New("short fixed32")
			}
			v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return fmt.Errorf("wire type %d", tag&7)
		}
		if err := f(field, v, sub); err != nil {
			return err
		}
	}
	return nil
}
