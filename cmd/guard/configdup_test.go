package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckDuplicateLists: a KB listed twice for a key, a model
// allowed twice, a pattern or a kind word given twice is a problem with
// its line, in guard config check as in guard serve.
func TestConfigCheckDuplicateLists(t *testing.T) {
	const text = `server:
  addr: 127.0.0.1:8080
auth:
  keys:
    - name: shop
      sha256: 0000000000000000000000000000000000000000000000000000000000000001
      tenant: shop
      kbs: [faq, faq]
models:
  allow: [m1, m2, m1]
`
	path := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "config", "check", path)
	want := []string{
		path + `:8: auth.keys[0].kbs[1]: "faq" is listed twice (first at line 8); list each once`,
		path + `:10: models.allow[2]: "m1" is listed twice (first at line 10); list each once`,
		path + `: 2 problems`,
	}
	if got := strings.TrimSpace(out); code != 1 || got != strings.Join(want, "\n") {
		t.Errorf("config check: exit %d, stdout:\n%s\nstderr %q\nwant exit 1 and:\n%s", code, got, errOut, strings.Join(want, "\n"))
	}
	// guard serve reads the file the same way (loadFile) and refuses it.
	if _, err := loadFile(path); err == nil || !strings.Contains(err.Error(), `"faq" is listed twice`) {
		t.Errorf("loadFile: %v; want the problem", err)
	}
}
