package judge

import (
	"context"
	"slices"
	"strings"
	"testing"
)

const aspirinNote = `Aspirin was first synthesised by Felix Hoffmann at Bayer in 1897. ` +
	`The drug reduces the risk of heart attack in adults with known cardiovascular disease. ` +
	`In the 2018 ASPREE trial of 19,114 older adults, daily aspirin did not prolong disability-free survival. ` +
	`Bleeding events were more frequent in the aspirin group, at 3.8 percent versus 2.8 percent with placebo.`

func TestLocalVerify(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	ev := []Passage{{N: 1, ID: "a", Text: aspirinNote}}
	tests := []struct {
		name     string
		claim    string
		want     string
		wantSev  string
		wantSpan string // substring of the evidence span
		wantWhy  string
	}{
		{"paraphrase supported", "Felix Hoffmann synthesised aspirin at Bayer in 1897.", Entailment, Info, "Hoffmann", "covered"},
		{"changed year", "Felix Hoffmann synthesised aspirin at Bayer in 1899.", Contradiction, Critical, "1897", "number_mismatch"},
		{"changed count", "The ASPREE trial enrolled 25,000 older adults.", Contradiction, Critical, "19,114", "number_mismatch"},
		{"changed percentage", "Bleeding occurred in 4.8 percent of the aspirin group.", Contradiction, Critical, "3.8 percent", "number_mismatch"},
		{"rounded decimal matches", "Bleeding occurred in 3.8 percent of the aspirin group versus 2.8 percent with placebo.", Entailment, Info, "Bleeding", "covered"},
		{"negation flipped", "In the ASPREE trial daily aspirin prolonged disability-free survival in older adults.", Contradiction, Major, "did not prolong", "negation"},
		{"antonym", "The drug increases the risk of heart attack in adults with cardiovascular disease.", Contradiction, Major, "reduces the risk", "antonym"},
		{"unrelated", "Penicillin was discovered by Alexander Fleming in London.", Neutral, Minor, "", "missing_anchor"},
		{"changed name", "Aspirin was first synthesised by Hoffmann at Pfizer.", Contradiction, Major, "Bayer", "entity_mismatch"},
		{"missing entity", "The drug reduces the risk of heart attack in adults in Norway.", Neutral, Minor, "", "missing_anchor"},
		{"opinion", "I think aspirin is a wonderful drug.", Opinion, Info, "", "opinion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), tt.claim, ev)
			if err != nil {
				t.Fatal(err)
			}
			if got.Label != tt.want || got.Severity != tt.wantSev || got.Reason != tt.wantWhy {
				t.Errorf("Verify(%q) = %s/%s/%s (conf %.2f, span %q), want %s/%s/%s",
					tt.claim, got.Label, got.Severity, got.Reason, got.Confidence, got.Evidence, tt.want, tt.wantSev, tt.wantWhy)
			}
			if !strings.Contains(got.Evidence, tt.wantSpan) {
				t.Errorf("evidence span %q, want it to contain %q", got.Evidence, tt.wantSpan)
			}
			if got.Confidence < 0 || got.Confidence > 1 {
				t.Errorf("confidence %v out of [0,1]", got.Confidence)
			}
		})
	}
}

// TestLocalVerifySignals covers the signals beyond plain coverage: each
// case names the passage it is checked against.
func TestLocalVerifySignals(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	tests := []struct {
		name  string
		ev    Passage
		claim string
		want  string
	}{
		{"title counts as a sentence",
			Passage{Title: "Dexamethasone reduces nausea after tonsillectomy", Text: "We enrolled 215 children in a trial. Outcomes were recorded for 24 hours."},
			"Dexamethasone reduces nausea after tonsillectomy.", Entailment},
		{"negation outside the claim's terms is ignored",
			Passage{Text: "Memory, but not naive, CD4 T cells enhance production of inflammatory chemokines in the lung."},
			"Memory CD4 T cells enhance production of inflammatory chemokines in the lung.", Entailment},
		{"a changed number beside a repeated one is a mismatch",
			Passage{Text: "Lanternfish supports OpenID Connect and SAML 2.0 for single sign-on and SCIM 2.0 for provisioning."},
			"Lanternfish supports OpenID Connect and SAML 11 for single sign-on and SCIM 2.0 for provisioning.", Contradiction},
		{"a negation that governs nothing is no conflict",
			Passage{Text: "Date what will change; leave undated only what will not."},
			"Date what will change; leave undated only what will not.", Entailment},
		{"negation of a claim term still counts",
			Passage{Text: "Daily aspirin did not prolong disability-free survival in older adults."},
			"Daily aspirin prolonged disability-free survival in older adults.", Contradiction},
		{"a stated change needs a change in the evidence",
			Passage{Text: "Stable partnership and progression to AIDS in HIV infected patients: a cohort study of adults in Switzerland."},
			"Stable partnership is associated with faster progression to AIDS in HIV infected patients.", Neutral},
		{"a change in the same direction in other words",
			Passage{Text: "Cold exposure raised recruitment of brown adipocytes in the adipose tissue of mice."},
			"Cold exposure increased recruitment of brown adipocytes in mice.", Entailment},
		{"an alias in brackets absent from the evidence does not count",
			Passage{Text: "Crosstalk between dendritic cells and innate lymphoid cells is important for intestinal homeostasis."},
			"Crosstalk between dendritic cells (DCs) and innate lymphoid cells is important for intestinal homeostasis.", Entailment},
		{"an acronym found as the initials of its expansion",
			Passage{Text: "Neurons derived from induced pluripotent stem cells of patients had higher tau phosphorylation."},
			"iPSC derived neurons of patients had higher tau phosphorylation.", Entailment},
		{"an exclusive claim needs exclusive evidence",
			Passage{Text: "Obesity in adults is determined by environmental factors and by genetic factors."},
			"Obesity in adults is determined solely by environmental factors.", Neutral},
		{"a negation in the lighter sentence of a window still counts",
			Passage{Text: "Arlo floor lamp, brushed brass, 160 cm tall, E27 fitting. A bulb is not included."},
			"A bulb is included with the Arlo floor lamp.", Contradiction},
		{"a term the other sentence states plainly is not negated by the window",
			Passage{Text: "Guests may bring dogs to the hotel. Dogs are not allowed in the restaurant."},
			"Guests may bring dogs to the hotel.", Entailment},
		{"a negation added beside one the evidence has is a changed polarity",
			Passage{Title: "Troubleshooting: People cannot sign in", Text: "If password login fails for everyone, check that the server clock is correct: sessions depend on time."},
			"If password login fails for everyone, check that the server clock is not correct.", Contradiction},
		{"the same two negations in other places are no conflict",
			Passage{Text: "If a payment fails, the order is not cancelled and we retry for three days."},
			"If a payment fails, we do not cancel the order.", Entailment},
		{"a negated adjective is a negation",
			Passage{Text: "Mitochondria participate in apoptosis and calcium signalling in eukaryotic cells."},
			"Mitochondria are uninvolved in apoptosis.", Contradiction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ev.N, tt.ev.ID = 1, "p"
			got, _ := v.Verify(context.Background(), tt.claim, []Passage{tt.ev})
			if got.Label != tt.want {
				t.Errorf("Verify(%q) = %s (%s, span %q), want %s", tt.claim, got.Label, got.Reason, got.Evidence, tt.want)
			}
		})
	}
}

