package gauntlet

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"

	"github.com/answer-guard/guard/internal/textcache"
)

// Config holds the gauntlet's knobs (top-level section "gauntlet").
type Config struct {
	// IDPatterns are RE2 expressions for internal id shapes. A token (a run
	// of ASCII letters, digits and _-.:/#@) that contains a match holds a
	// leaked id, deleted from the match's start to the token's end. Only
	// tokens holding a non-letter are tested.
	IDPatterns []string `yaml:"id_patterns" confcheck:"unique"`
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

// Spec is a compiled Config, shared by all streams and safe for concurrent
// use; its configuration is immutable.
type Spec struct {
	ids            []idPattern
	pre            []*prefixNFA // the ids' prefix automata; nil when one cannot be built
	dfas           []tokenDFA   // pre as one DFA over a token's first max_marker_len/4 bytes, or one per pattern when that is too large; nil when one is too large
	minIDLen       int          // shortest possible match of any id pattern
	numMin         int          // shortest token of digits and dots that an id pattern may match (mayMatch)
	elim           int          // earlyLim
	maxLen         int
	catalogMinLen  int
	catalogNumbers bool
	card, action   string // "[card:", "[action:"
	pool           sync.Pool
	notes          *textcache.Cache[*NoteScrub] // prepared note texts kept across turns (ScrubNote); a value depends on the text and the spec only
}

// Compile validates cfg and compiles it.
func Compile(cfg Config) (*Spec, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Spec{
		maxLen:         cfg.MaxMarkerLen,
		elim:           cfg.MaxMarkerLen - cfg.MaxMarkerLen*3/4,
		catalogMinLen:  cfg.CatalogMinLen,
		catalogNumbers: cfg.CatalogNumbers,
		card:           "[" + cfg.CardPrefix,
		action:         "[" + cfg.ActionPrefix,
		notes:          textcache.New[*NoteScrub](32 << 20),
	}
	s.minIDLen = 1 << 30
	s.pre = []*prefixNFA{}
	for _, p := range cfg.IDPatterns {
		re, _ := syntax.Parse(p, syntax.Perl) // parsed fine by Validate
		ip := idPattern{
			re:  regexp.MustCompile(p),
			at0: regexp.MustCompile(`^(?:` + p + `)`),
			atQ: regexp.MustCompile(`^(?s:.)(?:` + p + `)`),
			min: max(minLen(re), 1),
		}
		alphabet(re, &ip.alpha)
		if a, ok := newPrefixNFA(re); ok && exactNFA(re) {
			ip.exact = a
		}
		ip.req, ip.hasReq = required(re)
		s.ids = append(s.ids, ip)
		if a, ok := newPrefixNFA(re); ok && s.pre != nil {
			s.pre = append(s.pre, a)
		} else {
			s.pre = nil
		}
		s.minIDLen = min(s.minIDLen, ip.min)
	}
	s.minIDLen = max(s.minIDLen, 1)
	s.numMin = 1 << 30
	for i := range s.ids {
		if p := &s.ids[i]; numeric(&p.alpha) && (!p.hasReq || numeric(&p.req)) {
			s.numMin = min(s.numMin, p.min)
		}
	}
	for _, a := range s.pre {
		d, ok := newPrefixDFA(a, s.earlyLim())
		if !ok {
			s.dfas = nil
			break
		}
		s.dfas = append(s.dfas, *d)
	}
	if len(s.dfas) > 1 {
		if d, ok := newProductDFA(s.dfas); ok {
			s.dfas = []tokenDFA{*d}
		}
	}
	return s, nil
}

// earlyLim is how many bytes of a held token Flush may release early.
func (s *Spec) earlyLim() int { return s.elim }

// Scrub removes every id-shaped token from text, by the stream's token rules.
// The proxy hands it to the gate (gate.Config.Scrub) so no id-shaped token
// reaches the model's context.
func (s *Spec) Scrub(text string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if class[text[i]] != cTok {
			i++
			continue
		}
		j := i
		for j < len(text) && class[text[j]] == cTok {
			j++
		}
		tok := []byte(text[i:j])
		core := tok[:len(tok)-trailing(tok)]
		if hasNonLetter(core) && len(core) >= s.minIDLen && s.IDShaped(core) {
			b.WriteString(text[last:i])
			last = i + len(core)
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// IDShaped reports whether token contains an id shape of the config.
func (s *Spec) IDShaped(token []byte) bool {
	for i := range s.ids {
		p := &s.ids[i]
		if p.mayMatch(token) && p.re.Match(token) {
			return true
		}
	}
	return false
}

// idStart returns where the leftmost id shape in token starts, and false
// when it holds none. It does not allocate: regexp's Find methods do, so a
// start is found by anchored matches from the lowest place the prefix
// automaton allows, each with the byte before it as context.
func (s *Spec) idStart(token []byte) (int, bool) {
	k, ok, any := len(token), false, false
	for i := range s.ids {
		p := &s.ids[i]
		if !p.mayMatch(token) {
			continue
		}
		if a := p.exact; a != nil { // the automaton decides matches: no regexp
			if q, found := a.firstMatch(token, k); found {
				k, ok, any = q, true, true
			}
			continue
		}
		if !p.re.Match(token) {
			continue
		}
		any = true
		from := 0
		if s.pre != nil {
			from = s.pre[i].earliest(token, 0)
		}
		for q := from; q < k; q++ {
			if q == 0 && p.at0.Match(token) || q > 0 && p.atQ.Match(token[q-1:]) {
				k, ok = q, true
				break
			}
		}
	}
	if any && !ok {
		return 0, true // not found anchored: drop the whole token
	}
	return k, ok
}

// numeric reports whether set holds a digit or '.'.
func numeric(set *[256]bool) bool {
	for _, c := range "0123456789." {
		if set[c] {
			return true
		}
	}
	return false
}

// idPattern is a compiled id pattern with an exact prefilter: a match is a
// run of at least min bytes all in alpha, so a token without such a run is
// skipped without running the regexp.
// When every match must contain one byte of req (hasReq), a token without
// such a byte is skipped too.
type idPattern struct {
	re     *regexp.Regexp
	at0    *regexp.Regexp // re anchored at the start
	atQ    *regexp.Regexp // re anchored after one byte of context
	min    int
	exact  *prefixNFA // the pattern's automaton when it decides matches exactly (exactNFA)
	alpha  [256]bool
	req    [256]bool
	hasReq bool
}

func (p *idPattern) mayMatch(tok []byte) bool {
	if len(tok) < p.min {
		return false
	}
	run, ok, req := 0, false, !p.hasReq
	for _, c := range tok {
		req = req || p.req[c]
		if p.alpha[c] {
			if run++; run >= p.min {
				ok = true
			}
		} else {
			run = 0
		}
	}
	return ok && req
}

// required returns a set of bytes one of which every match of re contains,
// as small as it can find, and whether there is one.
func required(re *syntax.Regexp) (set [256]bool, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return set, false
		}
		one := &syntax.Regexp{Op: syntax.OpLiteral, Rune: re.Rune[:1], Flags: re.Flags}
		alphabet(one, &set)
		return set, true
	case syntax.OpCharClass:
		alphabet(re, &set)
		return set, true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return set, false
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		best := 257
		for _, sub := range re.Sub {
			if s, k := required(sub); k {
				if n := count(&s); n < best {
					set, ok, best = s, true, n
				}
			}
		}
		return set, ok
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, k := required(sub)
			if !k {
				return [256]bool{}, false
			}
			for i, v := range s {
				set[i] = set[i] || v
			}
		}
		return set, len(re.Sub) > 0
	}
	return set, false
}

func count(s *[256]bool) int {
	n := 0
	for _, v := range s {
		if v {
			n++
		}
	}
	return n
}

// alphabet marks in a every byte a match of re can contain (every byte >=
// 0x80 for a non-ASCII rune).
func alphabet(re *syntax.Regexp, a *[256]bool) {
	var mark func(lo, hi rune)
	mark = func(lo, hi rune) {
		if hi >= 0x80 {
			for b := 0x80; b < 256; b++ {
				a[b] = true
			}
			hi = 0x7f
		}
		for r := lo; r <= hi; r++ {
			a[r] = true
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					if f < 0x80 {
						a[f] = true
					} else {
						mark(0x80, 0x80)
					}
				}
			}
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			mark(r, r)
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			mark(re.Rune[i], re.Rune[i+1])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		mark(0, 0x10FFFF)
	}
	for _, sub := range re.Sub {
		alphabet(sub, a)
	}
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
