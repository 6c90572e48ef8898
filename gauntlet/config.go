package gauntlet

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Config holds the gauntlet's knobs (top-level section "gauntlet").
type Config struct {
	// IDPatterns are RE2 expressions for internal id shapes. A token (a run
	// of ASCII letters, digits and _-.:/#@) that contains a match anywhere is
	// a leaked id and is deleted. Only tokens holding a non-letter are tested.
	IDPatterns []string `yaml:"id_patterns"`
	// MaxMarkerLen bounds the hold-back: the longest marker or token the
	// gauntlet will wait for, in bytes. Range [16,1024], default 64.
	MaxMarkerLen int `yaml:"max_marker_len"`
	// CatalogMinLen is the shortest token looked up in the catalog (the
	// tenant's real ids). Range [1,1024], default 6.
	CatalogMinLen int `yaml:"catalog_min_len"`
	// CatalogNumbers also looks up all-digit tokens in the catalog. Off by
	// default: with numeric corpus ids (SciFact) it would delete numbers from
	// answers.
	CatalogNumbers bool `yaml:"catalog_numbers"`
	// CardPrefix and ActionPrefix name the card marker [card:ADDRESS] and the
	// action marker [action:NAME]. Lowercase letters ending in ':', distinct.
	CardPrefix   string `yaml:"card_prefix"`
	ActionPrefix string `yaml:"action_prefix"`
}

// DefaultIDPatterns are the default id shapes: uuids, prefixed ids such as
// doc_1a2b / chunk_9, and hex hashes of 16 or more digits.
var DefaultIDPatterns = []string{
	`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`,
	`(?i)\b(?:doc|chunk|note|mem|pin|passage|src|kb|tenant)_[A-Za-z0-9]`,
	`\b[0-9a-fA-F]{16,}\b`,
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		IDPatterns:    append([]string(nil), DefaultIDPatterns...),
		MaxMarkerLen:  64,
		CatalogMinLen: 6,
		CardPrefix:    "card:",
		ActionPrefix:  "action:",
	}
}

// Validate reports every problem of c at once, each starting with its key.
func (c Config) Validate() error {
	var errs []error
	for i, p := range c.IDPatterns {
		if p == "" {
			errs = append(errs, fmt.Errorf("id_patterns[%d]: must not be empty", i))
		} else if _, err := regexp.Compile(p); err != nil {
			errs = append(errs, fmt.Errorf("id_patterns[%d]: %w", i, err))
		}
	}
	if c.MaxMarkerLen < 16 || c.MaxMarkerLen > 1024 {
		errs = append(errs, fmt.Errorf("max_marker_len: must be in [16,1024], got %d", c.MaxMarkerLen))
	}
	if c.CatalogMinLen < 1 || c.CatalogMinLen > 1024 {
		errs = append(errs, fmt.Errorf("catalog_min_len: must be in [1,1024], got %d", c.CatalogMinLen))
	}
	prefix := func(key, v string) {
		ok := len(v) >= 2 && strings.HasSuffix(v, ":") && len(v) < c.MaxMarkerLen/2
		for i := 0; ok && i < len(v)-1; i++ {
			ok = v[i] >= 'a' && v[i] <= 'z'
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s: must be lowercase letters ending in ':' and shorter than max_marker_len/2, got %q", key, v))
		}
	}
	prefix("card_prefix", c.CardPrefix)
	prefix("action_prefix", c.ActionPrefix)
	if c.CardPrefix == c.ActionPrefix {
		errs = append(errs, fmt.Errorf("action_prefix: must differ from card_prefix, both %q", c.CardPrefix))
	}
	return errors.Join(errs...)
}

// Spec is a compiled Config, shared by all streams; immutable.
type Spec struct {
	ids            []*regexp.Regexp
	minIDLen       int // shortest possible match of any id pattern
	maxLen         int
	catalogMinLen  int
	catalogNumbers bool
	card, action   string // "[card:", "[action:"
}

// Compile validates cfg and compiles it.
func Compile(cfg Config) (*Spec, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Spec{
		maxLen:         cfg.MaxMarkerLen,
		catalogMinLen:  cfg.CatalogMinLen,
		catalogNumbers: cfg.CatalogNumbers,
		card:           "[" + cfg.CardPrefix,
		action:         "[" + cfg.ActionPrefix,
	}
	s.minIDLen = 1 << 30
	for _, p := range cfg.IDPatterns {
		s.ids = append(s.ids, regexp.MustCompile(p))
		re, _ := syntax.Parse(p, syntax.Perl) // parsed fine by Validate
		s.minIDLen = min(s.minIDLen, minLen(re))
	}
	s.minIDLen = max(s.minIDLen, 1)
	return s, nil
}

// Scrub removes every id-shaped match from s. The proxy hands it to the gate
// (gate.Config.Scrub) so no id-shaped token reaches the model's context.
func (s *Spec) Scrub(text string) string {
	for _, re := range s.ids {
		text = re.ReplaceAllLiteralString(text, "")
	}
	return text
}

// IDShaped reports whether token contains an id shape of the config.
func (s *Spec) IDShaped(token []byte) bool {
	for _, re := range s.ids {
		if re.Match(token) {
			return true
		}
	}
	return false
}

// minLen is the fewest bytes a match of re can span (a lower bound: a rune
// counts as one byte).
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := 1 << 30
		for _, s := range re.Sub {
			n = min(n, minLen(s))
		}
		return n
	}
	return 0 // empty-width, star, quest, no match
}
