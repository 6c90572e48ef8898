package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/answer-guard/guard/index"
)

// chunkLine is one chunk as guard index chunks --json prints it.
type chunkLine struct {
	ID      string `json:"id"`
	DocID   string `json:"doc_id"`
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Address string `json:"address,omitempty"`
	URL     string `json:"url,omitempty"`
	Chars   int    `json:"chars"`
	Text    string `json:"text"`
}

// runIndexChunks lists the chunks of one partition of a snapshot in text
// order, with their titles and sizes: how the build cut and titled the
// corpus, which a citation, a note and a refusal's closest topics show.
// Operator trial 6 had no way to see it short of a query with a large --k.
func runIndexChunks(args []string) error {
	fs := flag.NewFlagSet("index chunks", flag.ContinueOnError)
	synopsis(fs, "guard index chunks --index DIR [--tenant T --kb K] [--doc ID] [--text | --json]")
	dir := fs.String("index", "", "snapshot dir")
	tenant := fs.String("tenant", index.DefaultTenant, "tenant")
	kb := fs.String("kb", index.DefaultKB, "knowledge base")
	doc := fs.String("doc", "", "only the chunks of this document id")
	text := fs.Bool("text", false, "print each chunk's text under its line")
	asJSON := fs.Bool("json", false, "print one JSON object per chunk (id, doc_id, title, kind, address, url, chars, text)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	case *dir == "":
		return usageErrorf(fs, "--index is required")
	case *text && *asJSON:
		return usageErrorf(fs, "give --text or --json, not both")
	}
	if err := checkSnapshotDir(*dir); err != nil {
		return err
	}
	snap, err := index.Load(*dir)
	if err != nil {
		return err
	}
	defer snap.Close()
	if err := checkPartition(snap, *dir, *tenant, *kb); err != nil {
		return err
	}
	enc := json.NewEncoder(cliOut)
	enc.SetEscapeHTML(false)
	tw := tabwriter.NewWriter(cliOut, 0, 0, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintln(tw, "id\tchars\ttitle")
	}
	n, docs := 0, map[string]bool{}
	for _, c := range snap.Partition(*tenant, *kb).Chunks() {
		if *doc != "" && c.DocID != *doc {
			continue
		}
		n++
		docs[c.DocID] = true
		chars := utf8.RuneCountInString(c.Text)
		if *asJSON {
			if err := enc.Encode(chunkLine{c.ID, c.DocID, c.Title, c.Kind, c.Address, c.URL, chars, c.Text}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.ID, chars, c.Title)
		if *text {
			tw.Flush()
			for _, l := range strings.Split(c.Text, "\n") {
				fmt.Fprintln(cliOut, strings.TrimRight("    "+l, " "))
			}
			fmt.Fprintln(cliOut)
		}
	}
	if *doc != "" && n == 0 {
		return fmt.Errorf("partition %s/%s of %s has no document %q", *tenant, *kb, *dir, *doc)
	}
	if *asJSON {
		return nil
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(cliOut, "# %s in %s (%s/%s)\n", plural(n, "chunk"), plural(len(docs), "document"), *tenant, *kb)
	return err
}
