package main

// This file checks what an operator hands the commands against the snapshot
// it names: an --index that is not a snapshot, API keys without a partition.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/proxy"
	"go.uber.org/zap"
)

// keyPartitionWarnings lists the API keys of cfg that name a tenant and KB
// the served snapshot (pipeline.index) has no partition for: every chat on
// such a key finds nothing and falls back to general knowledge, with no
// error anywhere, so a typo in a key's tenant or kbs goes unseen. With auth
// off it warns instead when the snapshot has no default/default partition,
// where a chat that sends no X-Tenant-ID / X-KB-ID goes (a corpus built
// with --kb). nil when no snapshot is configured (the demo corpus), or the
// manifest cannot be read (serving reports that itself).
func keyPartitionWarnings(cfg proxy.Config) []string {
	if cfg.Pipeline.Index == "" {
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
	if !cfg.Auth.Enabled {
		if len(names) > 0 && !have[[2]string{index.DefaultTenant, index.DefaultKB}] {
			out = append(out, fmt.Sprintf("snapshot %s has no partition %s/%s, so a chat that sends no X-Tenant-ID / X-KB-ID header finds nothing and falls back (degraded: corpus); it has: %s",
				cfg.Pipeline.Index, index.DefaultTenant, index.DefaultKB, strings.Join(names, ", ")))
		}
		return out
	}
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
		msg := "API key without a partition"
		if !cfg.Auth.Enabled {
			msg = "no default partition"
		}
		log.Warn(msg, zap.String("problem", w))
	}
}

// checkSnapshotDir says plainly when dir, given as an index snapshot, is
// not one: a corpus folder or file passed by mistake is named as such, with
// the command that makes a snapshot of it.
func checkSnapshotDir(dir string) error {
	_, err := index.ReadManifest(dir)
	if err == nil || !(errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
		return nil // a snapshot, or a problem the loader words itself
	}
	if _, serr := os.Stat(dir); serr != nil {
		return fmt.Errorf("index %s: no such snapshot directory (guard index build --corpus PATH --out %s makes one)", dir, dir)
	}
	if looksLikeCorpus(dir) {
		return fmt.Errorf("index %s: this is a corpus, not an index snapshot (it has no manifest.json): build one with guard index build --corpus %s --out DIR, then pass DIR", dir, dir)
	}
	return fmt.Errorf("index %s: not an index snapshot (it has no manifest.json): guard index build --corpus PATH --out DIR makes one", dir)
}

// looksLikeCorpus reports whether path is a file guard index build reads
// as a corpus, or a folder holding one.
func looksLikeCorpus(path string) bool {
	found := false
	filepath.WalkDir(path, func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() && index.CorpusFile(p) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
