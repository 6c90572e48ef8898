package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexBuildHTMLPages: guard index build over a folder mixing HTML
// pages (a help centre's export, site chrome and all) and Markdown reads
// both, says nothing of the HTML pages as not indexed, and index query
// finds an HTML page's section (its short lead merged in) titled "Page: Section", its table as plain
// rows, without markup or chrome.
func TestIndexBuildHTMLPages(t *testing.T) {
	dir := t.TempDir()
	chrome := func(title, body string) string {
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + title + `</title><link rel="canonical" href="https://help.driftwood.example/` + strings.ToLower(strings.Fields(title)[0]) + `"><script>track()</script></head><body>` +
			`<header><a href="/">Driftwood Help</a><nav><a href="/billing">Billing</a> <a href="/desktop">Desktop</a></nav></header>` +
			`<article>` + body + `</article><footer>&copy; 2026 Driftwood Ltd &middot; <a href="/privacy">Privacy</a></footer></body></html>`
	}
	files := map[string]string{
		"plans.html": chrome("Plans and prices", `<h1>Plans and prices</h1><p>Every plan includes unlimited devices.</p>`+
			`<h2>Monthly prices</h2><table><tr><th>Plan</th><th>Storage</th><th>Price</th></tr><tr><td>Free</td><td>5&nbsp;GB</td><td>&pound;0</td></tr><tr><td>Plus</td><td>200 GB</td><td>&pound;2.99</td></tr><tr><td>Pro</td><td>2 TB</td><td>&pound;9.99</td></tr></table>`+
			`<p>Prices include VAT &amp; are charged on the day you subscribe; the Pro plan can be shared with up to five family members living with you.</p>`+
			`<h2>Changing plan</h2><ol><li>Open <b>Account</b> &gt; <b>Plan</b>.</li><li>Choose the new plan.<ul><li>Upgrades start at once.</li><li>Downgrades start at the next renewal.</li></ul></li><li>Confirm with your password.</li></ol><p>A downgrade never deletes photos: those over the new limit stay safe but new ones wait on your phone until there is room again.</p>`),
		"refunds.htm": chrome("Refunds", `<h1>Refunds</h1><p>Paid on the website? Ask for a full refund within 14 days of the charge.</p>`),
		"faces.md":    "# Face grouping\n\nFace grouping is off until you turn it on in Settings > Privacy.",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := filepath.Join(t.TempDir(), "snap")
	code, stdout, stderr := runCLI(t, "index", "build", "--corpus", dir, "--out", snap)
	if code != 0 || !strings.Contains(stdout, "snapshot "+snap+": 3 docs") || strings.Contains(stderr, "not indexed") {
		t.Fatalf("build: exit %d, stdout %q, stderr %q; want 3 docs and nothing left out", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "index", "query", "--index", snap, "--json", "--k", "1", "how much is the Plus plan per month")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"id": "plans.html#1"`, `"title": "Plans and prices: Monthly prices"`, `"url": "https://help.driftwood.example/plans"`,
		`Plan, Storage, Price\nFree, 5 GB, £0\nPlus, 200 GB, £2.99`, `Prices include VAT \u0026 are charged`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("query output lacks %s:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = runCLI(t, "index", "query", "--index", snap, "--json", "--k", "5", "change plan downgrade refund privacy")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	if want := `1. Open Account \u003e Plan.\n2. Choose the new plan.\nUpgrades start at once.\nDowngrades start at the next renewal.\n3. Confirm`; !strings.Contains(stdout, want) {
		t.Errorf("query output lacks the numbered steps %s:\n%s", want, stdout)
	}
	for _, bad := range []string{`\u003c`, "&amp;", "&gt;", "| ", "**", "Driftwood Help", "track()", "2026 Driftwood Ltd"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("query output holds markup or chrome %q:\n%s", bad, stdout)
		}
	}
}
