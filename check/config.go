package check

import (
	"errors"
	"fmt"
)

// Config holds the knobs of `guard check` (the top-level `check` section).
type Config struct {
	// FailOn is the lowest severity that makes the audit fail (exit 1):
	// critical, warning or info, or their aliases high (= critical), medium
	// (= warning) and low (= info), the words of guard index audit and of a
	// claim's risk. Default critical.
	FailOn string `yaml:"fail_on"`
	// Format is the output format: text (file:line: severity: message),
	// json (one array of findings) or github (workflow annotations).
	// Default text.
	Format string `yaml:"format"`
	// Uncited looks every factual sentence without a citation up in the
	// corpus and suggests the best supporting source. Default true.
	Uncited bool `yaml:"uncited"`
	// UncitedK is the number of retrieved passages verified per uncited (or
	// unsupported) sentence. Default 5, range [1,60].
	UncitedK int `yaml:"uncited_k"`
	// MaxFileBytes bounds the size of one checked file; a larger file is an
	// error. Default 8 MiB, range [1, 1 GiB].
	MaxFileBytes int64 `yaml:"max_file_bytes"`
	// MinTitleChars: a citation names a corpus document by its title only
	// when the title has at least this many characters (short titles such
	// as "Setup" would match too much). Default 12, range [1,1000].
	MinTitleChars int `yaml:"min_title_chars"`
	// MaxPassageChars caps the text of one resolved citation (a link to a
	// whole page may resolve to many chunks). Default 65536, range [500, 16 MiB].
	MaxPassageChars int `yaml:"max_passage_chars"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		FailOn:          Critical,
		Format:          "text",
		Uncited:         true,
		UncitedK:        5,
		MaxFileBytes:    8 << 20,
		MinTitleChars:   12,
		MaxPassageChars: 64 << 10,
	}
}

// Validate reports every problem at once, each prefixed with its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if _, ok := severityRank[c.FailOn]; !ok {
		bad("fail_on: must be critical, warning or info (or high, medium, low), got %q", c.FailOn)
	}
	if !validFormat(c.Format) {
		bad("format: must be text, json or github, got %q", c.Format)
	}
	if c.UncitedK < 1 || c.UncitedK > 60 {
		bad("uncited_k: must be in [1,60], got %d", c.UncitedK)
	}
	if c.MaxFileBytes < 1 || c.MaxFileBytes > 1<<30 {
		bad("max_file_bytes: must be in [1,1073741824], got %d", c.MaxFileBytes)
	}
	if c.MinTitleChars < 1 || c.MinTitleChars > 1000 {
		bad("min_title_chars: must be in [1,1000], got %d", c.MinTitleChars)
	}
	if c.MaxPassageChars < 500 || c.MaxPassageChars > 16<<20 {
		bad("max_passage_chars: must be in [500,16777216], got %d", c.MaxPassageChars)
	}
	return errors.Join(errs...)
}
