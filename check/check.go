package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/judge"
	"github.com/answer-guard/guard/retrieve"
	"go.uber.org/zap"
)

// Severities of a finding, from the most to the least severe.
const (
	Critical = "critical"
	Warning  = "warning"
	Info     = "info"
)

var severityRank = map[string]int{Info: 1, Warning: 2, Critical: 3,
	// the risk words of guard index audit --fail-on and of a claim's
	// risk, as aliases: high = critical, medium = warning, low = info
	"high": 3, "medium": 2, "low": 1}

// Finding kinds.
const (
	FindUnknownCitation    = "unknown_citation"     // critical: a citation that resolves to no corpus passage
	FindContradicted       = "contradicted"         // critical: the cited passage says otherwise
	FindUnsupported        = "unsupported"          // warning: the cited passage does not state the claim
	FindContradictingCite  = "contradicting_source" // warning: one of several cited passages contradicts a supported claim
	FindNotChecked         = "not_checked"          // info: a cited sentence the judge did not verify (reason in message)
	FindMissingCitation    = "missing_citation"     // info: an uncited claim a corpus passage supports
	FindUncitedClaim       = "uncited_claim"        // warning: an uncited claim no corpus passage supports
	FindUncitedContradicts = "uncited_contradicted" // warning: an uncited claim a retrieved corpus passage contradicts
	FindBrokenMarker       = "broken_marker"        // warning: footnote syntax that is not a well-formed reference
	FindLeakedID           = "leaked_id"            // info: an internal id-shaped token or a raw corpus id in prose
	FindUnusedFootnote     = "unused_footnote"      // info: a footnote definition no sentence refers to
)

// Finding is one problem found in a document.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"` // critical | warning | info
	Kind     string `json:"kind"`
	Message  string `json:"message"`
	Sentence string `json:"sentence"`
	// Citation is the citation as written ("[^boil]", "[3]", "[text](url)"),
	// or the corpus source a suggestion names.
	Citation   string `json:"citation"`
	Evidence   string `json:"evidence"`
	Suggestion string `json:"suggestion"`
}

// Stats counts what one audit looked at.
type Stats struct {
	Files      int `json:"files"`
	Sentences  int `json:"sentences"`
	Cited      int `json:"cited"`      // sentences with at least one citation
	Verified   int `json:"verified"`   // cited claims the judge found supported
	Uncited    int `json:"uncited"`    // factual sentences without a citation
	Citations  int `json:"citations"`  // distinct citations
	Unresolved int `json:"unresolved"` // distinct citations naming nothing in the corpus
}

// Retriever finds corpus passages for a sentence; *retrieve.Engine
// implements it.
type Retriever interface {
	Retrieve(ctx context.Context, q retrieve.Query) (retrieve.Result, error)
}

var _ Retriever = (*retrieve.Engine)(nil)

// Deps are the stages a Checker orchestrates.
type Deps struct {
	// Partition is the (tenant, kb) partition citations resolve against;
	// nil means an empty corpus (every citation is unknown).
	Partition *index.Partition
	// Others are the snapshot's other partitions: a citation that names
	// nothing in Partition is looked up there only to say which tenant and
	// KB hold it (it stays an unknown citation).
	Others []*index.Partition
	// Retriever looks uncited sentences up; nil skips that step.
	Retriever Retriever
	// Tenant and KB scope retrieval.
	Tenant, KB string
	// Judge verifies cited claims (required).
	Judge *judge.Judge
	// Local judges uncited sentences against retrieved passages; nil
	// uses a local verifier with default thresholds.
	Local judge.Verifier
	// Spec, when set, audits each sentence for broken footnote syntax and
	// leaked ids with the gauntlet's rules.
	Spec *gauntlet.Spec
	// AddressPatterns find addresses inside citation text
	// (retrieve.address_patterns).
	AddressPatterns []string
}

// Checker audits Markdown documents against one corpus partition. It is
// safe for sequential use; Check may be called for many files.
type Checker struct {
	cfg   Config
	deps  Deps
	cat   *catalog
	pats  []*regexp.Regexp
	other []*catalog // Deps.Others', built at the first unknown citation
	log   *zap.Logger
	stats Stats
}

// New validates cfg and returns a Checker. log may be nil.
func New(cfg Config, deps Deps, log *zap.Logger) (*Checker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("check config: %w", err)
	}
	if deps.Judge == nil {
		return nil, errors.New("check: a judge is required")
	}
	if deps.Local == nil {
		deps.Local = judge.NewLocal(judge.DefaultConfig().Local)
	}
	var pats []*regexp.Regexp
	for i, p := range deps.AddressPatterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("address pattern %d: %w", i, err)
		}
		pats = append(pats, re)
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &Checker{cfg: cfg, deps: deps, log: log.Named("check"), pats: pats,
		cat: newCatalog(deps.Partition, pats, cfg.MinTitleChars, cfg.MaxPassageChars)}, nil
}

