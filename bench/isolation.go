package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/mockllm"
	"github.com/answer-guard/guard/proxy"
)

// isoTenant is one tenant of the isolation scenario.
type isoTenant struct {
	name string
	key  string
	kbs  []string
}

var isoTopics = []string{"lighthouse maintenance", "orchard irrigation", "glacier survey", "violin restoration",
	"bridge inspection", "honey harvest", "comet tracking", "ferry timetable"}

// isolationCorpus writes a JSONL corpus where every document's id, URL and
// text name its tenant and KB, and every tenant has documents on the same
// topics (so a leak across partitions would be a good match).
func isolationCorpus(path string, tenants []isoTenant) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, t := range tenants {
		for _, kb := range t.kbs {
			for i, topic := range isoTopics {
				id := fmt.Sprintf("%s-%s-doc%d", t.name, kb, i)
				d := index.Doc{ID: id, Tenant: t.name, KB: kb, Kind: "lecture", Title: topic + " (" + t.name + "/" + kb + ")",
					URL: fmt.Sprintf("https://%s.example/%s/%d", t.name, kb, i),
					Text: fmt.Sprintf("The %s handbook of %s, knowledge base %s, says the %s schedule runs every %d days "+
						"and needs %d people. The %s team reviews the %s log each season and records %d findings.",
						topic, t.name, kb, topic, 3+i, 2+i, t.name, topic, 10+i)}
				if err := enc.Encode(d); err != nil {
					f.Close()
					return err
				}
			}
		}
	}
	return f.Close()
}

func scenarioIsolation(ctx context.Context, opt ChaosOptions, r *ChaosResult) {
	tenants := []isoTenant{
		{"t1", "key-t1-0123456789", []string{"alpha", "beta"}},
		{"t2", "key-t2-0123456789", []string{"alpha"}},
		{"t3", "key-t3-0123456789", []string{"gamma", "alpha"}},
		{"t4", "key-t4-0123456789", []string{"delta"}},
	}
	// The corpus matters only when the guard pipeline is wired; building it
	// for a pass-through proxy would measure nothing.
	var indexDir string
	if proxy.NewPipeline(zap.NewNop()) != nil {
		tmp, err := os.MkdirTemp("", "guard-isolation-")
		if err != nil {
			r.problem("temp dir: %v", err)
			return
		}
		defer os.RemoveAll(tmp)
		corpus := filepath.Join(tmp, "corpus.jsonl")
		if err := isolationCorpus(corpus, tenants); err != nil {
			r.problem("write corpus: %v", err)
			return
		}
		indexDir = filepath.Join(tmp, "snap")
		log := opt.Log
		if log == nil {
			log = zap.NewNop()
		}
		if _, err := index.Build(ctx, index.DefaultConfig(), []string{corpus}, nil, indexDir, log); err != nil {
			r.problem("build isolation index: %v", err)
			return
		}
	}
	withServers(opt, r, "", func(m *mockllm.Config, c *proxy.Config) {
		c.Auth.Enabled = true
		for _, t := range tenants {
			sum := sha256.Sum256([]byte(t.key))
			c.Auth.Keys = append(c.Auth.Keys, proxy.KeyConfig{Name: t.name, SHA256: hex.EncodeToString(sum[:]), Tenant: t.name, KBs: t.kbs})
		}
		if indexDir != "" {
			c.Pipeline.Index = indexDir
		}
	}, func(ip *InProcess, c *chaosClient) {
		if indexDir == "" {
			r.Outcomes["pipeline not wired: citations not checkable, auth partitioning checked"] = 1
		}
		n := opt.n(80, 4000)
		rng := rand.New(rand.NewPCG(3, 5))
		type job struct {
			t        isoTenant
			hdr      map[string]string
			want     []string
			kb       string // the partition the answer may cite
			prompt   string
			stream   bool
			wrongKey bool
		}
		jobs := make([]job, n)
		for i := range jobs {
			t := tenants[rng.IntN(len(tenants))]
			other := tenants[rng.IntN(len(tenants))]
			j := job{t: t, kb: t.kbs[0], stream: rng.IntN(2) == 0,
				prompt: fmt.Sprintf("How often does the %s schedule run for %s?", isoTopics[rng.IntN(len(isoTopics))], other.name)}
			j.hdr = map[string]string{"Authorization": "Bearer " + t.key}
			switch k := rng.IntN(10); {
			case k < 5: // plain, default KB
				j.want = []string{"200 done", refusedByGuard}
			case k < 7: // an explicit KB: allowed or another tenant's
				kb := other.kbs[rng.IntN(len(other.kbs))]
				j.hdr["X-KB-ID"] = kb
				if contains(t.kbs, kb) {
					j.kb, j.want = kb, []string{"200 done", refusedByGuard}
				} else {
					j.want = []string{"403 kb_not_allowed"}
				}
			case k < 9: // a tenant header: own or someone else's
				j.hdr["X-Tenant-ID"] = other.name
				if other.name == t.name {
					j.want = []string{"200 done", refusedByGuard}
				} else {
					j.want = []string{"403 tenant_mismatch"}
				}
			default: // a wrong key
				j.hdr["Authorization"] = "Bearer " + t.key + "x"
				j.want = []string{"401 invalid_api_key"}
				j.wrongKey = true
			}
			jobs[i] = j
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		sem := make(chan struct{}, 16)
		cited := 0
		for _, j := range jobs {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				o := c.chat(ctx, chatBody(j.prompt, j.stream), j.hdr)
				mu.Lock()
				defer mu.Unlock()
				r.record(o, j.want...)
				if o.status != 200 {
					return
				}
				guard := gjson.GetBytes(o.body, "guard")
				urls := gjson.GetBytes(o.body, "citations")
				if o.check.Final != "" {
					guard = gjson.Get(o.check.Final, "guard")
					urls = gjson.Get(o.check.Final, "citations")
				}
				prefix := j.t.name + "-" + j.kb + "-"
				for _, c := range guard.Get("citations").Array() {
					cited++
					if id := c.Get("id").Str; !strings.HasPrefix(id, prefix) {
						r.problem("tenant %s kb %s cited %q from another partition", j.t.name, j.kb, id)
					}
				}
				for _, u := range urls.Array() {
					if !strings.Contains(u.Str, "://"+j.t.name+".example/"+j.kb+"/") && !strings.HasPrefix(u.Str, prefix) {
						r.problem("tenant %s kb %s got citation %q from another partition", j.t.name, j.kb, u.Str)
					}
				}
			})
		}
		wg.Wait()
		r.Outcomes[fmt.Sprintf("citations checked %d", cited)] = 1
		if indexDir != "" && cited == 0 {
			r.problem("no citation came back: isolation of citations was not exercised")
		}
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
