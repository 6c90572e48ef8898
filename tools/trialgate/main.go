// Command trialgate turns the operator trials' corpora (bench/testdata/trial5,
// trial6, trial7, trial9, trial10, trial11, trial12,
// trial13, trial14, trial15, trial16, trial17, trial18, trial19, trial20,
// trial21, trial22, trial23, trial24, trial25, trial26, trial27, trial28,
// trial29, trial30, trial31) into dev sets of the
// grounding suite (guard bench quality --gate --trials): one folder each
// under bench/testdata/gate_trials with corpus.jsonl and questions.jsonl.
//
//	go run ./tools/trialgate [-trials bench/testdata] [-out bench/testdata/gate_trials]
//
// corpus.jsonl holds the chunks exactly as `guard index build` makes them at
// the defaults (id, title, kind, address, url, text), built from the trial's
// files with the trial's --tenant and --kb; a second tenant's rows kept for
// isolation are left out. Every chunk fits in one chunk again, so the suite,
// which chunks corpus.jsonl once more, sees the same ids and texts; the
// command checks that by building the written file.
//
// questions.jsonl is in the dev schema (bench.GateQuestion): an answerable
// question's answer_ids are the chunks that hold its `key` (whitespace
// folded; `|` separates alternatives), as the trials' run.sh scores a
// citation, narrowed to the chunks of its `passage` when any of those
// holds the key; on_topic_unanswerable is answerable false, off_topic is
// off_topic true. A multi-turn row (trial 12) keeps its `history`, the
// earlier user messages oldest first, and its `text`, the last message, is
// the question; the suite reads the two as the proxy reads that chat.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
)

// trialSet is one trial corpus: the sources `guard index build` was given,
// the partition they were built into and the questions file.
type trialSet struct {
	name, trial  string
	sources      []string // relative to the trial folder
	tenant, kb   string
	questionFile string
}

