package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answer-guard/guard/mockllm"
)

// TestBadLinePolicy: every command that reads JSON lines follows one
// policy. Each bad line is reported once on stderr as file:line: reason in
// plain words (no Go types, no decoder jargon), the good lines are all
// processed, a summary counts the skipped lines, and the exit status is 1
// unless --skip-bad (0); --strict stops at the first bad line (1).
func TestBadLinePolicy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pairs := write("pairs.jsonl", `{"id":"a","claim":"The pool has six lanes.","evidence":["The pool has six swimming lanes."]}
{"id":"b","claim":"","evidence":["x"]}
{"id":"c","claim":"The sauna is for adults."}
not json
{"id":"e","claim":["x"],"evidence":["y"]}
{"id":"f","claim":"The sauna is for adults only.","evidence":["The sauna is for adults only."]}
`)
	corpus := write("corpus.jsonl", `{"id":"a","text":"alpha lanes"}
{"id":"b"}
["not", "an", "object"]
{"id":"c","text":"gamma sauna"}
{"id":"c","text":"twice"}
`)
	good := write("good.jsonl", `{"id":"a","text":"alpha lanes"}`+"\n")
	memory := write("memory.jsonl", `{"type":"pin","question":"Where are the lanes?","refs":["a"]}
{"type":"pin","question":"no refs"}
`)
	snap := filepath.Join(dir, "snap")
	if code, _, stderr := runCLI(t, "index", "build", "--corpus", good, "--out", snap); code != 0 {
		t.Fatalf("build: %d %s", code, stderr)
	}
	queries := write("queries.jsonl", `{"id":"q1","text":"alpha"}
{"_id":7,"text":"lanes"}
{"id":"q3"}
{"id":"q 4","text":"alpha"}
{"text":"no id"}
`)
	run := filepath.Join(dir, "run.txt")
	answers := write("answers.jsonl", `{"id":"q1","question":"What?","answer":"This."}
{"question":"no id"}
{"id":"q1","question":"again"}
`)
	answersB := write("answersB.jsonl", `{"id":"q1","question":"What?","answer":"That."}
`)
	questions := write("questions.jsonl", `{"id":"q1","question":"How do I restore a backup?"}
{"id":"q2"}
{"id":"q3","question":"   "}
`)
	mcfg := mockllm.DefaultConfig()
	mcfg.Pace = 0
	mock, err := mockllm.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	mockURL := mock.BaseURL()
	n := 0
	out := func() string { n++; return filepath.Join(dir, "out"+string(rune('a'+n))) }

	tests := []struct {
		name   string
		args   func(extra ...string) []string
		bad    []string // file:line: reason, in order
		stdout []string // evidence that the good lines were processed
	}{
		{"judge --pairs", func(extra ...string) []string { return append([]string{"judge", "--pairs", pairs}, extra...) },
			[]string{pairs + `:2: missing "claim"`, pairs + `:3: missing "evidence"`, pairs + ":4: not valid JSON", pairs + `:5: field "claim" must be text, got a list`},
			[]string{"\"a\"\t", "\"f\"\t", "# 2 pairs in "}},
		{"index build", func(extra ...string) []string {
			return append([]string{"index", "build", "--corpus", corpus, "--memory", memory, "--out", out()}, extra...)
		},
			[]string{corpus + `:2: doc "b": missing text`, corpus + ":3: the line must be a JSON object, got array", corpus + `:5: duplicate id "c"`,
				memory + ":2: pin: missing refs"},
			[]string{": 2 docs, ", "1 memory entry,"}},
		{"index add", func(extra ...string) []string {
			return append([]string{"index", "add", "--index", snap, "--corpus", corpus, "--out", out()}, extra...)
		},
			[]string{corpus + `:2: doc "b": missing text`, corpus + ":3: the line must be a JSON object, got array", corpus + `:5: duplicate id "c"`},
			[]string{"documents: 1 added, 0 replaced, 1 unchanged, 0 removed"}},
		{"index query --queries", func(extra ...string) []string {
			return append([]string{"index", "query", "--index", snap, "--queries", queries, "--run", run}, extra...)
		},
			[]string{queries + `:3: missing "text"`, queries + `:4: id "q 4" contains a space`, queries + `:5: missing "id" (or "_id")`},
			[]string{"wrote " + run + ": 2 queries"}},
		{"judge --pairwise --a --b", func(extra ...string) []string {
			return append([]string{"judge", "--pairwise", "--a", answers, "--b", answersB, "--judge-base-url", mockURL, "--judge-model", "judge-1"}, extra...)
		},
			[]string{answers + `:2: missing "id"`, answers + `:3: duplicate id "q1"`},
			[]string{"1 questions judged (0 judge errors"}},
		{"bench answers --questions", func(extra ...string) []string {
			return append([]string{"bench", "answers", "--target", mockURL, "--questions", questions, "--out", filepath.Join(dir, "ans.jsonl")}, extra...)
		},
			[]string{questions + `:2: want an "id" and a "question"`, questions + `:3: want an "id" and a "question"`},
			[]string{": 1 answer (0 failed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []struct {
				flag string
				code int
			}{{"", 1}, {"--skip-bad", 0}, {"--strict", 1}} {
				var extra []string
				if mode.flag != "" {
					extra = []string{mode.flag}
				}
				code, stdout, stderr := runCLI(t, tt.args(extra...)...)
				if code != mode.code {
					t.Errorf("%s: exit %d, want %d\nstderr: %s", mode.flag, code, mode.code, stderr)
				}
				var lines []string
				for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
					if !strings.HasPrefix(l, "encoder: ") { // the encoder's progress shares stderr
						lines = append(lines, l)
					}
				}
				if mode.flag == "--strict" {
					// the first bad line ends the command
					if len(lines) != 1 || !strings.Contains(lines[0], tt.bad[0]) {
						t.Errorf("--strict: stderr %q, want only the first bad line %q", stderr, tt.bad[0])
					}
					continue
				}
				if len(lines) != len(tt.bad)+1 {
					t.Errorf("%s: %d stderr lines, want %d bad lines and the summary:\n%s", mode.flag, len(lines), len(tt.bad), stderr)
					continue
				}
				for i, want := range tt.bad {
					if !strings.HasPrefix(lines[i], want) {
						t.Errorf("%s: stderr line %d = %q, want %q...", mode.flag, i+1, lines[i], want)
					}
				}
				summary := lines[len(lines)-1]
				if !strings.Contains(summary, plural(len(tt.bad), "bad line")+" skipped") {
					t.Errorf("%s: summary %q, want the count %d", mode.flag, summary, len(tt.bad))
				}
				for _, want := range tt.stdout {
					if !strings.Contains(stdout, want) {
						t.Errorf("%s: stdout lacks %q:\n%s", mode.flag, want, stdout)
					}
				}
				for _, jargon := range []string{"Go value", "json:", "map[", "unmarshal", "RawMessage", "invalid character"} {
					if strings.Contains(stderr+stdout, jargon) {
						t.Errorf("%s: output speaks Go (%q):\n%s%s", mode.flag, jargon, stderr, stdout)
					}
				}
			}
		})
	}
}

// Flag and argument mistakes of guard index query are usage errors.
func TestIndexQueryUsage(t *testing.T) {
	for _, args := range [][]string{
		{"index", "query", "--k", "0", "question"},
		{"index", "query", "--k", "-3", "question"},
		{"index", "query", ""},
		{"index", "query", "  "},
		{"index", "query", "--queries", "q.jsonl"},
		{"index", "query", "--queries", "q.jsonl", "--run", "r", "question"},
	} {
		if code, _, stderr := runCLI(t, args...); code != 2 || stderr == "" {
			t.Errorf("guard %q: exit %d, stderr %q; want 2 with the problem", args, code, stderr)
		}
	}
}
