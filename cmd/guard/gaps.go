package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/answer-guard/guard/operator"
)

func init() {
	register("gaps", "the gap queue of a running proxy: list it (refused, fallback, gap and off_topic questions), or resolve|dismiss|reopen ID", runGaps, gapsSubs...)
}

// gapsSubs are guard gaps's subcommands; without one, guard gaps lists.
var gapsSubs = []subcommand{
	{"resolve", func(_ context.Context, args []string) error { return runGapAction("resolve", args) }},
	{"dismiss", func(_ context.Context, args []string) error { return runGapAction("dismiss", args) }},
	{"reopen", func(_ context.Context, args []string) error { return runGapAction("reopen", args) }},
}

// runGaps prints GET /v1/guard/gaps of a running proxy, most frequent first;
// `guard gaps resolve ID` and `guard gaps dismiss ID` close an entry.
func runGaps(args []string) error {
	if len(args) > 0 {
		if sub := findSub(gapsSubs, args[0]); sub != nil {
			return sub.run(context.Background(), args[1:])
		}
	}
	fs := flag.NewFlagSet("gaps", flag.ContinueOnError)
	synopsis(fs, "guard gaps [--addr URL] [--status S] [--kind K] [--tenant T] [--kb K] [--limit N] [--json]", "guard gaps resolve|dismiss|reopen ID [--addr URL] [--note why]",
		"(a server with gaps.enabled: false has no queue: its turn log's refusals and fallbacks are listed, without ids)")
	addr := fs.String("addr", "http://127.0.0.1:8080", "the proxy's address (http://host:port, with or without /v1)")
	keyEnv := fs.String("key-env", "GUARD_ADMIN_KEY", "environment variable holding the admin key (needed when auth is on)")
	tenant := fs.String("tenant", "", "only this tenant")
	kb := fs.String("kb", "", "only this knowledge base")
	kind := fs.String("kind", "", "only this kind: refused | fallback | gap | off_topic (refused as outside the corpus, gate.off_topic: refuse)")
	status := fs.String("status", "open", "only this status: open | resolved | dismissed | all")
	limit := fs.Int("limit", 50, "at most this many entries")
	asJSON := fs.Bool("json", false, "print the JSON body")
	timeout := fs.Duration("timeout", 10*time.Second, "request timeout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if sub := findSub(gapsSubs, fs.Arg(0)); sub != nil {
			// guard gaps --addr URL resolve ID: the flags came first
			flagArgs := args[:len(args)-fs.NArg()]
			return sub.run(context.Background(), append(append([]string{}, fs.Args()[1:]...), flagArgs...))
		}
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *limit < 1 {
		return usageErrorf(fs, "--limit must be >= 1")
	}
	base := proxyBase(*addr)
	q := url.Values{}
	for k, v := range map[string]string{"tenant": *tenant, "kb": *kb, "kind": *kind, "status": *status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("limit", strconv.Itoa(*limit))
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	body, err := getGaps(ctx, fs, base, q, *keyEnv)
	if err != nil {
		return err
	}
	var list gapList
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("decode gaps: %w", err)
	}
	if list.Enabled != nil && !*list.Enabled {
		// gaps.enabled: false: the queue gathers nothing; the turn
		// log's refusals and fallbacks stand in, grouped by the server
		// as the queue files them, as in the console.
		fmt.Fprintln(cliErr, "guard gaps: the gap queue is off on this server (gaps.enabled: false): refusals and fallbacks from its turn log "+
			"(GET /v1/guard/gaps?source=turnlog), grouped by question, without ids to resolve; uncited claims (kind gap) are not there")
		q.Set("source", "turnlog")
		if body, err = getGaps(ctx, fs, base, q, *keyEnv); err != nil {
			return err
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return fmt.Errorf("decode gaps: %w", err)
		}
	}
	if *asJSON {
		_, err := cliOut.Write(body)
		return err
	}
	// a list of other than open entries says each one's status
	statusCol := func(string) string { return "" }
	if *status != "" && *status != "open" {
		statusCol = func(s string) string { return fmt.Sprintf("%-10s", s) }
	}
	fmt.Fprintf(cliOut, "%-6s %-9s %s%-20s %-20s %-20s %-8s %-16s %s\n", "count", "kind", statusCol("status"), "tenant/kb", "first seen", "last seen", "coverage", "id", "question or claim")
	for _, g := range list.Data {
		id := g.ID
		if id == "" {
			id = "-" // from the turn log: nothing to resolve
		}
		fmt.Fprintf(cliOut, "%-6d %-9s %s%-20s %-20s %-20s %-8.2f %-16s %s\n", g.Count, g.Kind, statusCol(g.Status), clip(g.Tenant+"/"+g.KB, 20),
			g.FirstSeen.Format("2006-01-02 15:04:05"), g.LastSeen.Format("2006-01-02 15:04:05"), g.CoverageMax, id, g.Text)
	}
	fmt.Fprintf(cliOut, "%d of %d entries\n", len(list.Data), list.Total)
	return nil
}

