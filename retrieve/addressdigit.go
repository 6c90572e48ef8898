package retrieve

import "regexp/syntax"

// needsDigit reports whether every match of the address pattern holds an
// ASCII digit, read from its syntax tree: then a question without one
// cannot match, and the address lane skips the pattern (the default
// patterns all need one; most questions have none). It answers false when
// unsure.
func needsDigit(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	return mustDigit(re.Simplify())
}

func mustDigit(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] < '0' || re.Rune[i+1] > '9' {
				return false
			}
		}
		return len(re.Rune) > 0
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r >= '0' && r <= '9' {
				return true
			}
		}
		return false
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if mustDigit(s) {
				return true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return mustDigit(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min >= 1 && mustDigit(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !mustDigit(s) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// hasDigit reports whether s has an ASCII digit.
func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}
