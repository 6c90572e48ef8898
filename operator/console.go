package operator

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
)

// The operator's view: GET /v1/guard/turns (the turn log), POST
// /v1/guard/whatif (threshold what-if) and the console at /console, a
// static page embedded in the binary that reads those two endpoints.

//go:embed console/index.html console/app.js console/app.css
var consoleFS embed.FS

// operatorScope is what an operator request may read: every tenant (auth
// off, or an admin key) or one tenant's KBs (a tenant key).
type operatorScope struct {
	tenant string   // "" = every tenant
	kbs    []string // nil = every KB
}

// filter builds the turn filter of a request within the scope: a tenant
// key naming another tenant or a KB it may not read is 403.
func (sc operatorScope) filter(tenant, kb, decision, since, until string) (turnFilter, error) {
	f := turnFilter{tenant: tenant, kbs: sc.kbs, decision: gate.Decision(decision)}
	if sc.tenant != "" {
		if tenant != "" && tenant != sc.tenant {
			return f, &Error{Status: 403, Type: "permission_error", Code: "tenant_mismatch",
				Message: "this key may read only its own tenant's turns"}
		}
		f.tenant = sc.tenant
	}
	if kb != "" {
		if sc.kbs != nil && !slices.Contains(sc.kbs, kb) {
			return f, &Error{Status: 403, Type: "permission_error", Code: "kb_not_allowed",
				Message: "the API key may not read knowledge base " + quote(kb)}
		}
		f.kbs = []string{kb}
	}
	switch gate.Decision(decision) {
	case "", gate.Ground, gate.Refuse, gate.Fallback, gate.Passthrough:
	default:
		return f, badParam("decision", "decision must be ground, refuse, fallback or passthrough")
	}
	var err error
	if f.since, err = parseTimeParam("since", since); err != nil {
		return f, err
	}
	if f.until, err = parseTimeParam("until", until); err != nil {
		return f, err
	}
	return f, nil
}

// parseTimeParam reads RFC 3339 or Unix milliseconds; "" is no bound.
func parseTimeParam(name, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms * int64(time.Millisecond), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, badParam(name, name+" must be RFC 3339 or Unix milliseconds")
	}
	return t.UnixNano(), nil
}

func rfc3339(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// turnRow is one turn in the list.
type turnRow struct {
	ID           uint64        `json:"id"`
	Time         string        `json:"time"`
	Tenant       string        `json:"tenant"`
	KB           string        `json:"kb"`
	Model        string        `json:"model"`
	Stream       bool          `json:"stream"`
	Status       int           `json:"status"`
	Question     string        `json:"question,omitempty"`
	QuestionCut  bool          `json:"question_truncated,omitempty"`
	QuestionHash string        `json:"question_hash,omitempty"`
	Decision     gate.Decision `json:"decision"`
	// OffTopic marks a refusal the gate made as outside the corpus (its
	// off_topic check, gate.off_topic: refuse): the gap queue files it as
	// kind off_topic, apart from the on-topic refusals (kind refused).
	OffTopic   bool               `json:"off_topic,omitempty"`
	Coverage   gate.Coverage      `json:"coverage"`
	Candidates int                `json:"candidates"`
	Planner    string             `json:"planner,omitempty"`
	Dropped    map[string]int     `json:"markers_dropped"`
	Verdicts   map[string]int     `json:"verdicts"`
	Degraded   []string           `json:"degraded"`
	LatencyMS  map[string]float64 `json:"latency_ms"`
}

// candView is one candidate in a turn's detail.
type candView struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Kind    string  `json:"kind"`
	Address string  `json:"address,omitempty"`
	Score   float64 `json:"score"`
	Rerank  float64 `json:"rerank"`
	Answer  float64 `json:"answer"`
	// Relevance is the score the thresholds compared (per gate.relevance).
	Relevance float64 `json:"relevance"`
	Forced    bool    `json:"forced"`
	// TypeHit: the passage holds the answer type the question asks for
	// (its phone number, ...), or for a contact question naming none a
	// phone number, email or street address; absent when it does not.
	TypeHit bool     `json:"type_hit,omitempty"`
	Lanes   []string `json:"lanes"`
	Floored bool     `json:"floored"`
	Outline int      `json:"outline"` // 1-based position in the outline, 0 = not shown to the model
	// Sim is the sentence encoder's cosine with the question (absent
	// without the encoder's features); gate.on_topic_sim compares it.
	Sim *float64 `json:"sim,omitempty"`
}