// gapList is the body of GET /v1/guard/gaps, its entries the operator
// plane's own type.
type gapList struct {
	Enabled *bool           `json:"enabled"` // absent from servers before it was added
	Source  string          `json:"source,omitempty"`
	Total   int             `json:"total"`
	ByKind  map[string]int  `json:"by_kind"`
	Data    []*operator.Gap `json:"data"`
}

// getGaps returns the body of GET /v1/guard/gaps?q from the proxy at
// base, sending $keyEnv (when set) as the bearer key. A bad --addr is a
// usage error of fs; a 401 says where the key came from.
func getGaps(ctx context.Context, fs *flag.FlagSet, base string, q url.Values, keyEnv string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/guard/gaps?"+q.Encode(), nil)
	if err != nil {
		return nil, usageErrorf(fs, "--addr: %v", err)
	}
	if k := os.Getenv(keyEnv); k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get gaps: %w%s", err, dialHint(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("read gaps: %w", err)
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("get gaps: %s: %s%s", resp.Status, errorText(body), keyHint(resp.StatusCode, keyEnv))
	}
	return body, nil
}

// proxyBase is the proxy's root URL from --addr (http://host:port, with or
// without /v1).
func proxyBase(addr string) string {
	base := strings.TrimRight(addr, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	return strings.TrimSuffix(base, "/v1")
}

// runGapAction is `guard gaps resolve|dismiss|reopen ID`: POST
// /v1/guard/gaps/ID/ACTION.
func runGapAction(action string, args []string) error {
	fs := flag.NewFlagSet("gaps "+action, flag.ContinueOnError)
	synopsis(fs, "guard gaps "+action+" ID [--addr URL] [--note why]   (ID: the id column of guard gaps)")
	addr := fs.String("addr", "http://127.0.0.1:8080", "the proxy's address (http://host:port, with or without /v1)")
	keyEnv := fs.String("key-env", "GUARD_ADMIN_KEY", "environment variable holding the admin key (needed when auth is on)")
	note := fs.String("note", "", "why (kept with the entry)")
	timeout := fs.Duration("timeout", 10*time.Second, "request timeout")
	ids, err := parseInterspersed(fs, args) // guard gaps resolve ID --note why
	if err != nil {
		return err
	}
	if len(ids) != 1 || strings.TrimSpace(ids[0]) == "" || strings.ContainsAny(ids[0], "/?#") {
		got := "none"
		if len(ids) > 0 {
			q := make([]string, len(ids))
			for i, id := range ids {
				q[i] = strconv.Quote(id)
			}
			got = strings.Join(q, " ")
		}
		return usageErrorf(fs, "want one entry id (the id column of guard gaps), got %s", got)
	}
	id := ids[0]
	body, _ := json.Marshal(map[string]string{"note": *note})
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", proxyBase(*addr)+"/v1/guard/gaps/"+url.PathEscape(id)+"/"+action, bytes.NewReader(body))
	if err != nil {
		return usageErrorf(fs, "--addr: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if k := os.Getenv(*keyEnv); k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s gap: %w%s", action, err, dialHint(err))
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s gap %s: %s: %s%s", action, id, resp.Status, errorText(out), keyHint(resp.StatusCode, *keyEnv))
	}
	var res struct {
		Gap operator.Gap `json:"gap"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	fmt.Fprintf(cliOut, "%s %s (%s/%s, %s): %s\n", res.Gap.ID, res.Gap.Status, res.Gap.Tenant, res.Gap.KB, res.Gap.Kind, res.Gap.Text)
	return nil
}

// dialHint says what a refused connection most often means here: the
// proxy listens elsewhere (server.addr of its config, or serve --addr) and
// --addr kept its default.
func dialHint(err error) string {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	return " (is guard serve running there? give its address with --addr: server.addr of its config, or serve's --addr)"
}

// keyHint says where the key of a 401 from the operator routes came from:
// an environment variable, which a new operator may not have set. (A 403
// explains itself: a tenant key where an admin key is needed.)
// errorText returns the message of an OpenAI error body
// {"error":{"message","code"}} as "message (code)", or the body as it is
// when it is not one.
func errorText(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Message == "" {
		return strings.TrimSpace(string(body))
	}
	if e.Error.Code == "" {
		return e.Error.Message
	}
	return e.Error.Message + " (" + e.Error.Code + ")"
}

func keyHint(status int, keyEnv string) string {
	if status != http.StatusUnauthorized {
		return ""
	}
	if os.Getenv(keyEnv) == "" {
		return fmt.Sprintf(" (no key was sent: put an admin key (auth.admin_keys) in $%s, or name another variable with --key-env)", keyEnv)
	}
	return fmt.Sprintf(" (the key sent was $%s's)", keyEnv)
}