// Stats returns the counts accumulated over every Check call so far.
func (c *Checker) Stats() Stats { return c.stats }

// CheckFile reads and audits one file (at most cfg.MaxFileBytes).
func (c *Checker) CheckFile(ctx context.Context, path string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, c.cfg.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > c.cfg.MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than check.max_file_bytes (%d)", path, c.cfg.MaxFileBytes)
	}
	return c.Check(ctx, path, string(b))
}

// resolved is a citation of the document with the passage it names.
type resolved struct {
	cite
	slots []int
	how   string
	p     judge.Passage
	// elsewhere is the partition of Deps.Others that holds an unresolved
	// citation's document ("" when none does).
	elsewhere *index.Partition
}

// Check audits the Markdown text src, reported under the name file.
// Findings come in line order. The error is ctx's when it ends early.
func (c *Checker) Check(ctx context.Context, file, src string) ([]Finding, error) {
	doc := parse(src, func(text, url string) bool {
		s, _ := c.cat.resolve(text, url)
		return len(s) > 0
	})
	c.stats.Files++
	rs := make([]resolved, len(doc.cites))
	for i, ct := range doc.cites {
		r := resolved{cite: ct}
		text := ct.def
		if !ct.defined && ct.kind == KindFootnote {
			text = strings.TrimSuffix(strings.TrimPrefix(ct.label, "[^"), "]") // the label may itself be an id
		}
		if ct.defined || ct.kind == KindFootnote {
			r.slots, r.how = c.cat.resolve(text, ct.url)
		}
		if len(r.slots) > 0 {
			r.p = c.cat.passage(r.slots)
		} else {
			c.stats.Unresolved++
			if ct.defined || ct.kind == KindFootnote {
				r.elsewhere = c.heldElsewhere(text, ct.url)
			}
		}
		rs[i] = r
	}
	c.stats.Citations += len(rs)
	// the document's resolved sources are its combined context
	// (verify.min_context_chars applies to them together)
	var ctxt []judge.Passage
	for _, r := range rs {
		if len(r.slots) > 0 {
			ctxt = append(ctxt, r.p)
		}
	}
	turn := c.deps.Judge.Turn(ctxt)
	var out []Finding
	reported := map[int]bool{} // unknown citations reported once per document
	for _, s := range doc.sentences {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		c.stats.Sentences++
		out = append(out, c.sentence(ctx, turn, file, s, rs, reported)...)
	}
	for _, u := range doc.unused {
		out = append(out, Finding{File: file, Line: u.line, Severity: Info, Kind: FindUnusedFootnote, Citation: u.label,
			Message: fmt.Sprintf("footnote %s is defined but no sentence cites it", u.label)})
	}
	sortFindings(out)
	return out, nil
}