// TestLocalGather: two sentences that are not adjacent, each short of the
// bar, entail a claim together only with Gather on (the rule alone).
func TestLocalGather(t *testing.T) {
	ev := []Passage{{N: 1, ID: "p", Text: "Adults with chronic migraine were recruited at clinics. " +
		"The protocol was approved by the ethics board. Patients kept headache diaries and had injections."}}
	claim := "Adults with chronic migraine at clinics kept headache diaries and received erenumab injections monthly."
	for _, tt := range []struct {
		gather float64
		want   string
	}{{0, Neutral}, {0.10, Entailment}} {
		cfg := LocalConfig{Entail: 0.40, Conflict: 0.50, Strict: 1, Anchors: true, Model: "rule"}
		cfg.Gather = tt.gather
		got, _ := NewLocal(cfg).Verify(context.Background(), claim, ev)
		if got.Label != tt.want {
			t.Errorf("gather %g: Verify = %s (%s), want %s", tt.gather, got.Label, got.Reason, tt.want)
		}
	}
}

func TestSquash(t *testing.T) {
	tests := []struct{ in, words, initials string }{
		{"T(H)2 cells", " th2 cells ", "tc"},
		{"IP3R-mediated Ca2+ release", " ip3r mediated ca2 release ", "imcr"},
		{"induced pluripotent stem cells", " induced pluripotent stem cells ", "ipsc"},
		{"Émile's naïve", " émiles naïve ", "én"},
	}
	for _, tt := range tests {
		w, in := squash(tt.in)
		if w != tt.words || in != tt.initials {
			t.Errorf("squash(%q) = %q, %q, want %q, %q", tt.in, w, in, tt.words, tt.initials)
		}
	}
}

