// Command guard is the answer-guard binary: the streaming answer-guard proxy
// and its tools (index, judge, bench, check, mockllm).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/answer-guard/guard/internal/confcheck"
)

// command is one subcommand. Files in this package register theirs in init,
// so each concern (serve, index, bench, ...) lives in its own file.
type command struct {
	summary string
	run     func(args []string) error
	// subs are its subcommands (guard index build), the table its run
	// dispatches from; nil for a command without.
	subs []subcommand
}

// subcommand is one subcommand of a command (build of guard index): run
// gets the arguments after its name and the command's context.
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string) error
}

var commands = map[string]command{}

// register adds a command, with the table of its subcommands if it has
// any (the one its run dispatches from through findSub).
func register(name, summary string, run func(args []string) error, subs ...subcommand) {
	commands[name] = command{summary: summary, run: run, subs: subs}
}

// findSub returns the subcommand of subs named name, nil when none is.
func findSub(subs []subcommand, name string) *subcommand {
	for i := range subs {
		if subs[i].name == name {
			return &subs[i]
		}
	}
	return nil
}

// subNames lists the names of subs as "a, b or c".
func subNames(subs []subcommand) string {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: guard <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n  guard --version    version, commit, Go version and embedded model checksums")
	fmt.Fprintln(w, "  guard <command> --help (or guard help <command>; guard index --help, guard bench --help) for each command's flags")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches one command line and returns the process exit status:
// 0 on success and for --help, 1 on a runtime failure, 2 on a usage error
// (unknown command or flag, bad flag value, missing argument).
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		usage(stderr)
		return 2
	}
	if isHelp(args[0]) {
		// guard help help (or help --help): help's own usage is the top one
		if len(args) > 1 && !isHelp(args[1]) {
			// guard help index build = guard index build --help
			if _, ok := commands[args[1]]; !ok {
				fmt.Fprintf(stderr, "guard help: unknown command %q\n", args[1])
				usage(stderr)
				return 2
			}
			return run(append(slices.Clone(args[1:]), "--help"), stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		const versionUsage = "usage: guard --version   (version, commit, Go version and embedded model checksums; no flags)"
		if len(args) > 1 {
			if isHelp(args[1]) {
				fmt.Fprintln(stdout, versionUsage)
				return 0
			}
			fmt.Fprintf(stderr, "guard --version: unexpected argument %q\n%s\n", args[1], versionUsage)
			return 2
		}
		if err := printVersion(stdout); err != nil {
			fmt.Fprintf(stderr, "guard: %v\n", err)
			return 1
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "guard: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	cliOut, cliErr = stdout, stderr
	err := c.run(args[1:])
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code): // exitCode(0) included: help, or a clean check
		return int(code)
	}
	var probs confcheck.Problems
	if errors.As(err, &probs) && len(probs) > 1 {
		// A configuration file's problems, one per line, all of them.
		fmt.Fprintf(stderr, "guard %s: the configuration has %d problems:\n", args[0], len(probs))
		for _, l := range probs.Lines() {
			fmt.Fprintf(stderr, "  %s\n", l)
		}
		return 1
	}
	fmt.Fprintf(stderr, "guard %s: %v\n", args[0], err)
	return 1
}

// isHelp reports whether a is a request for help (-h, --help, -help, help).
func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

// cliOut and cliErr are where usage text goes: the process's stdout and
// stderr, or a test's buffers.
var cliOut, cliErr io.Writer = os.Stdout, os.Stderr

// exitCode is an error that ends the command with that status once its
// message (if any) has been printed; main prints nothing more.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// parseInterspersed parses args with flags before, between and after the
// positional arguments (guard gaps resolve ID --note why) and returns the
// positional ones in order; errors as parseFlags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := parseFlags(fs, rest); err != nil {
			return pos, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
	}
}

// parseFlags parses args with fs, the one way every command reads its
// flags: help, --help, -help or -h anywhere in args (before a "--", and
// not as a flag's value) prints the usage on stdout and ends with status
// 0; an unknown flag or a bad value prints the problem and the usage on
// stderr and ends with status 2.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if wantsHelp(fs, args) {
		fs.SetOutput(cliOut)
		fs.Usage()
		fs.SetOutput(cliErr)
		return exitCode(0)
	}
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(cliErr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		cliOut.Write(buf.Bytes())
		return exitCode(0)
	}
	cliErr.Write(buf.Bytes())
	return exitCode(2)
}

// wantsHelp reports whether args ask for help anywhere: an argument that
// isHelp, before a "--" and other than the value of one of fs's flags
// (guard gaps resolve ID --note help notes "help").
func wantsHelp(fs *flag.FlagSet, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false
		case isHelp(a):
			return true
		case len(a) < 2 || a[0] != '-' || strings.Contains(a, "="):
			continue
		}
		f := fs.Lookup(strings.TrimLeft(a, "-"))
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			i++ // its value
		}
	}
	return false
}

// synopsis makes fs's usage start with the command line it takes (its
// arguments and required flags), then the flags, in place of the flag
// package's bare "Usage of NAME:".
func synopsis(fs *flag.FlagSet, lines ...string) {
	fs.Usage = func() {
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(fs.Output(), "usage: %s\n", l)
			} else {
				fmt.Fprintf(fs.Output(), "       %s\n", l)
			}
		}
		fs.PrintDefaults()
	}
}

// usageErrorf reports a command-line mistake that the flag package cannot
// see (a missing required flag, a stray argument): the message and fs's
// usage on stderr, status 2.
func usageErrorf(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(cliErr, "guard %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.SetOutput(cliErr)
	fs.Usage()
	return exitCode(2)
}

// missingRequired reports the required flags (or arguments) a command
// line lacks, every one of them: "--a, --b and --c are required", with
// fs's usage, status 2.
func missingRequired(fs *flag.FlagSet, missing []string) error {
	n := len(missing)
	list, verb := missing[0], "is"
	if n > 1 {
		list, verb = strings.Join(missing[:n-1], ", ")+" and "+missing[n-1], "are"
	}
	return usageErrorf(fs, "%s %s required", list, verb)
}

// usageText ends a command whose dispatcher has no flag set (guard index,
// guard bench): the text on stdout with status 0 when help was asked,
// otherwise msg and the text on stderr with status 2.
func usageText(args []string, text, msg string) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(cliOut, text)
		return exitCode(0)
	}
	if msg != "" {
		fmt.Fprintln(cliErr, msg)
	}
	fmt.Fprintln(cliErr, text)
	return exitCode(2)
}

// configArg returns the value of a --config (or -config) flag in args, for
// commands whose other flags take their defaults from the file; "" when
// absent. The flag set still declares --config so that usage lists it.
func configArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, p := range []string{"--config", "-config"} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
	}
	return ""
}
