package encoder

import "sync"

// batcher runs the texts that callers of Embed hand in at the same time
// through one forward pass, so the weights stream through the cache once
// for all of them. A caller that finds fewer than max passes running runs
// at once (alone it waits for nobody); otherwise it queues, and when a
// pass ends the first queued caller leads a pass over everything queued
// by then (up to maxBatchTokens), so each pass gathers the texts that
// arrived during the previous one.
type batcher struct {
	m   *model
	max int // passes run at once (GOMAXPROCS at New)
	// free keeps up to max scratches between passes: a sync.Pool would
	// drop them at every collection and the next pass would allocate
	// megabytes again (resident memory the heap only gives back later).
	free chan *scratch

	mu      sync.Mutex
	running int
	queue   []*job
}

// maxBatchTokens bounds the tokens of one pass: its scratch is about 14
// KB per token, live while the pass runs (0.9 MB at the bound, one per
// pass running; under the proxy's server.gc.percent 400 every live
// megabyte is five of heap). Four questions of 16 pieces fill it; larger
// passes measured no less CPU per question.
const maxBatchTokens = 64

type job struct {
	ids []int32
	dst []float32
	// wake is closed when dst is written, or sent a batch to lead.
	wake  chan []*job
	batch []*job
}

// embed writes the vector of ids into dst.
func (b *batcher) embed(ids []int32, dst []float32) {
	if len(ids) > b.m.maxLen {
		ids = ids[:b.m.maxLen]
	}
	j := &job{ids: ids, dst: dst}
	b.mu.Lock()
	if b.running < b.max {
		b.running++
		b.mu.Unlock()
		b.lead([]*job{j})
		return
	}
	j.wake = make(chan []*job, 1)
	b.queue = append(b.queue, j)
	b.mu.Unlock()
	if batch := <-j.wake; batch != nil {
		b.lead(batch)
	}
}

// lead runs one pass over batch (its first job is the caller's), releases
// its callers, and hands the running slot on: to the first queued caller
// with what is queued, or back.
func (b *batcher) lead(batch []*job) {
	var s *scratch
	select {
	case s = <-b.free:
	default:
		s = new(scratch)
	}
	seqs := make([][]int32, len(batch))
	dsts := make([][]float32, len(batch))
	for i, j := range batch {
		seqs[i], dsts[i] = j.ids, j.dst
	}
	b.m.forward(seqs, s, dsts)
	select {
	case b.free <- s:
	default:
	}
	for _, j := range batch[1:] {
		close(j.wake)
	}
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.running--
		b.mu.Unlock()
		return
	}
	n, tokens := 0, 0
	for n < len(b.queue) && (n == 0 || tokens+len(b.queue[n].ids) <= maxBatchTokens) {
		tokens += len(b.queue[n].ids)
		n++
	}
	next := b.queue[:n:n]
	b.queue = append([]*job(nil), b.queue[n:]...)
	b.mu.Unlock()
	next[0].wake <- next
}
