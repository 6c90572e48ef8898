package operator

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// The gap queue's routes: GET /v1/guard/gaps lists it; POST
// /v1/guard/gaps/ID/resolve and /v1/guard/gaps/ID/dismiss close an entry
// (`guard gaps resolve|dismiss ID`, the console's buttons). An admin key
// when auth is on; with auth off the X-Tenant-ID and X-KB-ID headers
// narrow both to that tenant and KB.

// gapScope is the caller's tenant and KBs ("" / nil = any) with the
// query's tenant and kb applied inside it: naming another tenant or a KB
// outside it is 403. adminOnly refuses a tenant key (the queue); the turn
// log's grouping (source=turnlog) is what the key may read of
// GET /v1/guard/turns, so a tenant key may list it.
func (p *Plane) gapScope(ctx *fasthttp.RequestCtx, tenant, kb string, adminOnly bool) (gapFilter, error) {
	st, skbs, err := p.host.OperatorAccess(ctx, adminOnly)
	if err != nil {
		return gapFilter{}, err
	}
	f := gapFilter{tenant: tenant, kbs: skbs}
	if st != "" {
		if tenant != "" && tenant != st {
			return f, &Error{Status: 403, Type: "permission_error", Code: "tenant_mismatch",
				Message: "tenant " + quote(tenant) + " is outside this request's tenant (X-Tenant-ID)"}
		}
		f.tenant = st
	}
	if kb != "" {
		if skbs != nil && !slices.Contains(skbs, kb) {
			return f, &Error{Status: 403, Type: "permission_error", Code: "kb_not_allowed",
				Message: "knowledge base " + quote(kb) + " is outside this request's KB (X-KB-ID)"}
		}
		f.kbs = []string{kb}
	}
	return f, nil
}

// serveGaps serves GET /v1/guard/gaps?tenant=&kb=&kind=&status=&limit=&source=&since=&until=:
// open entries by default (status=all for every one), most frequent
// first; kind may join several with commas (kind=refused,gap). total
// counts the entries that match, by_kind every kind's entries within
// the other filters; enabled is gaps.enabled. source=turnlog lists the
// turn log's refusals and fallbacks grouped as the queue files them
// (turnLogGaps), for a server whose queue is off; a tenant key may ask
// for it (its own tenant's turns), the queue needs an admin key. since
// and until (RFC 3339 or Unix ms, as for GET /v1/guard/turns) bound the
// turns grouped (source=turnlog), or keep the queue's entries seen
// within them (first seen at or before until, last seen at or after
// since).
func (p *Plane) serveGaps(ctx *fasthttp.RequestCtx) error {
	if !ctx.IsGet() && !ctx.IsHead() {
		return methodNotAllowed("GET, HEAD")
	}
	args := ctx.QueryArgs()
	source := string(args.Peek("source"))
	if source != "" && source != "queue" && source != "turnlog" {
		return badParam("source", "source must be queue or turnlog")
	}
	f, err := p.gapScope(ctx, string(args.Peek("tenant")), string(args.Peek("kb")), source != "turnlog")
	if err != nil {
		return err
	}
	since, err := parseTimeParam("since", string(args.Peek("since")))
	if err != nil {
		return err
	}
	until, err := parseTimeParam("until", string(args.Peek("until")))
	if err != nil {
		return err
	}
	var kinds []string
	if v := string(args.Peek("kind")); v != "" {
		for k := range strings.SplitSeq(v, ",") {
			switch k {
			case GapRefused, GapFallback, GapClaim, GapOffTopic:
				kinds = append(kinds, k)
			default:
				return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_parameter", Param: "kind",
					Message: "kind must be refused, fallback, gap or off_topic, or several joined by commas"}
			}
		}
	}
	switch f.status = string(args.Peek("status")); f.status {
	case "":
		f.status = GapOpen
	case "all":
		f.status = ""
	case GapOpen, GapResolved, GapDismissed:
	default:
		return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_parameter", Param: "status",
			Message: "status must be open, resolved, dismissed or all"}
	}
	limit := 100
	if v := args.Peek("limit"); len(v) > 0 {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 1 || n > 100000 {
			return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_parameter", Param: "limit",
				Message: "limit must be an integer in [1,100000]"}
		}
		limit = n
	}
	gcfg := p.cfg.Load().Gaps
	var listed []*Gap
	switch source {
	case "", "queue":
		q, _ := p.gapSource(gcfg, f.tenant)
		for _, g := range q.list(f) {
			if (since == 0 || g.LastSeen.UnixNano() >= since) && (until == 0 || g.FirstSeen.UnixNano() <= until) {
				listed = append(listed, g)
			}
		}
	case "turnlog":
		// The turn log has no status: every group is open.
		if f.status == "" || f.status == GapOpen {
			tl, _ := p.turnSource(p.started.TurnLog, f.tenant, f.kbs)
			listed = turnLogGaps(tl.snapshot(turnFilter{tenant: f.tenant, kbs: f.kbs, since: since, until: until}))
		}
	}
	// by_kind counts every kind within the other filters, so that a
	// client can offer kinds with their counts from one request.
	byKind := map[string]int{GapRefused: 0, GapFallback: 0, GapClaim: 0, GapOffTopic: 0}
	var all []*Gap
	for _, g := range listed {
		byKind[g.Kind]++
		if kinds == nil || slices.Contains(kinds, g.Kind) {
			all = append(all, g)
		}
	}
	page := all
	if len(page) > limit {
		page = page[:limit]
	}
	body, _ := json.Marshal(struct {
		Object string `json:"object"`
		// Enabled is gaps.enabled: false, the queue gathers nothing (what
		// it lists is from before), and the console and guard gaps list
		// the turn log's refusals and fallbacks instead (source=turnlog).
		Enabled bool `json:"enabled"`
		// Source is the source asked for, when one was.
		Source string         `json:"source,omitempty"`
		Total  int            `json:"total"`
		ByKind map[string]int `json:"by_kind"`
		Data   []*Gap         `json:"data"`
	}{"list", gcfg.Enabled, source, len(all), byKind, append([]*Gap{}, page...)})
	ctx.SetContentType("application/json")
	ctx.SetBody(body)
	return nil
}

