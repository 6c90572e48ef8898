package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckOnceWithSuggestion: guard config check on the real
// configuration reports one mistake once (kbs: k is not also "no kb";
// sha is not also a missing sha256) and names the key a misspelling
// meant, however it was misspelt.
func TestConfigCheckOnceWithSuggestion(t *testing.T) {
	const text = `server:
  maxBodyBytes: 100
  timeout: 1s
auth:
  enabled: true
  keys:
    - name: k1
      sha: abc
      tenant: t
      kbs: k
gaps:
  reask: 3
  max_entry: 3
turnlog:
  persist:
    directory: /tmp/x
state:
  redis: redis://127.0.0.1:1
`
	path := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2: server.maxBodyBytes: unknown key (did you mean server.max_body_bytes?)",
		"3: server.timeout: unknown key (did you mean server.idle_timeout or server.read_timeout?)",
		"8: auth.keys[0].sha: unknown key (did you mean auth.keys[0].sha256?)",
		`10: auth.keys[0].kbs: must be a list, got "k"`,
		"12: gaps.reask: unknown key (did you mean gaps.reask_limit?)",
		"13: gaps.max_entry: unknown key (did you mean gaps.max_entries?)",
		"16: turnlog.persist.directory: unknown key (did you mean turnlog.persist.dir?)",
		"18: state.redis: unknown key (did you mean state.redis_flush, state.redis_ttl or state.redis_url?)",
		" 8 problems",
	}
	for i := range want {
		want[i] = path + ":" + want[i]
	}
	var out, errb bytes.Buffer
	if code := run([]string{"config", "check", "--config", path}, &out, &errb); code != 1 {
		t.Errorf("exit %d, want 1 (stderr %s)", code, errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// TestConfigCheckPositional: guard config check F reads F as --config F
// does; a second file, or one beside --config, is a usage error.
func TestConfigCheckPositional(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(path, []byte("gate:\n  prefloor: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var flagged, positional, errb bytes.Buffer
	if code := run([]string{"config", "check", "--config", path}, &flagged, &errb); code != 1 {
		t.Fatalf("--config F: exit %d, want 1", code)
	}
	if code := run([]string{"config", "check", path}, &positional, &errb); code != 1 || positional.String() != flagged.String() {
		t.Errorf("config check F: exit %d\n%s\nwant 1 and what --config F printed\n%s", code, positional.String(), flagged.String())
	}
	for _, args := range [][]string{{"config", "check", path, path}, {"config", "check", "--config", path, path}} {
		errb.Reset()
		if code := run(args, &positional, &errb); code != 2 || !strings.Contains(errb.String(), "unexpected argument") {
			t.Errorf("guard %s: exit %d, stderr %q; want 2 and the stray argument", strings.Join(args, " "), code, errb.String())
		}
	}
}