var trialSets = []trialSet{
	{"t5-coffee", "trial5", []string{"coffee/faq.jsonl"}, "kettle", "shop", "coffee-questions.jsonl"},
	{"t5-insurance", "trial5", []string{"insurance/"}, "default", "policy", "insurance-questions.jsonl"},
	{"t6-climbing", "trial6", []string{"climbing/"}, "crag", "climb", "climbing-questions.jsonl"},
	{"t6-library", "trial6", []string{"library/help.jsonl"}, "riverton", "help", "library-questions.jsonl"},
	{"t6-music", "trial6", []string{"music/faq.jsonl"}, "larkfield", "help", "music-questions.jsonl"},
	{"t6-storage", "trial6", []string{"storage/"}, "default", "storage", "storage-questions.jsonl"},
	{"t7-bakery", "trial7", []string{"bakery/faq.csv"}, "sugarloaf", "cakes", "bakery-questions.jsonl"},
	{"t7-campsite", "trial7", []string{"campsite/"}, "heron", "park", "campsite-questions.jsonl"},
	{"t9-boats", "trial9", []string{"boats/"}, "hawkmere", "hire", "boats-questions.jsonl"},
	{"t9-kennels", "trial9", []string{"kennels/"}, "brackenfold", "stay", "kennels-questions.jsonl"},
	{"t10-cinema", "trial10", []string{"cinema/"}, "regal", "cinema", "cinema-questions.jsonl"},
	{"t10-broadband", "trial10", []string{"broadband/help.csv"}, "kestrel", "help", "broadband-questions.jsonl"},
	{"t11-ski", "trial11", []string{"ski/"}, "snowline", "terms", "ski-questions.jsonl"},
	{"t11-laundrette", "trial11", []string{"laundrette/notes.jsonl"}, "suds", "notes", "laundrette-questions.jsonl"},
	{"t12-pharmacy", "trial12", []string{"pharmacy/"}, "hollybank", "help", "pharmacy-questions.jsonl"},
	{"t12-parking", "trial12", []string{"parking/permits-faq.csv"}, "ketterby", "permits", "parking-questions.jsonl"},
	{"t13-salonapp", "trial13", []string{"salonapp/"}, "chairtime", "help", "salonapp-questions.jsonl"},
	{"t13-garage", "trial13", []string{"garage/customer-info.txt"}, "fenwick", "garage", "garage-questions.jsonl"},
	{"t14-gym", "trial14", []string{"gym/"}, "larkfield", "leisure", "gym-questions.jsonl"},
	{"t14-softplay", "trial14", []string{"softplay/faq.jsonl"}, "wigglewoods", "play", "softplay-questions.jsonl"},
	{"t15-opticians", "trial15", []string{"opticians/"}, "brightwell", "optics", "opticians-questions.jsonl"},
	{"t15-escape", "trial15", []string{"escape/info-for-customers.txt"}, "cipherkey", "escape", "escape-questions.jsonl"},
	{"t16-tennis", "trial16", []string{"tennis/"}, "ashcombe", "club", "tennis-questions.jsonl"},
	{"t16-studio", "trial16", []string{"studio/faq.csv"}, "nettle", "studio", "studio-questions.jsonl"},
	{"t17-venue", "trial17", []string{"venue/"}, "titheoak", "events", "venue-questions.jsonl"},
	{"t17-furniture", "trial17", []string{"furniture/policy.jsonl"}, "northgate", "delivery", "furniture-questions.jsonl"},
	{"t18-removals", "trial18", []string{"removals/"}, "copperfield", "moves", "removals-questions.jsonl"},
	{"t18-camp", "trial18", []string{"camp/parent-info-pack.txt"}, "kestrel", "camp", "camp-questions.jsonl"},
	{"t19-physio", "trial19", []string{"physio/"}, "kingsmead", "physio", "physio-questions.jsonl"},
	{"t19-carwash", "trial19", []string{"carwash/prices.csv"}, "sparkle", "carwash", "carwash-questions.jsonl"},
	{"t20-guesthouse", "trial20", []string{"guesthouse/info.html"}, "harbourview", "guesthouse", "guesthouse-questions.jsonl"},
	{"t20-repair", "trial20", []string{"repair/faq.jsonl"}, "fixit", "repair", "repair-questions.jsonl"},
	{"t21-cowork", "trial21", []string{"cowork/"}, "hive", "cowork", "cowork-questions.jsonl"},
	{"t21-vegbox", "trial21", []string{"vegbox/faq.txt"}, "greenacre", "vegbox", "vegbox-questions.jsonl"},
	{"t22-cleaning", "trial22", []string{"cleaning/help.html"}, "sparkle2", "cleaning", "cleaning-questions.jsonl"},
	{"t22-lang", "trial22", []string{"lang/courses.tsv"}, "lingua", "lang", "lang-questions.jsonl"},
	{"t23-bikes", "trial23", []string{"bikes/"}, "spokes", "bikes", "bikes-questions.jsonl"},
	{"t23-tutors", "trial23", []string{"tutors/faq.csv"}, "brightminds", "tutors", "tutors-questions.jsonl"},
	{"t24-theatre", "trial24", []string{"theatre/"}, "lyric", "theatre", "theatre-questions.jsonl"},
	{"t24-energy", "trial24", []string{"energy/articles.jsonl"}, "brightwatt", "energy", "energy-questions.jsonl"},
	{"t25-print", "trial25", []string{"print/price-guide.txt"}, "inkwell", "print", "print-questions.jsonl"},
	{"t25-hire", "trial25", []string{"hire/terms.html"}, "roadrunner", "hire", "hire-questions.jsonl"},
	{"t26-venue", "trial26", []string{"venue/faq.md"}, "oakbarn", "venue", "venue-questions.jsonl"},
	{"t26-removals", "trial26", []string{"removals/help-export.json"}, "swiftmove", "removals", "removals-questions.jsonl"},
	{"t27-allotments", "trial27", []string{"allotments/rules.txt"}, "greenacre", "allotments", "allotments-questions.jsonl"},
	{"t27-phonefix", "trial27", []string{"phonefix"}, "phonefix", "repairs", "phonefix-questions.jsonl"},
	{"t28-lettings", "trial28", []string{"letting/handbook.html"}, "keyhouse", "lettings", "letting-questions.jsonl"},
	{"t28-golf", "trial28", []string{"golf/faq.txt"}, "moorside", "golf", "golf-questions.jsonl"},
	{"t29-dental", "trial29", []string{"dental"}, "brightsmile", "dental", "dental-questions.jsonl"},
	{"t29-farmshop", "trial29", []string{"farmshop/products.csv"}, "hollowfarm", "shop", "farmshop-questions.jsonl"},
	{"t30-locks", "trial30", []string{"locks/faq.html"}, "keysafe", "locks", "locks-questions.jsonl"},
	{"t30-nursery", "trial30", []string{"nursery/handbook.md"}, "littleoaks", "nursery", "nursery-questions.jsonl"},
	{"t31-funeral", "trial31", []string{"funeral/guide.txt"}, "dignity", "funeral", "funeral-questions.jsonl"},
	{"t31-bowl", "trial31", []string{"bowl/faq.csv"}, "strikezone", "bowl", "bowl-questions.jsonl"},
	{"t32-vets", "trial32", []string{"vet/handbook.txt"}, "riverside", "vets", "vet-questions.jsonl"},
	{"t32-driving", "trial32", []string{"driving"}, "roadready", "driving", "driving-questions.jsonl"},
	{"t33-waste", "trial33", []string{"skips/faq.yml"}, "skipit", "waste", "skips-questions.jsonl"},
	{"t33-pizza", "trial33", []string{"pizza/help.html"}, "slice", "pizza", "pizza-questions.jsonl"},
	{"t34-heating", "trial34", []string{"heating/terms.docx"}, "warmhome", "heating", "heating-questions.jsonl"},
	{"t34-water", "trial34", []string{"water"}, "clearwater", "water", "water-questions.jsonl"},
	{"t35-windows", "trial35", []string{"windows/prices.xlsx"}, "sparkle", "windows", "windows-questions.jsonl"},
	{"t35-cottage", "trial35", []string{"cottage/house-book.txt"}, "rosecottage", "cottage", "cottage-questions.jsonl"},
	{"t36-docs", "trial36", []string{"docs"}, "ledgerlite", "docs", "ledgerlite-questions.jsonl"},
	{"t36-cafe", "trial36", []string{"cafe/menu.html"}, "thecorner", "cafe", "cafe-questions.jsonl"},
	{"t37-shops", "trial37", []string{"bot/intents.json"}, "givingtree", "shops", "bot-questions.jsonl"},
	{"t37-hotel", "trial37", []string{"hotel/guide.md"}, "harbourview", "hotel", "hotel-questions.jsonl"},
	{"t38-football", "trial38", []string{"club"}, "ashvale", "football", "club-questions.jsonl"},
	{"t38-piano", "trial38", []string{"piano/index.html"}, "tunedin", "piano", "piano-questions.jsonl"},
	{"t39-things", "trial39", []string{"things/rules.odt"}, "sharehub", "things", "things-questions.jsonl"},
	{"t39-electric", "trial39", []string{"sparks/faq.txt"}, "brightsparks", "electric", "sparks-questions.jsonl"},
	{"t40-help", "trial40", []string{"docs"}, "bookwise", "help", "bookwise-questions.jsonl"},
	{"t40-photo", "trial40", []string{"photo/terms.txt"}, "lumen", "photo", "lumen-questions.jsonl"},
	{"t41-bulky", "trial41", []string{"bulky"}, "northvale", "bulky", "bulky-questions.jsonl"},
	{"t41-pottery", "trial41", []string{"pottery/prices.csv"}, "paintpot", "pottery", "pottery-questions.jsonl"},
	{"t42-dojo", "trial42", []string{"dojo/site.xml"}, "ironcrane", "dojo", "dojo-questions.jsonl"},
	{"t42-tea", "trial42", []string{"tea/products_export.csv"}, "leafandcup", "tea", "tea-questions.jsonl"},
	{"t43-garden", "trial43", []string{"garden"}, "greenthumb", "garden", "garden-questions.jsonl"},
	{"t43-advice", "trial43", []string{"advice/faq.txt"}, "openadvice", "advice", "advice-questions.jsonl"},
}

