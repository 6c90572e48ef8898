package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/index"
	"github.com/answer-guard/guard/index/encoder"
	"github.com/answer-guard/guard/index/wordvec"
	"github.com/answer-guard/guard/judge"
)

// printVersion writes guard --version: the module version, the commit it
// was built from (when the build recorded it), the Go version and the
// sha256 of every model embedded in the binary.
func printVersion(w io.Writer) error {
	version, commit := "(unknown)", "unknown (built without version control information)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		var rev, at string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			commit = rev
			if at != "" {
				commit += " (" + at + ")"
			}
			if modified {
				commit += ", with uncommitted changes"
			}
		}
	}
	fmt.Fprintf(w, "guard %s\ncommit   %s\ngo       %s %s/%s\nembedded models (sha256):\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	models := []struct{ name, sum string }{
		{"gate answerability model (gate/answermodel.json)", gate.AnswerModelChecksum()},
		{"gate relevance model (gate/relevancemodel.json)", gate.RelevanceModelChecksum()},
		{"local verifier model (judge/localmodel.json)", judge.LocalModelChecksum()},
		{"encoder coherence background (index/coherence_background.json)", index.CoherenceBackgroundChecksum()},
	}
	if e, err := encoder.Default(); err == nil {
		models = append(models, struct{ name, sum string }{"sentence encoder, USE-lite int8 (index/encoder)", e.Checksum()})
	} else {
		return fmt.Errorf("embedded sentence encoder: %w", err)
	}
	if v, err := wordvec.Default(); err == nil {
		models = append(models, struct{ name, sum string }{"word vectors, GloVe 100d int8 (index/wordvec)", v.Checksum()})
	} else {
		return fmt.Errorf("embedded word vectors: %w", err)
	}
	for _, m := range models {
		fmt.Fprintf(w, "  %s  %s\n", m.sum, m.name)
	}
	return nil
}
