package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexQueryMarkdownSection: a Markdown page's sections are chunks of
// their own, titled "Page: Section", and index query finds one by its
// heading's words; no Markdown markup reaches the notes, and an ordered
// list's numbers do.
func TestIndexQueryMarkdownSection(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"desktop.md": "# Desktop app\n\n## Installing on Windows\n\n1. Download the installer from the [downloads page](https://driftwood.example/download).\n2. Run `DriftwoodSetup.exe` and follow the steps.\n3. Choose the folders to back up; *Pictures* is chosen for you.\n\nThe app starts with Windows and waits in the notification area; Windows 10 or later is needed.\n\n## Installing on macOS\n\nDrag the app to **Applications**, then allow it in System Settings > Privacy so it can read your photo library. <!-- check Sonoma --> Apple silicon and Intel Macs both work; macOS 13 or later is needed. The app checks for updates itself.\n",
		"refunds.md": "# Refunds\n\nPaid on the website? Ask for a full refund within 14 days of the charge.",
		"storage.md": "# How much you can store\n\n| Plan | Storage |\n|---|---|\n| Free | 5 GB |\n| Pro | 2 TB |\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap := filepath.Join(t.TempDir(), "snap")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", dir, "--out", snap); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "index", "query", "--index", snap, "--json", "--k", "1", "installing on macOS")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"id": "desktop.md#2"`, `"title": "Desktop app: Installing on macOS"`, `"text": "Installing on macOS\n\nDrag the app to Applications, then`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("query output lacks %s:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = runCLI(t, "index", "query", "--index", snap, "--json", "--k", "5", "install windows storage plan")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, stderr)
	}
	for _, bad := range []string{"**", "](", "<!--", "| ", "`"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("query output holds markup %q:\n%s", bad, stdout)
		}
	}
	// An ordered list keeps its numbers, as the page shows them.
	if want := `1. Download the installer from the downloads page.\n2. Run DriftwoodSetup.exe`; !strings.Contains(stdout, want) {
		t.Errorf("query output lacks the numbered steps %s:\n%s", want, stdout)
	}
	if !strings.Contains(stdout, `Plan, Storage\nFree, 5 GB`) {
		t.Errorf("the table is not plain lines:\n%s", stdout)
	}
}
