package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheckAdress: guard config check names server.addr for the
// misspelling adress (address, which addr stands for, less a letter).
func TestConfigCheckAdress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "guard.yaml")
	if err := os.WriteFile(path, []byte("server:\n  adress: 127.0.0.1:8080\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"config", "check", "--config", path}, &out, &errb); code != 1 {
		t.Errorf("exit %d, want 1 (stderr %s)", code, errb.String())
	}
	if want := path + ":2: server.adress: unknown key (did you mean server.addr?)"; !strings.Contains(out.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", out.String(), want)
	}
}

// TestHelpHelp: guard help help (and help --help, help -h) is help, not
// an unknown command: the top usage on stdout, exit 0.
func TestHelpHelp(t *testing.T) {
	var want bytes.Buffer
	usage(&want)
	for _, args := range [][]string{{"help", "help"}, {"help", "--help"}, {"help", "-h"}, {"--help", "help"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 || out.String() != want.String() || errb.Len() != 0 {
			t.Errorf("guard %s: exit %d, stdout %.60q, stderr %.100q; want 0 and the top usage", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}
