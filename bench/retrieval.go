package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/retrieve"
	"go.uber.org/zap"
)

// RetrievalRow is one retrieval configuration's quality.
type RetrievalRow struct {
	Name      string  `json:"name"`
	NDCG10    float64 `json:"ndcg_at_10"`
	Recall100 float64 `json:"recall_at_100"`
	MeanMs    float64 `json:"mean_ms"`
}

// RetrievalReport is the outcome of RetrievalQuality.
type RetrievalReport struct {
	Dataset      string         `json:"dataset"`
	Docs         int            `json:"docs"`
	Queries      int            `json:"queries"`
	BuildSeconds float64        `json:"build_seconds"`
	Rows         []RetrievalRow `json:"rows"`
}

// RetrievalQuality indexes SciFact (BEIR form, under dataDir/scifact/beir)
// with the embedded local embedder and scores lexical only, dense only,
// hybrid (ordered by calibrated score) and hybrid + local rerank on the
// train qrels: nDCG@10 and recall@100, as a Markdown table on w.
func RetrievalQuality(ctx context.Context, dataDir string, w io.Writer) (RetrievalReport, error) {
	return RetrievalQualityWith(ctx, dataDir, index.DefaultConfig(), retrieve.DefaultConfig(), w)
}

// RetrievalQualityWith is RetrievalQuality with explicit configs (tuning).
func RetrievalQualityWith(ctx context.Context, dataDir string, ic index.Config, rc retrieve.Config, w io.Writer) (RetrievalReport, error) {
	rep := RetrievalReport{Dataset: "scifact/beir train"}
	dir := filepath.Join(dataDir, "scifact", "beir")
	docs, err := readBEIRCorpus(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return rep, err
	}
	queries, err := readBEIRQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return rep, err
	}
	qrels, err := readQrels(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		return rep, err
	}
	rep.Docs = len(docs)
	tmp, err := os.MkdirTemp("", "guard-scifact-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(tmp)
	ic.ChunkChars = 100000 // one chunk per abstract: BEIR scores documents
	ic.MinChunkChars = 0
	start := time.Now()
	if _, err := index.BuildDocs(ctx, ic, docs, nil, filepath.Join(tmp, "snap"), zap.NewNop()); err != nil {
		return rep, err
	}
	rep.BuildSeconds = time.Since(start).Seconds()
	snap, err := index.Load(filepath.Join(tmp, "snap"))
	if err != nil {
		return rep, err
	}
	p := snap.Partition(index.DefaultTenant, index.DefaultKB)
	if p == nil {
		snap.Close()
		return rep, errors.New("scifact partition missing")
	}
	var qids []string
	for qid := range qrels {
		if _, ok := queries[qid]; ok {
			qids = append(qids, qid)
		}
	}
	sort.Strings(qids)
	rep.Queries = len(qids)

	rc.TopK, rc.PoolCap = 100, 100
	rc.DenseK, rc.LexicalK, rc.LexicalKeep = 100, 100, 50
	rc.Reserves = nil
	hybrid := rc
	hybrid.Rerank.Mode = "off"
	reranked := rc
	reranked.Rerank.Mode = "local"
	type system struct {
		name string
		run  func(q string) ([]string, error)
	}
	docIDs := func(hits []index.Hit) []string {
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = p.Chunk(h.Index).DocID
		}
		return out
	}
	engines := map[string]*retrieve.Engine{}
	defer func() {
		for _, e := range engines {
			e.Close() // their question caches run goroutines; they hold no snapshot
		}
	}()
	for name, cfg := range map[string]retrieve.Config{"hybrid": hybrid, "hybrid + local rerank": reranked} {
		// Each engine gets its own view of the snapshot; only the first
		// owns it (Close on the others would close the shared indexes).
		e, err := retrieve.New(cfg, ic, nil, zap.NewNop())
		if err != nil {
			snap.Close()
			return rep, err
		}
		engines[name] = e
	}
	defer snap.Close()
	engineRun := func(name string) func(q string) ([]string, error) {
		e := engines[name]
		return func(q string) ([]string, error) {
			res, err := e.RetrieveFrom(ctx, snap, retrieve.Query{Tenant: index.DefaultTenant, KB: index.DefaultKB, Text: q})
			if err != nil {
				return nil, err
			}
			out := make([]string, len(res.Candidates))
			for i, c := range res.Candidates {
				out[i] = c.DocID
			}
			return out, nil
		}
	}
	systems := []system{
		{"lexical only (Bleve BM25)", func(q string) ([]string, error) {
			h, err := p.Lexical(ctx, q, 100)
			return docIDs(h), err
		}},
		{"dense only (local embedder)", func(q string) ([]string, error) {
			h, err := p.Dense(p.EmbedQuery(q), 100, rc.DenseOverfetch)
			return docIDs(h), err
		}},
		{"hybrid", engineRun("hybrid")},
		{"hybrid + local rerank", engineRun("hybrid + local rerank")},
	}
	for _, s := range systems {
		var ndcg, recall float64
		start := time.Now()
		for _, qid := range qids {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			ranked, err := s.run(queries[qid])
			if err != nil {
				return rep, fmt.Errorf("%s: query %s: %w", s.name, qid, err)
			}
			ranked = dedupe(ranked)
			ndcg += ndcgAt(ranked, qrels[qid], 10)
			recall += recallAt(ranked, qrels[qid], 100)
		}
		n := float64(len(qids))
		rep.Rows = append(rep.Rows, RetrievalRow{Name: s.name, NDCG10: ndcg / n, Recall100: recall / n,
			MeanMs: float64(time.Since(start).Microseconds()) / 1000 / n})
	}
	writeRetrievalTable(w, rep)
	return rep, nil
}

