package main

import (
	"bytes"
	"flag"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// helpWalk is every command line a new operator can ask help of: each
// registered command and each subcommand in its table, the one its run
// dispatches from, so a new one cannot be left out.
func helpWalk() [][]string {
	var walk [][]string
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		walk = append(walk, []string{name})
		for _, s := range commands[name].subs {
			walk = append(walk, []string{name, s.name})
		}
	}
	return walk
}

// ownFlags are the commands with subcommands that also take flags of
// their own without one (guard gaps lists the queue).
var ownFlags = map[string]bool{"gaps": true}

// helpLeaves are the command lines of helpWalk that parse flags: every
// subcommand, every command without subcommands, and those of ownFlags.
func helpLeaves() [][]string {
	var out [][]string
	for _, c := range helpWalk() {
		if len(c) > 1 || commands[c[0]].subs == nil || ownFlags[c[0]] {
			out = append(out, c)
		}
	}
	return out
}

// TestHelpWalkFindsEverySubcommand: the walk holds the subcommands an
// operator reads of in guard's usage, index chunks among them.
func TestHelpWalkFindsEverySubcommand(t *testing.T) {
	walked := map[string]bool{}
	for _, c := range helpWalk() {
		walked[strings.Join(c, " ")] = true
	}
	for _, c := range []string{"index chunks", "index audit", "index build", "gaps resolve", "gaps reopen", "config check", "bench answers"} {
		if !walked[c] {
			t.Errorf("guard %s is not in the help walk", c)
		}
	}
}

// TestHelpAnywhere: help, --help or -h anywhere among a command's
// arguments prints that command's usage on stdout and exits 0 (guard gaps
// resolve help is not a gap id); after "--" it is an argument; an
// unknown flag anywhere exits 2.
func TestHelpAnywhere(t *testing.T) {
	for _, c := range helpLeaves() {
		name := strings.Join(c, " ")
		line := func(rest ...string) []string { return append(slices.Clone(c), rest...) }
		var want bytes.Buffer
		if code := run(line("--help"), &want, io.Discard); code != 0 {
			t.Fatalf("guard %s --help: exit %d", name, code)
		}
		for _, args := range [][]string{line("help"), line("x", "help"), line("x", "-h"), line("x", "--help"), line("--bogus", "help")} {
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 0 || out.String() != want.String() || errb.Len() != 0 {
				t.Errorf("guard %s: exit %d, stdout %.60q, stderr %.100q; want 0 and the usage of --help", strings.Join(args, " "), code, out.String(), errb.String())
			}
		}
		for _, args := range [][]string{line("--bogus"), line("x", "--bogus")} {
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "usage") {
				t.Errorf("guard %s: exit %d, stdout %.60q, stderr %.100q; want 2 and the usage on stderr", strings.Join(args, " "), code, out.String(), errb.String())
			}
		}
	}
}

// TestWantsHelp: a flag's value and what follows "--" are not help.
func TestWantsHelp(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("note", "", "")
	fs.Bool("json", false, "")
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"id", "--note", "help"}, false},
		{[]string{"id", "--note=help"}, false},
		{[]string{"--json", "help"}, true},
		{[]string{"id", "--", "help"}, false},
		{[]string{"id", "-h"}, true},
		{[]string{"--unknown", "help"}, true},
		{[]string{"id"}, false},
	} {
		if got := wantsHelp(fs, tt.args); got != tt.want {
			t.Errorf("wantsHelp(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestHelpWalk walks guard's help as a new operator would: guard --help
// and every command's and subcommand's --help, -h and guard help CMD
// exit 0 with the same usage on stdout and nothing on stderr; an unknown
// flag exits 2 with the problem and the usage on stderr; so does guard
// --version with anything after it but --help.
func TestHelpWalk(t *testing.T) {
	do := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, c := range helpWalk() {
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
