package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A corpus url that is not http(s) is dropped (a citation hands it to chat
// apps as a link); markup in a title is removed, entities decoded first.
func TestDocURLAndTitleSanitized(t *testing.T) {
	for _, tc := range []struct {
		line, url, title, dropped string
	}{
		{`{"id":"a","text":"t","url":"https://ex.org/a?b=1#c","title":"Pool & gym"}`, "https://ex.org/a?b=1#c", "Pool & gym", ""},
		{`{"id":"a","text":"t","url":"HTTP://ex.org/"}`, "HTTP://ex.org/", "", ""},
		{`{"id":"a","text":"t","url":"javascript:alert(1)"}`, "", "", "javascript"},
		{`{"id":"a","text":"t","url":" JavaScript:alert(1)"}`, "", "", "javascript"},
		{`{"id":"a","text":"t","url":"data:text/html,<b>x</b>"}`, "", "", "data"},
		{`{"id":"a","text":"t","url":"//ex.org/a"}`, "", "", "(none)"},
		{`{"id":"a","text":"t","url":"https:///nohost"}`, "", "", "https"},
		{`{"id":"a","text":"t","title":"<b>Pool</b> hours<script>alert(1)</script>"}`, "", "Pool hours", ""},
		{`{"id":"a","text":"t","title":"&lt;img src=x onerror=alert(1)&gt;Lockers"}`, "", "Lockers", ""},
		{`{"id":"a","text":"t","title":"a < b > c"}`, "", "a b c", ""},
	} {
		d, err := parseDocLine([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if d.URL != tc.url || d.Title != tc.title || d.droppedScheme != tc.dropped {
			t.Errorf("%s: url %q title %q dropped %q, want %q %q %q", tc.line, d.URL, d.Title, d.droppedScheme, tc.url, tc.title, tc.dropped)
		}
	}
}

// A build warns once per dropped url, naming the document and the scheme,
// and the snapshot's chunks carry no such url.
func TestBuildWarnsDroppedURL(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(src, []byte(`{"id":"evil","text":"Pool opens at seven every morning.","url":"javascript:alert(1)","title":"<i>Pool</i>"}`+"\n"+
		`{"id":"good","text":"The gym opens at eight.","url":"https://ex.org/gym"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	out := filepath.Join(dir, "snap")
	if _, err := Build(context.Background(), DefaultConfig(), []string{src}, nil, out, zap.New(core)); err != nil {
		t.Fatal(err)
	}
	w := logs.FilterMessageSnippet("url dropped").All()
	if len(w) != 1 || w[0].ContextMap()["doc"] != "evil" || w[0].ContextMap()["scheme"] != "javascript" {
		t.Errorf("warnings %+v, want one for doc evil, scheme javascript", w)
	}
	s, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range s.Partition(DefaultTenant, DefaultKB).Chunks() {
		if strings.Contains(c.URL, "javascript") || strings.ContainsAny(c.Title, "<>") {
			t.Errorf("chunk %s: url %q title %q", c.ID, c.URL, c.Title)
		}
	}
}
