package judge

import "testing"

// Lettered sub-clauses ("4(b)", "clause 4(b)", "12.3(a)") name a clause,
// at a line's start and mid-sentence, as numbered ones do (judge15); the
// number in them is no quantity of what the clause says. A number moved
// beside one is still caught; a product code with a bracket ("A4(b)")
// stays a code.
func TestLetteredClauses(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const dep = "4(b) The deposit is refundable up to 14 days before arrival."
	checkVerdicts(t, v, []verdictCase{
		{dep, "Under clause 4(b), the deposit is refundable up to 14 days before arrival.", Entailment},
		{dep, "The deposit is refundable up to 14 days before arrival.", Entailment},
		{dep, "Under clause 4(b), the deposit is refundable up to 7 days before arrival.", Contradiction},
		{"Clause 4(b): The deposit is refundable up to 14 days before arrival.", "As set out in 4(b), the deposit is refundable up to 14 days before arrival.", Entailment},
		{"12.3(a) Pets must be kept on a lead at all times.", "Under 12.3(a), pets must be kept on a lead at all times.", Entailment},
		{"Clause 4(b): The deposit is refundable up to 14 days before arrival.", "The deposit is refundable up to 4 days before arrival.", Contradiction},
	})
	for _, c := range []struct {
		s    string
		i    int
		want bool
	}{{"see 4(b) here", 4, true}, {"A4(b)", 1, false}, {"4 (b)", 0, false}, {"12.3(a)(ii)", 0, true}, {"4(bcde)", 0, false}, {"45", 0, false}} {
		if got := lettered(c.s, c.i); got != c.want {
			t.Errorf("lettered(%q, %d) = %v, want %v", c.s, c.i, got, c.want)
		}
	}
	if n := clauseMarker("4(b) The deposit"); n != 5 {
		t.Errorf("clauseMarker(4(b) ...) = %d, want 5", n)
	}
	if r := markerRef("4(b) "); r != "4(b)" {
		t.Errorf("markerRef(4(b)) = %q", r)
	}
	if !refEqual("4", "4(b)") || refEqual("4(a)", "4(b)") {
		t.Error("refEqual on lettered clauses")
	}
}

// FuzzLetteredAndAges runs the readers judge18 changed on any text:
// lettered clause numbers, ages with an open end, "non-", "Only X may".
func FuzzLetteredAndAges(f *testing.F) {
	for _, s := range []string{"4(b) The deposit", "under 4(b)(ii),", "65+ £6, 5 and under free", "Only members may use it.", "non-", "1(", "60+", "12 and", "(a)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		analyse(s)
		itemSegs(s)
		onlyOthers([]string{s, s})
		if n := clauseMarker(s); n < 0 || n > len(s) {
			t.Fatalf("clauseMarker(%q) = %d", s, n)
		}
	})
}

// An item split indexes the sentence by its lowercase twin: a byte
// strings.ToLower would widen (invalid UTF-8, "İ") must not move it.
func TestSplitItemsNonASCII(t *testing.T) {
	for _, s := range []string{"\xff\xff\xff, and x", "İİİ and \xffİ, b", "a\xc0 and \xc0 but ,"} {
		for _, sp := range splitItems(s) {
			if sp[0] < 0 || sp[0] > sp[1] || sp[1] > len(s) {
				t.Fatalf("splitItems(%q) span %v", s, sp)
			}
		}
		itemSegs(s)
	}
}
