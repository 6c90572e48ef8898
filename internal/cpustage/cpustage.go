// Package cpustage names the pipeline stage a goroutine is working for, as
// the pprof label "stage", so that a CPU profile of the proxy splits its
// CPU time by stage (guard bench load --self --pipeline prints the split).
//
// Entering a stage stores a precomputed label set on the goroutine: no
// allocation, a few nanoseconds, and nothing at all is measured unless a
// CPU profile is running. Goroutines inherit their creator's labels, so a
// stage's helpers are counted with it unless they enter a stage of their
// own.
package cpustage

import (
	"context"
	"runtime/pprof"
)

// Key is the pprof label key.
const Key = "stage"

// Stage is one named stage of a guarded turn.
type Stage struct{ ctx context.Context }

func stage(name string) Stage {
	return Stage{pprof.WithLabels(context.Background(), pprof.Labels(Key, name))}
}

// The stages of a guarded turn. Retrieval is split by lane; Relay is the
// rest of the request (HTTP, upstream call, the marker gauntlet, the
// report).
var (
	Embed    = stage("embed")    // the question's sentence vector
	Dense    = stage("dense")    // the dense (HNSW) lane
	Lexical  = stage("lexical")  // the lexical (Bleve) and address lanes
	Retrieve = stage("retrieve") // memory lane, pool merge, lexical features, calibration
	Rerank   = stage("rerank")   // rerank, ordering and cut
	Semantic = stage("semantic") // the gate's semantic features (encoder cosine, soft coverage)
	Gate     = stage("gate")     // answerability, relevance, the decision, the prompt
	Planner  = stage("planner")  // the synthesis planner's outline
	Verify   = stage("verify")   // sentence checks and the judge's report
	Relay    = stage("relay")    // everything else of a proxied request
	Upstream = stage("upstream") // bench only: the in-process simulated upstream
	LoadGen  = stage("loadgen")  // bench only: the in-process load generator
)

// Enter labels the calling goroutine with s until another stage is
// entered.
func (s Stage) Enter() { pprof.SetGoroutineLabels(s.ctx) }
