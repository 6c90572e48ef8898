package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/answer-guard/guard/mockllm"
)

func init() {
	register("mockllm", "run the simulated OpenAI-compatible upstream", runMockLLM)
}

func runMockLLM(args []string) error {
	// The config file's mock section is the base; the flags, whose
	// defaults are its values, override it.
	full, err := loadFile(configArg(args))
	if err != nil {
		return err
	}
	cfg := full.Mock
	fs := flag.NewFlagSet("mockllm", flag.ContinueOnError)
	synopsis(fs, "guard mockllm [--config F] [--addr HOST:PORT] [--faults name=rate,...]")
	fs.String("config", "", "config file: its mock section is the base the flags override (default: built-in defaults)")
	defAddr := cfg.Addr
	if defAddr == "" {
		defAddr = "127.0.0.1:9090"
	}
	addr := fs.String("addr", defAddr, "listen address: mock.addr, else 127.0.0.1:9090")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed; each answer is seeded by it and the request body")
	fs.DurationVar(&cfg.Pace, "pace", cfg.Pace, "delay between streamed events")
	fs.IntVar(&cfg.ChunkRunes, "chunk-runes", cfg.ChunkRunes, "max runes of content per event")
	fs.DurationVar(&cfg.SlowFirstDelay, "slow-first-delay", cfg.SlowFirstDelay, "delay of the slow_first fault")
	fs.DurationVar(&cfg.StallDelay, "stall-delay", cfg.StallDelay, "delay of the stall fault")
	faults := fs.String("faults", "", "fault rates, e.g. invent=0.2,malformed=0.1,leak=0.1,contradict=0.1,uncited=0.2,split=0.3,repeat=0.1,disconnect=0.05,slow_first=0.05,stall=0,bad_json=0,huge_event=0,refuse=0,paraphrase=0,alter=0")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q (see guard mockllm -h)", fs.Arg(0))
	}
	if *faults != "" {
		if cfg.Faults, err = mockllm.ParseFaults(*faults); err != nil {
			return usageErrorf(fs, "--faults: %v", err)
		}
	}
	f := cfg.Faults
	srv, err := mockllm.Start(cfg, *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mockllm listening on %s (faults: %q); injection records at http://%s/mock/records\n", srv.BaseURL(), f.String(), srv.Addr())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	<-sigs
	return srv.Close()
}