func TestAnalyseNumbers(t *testing.T) {
	tests := []struct {
		in   string
		want []float64
	}{
		{"19,114 adults in 2018", []float64{19114, 2018}},
		{"3.8 percent and 2 million people", []float64{3.8, 2e6}},
		{"twenty cases, the 5th time", []float64{20, 5}},
		// "one" of a thing or a unit is a number, as "1" and "six" are;
		// the pronoun is not
		{"Members may bring one guest per visit.", []float64{1}},
		{"Each cottage is for one family of up to six guests.", []float64{1, 6}},
		{"The tour takes one hour.", []float64{1}},
		{"One dog per pitch is allowed.", []float64{1}},
		{"The lido is one of the largest pools in Wales.", nil},
		{"No one else may use the sauna.", nil},
		{"Guests help one another.", nil},
		{"Pick the one that suits you.", nil},
		{"It is a one-way street.", nil},
		{"gene ADAR1 binds", nil},
	}
	for _, tt := range tests {
		var got []float64
		for _, tm := range analyse(tt.in) {
			if tm.isNum {
				got = append(got, tm.num)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("analyse(%q) numbers = %v, want %v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("analyse(%q) numbers = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

func TestIsFactual(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Aspirin reduces the risk of heart attack.", true},
		{"## Background", false},
		{"What does aspirin do?", false},
		{"Here is what I found:", false},
		{"I think aspirin is wonderful.", false},
		{"Yes.", false},
		{"- Aspirin was synthesised in 1897 [1].", true},
	}
	for _, tt := range tests {
		if got := IsFactual(tt.in); got != tt.want {
			t.Errorf("IsFactual(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func BenchmarkLocalVerifySentence(b *testing.B) {
	v := NewLocal(DefaultConfig().Local)
	docs := []*prepared{prepare("", aspirinNote+" "+aspirinNote)}
	b.ReportAllocs()
	for b.Loop() {
		v.verify("In the 2018 ASPREE trial daily aspirin did not prolong disability-free survival [1].", docs)
	}
}

func BenchmarkLocalVerifyUnprepared(b *testing.B) {
	v := NewLocal(DefaultConfig().Local)
	ev := []Passage{{N: 1, ID: "a", Text: aspirinNote + " " + aspirinNote}}
	b.ReportAllocs()
	for b.Loop() {
		v.Verify(context.Background(), "In the 2018 ASPREE trial daily aspirin did not prolong disability-free survival.", ev)
	}
}

// TestLocalParaphrase: claims that restate their source in other words are
// entailed; claims that change a fact of it are contradicted, however the
// rest is worded.
func TestLocalParaphrase(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	lamp := Passage{Title: "Skerry lighthouse", Text: "The Skerry lighthouse was first lit on 14 March 1887 by the harbour board. " +
		"The tower is 38 metres tall. Guided tours take 1.5 hours and run twice a year. " +
		"Seven keepers served there until the light was automated in 1989."}
	rail := Passage{Title: "Pets on trains", Text: "Up to two dogs per passenger travel free, kept on a lead and off the seats. " +
		"Other small animals must travel in a closed carrier, which counts as hand luggage."}
	deal := Passage{Text: "In 2006 Google acquired YouTube for 1.65 billion dollars in stock."}
	tests := []struct {
		name  string
		ev    Passage
		claim string
		want  string
	}{
		{"number as a word", lamp, "The Skerry lighthouse had 7 keepers until it was automated in 1989.", Entailment},
		{"duration in other units", lamp, "Guided tours of the lighthouse take 90 minutes.", Entailment},
		{"twice / 2 times", lamp, "Guided tours run 2 times a year.", Entailment},
		{"date in another format", lamp, "The Skerry lighthouse was first lit on March 14, 1887.", Entailment},
		{"irregular verb and reordered clause", lamp, "On 14 March 1887, the harbour board first lit the Skerry lighthouse.", Entailment},
		{"hedged", lamp, "The tower of the Skerry lighthouse is about 38 metres tall.", Entailment},
		{"active to passive", deal, "YouTube was acquired by Google in 2006.", Entailment},
		{"synonym", deal, "Google purchased YouTube in 2006.", Entailment},

		{"changed day", lamp, "The Skerry lighthouse was first lit on 21 March 1887.", Contradiction},
		{"changed month", lamp, "The Skerry lighthouse was first lit on 14 April 1887.", Contradiction},
		{"changed duration", lamp, "Guided tours of the lighthouse take 45 minutes.", Contradiction},
		{"changed unit", lamp, "The tower is 38 feet tall.", Contradiction},
		{"negated", lamp, "The light was not automated in 1989.", Contradiction},
		{"swapped roles", deal, "YouTube acquired Google in 2006.", Contradiction},
		{"swapped roles, passive", deal, "Google was acquired by YouTube in 2006.", Contradiction},
		{"predicate moved to another subject", rail, "Dogs must travel in a closed carrier.", Contradiction},
		{"the subject's own predicate", rail, "Up to two dogs travel free when kept on a lead.", Entailment},
		// issue 29: the source's limit ("up to two dogs per passenger") left out
		{"the subject's own predicate, its limit dropped", rail, "Dogs travel free when kept on a lead.", Contradiction},
		{"predicate of other animals, dogs not named", Passage{Title: "CC 4.2 Other animals", Text: "Other small animals, such as cats, rabbits and birds, must travel in a closed carrier and stay in the pet lounge or in the owner's vehicle."},
			"Dogs must travel in a closed carrier.", Contradiction},
		{"a subject written otherwise is not another subject", Passage{Text: "Low-dose acetylsalicylic acid reduces the risk of myocardial infarction in adults."},
			"Aspirin reduces the risk of myocardial infarction in adults.", Entailment},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ev.N, tt.ev.ID = 1, "p"
			got, _ := v.Verify(context.Background(), tt.claim, []Passage{tt.ev})
			if got.Label != tt.want {
				t.Errorf("Verify(%q) = %s (%s %s, conf %.2f, span %q), want %s", tt.claim, got.Label, got.Reason, got.Detail, got.Confidence, got.Evidence, tt.want)
			}
			if got.Label == Contradiction && got.Evidence == "" {
				t.Errorf("contradiction without an evidence span")
			}
		})
	}
}

// BenchmarkLocalVerifyParaphrase is the cost of verifying one answer
// sentence against three cited passages of about 600 characters (a turn's
// notes; analysed passages are cached across sentences, as in the judge):
// the goal is < 1 ms per sentence.
func BenchmarkLocalVerifyParaphrase(b *testing.B) {
	v := NewLocal(DefaultConfig().Local)
	ps := []Passage{
		{Title: "Aspirin", Text: aspirinNote + " Aspirin is also used to reduce fever and to relieve mild to moderate pain such as headaches. Low doses are taken daily by many people to prevent blood clots from forming."},
		{Title: "Skerry lighthouse", Text: "The Skerry lighthouse was first lit on 14 March 1887 by the harbour board. The tower is 38 metres tall. Guided tours take 1.5 hours and run twice a year. Seven keepers served there until the light was automated in 1989. " + aspirinNote},
		{Title: "Pets on trains", Text: "Up to two dogs per passenger travel free, kept on a lead and off the seats. Other small animals must travel in a closed carrier, which counts as hand luggage. " + aspirinNote},
	}
	docs := make([]*prepared, len(ps))
	for i, p := range ps {
		docs[i] = prepare(p.Title, p.Text)
	}
	claims := []string{
		"In the 2018 ASPREE trial of 19,114 older adults, daily aspirin did not prolong disability-free survival [1].",
		"The Skerry lighthouse was first lit on March 14, 1887 by the harbour board [2].",
		"Dogs must travel in a closed carrier [3].",
		"Guided tours of the lighthouse take 90 minutes [2].",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.verify(claims[i%len(claims)], docs)
		i++
	}
}

// The passage cache keys on the title too: prepare reads it as the
// passage's first sentence, so two passages with the same id and text but
// other titles (two tenants' copies of a page) never share an analysis.
func TestPrepCacheKeysTitle(t *testing.T) {
	var pc prepCache
	a := pc.get(Passage{ID: "p", Title: "Opening hours", Text: "We open at nine."})
	b := pc.get(Passage{ID: "p", Title: "Prices", Text: "We open at nine."})
	if a == b || len(a.sents) == len(b.sents) && a.sents[0].text == b.sents[0].text {
		t.Fatalf("the second title got the first title's analysis")
	}
	if c := pc.get(Passage{ID: "p", Title: "Opening hours", Text: "We open at nine."}); c != a {
		t.Fatalf("the same passage was analysed twice")
	}
}

// TestLocalOperatorMisjudgements covers three misjudgements operators met:
// a claim entailed without its key term, "free" against a price, and a
// negation over a list cut short at its first comma.
func TestLocalOperatorMisjudgements(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const (
		lamp  = "Arlo floor lamp, brass, E27 fitting, £89."
		pets  = "No dogs, cats or other pets are allowed."
		price = "Parking for guests is £12 a night."
		free  = "Parking for guests is free."
	)
	tests := []struct {
		name, ev, claim string
		want, why       string
	}{
		{"a thing the source never names", lamp, "The Arlo floor lamp comes with a bulb.", Neutral, ReasonMissingTerm},
		{"a bare plural the source never names", lamp, "The Arlo floor lamp comes with bulbs.", Neutral, ReasonMissingTerm},
		{"a plural after a number the source never names", "Arlo floor lamp, brass, 2 linen shades.", "The Arlo floor lamp comes with 2 bulbs.", Neutral, ReasonMissingTerm},
		{"the same thing named", "Arlo floor lamp, brass, E27 fitting, bulb included, £89.", "The Arlo floor lamp comes with a bulb.", Entailment, "covered"},
		{"a word-vector synonym stands in", "Guests may borrow an umbrella at reception.", "Visitors may borrow an umbrella at reception.", Entailment, "covered"},
		{"free against a price", price, "Parking is free for guests.", Contradiction, ReasonPriceMismatch},
		{"at no cost against a price", price, "Guests can park at no cost.", Contradiction, ReasonPriceMismatch},
		{"a price against free", free, "Parking for guests costs £12 a night.", Contradiction, ReasonPriceMismatch},
		{"free where a price is of something else", "Breakfast costs £12. Parking for guests is free.", "Parking is free for guests.", Entailment, "covered"},
		{"free with a price after it is a condition", "Parking for guests is free for the first 3 hours, then £2 an hour.", "Parking is free for guests.", Contradiction, ReasonConditionDropped},
		{"a negated list: its last item", pets, "Pets are not allowed.", Entailment, "covered"},
		{"a negated list: a middle item", pets, "Cats are not allowed.", Entailment, "covered"},
		{"a negated list: its first item allowed", pets, "Dogs are allowed.", Contradiction, "negation"},
		{"a negated list: its last item allowed", pets, "Pets are allowed.", Contradiction, "negation"},
		{"a contrast after the comma is no list", "No dogs, but cats or rabbits are welcome.", "Cats are welcome.", Entailment, "covered"},
		{"a clause after the comma is no list", "No refunds, and exchanges are possible within 30 days.", "Exchanges are possible within 30 days.", Entailment, "covered"},
		{"free as available is no price", "The meeting room costs £30 an hour.", "The meeting room is free on Mondays.", "!" + Contradiction, ""},
		{"free to talk is no price", "The meeting room costs £30 an hour.", "The meeting room is free to book.", "!" + Contradiction, ""},
		{"free to use against a price", "The meeting room costs £30 an hour.", "The meeting room is free to use.", Contradiction, ReasonPriceMismatch},
		{"free to join against a price", "Joining the club costs £30 a year.", "The club is free to join.", Contradiction, ReasonPriceMismatch},
		{"a price against free as available", "The meeting room is free on Mondays.", "The meeting room costs £30 an hour.", "!" + Contradiction, ""},
		// a count is no price, and a day no name (verify11)
		{"a count against a price", "Arlo floor lamp, brass, E27 fitting, bulbs included, £89.", "The Arlo floor lamp comes with 2 bulbs.", Neutral, "not_covered"},
		{"a count against a price, the thing unnamed", lamp, "The Arlo floor lamp comes with 2 bulbs.", Neutral, "low_overlap"},
		{"a changed count", "Arlo floor lamp, brass, E27 fitting, 2 bulbs included, £89.", "The Arlo floor lamp comes with 3 bulbs.", Contradiction, "number_mismatch"},
		{"a changed price", lamp, "The Arlo floor lamp costs £79.", Contradiction, "number_mismatch"},
		{"a bare number against a price", "Entry for adults is £8.", "Entry for adults is 10.", Contradiction, "number_mismatch"},
		{"a day against a price is no other name", "Entry to the gallery costs £10.", "Entry to the gallery is free on Mondays.", Neutral, "missing_anchor"},
		{"a day the source gives", "Entry to the gallery costs £10; it is free on Mondays.", "Entry to the gallery is free on Mondays.", Entailment, "covered"},
		{"another day", "Entry to the gallery is free on Tuesdays.", "Entry to the gallery is free on Mondays.", Contradiction, "antonym"},
		// the head of a bare plural phrase (verify11)
		{"a bare plural before its verb, never named", "Rooms with a sea view cost £20 more a night.", "Rooms with balconies cost £20 more a night.", Neutral, ReasonMissingTerm},
		{"a bare plural before its verb, named", "Rooms with a balcony cost £20 more a night.", "Rooms with balconies cost £20 more a night.", Entailment, "covered"},
		{"a bare plural before a verb without -s", "Family rooms sleep four guests.", "Rooms with balconies sleep four guests.", Neutral, ReasonMissingTerm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: tt.ev}})
			if err != nil {
				t.Fatal(err)
			}
			if not, ok := strings.CutPrefix(tt.want, "!"); ok && got.Label == not || !ok && (got.Label != tt.want || got.Reason != tt.why) {
				t.Errorf("Verify(%q) against %q = %s/%s (%s), want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, got.Detail, tt.want, tt.why)
			}
		})
	}
}

// The noun phrases missingTerm reads: words after a determiner, not after
// a number, and no periods.
func TestNounPhraseStems(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"The Arlo floor lamp comes with a bulb.", []string{"lamp", "bulb"}},
		{"Kids under 5 ride free.", nil},
		{"The pool opens every day at 10:00.", []string{"pool"}},
		{"It has no bulb, cable or plug.", []string{"bulb"}},
		{"The drug reduced the risk of a stroke.", []string{"drug", "stroke"}},
		{"The hotel offers a shuttle.", []string{"hotel", "shuttle"}},
		{"It reduces the incidence of a serious infection.", nil},
		{"Deletion of JAM-A increases gut permeability.", nil},
		{"The repair of a large blue glass lamp base.", nil},
		{"As a rule, a backup is encrypted.", []string{"backup"}},
		{"On the free plan you get a maximum of 3 projects.", []string{"plan"}},
		// a bare plural after "with" or a number
		{"The Arlo floor lamp comes with bulbs.", []string{"lamp", "bulb"}},
		{"The lamp takes 2 bulbs.", []string{"lamp", "bulb"}},
		{"It comes with 3 spare bulbs and a cable.", []string{"bulb", "cable"}},
		{"Patients with tumors showed gains.", []string{"tumor"}},
		{"Served with rice.", nil},
		{"Rooms cost 12 euros.", nil},
		// a bare phrase ends at its plural, not at the verb after it
		{"Rooms with balconies cost £20 more a night.", []string{"balconies", "night"}},
		{"Rooms with balconies sleep four guests.", []string{"balconies"}},
		{"Book rooms with balconies early.", []string{"balconies"}},
		{"Rooms with sea views book up early.", []string{"views"}},
		{"It has 2 linen shades included.", []string{"shades"}},
	}
	for _, tt := range tests {
		got := nounPhraseStems(tt.text)
		var want []string
		for _, w := range tt.want {
			want = append(want, canonStem(w))
		}
		if !slices.Equal(got, want) {
			t.Errorf("nounPhraseStems(%q) = %v, want %v", tt.text, got, want)
		}
	}
}