func writeRetrievalTable(w io.Writer, rep RetrievalReport) {
	fmt.Fprintf(w, "## Retrieval quality (%s: %d docs, %d queries; index built in %.1fs)\n\n", rep.Dataset, rep.Docs, rep.Queries, rep.BuildSeconds)
	fmt.Fprintln(w, "| system | nDCG@10 | recall@100 | mean ms/query |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.2f |\n", r.Name, r.NDCG10, r.Recall100, r.MeanMs)
	}
	fmt.Fprintln(w, "\nPublished BEIR references on the SciFact test split: BM25 0.665, BM25 + cross-encoder 0.688 (nDCG@10).")
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func ndcgAt(ranked []string, rel map[string]int, k int) float64 {
	var dcg float64
	for i, id := range ranked {
		if i >= k {
			break
		}
		if g := rel[id]; g > 0 {
			dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
		}
	}
	gains := make([]int, 0, len(rel))
	for _, g := range rel {
		gains = append(gains, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(gains)))
	var idcg float64
	for i, g := range gains {
		if i >= k {
			break
		}
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func recallAt(ranked []string, rel map[string]int, k int) float64 {
	total, hit := 0, 0
	for _, g := range rel {
		if g > 0 {
			total++
		}
	}
	for i, id := range ranked {
		if i >= k {
			break
		}
		if rel[id] > 0 {
			hit++
		}
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}

func readBEIRCorpus(path string) ([]index.Doc, error) {
	var docs []index.Doc
	err := scanJSONL(path, func(line []byte) error {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		if strings.TrimSpace(d.Text) == "" {
			d.Text = d.Title
		}
		docs = append(docs, index.Doc{ID: d.ID, Title: d.Title, Text: d.Text, Kind: "library"})
		return nil
	})
	return docs, err
}

func readBEIRQueries(path string) (map[string]string, error) {
	out := map[string]string{}
	err := scanJSONL(path, func(line []byte) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		out[q.ID] = q.Text
		return nil
	})
	return out, err
}

func readQrels(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open qrels: %w", err)
	}
	defer f.Close()
	out := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 || fs[0] == "query-id" {
			continue
		}
		var g int
		if _, err := fmt.Sscan(fs[2], &g); err != nil {
			return nil, fmt.Errorf("%s:%d: bad score", path, n)
		}
		if out[fs[0]] == nil {
			out[fs[0]] = map[string]int{}
		}
		out[fs[0]][fs[1]] = g
	}
	return out, sc.Err()
}

func scanJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
