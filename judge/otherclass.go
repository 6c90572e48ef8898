package judge

import "strings"

// A claim about a class is not entailed by a source about the others:
// "Residents may not park in bay 3" against "Non-residents may not park in
// bay 3", "Members pay £10" against "Non-members pay £10", and the reverse.
// analyse reads "non-residents" as one term ("nonresid"), but the claim
// shares every other word with the source, so its coverage alone passes.
//
// The verdict is neutral, not a contradiction: "Non-residents may not
// park" says nothing of residents as written. Only "Only residents may
// park" says the others may not, and onlyOthers already adds that reading
// as its own sentence, so a source stating both classes never trips this.
//
// As the missing-term check, it reads only short cited evidence
// (missingTermMaxChars): a scientific abstract names the class in other
// words ("Nonhypertensive people ..." against an abstract on hypertension
// that says "normotensive"); uncapped, three supported SciFact training
// claims (all it touched there) turned neutral.

// otherClass returns the claim's word for a class that no sentence of docs
// names while one names its complement ("" when none): a claim term X
// where the cited sources hold only "non-X", or a claim term "non-X" where
// they hold only X. "Non-" before an -able/-ible word is a negation
// (nonAble), not a class, and is not read here.
func otherClass(cts []claimTerm, docs []*prepared) string {
	for k := range cts {
		c := &cts[k]
		if c.isNum || c.neg || c.stem == "" {
			continue
		}
		// the stems analyse gives the other class: "non" and the porter
		// stem of the word after "non-"; the word alone its canonical stem
		// ("residents" is "live", canon); written as one word,
		// "nonmembers" is the porter stem of the whole ("nonmemb", where
		// "non-members" is "nonmember")
		other, other2 := "non"+porterStem(c.raw), porterStem("non"+c.raw)
		if strings.HasPrefix(c.raw, "non") && strings.HasPrefix(c.stem, "non") && len(c.raw) > 4 {
			other, other2 = canonStem(c.raw[3:]), ""
		}
		if !docsHold(docs, c.stem) && (docsHold(docs, other) || other2 != "" && docsHold(docs, other2)) {
			return c.raw
		}
	}
	return ""
}

// docsHold reports whether a sentence of docs has stem st.
func docsHold(docs []*prepared, st string) bool {
	for _, p := range docs {
		if p.in != nil {
			if p.holding(st) != 0 {
				return true
			}
			continue
		}
		for i := range p.sents {
			if _, ok := p.sents[i].stems[st]; ok {
				return true
			}
		}
	}
	return false
}

// classSwap reports whether the source word w names the other class of a
// claim term: "Non-EU" where the claim says "EU", "EU" where it says
// "non-EU". It is no other name (entity_mismatch, a contradiction) but
// the other class, which otherClass caps at neutral: "EU citizens need a
// visa" against "Non-EU citizens need a visa" says nothing of the EU's.
func classSwap(w string, cts []claimTerm) bool {
	lw := strings.ToLower(w)
	for k := range cts {
		if c := &cts[k]; !c.isNum && (c.raw == "non"+lw || len(lw) > 4 && strings.HasPrefix(lw, "non-") && c.raw == lw[4:]) {
			return true
		}
	}
	return false
}
