package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// The one bad-input policy of every command that reads JSON lines (guard
// judge --pairs, guard index build/add corpus and memory files, guard
// index query --queries): each bad line is reported once on stderr as
// file:line: reason, reading goes on, a summary line counts them at the
// end, and the command exits 1 when anything was skipped unless
// --skip-bad; with --strict the first bad line stops the command (exit 1).

// badPolicy is a command's --strict and --skip-bad flags.
type badPolicy struct {
	strict, skipBad *bool
}

func addBadFlags(fs *flag.FlagSet) badPolicy {
	return badPolicy{
		strict:  fs.Bool("strict", false, "stop at the first bad input line (exit 1)"),
		skipBad: fs.Bool("skip-bad", false, "skip bad input lines and still exit 0 (each is reported; default: exit 1 when any was skipped)"),
	}
}

// badLines counts and reports the bad lines of one command run.
type badLines struct {
	w      io.Writer
	policy badPolicy
	n      int
}

// lineError is one bad input line.
type lineError struct {
	file string
	line int
	why  string
}

func (e *lineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.why) }

// bad reports a bad line; it returns the error that stops the command
// under --strict, nil otherwise.
func (b *badLines) bad(file string, line int, why string) error {
	b.n++
	e := &lineError{file: file, line: line, why: why}
	if *b.policy.strict {
		return e
	}
	fmt.Fprintln(b.w, e.Error())
	return nil
}

// finish prints the summary of what was skipped and returns the command's
// outcome: exit status 1 when lines were skipped, unless --skip-bad.
func (b *badLines) finish(what string) error {
	if b.n == 0 {
		return nil
	}
	if *b.policy.skipBad {
		fmt.Fprintf(b.w, "%s: %s skipped (--skip-bad)\n", what, plural(b.n, "bad line"))
		return nil
	}
	fmt.Fprintf(b.w, "%s: %s skipped; exit status 1 (fix them, or pass --skip-bad to accept)\n", what, plural(b.n, "bad line"))
	return exitCode(1)
}

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(thing, "y"))
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// jsonReason says in plain words why a JSON line did not decode: no Go
// type names, no decoder internals.
func jsonReason(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case strings.Contains(err.Error(), "unexpected end of JSON input"):
		return "not valid JSON (the line ends too early)"
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON (at character %d)", syn.Offset)
	case errors.As(err, &typ):
		want := map[string]string{"string": "text", "bool": "true or false", "float64": "a number", "int": "a whole number",
			"slice": "a list", "array": "a list", "map": "an object", "struct": "an object"}[typ.Type.Kind().String()]
		if want == "" {
			want = "a different kind of value"
		}
		if typ.Field == "" {
			return fmt.Sprintf("the line must be a JSON object, got %s", jsonKind(typ.Value))
		}
		return fmt.Sprintf("field %q must be %s, got %s", typ.Field, want, jsonKind(typ.Value))
	}
	return "not valid JSON"
}

// jsonKind names a JSON value kind as the decoder reports it.
func jsonKind(v string) string {
	switch {
	case v == "string":
		return "text"
	case v == "number" || strings.HasPrefix(v, "number"):
		return "a number"
	case v == "bool":
		return "true or false"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	}
	return v
}