// trialQuestion is one line of a trial's questions file.
type trialQuestion struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	History []string `json:"history"` // earlier user messages, oldest first (trial 12)
	Expect  string   `json:"expect"`
	Passage string   `json:"passage"`
	Key     string   `json:"key"`
}

// devDoc is one line of a dev corpus.jsonl.
type devDoc struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Address string `json:"address,omitempty"`
	URL     string `json:"url,omitempty"`
	Text    string `json:"text"`
}

// devQuestion is one line of a dev questions.jsonl (bench.GateQuestion).
type devQuestion struct {
	ID         string   `json:"id"`
	History    []string `json:"history,omitempty"`
	Question   string   `json:"question"`
	Answerable bool     `json:"answerable"`
	AnswerIDs  []string `json:"answer_ids"`
	OffTopic   bool     `json:"off_topic,omitempty"`
	Note       string   `json:"note,omitempty"`
}

func main() {
	trials := flag.String("trials", "bench/testdata", "folder holding the trials (trial5, trial6, ...)")
	out := flag.String("out", "bench/testdata/gate_trials", "folder the sets are written into")
	flag.Parse()
	ctx := context.Background()
	for _, s := range trialSets {
		msg, err := convert(ctx, s, filepath.Join(*trials, s.trial), filepath.Join(*out, s.name))
		if err != nil {
			fmt.Fprintf(os.Stderr, "trialgate: %s: %v\n", s.name, err)
			os.Exit(1)
		}
		fmt.Println(msg)
	}
}