// A negated complement states its antonym ("not included" says excluded),
// a negated gradable antonym does not ("did not increase" is not
// "decreased"); cover and exclusion oppose (verify11).
func TestComplementNegated(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	tests := []struct {
		ev, claim string
		want, why string
	}{
		{"Breakfast is not included in the room rate.", "Breakfast is excluded.", Entailment, "covered"},
		{"Breakfast is not included in the room rate.", "Breakfast is not excluded.", Contradiction, "negation"},
		{"Breakfast is included in the room rate.", "Breakfast is excluded.", Contradiction, "antonym"},
		{"We cover storm damage to fences.", "Storm damage to fences is excluded.", Contradiction, "antonym"},
		{"Storm damage to fences is excluded from this policy.", "Storm damage to fences is covered.", Contradiction, "antonym"},
		{"We cover storm damage, excluding damage to fences.", "Storm damage is covered.", Entailment, "covered"},
		{"We do not cover:\n(a) wear and tear;\n(b) storm damage to fences;", "Storm damage to fences is excluded.", Entailment, "covered"},
		{"Aspirin did not increase the risk.", "Aspirin decreased the risk.", "!" + Entailment, ""},
	}
	for _, tt := range tests {
		got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: tt.ev}})
		if err != nil {
			t.Fatal(err)
		}
		if not, ok := strings.CutPrefix(tt.want, "!"); ok && got.Label == not || !ok && (got.Label != tt.want || got.Reason != tt.why) {
			t.Errorf("Verify(%q) against %q = %s/%s, want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, tt.want, tt.why)
		}
	}
}

