package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
	"go.uber.org/zap"
)

// keyPartitionWarnings lists the API keys of cfg that name a tenant and KB
// the served snapshot (pipeline.index) has no partition for: every chat on
// such a key finds nothing and falls back to general knowledge, with no
// error anywhere, so a typo in a key's tenant or kbs goes unseen. nil when
// auth is off, no snapshot is configured (the demo corpus), or the
// manifest cannot be read (serving reports that itself).
func keyPartitionWarnings(cfg proxy.Config) []string {
	if !cfg.Auth.Enabled || cfg.Pipeline.Index == "" {
		return nil
	}
	man, err := index.ReadManifest(cfg.Pipeline.Index)
	if err != nil {
		return nil
	}
	have := map[[2]string]bool{}
	var names []string
	for _, p := range man.Partitions {
		have[[2]string{p.Tenant, p.KB}] = true
		names = append(names, p.Tenant+"/"+p.KB)
	}
	sort.Strings(names)
	var out []string
	for i, k := range cfg.Auth.Keys {
		kbs := k.KBs
		if len(kbs) == 0 {
			kbs = []string{index.DefaultKB}
		}
		for _, kb := range kbs {
			if !have[[2]string{k.Tenant, kb}] {
				out = append(out, fmt.Sprintf("auth.keys[%d] (%s): snapshot %s has no partition %s/%s, so its chats find nothing (it has: %s)",
					i, k.Name, cfg.Pipeline.Index, k.Tenant, kb, strings.Join(names, ", ")))
			}
		}
	}
	return out
}

// warnKeyPartitions logs keyPartitionWarnings at start and after a reload.
func warnKeyPartitions(log *zap.Logger, cfg proxy.Config) {
	for _, w := range keyPartitionWarnings(cfg) {
		log.Warn("API key without a partition", zap.String("problem", w))
	}
}
