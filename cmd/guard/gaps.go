package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

func init() {
	register("gaps", "list the gap queue of a running proxy (refused, fallback and gap questions)", runGaps)
}

// runGaps prints GET /v1/guard/gaps of a running proxy, most frequent first.
func runGaps(args []string) error {
	fs := flag.NewFlagSet("gaps", flag.ContinueOnError)
	addr := fs.String("addr", "http://127.0.0.1:8080", "the proxy's address (http://host:port, with or without /v1)")
	keyEnv := fs.String("key-env", "GUARD_ADMIN_KEY", "environment variable holding the admin key (needed when auth is on)")
	tenant := fs.String("tenant", "", "only this tenant")
	kb := fs.String("kb", "", "only this knowledge base")
	kind := fs.String("kind", "", "only this kind: refused | fallback | gap")
	limit := fs.Int("limit", 50, "at most this many entries")
	asJSON := fs.Bool("json", false, "print the JSON body")
	timeout := fs.Duration("timeout", 10*time.Second, "request timeout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *limit < 1 {
		return usageErrorf(fs, "--limit must be >= 1")
	}
	base := strings.TrimRight(*addr, "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		base = "http://" + base
	}
	base = strings.TrimSuffix(base, "/v1")
	q := url.Values{}
	for k, v := range map[string]string{"tenant": *tenant, "kb": *kb, "kind": *kind} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("limit", strconv.Itoa(*limit))
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/guard/gaps?"+q.Encode(), nil)
	if err != nil {
		return usageErrorf(fs, "--addr: %v", err)
	}
	if k := os.Getenv(*keyEnv); k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("get gaps: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("read gaps: %w", err)
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("get gaps: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	if *asJSON {
		_, err := cliOut.Write(body)
		return err
	}
	var list struct {
		Total int `json:"total"`
		Data  []struct {
			Tenant, KB, Kind, Text, Question string
			Count                            int
			FirstSeen                        time.Time `json:"first_seen"`
			LastSeen                         time.Time `json:"last_seen"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("decode gaps: %w", err)
	}
	fmt.Fprintf(cliOut, "%-6s %-9s %-20s %-20s %-20s %s\n", "count", "kind", "tenant/kb", "first seen", "last seen", "question or claim")
	for _, g := range list.Data {
		fmt.Fprintf(cliOut, "%-6d %-9s %-20s %-20s %-20s %s\n", g.Count, g.Kind, clip(g.Tenant+"/"+g.KB, 20),
			g.FirstSeen.Format("2006-01-02 15:04:05"), g.LastSeen.Format("2006-01-02 15:04:05"), g.Text)
	}
	fmt.Fprintf(cliOut, "%d of %d entries\n", len(list.Data), list.Total)
	return nil
}