// numKind tells a price and a count from a bare number.
func TestNumKind(t *testing.T) {
	tests := []struct {
		text string
		want []uint8
	}{
		{"Arlo floor lamp, £89.", []uint8{numMoney}},
		{"It costs $ 5 or 12 euros.", []uint8{numMoney, numMoney}},
		{"It comes with 2 bulbs.", []uint8{numCount}},
		{"It comes with two bulbs.", []uint8{numCount}},
		{"Rooms are 30 a night.", []uint8{0}},
		{"Entry for adults is 10.", []uint8{0}},
		{"2 million people", []uint8{numCount}},
		{"It has 2 E27 fittings, 90 minutes.", []uint8{0, 0}},
	}
	for _, tt := range tests {
		var got []uint8
		for _, tm := range analyse(tt.text) {
			if tm.isNum {
				got = append(got, tm.kind)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("kinds of the numbers of %q = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// The readers the three fixes added never panic; a term follows a clause
// boundary or a list comma, not both; analyseUpTo stays a prefix of
// analyse with lists; a text verified against itself gets a label.
func FuzzMoneyListPhrase(f *testing.F) {
	for _, s := range []string{"No dogs, cats or other pets are allowed.", "Parking is £12 a night; free for guests.",
		"costs 12, a fee of", "No a, b, c, d, e or f", "The Arlo floor lamp comes with a bulb.", "JAM-A", "no ,, or", "€", "£ 5 euros"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		freeCue(s)
		priceCue(s)
		nounPhraseStems(s)
		all := analyse(s)
		for _, tm := range all {
			if tm.brk && tm.lst {
				t.Fatalf("analyse(%q): a term after both a boundary and a list comma: %+v", s, tm)
			}
		}
		if got := analyseUpTo(s, 2); len(got) > len(all) || !slices.Equal(got, all[:len(got)]) {
			t.Fatalf("analyseUpTo(%q, 2) = %v, not a prefix of %v", s, got, all)
		}
		v, _ := NewLocal(DefaultConfig().Local).Verify(context.Background(), s, []Passage{{N: 1, Text: s}})
		if v.Label == "" {
			t.Fatalf("Verify(%q) has no label", s)
		}
	})
}

func TestMoneyCues(t *testing.T) {
	tests := []struct {
		text        string
		free, price bool
	}{
		{"Parking is FREE for guests.", true, false},
		{"A gluten-free menu costs £12.", false, true},
		{"Feel free to ask; the fee is 5 euros.", false, true},
		{"There is No charge for towels.", true, false},
		{"Nobody charges extra; no fees apply.", true, false},
		{"nocharge, nofee", false, false},
		{"Entry: adults $ 10, children free.", true, true},
		{"A fee of 5 per bag.", false, true},
		{"Pay at the desk within 30 minutes.", false, false},
		{"The lamp takes 2 bulbs.", false, false},
		{"Complimentary breakfast; gratis", true, false},
		// free as available, or only at a time: no money cue
		{"The meeting room is free on Mondays.", false, false},
		{"The meeting room is free after 6pm.", false, false},
		{"Is the room free tomorrow?", false, false},
		{"The desk is free every weekday morning.", false, false},
		{"The manager is free to talk.", false, false},
		{"The room is free to book for an hour.", false, false},
		// free as costing nothing, with "to" or "for" after it
		{"The club is free to join.", true, false},
		{"The app is free to use.", true, false},
		{"Entry is free to the public.", true, false},
		{"The museum is free to residents.", true, false},
		{"Parking is free for guests.", true, false},
		{"Parking is free at the point of use.", true, false},
		{"Free on Mondays; free to join.", true, false},
	}
	for _, tt := range tests {
		if got := freeCue(normPhrases(tt.text)); got != tt.free {
			t.Errorf("freeCue(%q) = %v, want %v", tt.text, got, tt.free)
		}
		if got := priceCue(normPhrases(tt.text)); got != tt.price {
			t.Errorf("priceCue(%q) = %v, want %v", tt.text, got, tt.price)
		}
	}
}

// A list whose lead negates ("We do not cover:") carries the negation to
// each item, on its own line or after the colon: an item states what is
// excluded, not what is covered (trial 5).
func TestNegatedListLead(t *testing.T) {
	v := NewLocal(DefaultConfig().Local)
	const (
		policy = "We do not cover:\n(a) damage caused by wear and tear, rot, damp or anything that happens gradually;\n(b) storm or flood damage to gates, fences and hedges;\n(c) escape of water or theft while the home is unoccupied (see Definitions, 2.3);"
		pets   = "We do not cover:\n(a) theft from an unattended car unless the item was hidden in a locked boot and the car was locked;\n(b) damage caused by pets chewing, scratching, tearing or fouling;"
		hotel  = "Not included:\n- breakfast\n- airport transfers\n- late checkout\n\nThe room rate includes parking and wifi."
		rules  = "The following are not allowed: 1. smoking indoors; 2. pets in the bedrooms."
		excl   = "Exclusions:\n1. Storm damage to fences.\n2. Theft from an unlocked shed."
		cond   = "If you do not pay on time:\n(a) we charge a late fee of £10;\n(b) we pause your deliveries."
		plain  = "We cover:\n(a) storm damage to your home;\n(b) theft after a forced entry."
		frost  = "We do not cover:\n(a) wear and tear;\n(f) frost damage to pipes in garages that are not heated;"
		unfit  = "Not suitable for:\n- children under 3\n- outdoor use"
		advice = "Not recommended for:\n- children under 3\n- outdoor use"
		tools  = "Cannot be used for:\n- cutting metal\n- wet surfaces"
	)
	tests := []struct {
		name, ev, claim string
		want, why       string
	}{
		{"a lettered item read as cover", policy, "Storm damage to fences is covered.", Contradiction, "negation"},
		{"another item", policy, "Theft is covered while the home is unoccupied.", Contradiction, "negation"},
		{"the item stated as excluded", policy, "Storm damage to fences is not covered.", Entailment, "covered"},
		{"pets chewing", pets, "Damage caused by pets chewing is covered.", Contradiction, "negation"},
		{"pets chewing excluded", pets, "Damage caused by pets chewing is not covered.", Entailment, "covered"},
		{"an item's exception left out", pets, "Theft from an unattended car is covered.", Contradiction, "negation"},
		{"an item's exception stated", pets, "Theft from an unattended car is covered if the item was hidden in a locked boot and the car was locked.", Entailment, "covered"},
		{"a bulleted item", hotel, "Breakfast is included.", Contradiction, "negation"},
		{"a bulleted item two lines from the lead", hotel, "Late checkout is included.", Contradiction, "negation"},
		{"the list ends at prose", hotel, "The room rate includes parking.", Entailment, "covered"},
		{"an inline numbered list", rules, "Smoking indoors is allowed.", Contradiction, "negation"},
		{"an exclusions heading", excl, "Storm damage to fences is covered.", Contradiction, "negation"},
		{"a conditional lead negates nothing", cond, "We pause your deliveries.", Entailment, "covered"},
		{"a lead without negation", plain, "Storm damage to your home is covered.", Entailment, "covered"},
		{"an item's own negation left out of the claim", frost, "Frost damage to pipes in a heated garage is covered.", "!" + Contradiction, ""},
		{"an item's own negation, claim negated", frost, "Frost damage to pipes in a heated garage is not covered.", "!" + Entailment, ""},
		{"an item's own negation kept, the lead's dropped", frost, "Frost damage to pipes in garages that are not heated is covered.", Contradiction, "negation"},
		{"both negations kept", frost, "Frost damage to pipes in garages that are not heated is not covered.", Entailment, "covered"},
		{"an item's own negation kept in another word", frost, "Frost damage to pipes in an unheated garage is covered.", Contradiction, "negation"},
		{"not suitable for", unfit, "It is suitable for outdoor use.", Contradiction, "negation"},
		{"not suitable for, the item excluded", unfit, "It is not suitable for outdoor use.", Entailment, "covered"},
		{"not recommended for", advice, "It is recommended for outdoor use.", Contradiction, "negation"},
		{"cannot be used for", tools, "It can be used for cutting metal.", Contradiction, "negation"},
		// a claim naming the exclusion states the lead's negation (verify11)
		{"the item named as excluded", policy, "Storm damage to fences is excluded.", Entailment, "covered"},
		{"the item named as not excluded", policy, "Storm damage to fences is not excluded.", Contradiction, "negation"},
		{"an exclusions lead quoted", excl, "Exclusions: 1. Storm damage to fences.", Entailment, "covered"},
		{"an exclusions lead quoted without its marker", excl, "Exclusions: Storm damage to fences.", Entailment, "covered"},
		{"an exclusions item stated as excluded", excl, "Theft from an unlocked shed is excluded.", Entailment, "covered"},
		{"an exclusions item stated as covered", excl, "Theft from an unlocked shed is covered.", Contradiction, "negation"},
		{"a bulleted lead quoted without its markers", "Not included in the room rate:\n- breakfast for all guests;\n- airport transfers at any hour;\n- late checkout after 11am.\nThe room rate includes parking and wifi.",
			"Not included in the room rate: breakfast for all guests; airport transfers at any hour.", Entailment, "covered"},
		{"a heading ends the list", "We do not cover:\n(a) wear and tear;\n(b) storm damage to fences;\n## 2.7 Alternative accommodation\nWe pay for a hotel while your home cannot be lived in.", "Alternative accommodation is covered.", "!" + Contradiction, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: tt.ev}})
			if err != nil {
				t.Fatal(err)
			}
			if not, ok := strings.CutPrefix(tt.want, "!"); ok && got.Label == not || !ok && (got.Label != tt.want || got.Reason != tt.why) {
				t.Errorf("Verify(%q) against %q = %s/%s %q, want %s/%s", tt.claim, tt.ev, got.Label, got.Reason, got.Evidence, tt.want, tt.why)
			}
		})
	}
}

