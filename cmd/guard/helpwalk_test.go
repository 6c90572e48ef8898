package main

import (
	"bytes"
	"strings"
	"testing"
)

// helpWalk is every command line a new operator can ask help of: each
// registered command and its subcommands.
var helpWalk = [][]string{
	{"serve"}, {"check"}, {"judge"}, {"mockllm"},
	{"config"}, {"config", "check"},
	{"gaps"}, {"gaps", "resolve"}, {"gaps", "dismiss"}, {"gaps", "reopen"},
	{"index"}, {"index", "build"}, {"index", "add"}, {"index", "query"}, {"index", "calibrate"}, {"index", "audit"},
	{"bench"}, {"bench", "load"}, {"bench", "quality"}, {"bench", "chaos"}, {"bench", "answers"},
}

// TestHelpWalk walks guard's help as a new operator would: guard --help
// and every command's and subcommand's --help, -h and guard help CMD
// exit 0 with the same usage on stdout and nothing on stderr; an unknown
// flag exits 2 with the problem and the usage on stderr; so does guard
// --version with anything after it but --help.
func TestHelpWalk(t *testing.T) {
	walked := map[string]bool{}
	for _, c := range helpWalk {
		walked[c[0]] = true
	}
	for name := range commands {
		if !walked[name] {
			t.Errorf("command %s is not in helpWalk: add it and its subcommands", name)
		}
	}
	do := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, c := range helpWalk {
		name := strings.Join(c, " ")
		code, usage, stderr := do(append(append([]string{}, c...), "--help")...)
		if code != 0 || !strings.HasPrefix(usage, "usage:") || stderr != "" {
			t.Errorf("guard %s --help: exit %d, stdout %.60q, stderr %.60q; want 0, the usage, nothing", name, code, usage, stderr)
			continue
		}
		for _, alt := range [][]string{append(append([]string{}, c...), "-h"), append([]string{"help"}, c...)} {
			if code, out, stderr := do(alt...); code != 0 || out != usage || stderr != "" {
				t.Errorf("guard %s: exit %d, stdout %.60q, stderr %.60q; want 0 and the usage of --help", strings.Join(alt, " "), code, out, stderr)
			}
		}
		if code, out, stderr := do(append(append([]string{}, c...), "--bogus")...); code != 2 || out != "" || !strings.Contains(stderr, "bogus") || !strings.Contains(stderr, "usage:") {
			t.Errorf("guard %s --bogus: exit %d, stdout %.60q, stderr %.200q; want 2, the problem and the usage on stderr", name, code, out, stderr)
		}
	}
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string // prefix
		stderr string // prefix
	}{
		{[]string{"--help"}, 0, "usage: guard <command>", ""},
		{[]string{"help"}, 0, "usage: guard <command>", ""},
		{[]string{"--bogus"}, 2, "", `guard: unknown command "--bogus"`},
		{[]string{"help", "bogus"}, 2, "", `guard help: unknown command "bogus"`},
		{[]string{"--version", "--help"}, 0, "usage: guard --version", ""},
		{[]string{"--version", "--bogus"}, 2, "", `guard --version: unexpected argument "--bogus"`},
		{[]string{"--version"}, 0, "guard ", ""},
	} {
		code, out, stderr := do(tt.args...)
		if code != tt.code || !strings.HasPrefix(out, tt.stdout) || !strings.HasPrefix(stderr, tt.stderr) || (tt.stdout == "") != (out == "") || (tt.stderr == "") != (stderr == "") {
			t.Errorf("guard %s: exit %d, stdout %.60q, stderr %.60q; want %d, %q..., %q...", strings.Join(tt.args, " "), code, out, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}