// turnDetail is one turn with everything the log kept.
type turnDetail struct {
	turnRow
	RerankActive bool `json:"rerank_active"`
	// Coherence is the queried partition's coherence, which
	// gate.on_topic_coherence compares (absent when the index keeps none).
	Coherence *float64 `json:"coherence,omitempty"`
	Relevance string   `json:"relevance,omitempty"`
	// Ask is what the question asks for (gate.AskOf), an input of the
	// decision; absent when it asks for nothing the gate reads, and in
	// turns logged before it was kept (they replay without it).
	Ask        *gate.Ask           `json:"ask,omitempty"`
	Thresholds *gateThresholds     `json:"thresholds,omitempty"` // the gate configuration it was decided with
	Checks     map[string]bool     `json:"checks,omitempty"`
	Floored    int                 `json:"floored"`
	Cands      []candView          `json:"candidate_list"`
	Outline    []string            `json:"outline"`
	Citations  []gauntlet.Citation `json:"citations"`
	Markers    *turnrec.Markers    `json:"markers"`
	Claims     []judge.Claim       `json:"claims"`
	Summary    *judge.Summary      `json:"summary"`
}

func (tl *turnLog) row(e *turnEntry) turnRow {
	r := turnRow{ID: e.seq, Time: rfc3339(e.at), Tenant: e.tenant, KB: e.kb, Model: e.model, Stream: e.stream,
		Status: e.status, Decision: e.decision, Coverage: e.cov, Candidates: len(e.cands), Degraded: []string{}}
	switch {
	case e.qlen > 0:
		r.Question, r.QuestionCut = e.question(), e.qcut
	case e.qhash != 0:
		r.QuestionHash = strconv.FormatUint(e.qhash, 16)
	}
	if e.traced {
		r.Planner = "local"
		if e.remote {
			r.Planner = "remote"
		}
	}
	r.OffTopic = e.decision == gate.Refuse && e.offTopic
	lat := map[string]float64{"total": ms(e.total), "upstream_wait": ms(e.wait)}
	if e.ttft > 0 {
		lat["ttft"] = ms(e.ttft)
	}
	rep := &e.rep
	r.Dropped, r.Verdicts = rep.DroppedByReason(), rep.VerdictCounts()
	if rep.Degraded != nil {
		r.Degraded = rep.Degraded
	}
	for k, v := range rep.LatencyMS {
		lat[k] = v
	}
	if r.Dropped == nil {
		r.Dropped = map[string]int{}
	}
	if r.Verdicts == nil {
		r.Verdicts = map[string]int{}
	}
	r.LatencyMS = lat
	return r
}

func (tl *turnLog) detail(e *turnEntry) turnDetail {
	d := turnDetail{turnRow: tl.row(e), RerankActive: e.rerankActive, Cands: []candView{}, Outline: []string{}}
	if e.coherence != 0 {
		coh := e.coherence
		d.Coherence = &coh
	}
	if rep := &e.rep; true {
		d.Citations, d.Markers, d.Summary = rep.Citations, rep.Markers, rep.Summary
		d.Claims = rep.Claims
		if cl := rep.Claims; cl != nil && tl.cfg.Questions != questionsKeep {
			// The answer's sentences can repeat the question: keep the
			// verdicts and evidence, not the text.
			red := make([]judge.Claim, len(cl))
			for i, c := range cl {
				c.Text, c.ClaimReview, c.Suggestion = "", nil, ""
				red[i] = c
			}
			d.Claims = red
		}
	}
	if !e.traced || e.cfg == nil {
		return d
	}
	cfg := *e.cfg
	th := thresholdsOf(cfg)
	d.Thresholds, d.Relevance = &th, cfg.Relevance
	if e.ask != (gate.Ask{}) {
		ask := e.ask
		d.Ask = &ask
	}
	o, _ := redecide(cfg, e) // the booleans the logged decision was made from
	d.Checks, d.Floored = o.Checks, o.Floored
	floor := cfg.PrefloorNoRerank
	if e.rerankActive {
		floor = cfg.Prefloor
	}
	pos := make(map[int]int, len(e.outline))
	for i, j := range e.outline {
		if _, dup := pos[int(j)]; !dup {
			pos[int(j)] = i + 1
		}
		d.Outline = append(d.Outline, e.cands[j].id)
	}
	gcands := e.candidates()
	for i, c := range e.cands {
		rel := gate.Compared(cfg, gcands[i], e.rerankActive, o.Lowered) // as the logged decision compared it
		lanes := c.lanes
		if lanes == nil {
			lanes = []string{}
		}
		cv := candView{ID: c.id, Title: c.title, Kind: c.kind, Address: c.address, Score: c.score,
			Rerank: c.rerank, Answer: c.answer, Relevance: rel, Forced: c.forced, TypeHit: c.typeHit, Lanes: lanes,
			Floored: !c.forced && !(rel >= floor), Outline: pos[i]}
		if c.semantic {
			cv.Sim = &c.sim
		}
		d.Cands = append(d.Cands, cv)
	}
	return d
}