// convert writes one set and says what it wrote.
func convert(ctx context.Context, s trialSet, dir, out string) (string, error) {
	chunks, err := buildChunks(ctx, s, dir)
	if err != nil {
		return "", err
	}
	qs, err := readTrialQuestions(filepath.Join(dir, s.questionFile))
	if err != nil {
		return "", err
	}
	docs := make([]devDoc, len(chunks))
	for i, c := range chunks {
		docs[i] = devDoc{c.ID, c.Title, c.Kind, c.Address, c.URL, c.Text}
	}
	var dqs []devQuestion
	counts := map[string]int{}
	var notes []string
	for _, q := range qs {
		counts[q.Expect]++
		dq := devQuestion{ID: s.name + "-" + q.ID, History: q.History, Question: q.Text, AnswerIDs: []string{}}
		switch q.Expect {
		case "answerable":
			dq.Answerable = true
			ids, wide := answerChunks(chunks, q)
			if len(ids) == 0 {
				return "", fmt.Errorf("question %s: no chunk holds key %q", q.ID, q.Key)
			}
			if wide {
				notes = append(notes, fmt.Sprintf("%s: key %q not in passage %q's chunks; any chunk holding it: %s", q.ID, q.Key, q.Passage, strings.Join(ids, ",")))
			}
			dq.AnswerIDs = ids
			dq.Note = "passage: " + q.Passage
		case "on_topic_unanswerable":
		case "off_topic":
			dq.OffTopic = true
		default:
			return "", fmt.Errorf("question %s: unknown expect %q", q.ID, q.Expect)
		}
		dqs = append(dqs, dq)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	if err := writeJSONL(filepath.Join(out, "corpus.jsonl"), docs); err != nil {
		return "", err
	}
	if err := writeJSONL(filepath.Join(out, "questions.jsonl"), dqs); err != nil {
		return "", err
	}
	if err := checkRebuild(ctx, filepath.Join(out, "corpus.jsonl"), chunks); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("%s: %d chunks; %d answerable, %d on-topic unanswerable, %d off-topic",
		s.name, len(chunks), counts["answerable"], counts["on_topic_unanswerable"], counts["off_topic"])
	for _, n := range notes {
		msg += "\n  " + n
	}
	return msg, nil
}

// buildChunks builds s's sources as `guard index build --tenant --kb` does at
// the defaults and returns the partition's chunks in index order.
func buildChunks(ctx context.Context, s trialSet, dir string) ([]index.Chunk, error) {
	tmp, err := os.MkdirTemp("", "trialgate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	srcs := make([]string, len(s.sources))
	for i, p := range s.sources {
		srcs[i] = filepath.Join(dir, p)
	}
	snapDir := filepath.Join(tmp, "snap")
	if _, err := index.Build(ctx, chunkConfig(), srcs, nil, snapDir, zap.NewNop(), index.WithPartition(s.tenant, s.kb)); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return snapshotChunks(snapDir, s.tenant, s.kb)
}

// chunkConfig is the default index configuration with the hashed embedder:
// the chunks do not depend on the embedder, and it builds in a fraction of
// the encoder's time.
func chunkConfig() index.Config {
	ic := proxy.DefaultConfig().Stages.Index
	ic.Embedder = index.EmbedderHashed
	return ic
}

// snapshotChunks reads the chunks of one partition of a snapshot.
func snapshotChunks(dir, tenant, kb string) ([]index.Chunk, error) {
	snap, err := index.Load(dir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	var out []index.Chunk
	for _, c := range snap.Partition(tenant, kb).Chunks() {
		out = append(out, *c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("partition %s/%s is empty", tenant, kb)
	}
	return out, nil
}

// checkRebuild builds the written corpus.jsonl as the suite does (default
// partition) and checks that it gives back the same chunk ids and texts.
func checkRebuild(ctx context.Context, corpus string, want []index.Chunk) error {
	tmp, err := os.MkdirTemp("", "trialgate-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	docs, _, err := index.ReadDocs([]string{corpus}, true)
	if err != nil {
		return err
	}
	snapDir := filepath.Join(tmp, "snap")
	if _, err := index.BuildDocs(ctx, chunkConfig(), docs, nil, snapDir, zap.NewNop()); err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	got, err := snapshotChunks(snapDir, index.DefaultTenant, index.DefaultKB)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("rebuild: %d chunks, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Text != want[i].Text || got[i].Title != want[i].Title {
			return fmt.Errorf("rebuild: chunk %d is %q, want %q (text or title differs)", i, got[i].ID, want[i].ID)
		}
	}
	return nil
}

var spaces = regexp.MustCompile(`\s+`)

// answerChunks returns the ids of the chunks that hold q's key (any of its
// `|` alternatives), whitespace folded as run.sh folds it: those of q's
// passage when any of them does (wide false), else every one (wide true).
func answerChunks(chunks []index.Chunk, q trialQuestion) (ids []string, wide bool) {
	var all, inPassage []string
	docs := passageDocs(chunks, q.Passage)
	for _, c := range chunks {
		text := spaces.ReplaceAllString(c.Text, " ")
		held := false
		for _, k := range strings.Split(q.Key, "|") {
			if k = strings.TrimSpace(k); k != "" && strings.Contains(text, k) {
				held = true
			}
		}
		if !held {
			continue
		}
		all = append(all, c.ID)
		if docs[c.DocID] && passageSection(c, q.Passage) {
			inPassage = append(inPassage, c.ID)
		}
	}
	if len(inPassage) > 0 {
		return inPassage, false
	}
	return all, true
}

// passageDocs returns the documents a passage names: its first word is a
// file (or a row id), its second a row of that file when the file is a
// spreadsheet ("faq.csv b1").
func passageDocs(chunks []index.Chunk, passage string) map[string]bool {
	f := strings.Fields(passage)
	out := map[string]bool{}
	for _, c := range chunks {
		if len(f) > 0 && c.DocID == f[0] || len(f) > 1 && c.DocID == f[1] {
			out[c.DocID] = true
		}
	}
	return out
}

// passageSection reports whether c lies in the section the passage names
// after its file ("conditions.txt 1. Registration"): the section's heading
// is in the chunk's title or opens its text. A passage that names only a
// document (or row), or a paragraph of an untitled text file by number
// ("hire-information.txt ¶4", which no chunk's title or text names), holds
// every chunk of it.
func passageSection(c index.Chunk, passage string) bool {
	f := strings.Fields(passage)
	if len(f) < 2 || c.DocID == f[1] || strings.HasPrefix(f[1], "¶") {
		return true
	}
	sec := strings.Join(f[1:], " ")
	return strings.Contains(c.Title, sec) || strings.Contains(c.Text, sec)
}

func readTrialQuestions(path string) ([]trialQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []trialQuestion
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q trialQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

func writeJSONL[T any](path string, rows []T) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
