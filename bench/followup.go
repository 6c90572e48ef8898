package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// The follow-up suite (guard bench quality --followup): two-turn chats over
// three dev corpora of bench/testdata/gate, sent over HTTP through the real
// proxy (the guard pipeline, the simulated upstream), once with
// retrieve.followup off (the last user message read alone, as before) and
// once on. Each conversation's second message is one of:
//
//   - followup: it leans on the first ("and on sunday?"); it should be
//     grounded with a labelled passage among the citations;
//   - standalone: a new on-topic question; it should ground on its
//     labelled passage, and the rule should not change its outcome;
//   - offtopic: a switch off the corpus's topic ("thanks! what's the
//     capital of france?"); it must not be grounded.
//
// The set is dev data: it was written for this rule and may be looked at.

// FollowupConv is one conversation of the set.
type FollowupConv struct {
	ID     string `json:"id"`
	Corpus string `json:"corpus"` // a folder of bench/testdata/gate
	Class  string `json:"class"`  // followup, standalone or offtopic
	// Turns are the user's two messages; the assistant's answer between
	// them is the proxy's own answer to the first.
	Turns     []string `json:"turns"`
	AnswerIDs []string `json:"answer_ids"` // documents that answer the second message
}

// FollowupOutcome is what the proxy did with a conversation's second
// message under one setting.
type FollowupOutcome struct {
	Decision string   `json:"decision"`
	Cited    []string `json:"cited"` // cited document ids, sorted
	First    string   `json:"first"` // the document of the answer's first citation ("" when none)
	Query    string   `json:"query,omitempty"`
}

// FollowupRow is one conversation's outcomes, rule off and on.
type FollowupRow struct {
	Conv    FollowupConv
	Off, On FollowupOutcome
}

// right reports whether o is what the conversation's class wants.
func (r FollowupRow) right(o FollowupOutcome) bool {
	if r.Conv.Class == "offtopic" {
		return o.Decision != "ground"
	}
	return o.Decision == "ground" && slices.ContainsFunc(o.Cited, func(id string) bool { return slices.Contains(r.Conv.AnswerIDs, id) })
}

// rightFirst is right with the answer's first citation a labelled passage
// (offtopic: as right).
func (r FollowupRow) rightFirst(o FollowupOutcome) bool {
	if r.Conv.Class == "offtopic" {
		return r.right(o)
	}
	return o.Decision == "ground" && slices.Contains(r.Conv.AnswerIDs, o.First)
}

// unchanged reports whether the rule left the outcome as it was.
func (r FollowupRow) unchanged() bool {
	return r.Off.Decision == r.On.Decision && slices.Equal(r.Off.Cited, r.On.Cited)
}

// followupSetPath is the set seen from the repository root or package
// bench: beside the gate's dev corpora.
func followupSetPath() string {
	return filepath.Join(filepath.Dir(gateDevDir()), "followup", "conversations.jsonl")
}

