package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Shared operator state. With state.redis_url set, every replica copies its
// logged turns and its gap observations to Redis, so the turn list, the
// what-if and the gap queue of any replica show the whole fleet: a turn is
// pushed onto a list per tenant and KB (trimmed to turnlog.size, expiring
// state.redis_ttl after its last write), a gap observation onto another
// (trimmed to gaps.max_per_kb x 4); two sets name the lists. Reads rebuild
// a turn log and a gap queue from those lists with the same code that keeps
// the in-process ones (restore, gapQueue.add), so what an operator sees
// does not depend on which replica answered.
//
// The copy runs off the request path: the turn log is scanned and gap
// observations are queued (bounded) for one writer goroutine, which sends
// them in one pipeline every state.redis_flush. When Redis is down the proxy
// keeps answering: what could not be written is dropped and counted
// (guard_state_dropped_total{kind}), /readyz says "degraded", and reads
// fall back to this replica's own turns and gaps, saying so.

// redisKeyPrefix starts every key the proxy writes.
const redisKeyPrefix = "guard:"

// sharedState is the Redis copy of the turn log and the gap queue.
type sharedState struct {
	rdb       *redis.Client
	log       *zap.Logger
	ttl       time.Duration
	every     time.Duration
	turnCap   int
	gapCap    int
	turns     *turnLog
	obs       chan gapObservation
	healthy   atomic.Bool
	dropTurns func(n int)
	dropGaps  func(n int)

	mu   sync.Mutex // serialises flushes (the writer and Flush)
	quit chan struct{}
	done chan struct{}
}

// gapObservation is one gap-queue observation as stored in Redis: a
// sighting, or (Action set) a status change of the entry ID.
type gapObservation struct {
	Tenant   string    `json:"tenant"`
	KB       string    `json:"kb"`
	Kind     string    `json:"kind"`
	Text     string    `json:"text"`
	Question string    `json:"question,omitempty"`
	Coverage float64   `json:"coverage,omitempty"`
	At       time.Time `json:"at"`
	// Action is the status an operator or a re-ask gave the entry ID
	// (resolved, dismissed, open), with Resolution saying why.
	Action     string `json:"action,omitempty"`
	ID         string `json:"id,omitempty"`
	Resolution string `json:"resolution,omitempty"`
}

func turnsKey(tenant, kb string) string {
	return redisKeyPrefix + "turns:" + url.PathEscape(tenant) + ":" + url.PathEscape(kb)
}

func gapsKey(tenant, kb string) string {
	return redisKeyPrefix + "gaps:" + url.PathEscape(tenant) + ":" + url.PathEscape(kb)
}

const (
	turnPartsKey = redisKeyPrefix + "turn-partitions"
	gapPartsKey  = redisKeyPrefix + "gap-partitions"
)

func partMember(tenant, kb string) string { return tenant + "\t" + kb }

func splitPartMember(m string) (tenant, kb string, ok bool) { return strings.Cut(m, "\t") }

