package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/answer-guard/guard/check"
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

// loadFile reads path over the defaults, strictly (an unknown key is an
// error naming its path), and validates every section; "" = the defaults.
func loadFile(path string) (guardFile, error) {
	f := guardFile{Config: proxy.DefaultConfig(), Operator: operator.DefaultConfig(), Mock: mockllm.DefaultConfig(), Check: check.DefaultConfig()}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return f, fmt.Errorf("read config: %w", err)
		}
		if err := proxy.DecodeConfig(b, &f); err != nil {
			return f, fmt.Errorf("config %s: %w", path, err)
		}
	}
	return f, f.validate()
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