// ReadFollowupSet reads a conversations file.
func ReadFollowupSet(path string) ([]FollowupConv, error) {
	var out []FollowupConv
	err := readJSONL(path, func(line []byte) error {
		var c FollowupConv
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		if len(c.Turns) != 2 || c.Corpus == "" || (c.Class != "offtopic" && len(c.AnswerIDs) == 0) {
			return errors.New("want two turns, a corpus and (but for offtopic) answer_ids")
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FollowupQuality runs the set through a proxy with the rule off and one
// with it on and writes the table to w.
func FollowupQuality(ctx context.Context, w io.Writer) ([]FollowupRow, error) {
	convs, err := ReadFollowupSet(followupSetPath())
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "guard-followup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// One snapshot, each corpus its own tenant.
	var docs []index.Doc
	seen := map[string]bool{}
	for _, c := range convs {
		if seen[c.Corpus] {
			continue
		}
		seen[c.Corpus] = true
		ds, _, err := index.ReadDocs([]string{filepath.Join(gateDevDir(), c.Corpus, "corpus.jsonl")}, true)
		if err != nil {
			return nil, err
		}
		for i := range ds {
			ds[i].Tenant, ds[i].KB = c.Corpus, index.DefaultKB
		}
		docs = append(docs, ds...)
	}
	snap := filepath.Join(tmp, "snap")
	if _, err := index.BuildDocs(ctx, proxy.DefaultConfig().Stages.Index, docs, nil, snap, zap.NewNop()); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	servers := [2]*InProcess{}
	for i, on := range []bool{false, true} {
		mcfg := mockllm.DefaultConfig()
		mcfg.Pace = 0
		ip, err := StartInProcess(mcfg, func(c *proxy.Config) {
			c.Pipeline.Index = snap
			c.Stages.Retrieve.Followup = on
		}, nil)
		if err != nil {
			return nil, err
		}
		defer ip.Close()
		servers[i] = ip
	}
	rows := make([]FollowupRow, 0, len(convs))
	for _, c := range convs {
		// The first turn is the same under both settings (nothing before
		// it): its answer is the assistant's message of the second.
		first, _, err := followupChat(ctx, servers[1].ProxyURL, c.Corpus, c.Turns[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.ID, err)
		}
		row := FollowupRow{Conv: c}
		for i, o := range []*FollowupOutcome{&row.Off, &row.On} {
			if _, *o, err = followupChat(ctx, servers[i].ProxyURL, c.Corpus, c.Turns[0], first, c.Turns[1]); err != nil {
				return nil, fmt.Errorf("%s: %w", c.ID, err)
			}
		}
		rows = append(rows, row)
	}
	WriteFollowupReport(w, rows)
	return rows, nil
}

// followupChat posts one non-stream chat completion of turns (user and
// assistant alternating) to the partition tenant/default and returns the
// answer and the guard object's outcome.
func followupChat(ctx context.Context, base, tenant string, turns ...string) (string, FollowupOutcome, error) {
	msgs := make([]map[string]string, len(turns))
	for i, t := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = map[string]string{"role": role, "content": t}
	}
	body, _ := json.Marshal(map[string]any{"model": "mock-1", "messages": msgs})
	_, text, g, err := askTenant(ctx, http.DefaultClient, base+"/chat/completions", tenant, body, false)
	if err != nil {
		return "", FollowupOutcome{}, err
	}
	o := FollowupOutcome{Decision: g.Decision, Query: g.Query}
	for _, c := range g.Citations {
		doc, _, _ := strings.Cut(c.ID, "#") // a chunk's id is its document's, or DOC#n
		if o.First == "" {
			o.First = doc
		}
		if !slices.Contains(o.Cited, doc) {
			o.Cited = append(o.Cited, doc)
		}
	}
	slices.Sort(o.Cited)
	return text, o, nil
}

// WriteFollowupReport writes the per-class table and the rows whose
// outcome the rule changed or that are wrong after it.
func WriteFollowupReport(w io.Writer, rows []FollowupRow) {
	type tally struct{ n, off, on, offFirst, onFirst, fired, unchanged int }
	classes := []string{"followup", "standalone", "offtopic"}
	t := map[string]*tally{}
	for _, c := range classes {
		t[c] = &tally{}
	}
	for _, r := range rows {
		k := t[r.Conv.Class]
		if k == nil {
			continue
		}
		k.n++
		if r.right(r.Off) {
			k.off++
		}
		if r.right(r.On) {
			k.on++
		}
		if r.rightFirst(r.Off) {
			k.offFirst++
		}
		if r.rightFirst(r.On) {
			k.onFirst++
		}
		if r.On.joined() {
			k.fired++
		}
		if r.unchanged() {
			k.unchanged++
		}
	}
	fmt.Fprintf(w, "Follow-up set: %s (%d two-turn conversations; dev data). Right: followup and standalone grounded citing a labelled passage; offtopic not grounded.\n\n", filepath.ToSlash(followupSetPath()), len(rows))
	fmt.Fprintln(w, "| second message | n | right, rule off | right, rule on | first citation right, off | first citation right, on | rule fired | outcome unchanged |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, c := range classes {
		k := t[c]
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", c, k.n, k.off, k.on, k.offFirst, k.onFirst, k.fired, k.unchanged)
	}
	fmt.Fprintln(w, "\nRows changed by the rule or wrong with it on:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| id | class | second message | off | on | fired |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		if r.unchanged() && r.right(r.On) {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s %v | %s %v | %v |\n", r.Conv.ID, r.Conv.Class, r.Conv.Turns[1],
			r.Off.Decision, r.Off.Cited, r.On.Decision, r.On.Cited, r.On.joined())
	}
}

// joined reports whether the turn's query joined the previous user message
// to the last (guard.query also shows a last message gate.Focus trimmed,
// "thanks! what's ..." read as "what's ...", which is no follow-up).
func (o FollowupOutcome) joined() bool { return strings.Contains(o.Query, "\n") }