// guardTurns serves GET /v1/guard/turns: the turn log, newest first.
// Query: tenant, kb, decision, since, until (RFC 3339 or Unix ms), limit
// (default 1000), id (one turn with its detail).
func (p *Plane) guardTurns(ctx *fasthttp.RequestCtx) error {
	if !ctx.IsGet() && !ctx.IsHead() {
		return methodNotAllowed("GET, HEAD")
	}
	sc, err := p.scope(ctx)
	if err != nil {
		return err
	}
	cfg := p.cfg.Load()
	a := ctx.QueryArgs()
	f, err := sc.filter(string(a.Peek("tenant")), string(a.Peek("kb")), string(a.Peek("decision")), string(a.Peek("since")), string(a.Peek("until")))
	if err != nil {
		return err
	}
	tl, degraded := p.turnSource(p.started.TurnLog, f.tenant, sc.kbs)
	if v := a.Peek("id"); len(v) > 0 {
		id, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil || id == 0 {
			return badParam("id", "id must be a positive integer")
		}
		f.id = id
		got := tl.snapshot(f)
		if len(got) == 0 {
			return &Error{Status: 404, Type: "invalid_request_error", Code: "turn_not_found",
				Message: "no logged turn " + strconv.FormatUint(id, 10) + " (it may have left the ring)"}
		}
		return writeJSON(ctx, map[string]any{"turn": tl.detail(&got[0])})
	}
	limit := 1000
	if v := a.Peek("limit"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 || n > 100000 {
			return badParam("limit", "limit must be in [1,100000]")
		}
		limit = n
	}
	entries := tl.snapshot(f)
	parts := tl.partitions(turnFilter{tenant: f.tenant, kbs: sc.kbs})
	for i := range parts {
		if parts[i].Kinds = p.host.PartitionKinds(parts[i].Tenant, parts[i].KB); parts[i].Kinds == nil {
			parts[i].Kinds = []string{}
		}
	}
	rows := make([]turnRow, 0, min(len(entries), limit))
	for i := range entries[:min(len(entries), limit)] {
		rows = append(rows, tl.row(&entries[i]))
	}
	body := map[string]any{
		"enabled":    p.turns != nil,
		"shared":     p.shared != nil && !degraded,
		"degraded":   degradedState(degraded),
		"turns":      rows,
		"total":      len(entries),
		"returned":   len(rows),
		"partitions": parts,
		"gate":       thresholdsOf(p.host.GateConfig()),
		"pipeline":   p.host.PipelineEnabled(),
		"questions":  cfg.TurnLog.Questions,
		"scope":      map[string]any{"tenant": sc.tenant, "kbs": sc.kbs},
		"now":        time.Now().UTC().Format(time.RFC3339Nano),
	}
	return writeJSON(ctx, body)
}

// scope asks the host who may read what.
func (p *Plane) scope(ctx *fasthttp.RequestCtx) (operatorScope, error) {
	tenant, kbs, err := p.host.OperatorAccess(ctx, false)
	return operatorScope{tenant: tenant, kbs: kbs}, err
}

// whatIfRequest is the body of POST /v1/guard/whatif.
type whatIfRequest struct {
	Gate     gateThresholds `json:"gate"`
	Tenant   string         `json:"tenant"`
	KB       string         `json:"kb"`
	Decision string         `json:"decision"`
	Since    string         `json:"since"`
	Until    string         `json:"until"`
	Examples *int           `json:"examples"` // per transition; default 5, at most 10000
}