// The negated-list reader never panics; a list marker lies inside its
// text; an item of a negated list is read with its lead before it and is
// negated; a quote of a list from its lead (quotesListOpening) has one.
func FuzzNegatedList(f *testing.F) {
	for _, s := range []string{"We do not cover:\n(a) wear and tear;\n(b) storm damage to fences;", "Not included:\n- breakfast\n- transfers",
		"Exclusions: 1. storm; 2. theft unless locked", "If you do not pay:\n(a) a fee", "We do not cover:\n\nWear and tear\nPets\nWhat we cover\nFire.", "(", "- ", "iv. x", "(ab) y", "no:\n;\n,", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := listMarker(s); n < 0 || n > len(s) {
			t.Fatalf("listMarker(%q) = %d, outside the text", s, n)
		}
		excludedStems(s)
		negatingLead(s)
		var r listReader
		for _, sent := range Split(s) {
			sent = strings.TrimSpace(sent)
			if sent == "" {
				continue
			}
			if it, ok := r.next(sent); ok && (!strings.HasSuffix(it.text, sent) || !strings.Contains(it.text, ":")) {
				t.Fatalf("%q: %q read as %q, not after a lead's colon", s, sent, it.text)
			}
		}
		// the text as a claim of itself, on one line: a quote of a list
		// from its lead has a lead that negates
		claim := strings.Join(strings.Fields(s), " ")
		if newClaimForms(claim).quotesListOpening(s) {
			if lead, _, ok := strings.Cut(quoteForm(claim), ":"); !ok || !negatingLead(lead) {
				t.Fatalf("%q: read as a quote of its negated list, with no negating lead", s)
			}
		}
		p := prepare("", s)
		for _, es := range p.sents {
			if len(es.negEnds) > 0 && es.negEnds[len(es.negEnds)-1] != len(es.negScope) {
				t.Fatalf("%q: sentence %q: negation ends %v beyond its scope %v", s, es.text, es.negEnds, es.negScope)
			}
		}
	})
}

