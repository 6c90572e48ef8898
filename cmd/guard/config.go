package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/answer-guard/guard/check"
	"github.com/answer-guard/guard/internal/confcheck"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/operator"
	"github.com/answer-guard/guard/proxy"
)

// guardFile is the configuration file every guard command reads
// (configs/guard.yaml): the proxy's sections, the operator plane's (state,
// gaps, turnlog, console) and two of the command line's own: mock, the simulated upstream that guard serve starts when
// upstream.base_url is empty and that guard mockllm runs on its own, and
// check, guard check's audit settings. The proxy never sees either.
type guardFile struct {
	proxy.Config `yaml:",inline"`
	Operator     operator.Config `yaml:",inline"`
	Mock         mockllm.Config  `yaml:"mock"`
	Check        check.Config    `yaml:"check"`
}

// loadFile reads path over the defaults and reports every problem of the
// file at once, each with its line and key path (confcheck.Problems):
// unknown keys, values of the wrong type, and what every section's
// validation finds. "" = the defaults.
func loadFile(path string) (guardFile, error) { return loadFileCheck(path, nil) }

// loadFileCheck is loadFile with more checks of the decoded file: more's
// errors ("key.path: what is wrong", errors.Join for several) are placed
// at their keys' lines beside the sections' own problems. more may be nil.
func loadFileCheck(path string, more func(guardFile) error) (guardFile, error) {
	f := guardFile{Config: proxy.DefaultConfig(), Operator: operator.DefaultConfig(), Mock: mockllm.DefaultConfig(), Check: check.DefaultConfig()}
	validate := func() error {
		err := f.validate()
		if more != nil {
			err = errors.Join(err, more(f))
		}
		return err
	}
	if path == "" {
		return f, validate()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("read config: %w", err)
	}
	cf, probs := confcheck.Decode(path, b, &f)
	probs = append(probs, cf.Attach(validate())...)
	probs.Sort()
	return f, probs.Err()
}

func (f guardFile) validate() error {
	errs := []error{f.Config.Validate(), f.Operator.Validate()}
	for _, sec := range []struct {
		name string
		err  error
	}{{"mock", f.Mock.Validate()}, {"check", f.Check.Validate()}} {
		if sec.err == nil {
			continue
		}
		if j, ok := sec.err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				errs = append(errs, fmt.Errorf("%s.%w", sec.name, e))
			}
		} else {
			errs = append(errs, fmt.Errorf("%s.%w", sec.name, sec.err))
		}
	}
	return errors.Join(errs...)
}

func init() {
	register("config", "check a configuration file and list every problem (config check --config F)", runConfig, configSubs...)
}

// configSubs are guard config's subcommands.
var configSubs = []subcommand{{"check", func(_ context.Context, args []string) error { return runConfigCheck(args) }}}

const configUsage = `usage: guard config check --config F   (or guard config check F)

Reads F as guard serve would and prints every problem at once, one per line
as file:line: key.path: what is wrong (unknown keys with a did-you-mean,
values of the wrong type, values out of range). Exit status 0 when the file
is good, 1 when it has problems, 2 on a usage error. For CI pipelines.
A pipeline.index that is not a snapshot directory is a problem (guard serve
would not start with it). With auth on and pipeline.index set, an API key
whose tenant and KB the snapshot has no partition for is printed as a
warning (exit status 0).`

func runConfig(args []string) error {
	if len(args) > 0 {
		if sub := findSub(configSubs, args[0]); sub != nil {
			return sub.run(context.Background(), args[1:])
		}
	}
	msg := "guard config: want " + subNames(configSubs)
	if len(args) > 0 {
		msg = fmt.Sprintf("guard config: unknown subcommand %q (want %s)", args[0], subNames(configSubs))
	}
	return usageText(args, configUsage, msg)
}

// runConfigCheck is guard config check.
func runConfigCheck(args []string) error {
	fs := flag.NewFlagSet("config check", flag.ContinueOnError)
	path := fs.String("config", "", "config file to check (required)")
	fs.Usage = func() { fmt.Fprintln(fs.Output(), configUsage); fs.PrintDefaults() }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 1 && *path == "":
		*path = fs.Arg(0) // guard config check my.yaml, as a new operator types it
	case fs.NArg() > 0:
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(fs.NArg()-1))
	case *path == "":
		return usageErrorf(fs, "--config is required")
	}
	// guard serve refuses to start (and a reload to apply) with a
	// pipeline.index that is not a snapshot: so does the check, at the
	// key's line.
	f, err := loadFileCheck(*path, func(f guardFile) error {
		if f.Pipeline.Index == "" {
			return nil
		}
		if serr := checkSnapshotDir(f.Pipeline.Index); serr != nil {
			return fmt.Errorf("pipeline.index: %w", serr)
		}
		return nil
	})
	var lines []string
	if err != nil {
		lines = problemLines(err)
	}
	if len(lines) == 0 {
		for _, w := range keyPartitionWarnings(f.Config) {
			fmt.Fprintf(cliOut, "%s: warning: %s\n", *path, w)
		}
		fmt.Fprintf(cliOut, "%s: ok\n", *path)
		return nil
	}
	for _, l := range lines {
		fmt.Fprintln(cliOut, l)
	}
	fmt.Fprintf(cliOut, "%s: %s\n", *path, plural(len(lines), "problem"))
	return exitCode(1)
}

// problemLines returns err as one line per problem: a config file's
// problems as confcheck placed them, any other joined error split up.
func problemLines(err error) []string {
	var ps confcheck.Problems
	if errors.As(err, &ps) {
		return ps.Lines()
	}
	var out []string
	var split func(error)
	split = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				split(x)
			}
			return
		}
		out = append(out, e.Error())
	}
	split(err)
	return out
}