// startSharedState connects to cfg.State.RedisURL and starts the writer. A
// Redis that is down at start is not an error: the proxy serves, and the
// state is dropped and counted until Redis answers.
func startSharedState(cfg Config, turns *turnLog, m *metrics, log *zap.Logger) (*sharedState, error) {
	quietRedisOnce.Do(func() { redis.SetLogger(quietRedis{}) })
	opt, err := redis.ParseURL(cfg.State.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("state.redis_url: %w", err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, time.Second, time.Second
	opt.MaxRetries = 0 // the next flush is the retry
	st := &sharedState{
		rdb: redis.NewClient(opt), log: log, ttl: cfg.State.RedisTTL, every: cfg.State.RedisFlush,
		turnCap: max(cfg.TurnLog.Size, 1), gapCap: cfg.Gaps.MaxPerKB * 4, turns: turns,
		obs:       make(chan gapObservation, 4096),
		dropTurns: func(n int) { m.stateDropped.WithLabelValues("turns").Add(float64(n)) },
		dropGaps:  func(n int) { m.stateDropped.WithLabelValues("gaps").Add(float64(n)) },
		quit:      make(chan struct{}), done: make(chan struct{}),
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := st.rdb.Ping(ctx).Err(); err != nil {
		log.Warn("shared state: redis unreachable at start; serving, and dropping state until it answers", zap.Error(err))
	} else {
		st.healthy.Store(true)
	}
	go st.run()
	return st, nil
}

func (st *sharedState) run() {
	defer close(st.done)
	t := time.NewTicker(st.every)
	defer t.Stop()
	for {
		select {
		case <-st.quit:
			st.Flush()
			return
		case <-t.C:
			st.Flush()
		}
	}
}

// Close writes what is pending and disconnects.
func (st *sharedState) Close() {
	if st == nil {
		return
	}
	close(st.quit)
	<-st.done
	st.rdb.Close()
}

// Healthy reports whether the last write (or the start ping) reached Redis.
func (st *sharedState) Healthy() bool { return st == nil || st.healthy.Load() }

// observeGap queues one gap observation; a full queue drops and counts it.
func (st *sharedState) observeGap(o gapObservation) {
	select {
	case st.obs <- o:
	default:
		st.dropGaps(1)
	}
}

// Flush writes the turns logged since the last flush and the queued gap
// observations in one pipeline. On failure they are dropped and counted.
func (st *sharedState) Flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	type line struct {
		tenant, kb string
		b          []byte
	}
	var turns []line
	if st.turns != nil {
		for _, e := range st.turns.takeNew(func(r *turnRing) *uint64 { return &r.shared }) {
			b, err := json.Marshal(st.turns.detail(&e))
			if err != nil {
				continue
			}
			turns = append(turns, line{e.tenant, e.kb, b})
		}
	}
	var gaps []line
	for len(st.obs) > 0 {
		o := <-st.obs
		b, _ := json.Marshal(o)
		gaps = append(gaps, line{o.Tenant, o.KB, b})
	}
	if len(turns) == 0 && len(gaps) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := st.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		push := func(set, key, member string, lines []line, capN int) {
			for _, l := range lines {
				p.RPush(ctx, key, l.b)
			}
			p.LTrim(ctx, key, int64(-capN), -1)
			p.Expire(ctx, key, st.ttl)
			p.SAdd(ctx, set, member)
			p.Expire(ctx, set, st.ttl)
		}
		for _, g := range groupLines(turns, func(l line) [2]string { return [2]string{l.tenant, l.kb} }) {
			push(turnPartsKey, turnsKey(g.k[0], g.k[1]), partMember(g.k[0], g.k[1]), g.v, st.turnCap)
		}
		for _, g := range groupLines(gaps, func(l line) [2]string { return [2]string{l.tenant, l.kb} }) {
			push(gapPartsKey, gapsKey(g.k[0], g.k[1]), partMember(g.k[0], g.k[1]), g.v, st.gapCap)
		}
		return nil
	})
	if err != nil {
		if st.healthy.Swap(false) {
			st.log.Warn("shared state: redis write failed; dropping state until it answers", zap.Error(err))
		}
		st.dropTurns(len(turns))
		st.dropGaps(len(gaps))
		return
	}
	if !st.healthy.Swap(true) {
		st.log.Info("shared state: redis answers again")
	}
}

type group[T any] struct {
	k [2]string
	v []T
}

// groupLines groups ls by key, keeping their order within a key.
func groupLines[T any](ls []T, key func(T) [2]string) []group[T] {
	idx := map[[2]string]int{}
	var out []group[T]
	for _, l := range ls {
		k := key(l)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, group[T]{k: k})
		}
		out[i].v = append(out[i].v, l)
	}
	return out
}

// partitions lists the (tenant, kb) pairs of set that scope allows (tenant
// "" = any; kbs nil = any).
func (st *sharedState) partitions(ctx context.Context, set, tenant string, kbs []string) ([][2]string, error) {
	members, err := st.rdb.SMembers(ctx, set).Result()
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, m := range members {
		t, kb, ok := splitPartMember(m)
		if !ok || (tenant != "" && t != tenant) || (kbs != nil && !slices.Contains(kbs, kb)) {
			continue
		}
		out = append(out, [2]string{t, kb})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0]+"\t"+out[i][1] < out[j][0]+"\t"+out[j][1] })
	return out, nil
}

// readLists decodes every JSON line of the lists named in set that the
// caller may read (tenant "" = any; kbs nil = any), keeping those valid
// accepts; it also returns how many partitions it read.
func readLists[T any](ctx context.Context, st *sharedState, set string, key func(tenant, kb string) string, tenant string, kbs []string, valid func(T) bool) ([]T, int, error) {
	parts, err := st.partitions(ctx, set, tenant, kbs)
	if err != nil {
		return nil, 0, err
	}
	var out []T
	for _, p := range parts {
		lines, err := st.rdb.LRange(ctx, key(p[0], p[1]), 0, -1).Result()
		if err != nil {
			return nil, 0, err
		}
		for _, l := range lines {
			var v T
			if json.Unmarshal([]byte(l), &v) == nil && valid(v) {
				out = append(out, v)
			}
		}
	}
	return out, len(parts), nil
}

