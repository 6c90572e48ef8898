package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// guardFile is the configuration file every guard command reads
// (configs/guard.yaml): the proxy's sections plus mock, the simulated
// upstream that guard serve starts when upstream.base_url is empty and that
// guard mockllm runs on its own. The proxy never sees mock.
type guardFile struct {
	proxy.Config `yaml:",inline"`
	Mock         mockllm.Config `yaml:"mock"`
}

// loadFile reads path over the defaults, strictly (an unknown key is an
// error naming its path), and validates every section; "" = the defaults.
func loadFile(path string) (guardFile, error) {
	f := guardFile{Config: proxy.DefaultConfig(), Mock: mockllm.DefaultConfig()}
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
	errs := []error{f.Config.Validate()}
	if err := f.Mock.Validate(); err != nil {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				errs = append(errs, fmt.Errorf("mock.%w", e))
			}
		} else {
			errs = append(errs, fmt.Errorf("mock.%w", err))
		}
	}
	return errors.Join(errs...)
}