// guardWhatIf serves POST /v1/guard/whatif: the logged turns' decisions
// recomputed under the thresholds in the body (the others as configured).
func (p *Plane) guardWhatIf(ctx *fasthttp.RequestCtx) error {
	if !ctx.IsPost() {
		return methodNotAllowed("POST")
	}
	sc, err := p.scope(ctx)
	if err != nil {
		return err
	}
	var req whatIfRequest
	dec := json.NewDecoder(bytes.NewReader(ctx.PostBody()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
			Message: "the body must be a JSON object {gate:{...}, tenant, kb, decision, since, until, examples}: " + err.Error()}
	}
	f, err := sc.filter(req.Tenant, req.KB, req.Decision, req.Since, req.Until)
	if err != nil {
		return err
	}
	examples := 5
	if req.Examples != nil {
		examples = min(max(*req.Examples, 0), 10000)
	}
	current := p.host.GateConfig()
	cfg := req.Gate.apply(current)
	if err := cfg.Validate(); err != nil {
		return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_value", Param: "gate",
			Message: "the thresholds are not a valid gate configuration: " + strings.ReplaceAll(err.Error(), "\n", "; ")}
	}
	tl, _ := p.turnSource(p.started.TurnLog, f.tenant, f.kbs)
	if k := req.Gate.PrimaryKind; k != nil && *k != "" {
		if err := p.checkKind(*k, tl.partitions(turnFilter{tenant: f.tenant, kbs: f.kbs})); err != nil {
			return err
		}
	}
	return writeJSON(ctx, whatIf(tl.snapshot(f), cfg, &current, p.host.PartitionKinds, examples))
}

// checkKind admits a what-if primary_kind that some partition in parts
// holds (in the index in force); otherwise a 400 that lists the kinds
// there are.
func (p *Plane) checkKind(kind string, parts []partitionInfo) error {
	var all []string
	for _, pi := range parts {
		for _, k := range p.host.PartitionKinds(pi.Tenant, pi.KB) {
			if k == kind {
				return nil
			}
			if !slices.Contains(all, k) {
				all = append(all, k)
			}
		}
	}
	slices.Sort(all)
	msg := "primary_kind " + quote(kind) + " is not a kind of any chunk in the partitions the what-if replays"
	if len(all) == 0 {
		msg += "; they hold no indexed chunks"
	} else {
		msg += "; the kinds there: " + strings.Join(all, ", ")
	}
	return &Error{Status: 400, Type: "invalid_request_error", Code: "unknown_kind", Param: "gate.primary_kind",
		Message: msg + ` (or "" for every chunk)`}
}

func writeJSON(ctx *fasthttp.RequestCtx, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return &Error{Status: 500, Type: "server_error", Code: "internal_error", Message: "the response could not be encoded", Err: err}
	}
	ctx.SetContentType("application/json")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetBody(b)
	return nil
}

// consoleOn reports whether /console is served: console.enabled, and auth
// on or a loopback listener.
func (p *Plane) consoleOn() bool {
	return p.cfg.Load().Console.Enabled && p.host.Protected()
}

// console serves the embedded console files; false when path is not one.
func (p *Plane) console(ctx *fasthttp.RequestCtx, path string) (bool, error) {
	name := ""
	switch path {
	case "/console", "/console/", "/console/index.html":
		name = "console/index.html"
	case "/console/app.js", "/console/app.css":
		name = "console" + path[len("/console"):]
	default:
		return false, nil
	}
	if !p.consoleOn() {
		return true, &Error{Status: 404, Type: "invalid_request_error", Code: "not_found",
			Message: "the console is off (console.enabled, or a non-loopback listener without auth)"}
	}
	if !ctx.IsGet() && !ctx.IsHead() {
		return true, methodNotAllowed("GET, HEAD")
	}
	b, err := consoleFS.ReadFile(name)
	if err != nil {
		return false, nil
	}
	switch pathpkg.Ext(name) {
	case ".html":
		ctx.SetContentType("text/html; charset=utf-8")
	case ".js":
		ctx.SetContentType("text/javascript; charset=utf-8")
	case ".css":
		ctx.SetContentType("text/css; charset=utf-8")
	}
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	ctx.SetBody(b)
	return true, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