// serveGapAction serves POST /v1/guard/gaps/ID/resolve|dismiss|reopen
// with an optional JSON body {"note": "..."}: the entry's new state.
func (p *Plane) serveGapAction(ctx *fasthttp.RequestCtx, rest string) error {
	id, action, ok := strings.Cut(rest, "/")
	status := map[string]string{"resolve": GapResolved, "dismiss": GapDismissed, "reopen": GapOpen}[action]
	if !ok || id == "" || status == "" {
		return &Error{Status: 404, Type: "invalid_request_error", Code: "not_found",
			Message: "unknown path: use POST /v1/guard/gaps/ID/resolve, /dismiss or /reopen"}
	}
	if !ctx.IsPost() {
		return methodNotAllowed("POST")
	}
	var req struct {
		Note string `json:"note"`
	}
	if b := ctx.PostBody(); len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_json", Message: "the body must be a JSON object {\"note\": \"...\"} or empty"}
		}
	}
	f, err := p.gapScope(ctx, "", "", true)
	if err != nil {
		return err
	}
	g, err := p.changeGap(id, status, "operator"+noteSuffix(req.Note), 0, f)
	if err != nil {
		return err
	}
	return writeJSON(ctx, map[string]any{"gap": g})
}

func noteSuffix(note string) string {
	note = clipRunes(strings.TrimSpace(note), 200)
	if note == "" {
		return ""
	}
	return ": " + note
}

// changeGap sets the status of entry id (within scope f) here and, with
// shared state, for the fleet.
func (p *Plane) changeGap(id, status, why string, cov float64, f gapFilter) (*Gap, error) {
	q, _ := p.gapSource(p.cfg.Load().Gaps, f.tenant)
	g := q.find(id)
	if g == nil || f.tenant != "" && g.Tenant != f.tenant || f.kbs != nil && !slices.Contains(f.kbs, g.KB) {
		return nil, &Error{Status: 404, Type: "invalid_request_error", Code: "gap_not_found",
			Message: "no gap queue entry " + quote(id) + " (it may have been evicted)"}
	}
	now := time.Now()
	if q != p.gapQ {
		q.setStatus(id, status, why, now, cov) // the fleet's view, for the answer
	}
	p.gapQ.setStatus(id, status, why, now, cov)
	if p.gapQ.share != nil {
		p.gapQ.share(gapObservation{Tenant: g.Tenant, KB: g.KB, Kind: g.Kind, Text: g.Text, At: now.UTC(),
			Action: status, ID: id, Resolution: why, Coverage: cov})
	}
	return q.find(id), nil
}