// TestBareListItems pins which lines after a negated lead are read as its
// items when the list is written one a line without marker or punctuation,
// as the index writes a Markdown bullet list (a blank line after the lead)
// and keeps a plain-text one (a blank line after each item), and which
// lines end it (judge26).
func TestBareListItems(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // the lines read as items, in order
	}{
		{"markdown bullets", "We do not cover:\n\nWear and tear\nDamage caused by pets\nLoss of money left in a car\n\nAccidental damage is covered up to £1,000.",
			[]string{"Wear and tear", "Damage caused by pets", "Loss of money left in a car"}},
		{"plain text, a blank line after each item", "You cannot bring:\nCamping gas\n\nFireworks\n\nA small bag is always allowed.",
			[]string{"Camping gas", "Fireworks"}},
		{"prose right under the list", "The following are not allowed:\nFlash photography\nPhotography without flash is welcome.",
			[]string{"Flash photography"}},
		{"a heading naming the subject again", "We do not cover:\nWear and tear\nWhat we cover\nFire and theft",
			[]string{"Wear and tear"}},
		{"an exclusions heading after the list", "Not included:\nBreakfast\nExclusions for groups\nCoaches",
			[]string{"Breakfast"}},
		{"a new lead", "Not included:\nBreakfast\nParking\nIncluded:\nWi-Fi",
			[]string{"Breakfast", "Parking"}},
		{"a marked list takes no bare line", "We do not cover:\n(a) wear and tear;\n(b) storm damage to fences.\nGeneral conditions",
			[]string{"(a) wear and tear;", "(b) storm damage to fences."}},
		{"a long unpunctuated line is no item", "We do not cover:\nDamage that happens slowly over many months because the home was not looked after well",
			nil},
		{"a lead that does not negate", "We cover:\nPunctures\nLights", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r listReader
			var got []string
			for _, s := range Split(tt.text) {
				s = strings.TrimSpace(s)
				if s == "" {
					continue
				}
				if it, ok := r.next(s); ok {
					got = append(got, s)
					if !it.lead || len(it.excluded) == 0 {
						t.Errorf("%q read as %+v, want an item on its own line with excluded terms", s, it)
					}
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("items of %q = %q, want %q", tt.text, got, tt.want)
			}
		})
	}

	v := NewLocal(DefaultConfig().Local)
	const (
		home = "Home contents\n\nWe do not cover:\n\nWear and tear\nDamage caused by pets\nMould or rot\n\nAccidental damage to a television is covered up to £800."
		bag  = "You cannot bring:\nLiquids over 100 ml\n\nScissors\n\nCamping gas\n\nA small bag that fits under the seat is always allowed."
	)
	verdicts := []struct {
		ev, claim, want string
	}{
		{home, "Damage caused by pets is covered.", Contradiction},
		{home, "Mould is covered.", Contradiction},
		{home, "Damage caused by pets is not covered.", Entailment},
		{home, "Accidental damage to a television is covered up to £800.", Entailment},
		{bag, "You can bring camping gas.", Contradiction},
		{bag, "A small bag that fits under the seat is allowed.", Entailment},
	}
	for _, tt := range verdicts {
		got, err := v.Verify(context.Background(), tt.claim, []Passage{{N: 1, ID: "n", Text: tt.ev}})
		if err != nil {
			t.Fatal(err)
		}
		if got.Label != tt.want {
			t.Errorf("Verify(%q) against %q = %s/%s %q, want %s", tt.claim, tt.ev, got.Label, got.Reason, got.Evidence, tt.want)
		}
	}
}