// loadTurns rebuilds a turn log from the fleet's turns in Redis, for the
// partitions the caller may read.
func (st *sharedState) loadTurns(ctx context.Context, cfg TurnLogConfig, tenant string, kbs []string) (*turnLog, error) {
	all, parts, err := readLists(ctx, st, turnPartsKey, turnsKey, tenant, kbs, func(s storedTurn) bool { return s.Tenant != "" })
	if err != nil {
		return nil, err
	}
	// One timeline across replicas: oldest first, so ids follow time.
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time < all[j].Time })
	c := cfg
	c.MaxPartitions = max(c.MaxPartitions, parts)
	tl := newTurnLog(c)
	if tl == nil {
		return nil, errors.New("the turn log is off (turnlog.size 0)")
	}
	for i := range all {
		tl.push(&all[i])
	}
	return tl, nil
}

// loadGaps rebuilds the fleet's gap queue from the observations in Redis.
func (st *sharedState) loadGaps(ctx context.Context, cfg GapsConfig, tenant string) (*gapQueue, error) {
	obs, _, err := readLists(ctx, st, gapPartsKey, gapsKey, tenant, nil, func(o gapObservation) bool { return o.Tenant != "" })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].At.Before(obs[j].At) })
	q, _ := newGapQueue("", st.log) // memory only: cannot fail
	for _, o := range obs {
		if o.Action != "" {
			q.setStatus(o.ID, o.Action, o.Resolution, o.At, o.Coverage)
			continue
		}
		at := o.At
		q.now = func() time.Time { return at }
		q.add(cfg, o.Tenant, o.KB, o.Kind, o.Text, o.Question, o.Coverage)
	}
	return q, nil
}

// turnSource is the turn log a read should use: the fleet's (from Redis)
// when shared state is on and reachable, else this replica's own. degraded
// says a configured Redis could not be read.
func (p *Plane) turnSource(cfg TurnLogConfig, tenant string, kbs []string) (tl *turnLog, degraded bool) {
	if p.shared == nil || p.turns == nil {
		return p.turns, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	tl, err := p.shared.loadTurns(ctx, cfg, tenant, kbs)
	if err != nil {
		p.log.Warn("shared state: reading turns from redis failed; showing this replica's own", zap.Error(err))
		return p.turns, true
	}
	return tl, false
}

// gapSource is turnSource for the gap queue.
func (p *Plane) gapSource(cfg GapsConfig, tenant string) (q *gapQueue, degraded bool) {
	if p.shared == nil {
		return p.gapQ, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	q, err := p.shared.loadGaps(ctx, cfg, tenant)
	if err != nil {
		p.log.Warn("shared state: reading gaps from redis failed; showing this replica's own", zap.Error(err))
		return p.gapQ, true
	}
	return q, false
}

// takeNew returns copies of the entries logged after each ring's cursor
// (oldest first) and moves the cursors past them: the JSONL writer and the
// Redis copy each keep their own cursor.
//
// Only entries up to the sequence number current at the call are taken: a
// turn logged into a ring visited later in the same call would otherwise
// go out before an older turn of a ring already visited, and the JSONL file
// (one timeline) would be out of order. A seq is assigned under its ring's
// lock, so every entry at or below the watermark is complete once that lock
// is taken.
func (tl *turnLog) takeNew(cursor func(*turnRing) *uint64) []turnEntry {
	upTo := tl.seq.Load()
	rings := tl.rings()
	var batch []turnEntry
	for _, r := range rings {
		r.mu.Lock()
		cur := cursor(r)
		last := *cur
		for _, e := range r.entries {
			if e.seq > *cur && e.seq <= upTo {
				c := *e
				c.cands, c.outline = slices.Clone(e.cands), slices.Clone(e.outline)
				batch = append(batch, c)
				last = max(last, e.seq)
			}
		}
		*cur = last
		r.mu.Unlock()
	}
	sort.Slice(batch, func(i, j int) bool { return batch[i].seq < batch[j].seq })
	return batch
}

// degradedState is the "degraded" field of an operator read: the pieces
// that could not be reached.
func degradedState(stateDown bool) []string {
	if stateDown {
		return []string{"state"}
	}
	return []string{}
}

// quietRedis drops go-redis's own log lines (dial failures while Redis is
// down, every attempt): the writer logs the outage once and counts drops.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

var quietRedisOnce sync.Once