// sentence audits one sentence.
func (c *Checker) sentence(ctx context.Context, turn *judge.Turn, file string, s sentence, rs []resolved, reported map[int]bool) []Finding {
	var out []Finding
	text := plain(s.text)
	base := Finding{File: file, Line: s.line, Sentence: text}
	out = append(out, c.audit(base, s.text, rs)...)
	nums := judge.Citations(s.text)
	if len(nums) == 0 {
		if judge.IsFactual(text) && !judge.IsOpinion(text) {
			c.stats.Uncited++
			if f, ok := c.uncited(ctx, base); ok {
				out = append(out, f)
			}
		}
		return out
	}
	c.stats.Cited++
	cited := map[int]judge.Passage{}
	var unknown []string
	for _, n := range nums {
		if n < 1 || n > len(rs) {
			continue
		}
		r := rs[n-1]
		if len(r.slots) == 0 {
			unknown = append(unknown, r.label)
			if !reported[n] {
				reported[n] = true
				f := base
				f.Severity, f.Kind, f.Citation = Critical, FindUnknownCitation, r.label
				f.Message = unknownMessage(r, c.deps.Tenant, c.deps.KB)
				out = append(out, f)
			}
			continue
		}
		p := r.p
		p.N = n
		cited[n] = p
	}
	if len(cited) == 0 {
		// Nothing to verify against: say which source would back it, if any.
		if len(out) > 0 && judge.IsFactual(text) {
			if f, ok := c.uncited(ctx, base); ok && f.Kind == FindMissingCitation {
				for i := range out {
					if out[i].Kind == FindUnknownCitation && out[i].Line == s.line && out[i].Suggestion == "" {
						out[i].Suggestion, out[i].Evidence = f.Suggestion, f.Evidence
					}
				}
			}
		}
		return out
	}
	claim, drop := turn.Check(ctx, s.text, cited)
	// A passage of several chunks (a Markdown page's sections) is named
	// by the section its evidence is in.
	for _, n := range claim.Citations {
		if p, ok := cited[n]; ok {
			if t, ok := c.cat.evidenceTitle(rs[n-1].slots, claim.Evidence); ok {
				p.Title = t
				cited[n] = p
			}
		}
	}
	f := base
	f.Citation = citeLabels(claim.Citations, rs, cited)
	f.Evidence, f.Suggestion = claim.Evidence, claim.Suggestion
	switch claim.Verdict {
	case judge.Entailment:
		c.stats.Verified++
		for _, n := range drop {
			if p, ok := cited[n]; ok {
				g := f
				g.Severity, g.Kind, g.Citation = Warning, FindContradictingCite, rs[n-1].label
				g.Evidence, g.Suggestion = "", "drop this citation or reconcile the sources"
				g.Message = fmt.Sprintf("%s (%s) contradicts the claim, which another cited source supports", rs[n-1].label, name(p))
				out = append(out, g)
			}
		}
		return out
	case judge.Contradiction:
		f.Severity, f.Kind = Critical, FindContradicted
		f.Message = fmt.Sprintf("%s contradicts the claim (%s, confidence %.2f)", sources(claim.Citations, rs, cited), claim.Method, claim.Confidence)
	case judge.Neutral:
		f.Severity, f.Kind = Warning, FindUnsupported
		f.Message = fmt.Sprintf("%s does not state the claim (%s, confidence %.2f)", sources(claim.Citations, rs, cited), claim.Method, claim.Confidence)
		if g, ok := c.uncited(ctx, base); ok && g.Kind == FindMissingCitation {
			f.Suggestion = strings.Replace(g.Suggestion, "cite ", "cite instead ", 1)
		}
	case judge.NotChecked, judge.Opinion:
		f.Severity, f.Kind = Info, FindNotChecked
		f.Message = strings.TrimPrefix(claim.Reason, "not checked: ")
		if claim.Verdict == judge.Opinion {
			f.Message = "an opinion"
		}
		f.Message = "not verified: " + f.Message
	default:
		return out // not a claim (a question, filler)
	}
	if claim.Reason != "" && claim.Verdict != judge.NotChecked && claim.Verdict != judge.Opinion {
		f.Message += "; " + claim.Reason
	}
	return append(out, f)
}

// heldElsewhere returns the first of Deps.Others whose catalog resolves
// a citation (text, url), or nil.
func (c *Checker) heldElsewhere(text, url string) *index.Partition {
	if c.other == nil {
		c.other = make([]*catalog, 0, len(c.deps.Others))
		for _, p := range c.deps.Others {
			if p != nil && p != c.deps.Partition {
				c.other = append(c.other, newCatalog(p, c.pats, c.cfg.MinTitleChars, c.cfg.MaxPassageChars))
			}
		}
	}
	for _, oc := range c.other {
		if s, _ := oc.resolve(text, url); len(s) > 0 {
			return oc.p
		}
	}
	return nil
}

func unknownMessage(r resolved, tenant, kb string) string {
	if p := r.elsewhere; p != nil {
		what := clip(firstNonEmpty(r.def, firstNonEmpty(r.url, strings.TrimSuffix(strings.TrimPrefix(r.label, "[^"), "]"))), 120)
		where := fmt.Sprintf("--kb %s", p.KB)
		if p.Tenant != tenant {
			where = fmt.Sprintf("--tenant %s --kb %s", p.Tenant, p.KB)
		}
		return fmt.Sprintf("citation %s names no document of tenant %q, KB %q: %q is in tenant %q, KB %q (check with %s)",
			r.label, tenant, kb, what, p.Tenant, p.KB, where)
	}
	switch {
	case !r.defined && r.kind == KindFootnote:
		return fmt.Sprintf("footnote %s has no definition and names no corpus document", r.label)
	case !r.defined:
		return fmt.Sprintf("reference %s has no definition", r.label)
	default:
		return fmt.Sprintf("citation %s names no corpus document: %q", r.label, clip(firstNonEmpty(r.def, r.url), 120))
	}
}

