package retrieve

import (
	_ "embed"
	"slices"
	"strings"
	"sync"

	"github.com/answer-guard/guard/index"

	"github.com/viterin/vek/vek32"
)

// The general-question score: how much more a question reads like a
// general-knowledge question (trivia, general advice, the weather) than
// like a customer's question to a service, by the sentence encoder. It is
// the mean cosine of the question's vector to its generalNeighbours
// nearest questions of general_questions.txt, less the same to
// customer_questions.txt: both sets are generic (no corpus's vocabulary),
// so the score means the same on every corpus. The gate lowers the
// relevance of a question that scores above gate.general_above, on a
// corpus that keeps to one topic (gate.Config.GeneralAbove): "what's the
// capital of australia" shares no word with a campsite's prices, yet its
// cosine to them can reach the level of a customer's paraphrase.

//go:embed general_questions.txt
var generalQuestionsText string

//go:embed customer_questions.txt
var customerQuestionsText string

// generalNeighbours is how many nearest questions of each set the score
// averages.
const generalNeighbours = 3

// questionBanks are the two sets' vectors under one encoder.
type questionBanks struct {
	general, customer [][]float32
}

// bankLines are the questions of a set's file (blank lines and # comments
// dropped).
func bankLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// banksByChecksum keeps one *questionBanks per encoder model (its
// checksum), so a process embeds the sets once whatever number of engines
// it builds.
var banksByChecksum sync.Map // string -> func() *questionBanks

// banks are the sets' vectors under s's encoder: embedded on first use
// (165 short texts) and shared by every engine with the same model.
func (s *semantic) banks() *questionBanks {
	embed := func() *questionBanks {
		general, customer := bankLines(generalQuestionsText), bankLines(customerQuestionsText)
		var vs [][]float32
		if be, ok := s.enc.(interface{ EmbedBatch([]string) [][]float32 }); ok {
			vs = be.EmbedBatch(append(general, customer...)) // on every core
		} else {
			for _, q := range append(general, customer...) {
				vs = append(vs, s.enc.Embed(q))
			}
		}
		return &questionBanks{general: vs[:len(general)], customer: vs[len(general):]}
	}
	c, ok := s.enc.(checksummer)
	if !ok || c.Checksum() == "" { // a test's encoder: its own sets
		s.ownBanks.Do(func() { s.own = embed() })
		return s.own
	}
	f, _ := banksByChecksum.LoadOrStore(c.Checksum(), sync.OnceValue(embed))
	return f.(func() *questionBanks)()
}

// generalScore is the general-question score of the question vector qv
// (0 without one).
func (s *semantic) generalScore(qv []float32) float64 {
	if len(qv) == 0 {
		return 0
	}
	b := s.banks()
	return nearestMean(qv, b.general) - nearestMean(qv, b.customer)
}

// nearestMean is the mean cosine of qv to its generalNeighbours nearest
// vectors of set (the encoder's vectors are L2-normalised, so a cosine is
// a dot product).
func nearestMean(qv []float32, set [][]float32) float64 {
	if len(set) == 0 {
		return 0
	}
	cos := make([]float64, len(set))
	for i, v := range set {
		if len(v) == len(qv) {
			cos[i] = float64(vek32.Dot(qv, v))
		}
	}
	slices.Sort(cos)
	k := min(generalNeighbours, len(cos))
	var sum float64
	for _, c := range cos[len(cos)-k:] {
		sum += c
	}
	return sum / float64(k)
}

// generalRare is the word vectors' frequency rank (their row order, the
// most frequent English words first) from which a word is rare in
// English. A question word the partition uses and that is this rare (or
// that the word vectors do not hold) names something of the corpus's own:
// such a question is not general knowledge whatever it reads like ("Who
// founded Lanternfish?").
const generalRare = 30000

// namedTerm is the first word of q that names something of p's own (see
// generalRare), "" when none does or without word vectors.
func (s *semantic) namedTerm(p *index.Partition, q string) string {
	rv, ok := s.wv.(rowVectors)
	if !ok {
		return ""
	}
	for _, w := range index.Words(q) {
		if !p.KnowsWord(w) {
			continue
		}
		if id, ok := rv.ID(w); ok && id < generalRare {
			continue
		}
		return w
	}
	return ""
}