// uncited looks a sentence up in the corpus: the best retrieved passage
// that supports it is suggested (info), one that contradicts it is a
// warning, and none at all is a warning too.
func (c *Checker) uncited(ctx context.Context, base Finding) (Finding, bool) {
	if !c.cfg.Uncited || c.deps.Retriever == nil {
		return Finding{}, false
	}
	res, err := c.deps.Retriever.Retrieve(ctx, retrieve.Query{Tenant: c.deps.Tenant, KB: c.deps.KB, Text: base.Sentence})
	if err != nil {
		c.log.Warn("retrieve for an uncited sentence", zap.Int("line", base.Line), zap.Error(err))
		return Finding{}, false
	}
	var best, conflict *retrieve.Candidate
	var bestV, conflictV judge.Verdict
	for i := range res.Candidates {
		if i >= c.cfg.UncitedK {
			break
		}
		cd := &res.Candidates[i]
		v, err := c.deps.Local.Verify(ctx, base.Sentence, []judge.Passage{{N: 1, ID: cd.ID, Title: cd.Title, Text: cd.Text}})
		if err != nil {
			continue
		}
		switch {
		case v.Label == judge.Entailment && (best == nil || v.Confidence > bestV.Confidence):
			best, bestV = cd, v
		case v.Label == judge.Contradiction && (conflict == nil || v.Confidence > conflictV.Confidence):
			conflict, conflictV = cd, v
		}
	}
	f := base
	switch {
	case best != nil:
		f.Severity, f.Kind, f.Citation, f.Evidence = Info, FindMissingCitation, best.ID, bestV.Evidence
		f.Message = fmt.Sprintf("uncited claim: %s supports it (confidence %.2f)", candName(best), bestV.Confidence)
		f.Suggestion = "cite " + citeHint(best)
	case conflict != nil:
		f.Severity, f.Kind, f.Citation, f.Evidence = Warning, FindUncitedContradicts, conflict.ID, conflictV.Evidence
		f.Message = fmt.Sprintf("uncited claim: %s says otherwise (confidence %.2f)", candName(conflict), conflictV.Confidence)
		f.Suggestion = "check the claim against " + citeHint(conflict)
	default:
		f.Severity, f.Kind = Warning, FindUncitedClaim
		f.Message = "uncited claim: no corpus passage supports it"
		f.Suggestion = "cite a source or mark it as unverified"
	}
	return f, true
}

// audit runs the gauntlet's auditor over one normalised sentence and keeps
// what a document author should fix: broken footnote syntax, id-shaped
// tokens and raw corpus ids in prose.
func (c *Checker) audit(base Finding, text string, rs []resolved) []Finding {
	if c.deps.Spec == nil {
		return nil
	}
	cites := make([]gauntlet.Citation, len(rs))
	for i, r := range rs {
		cites[i] = gauntlet.Citation{N: i + 1, ID: r.p.ID}
		if len(r.slots) > 0 {
			ch := c.cat.p.Chunk(r.slots[0])
			cites[i].Address, cites[i].URL, cites[i].Title = ch.Address, ch.URL, ch.Title
		}
	}
	rep := c.deps.Spec.Audit(text, cites, c.cat.contains)
	var out []Finding
	for _, fd := range rep.Findings {
		f := base
		switch fd.Kind {
		case gauntlet.FindBroken:
			f.Severity, f.Kind = Warning, FindBrokenMarker
			f.Citation = clip(fd.Text, 40)
			f.Message = fmt.Sprintf("malformed footnote reference %q: write [^label] with no spaces", f.Citation)
		case gauntlet.FindLeakedID:
			f.Severity, f.Kind, f.Citation = Info, FindLeakedID, fd.Text
			if c.cat.contains(fd.Text) {
				f.Message = fmt.Sprintf("raw corpus id %q in prose", fd.Text)
				f.Suggestion = fmt.Sprintf("cite it as a footnote: [^%s]", fd.Text)
			} else {
				f.Message = fmt.Sprintf("internal id-shaped token %q in prose", fd.Text)
			}
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

func name(p judge.Passage) string {
	if p.Title != "" {
		return fmt.Sprintf("%s %q", p.ID, p.Title)
	}
	return p.ID
}

func candName(cd *retrieve.Candidate) string {
	if cd.Title != "" {
		return fmt.Sprintf("%s %q", cd.ID, cd.Title)
	}
	return cd.ID
}

func citeHint(cd *retrieve.Candidate) string {
	s := "[^" + cd.DocID + "]"
	if cd.URL != "" {
		s += " (" + cd.URL + ")"
	}
	return s
}

// sources names the cited passages of a claim: "[^boil] (water-1 "Boiling")".
func sources(nums []int, rs []resolved, cited map[int]judge.Passage) string {
	var parts []string
	for _, n := range nums {
		if p, ok := cited[n]; ok {
			parts = append(parts, fmt.Sprintf("%s (%s)", rs[n-1].label, name(p)))
		}
	}
	return strings.Join(parts, ", ")
}

func citeLabels(nums []int, rs []resolved, cited map[int]judge.Passage) string {
	var parts []string
	for _, n := range nums {
		if _, ok := cited[n]; ok {
			parts = append(parts, rs[n-1].label)
		}
	}
	return strings.Join(parts, " ")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func itoa(n int) string { return strconv.Itoa(n) }
