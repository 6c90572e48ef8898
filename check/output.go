package check

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Formats lists the output formats.
var Formats = []string{"text", "json", "github"}

func validFormat(f string) bool {
	for _, g := range Formats {
		if f == g {
			return true
		}
	}
	return false
}

// AtOrAbove counts the findings whose severity is at least min.
func AtOrAbove(fs []Finding, min string) int {
	n := 0
	for _, f := range fs {
		if severityRank[f.Severity] >= severityRank[min] {
			n++
		}
	}
	return n
}

// sortFindings orders findings by file and line, keeping discovery order
// within a line.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Line < fs[j].Line
	})
}

// Write renders findings in format (text, json or github). Text ends with
// a summary line built from st; json is one array of findings ([] when
// there are none); github writes one workflow command per finding.
func Write(w io.Writer, format string, fs []Finding, st Stats) error {
	bw := bufio.NewWriter(w)
	switch format {
	case "json":
		if fs == nil {
			fs = []Finding{}
		}
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(fs); err != nil {
			return err
		}
	case "github":
		for _, f := range fs {
			fmt.Fprintf(bw, "::%s file=%s,line=%d,title=%s::%s\n", githubLevel(f.Severity),
				ghProperty(f.File), f.Line, ghProperty("guard check: "+f.Kind), ghData(message(f)))
		}
	case "text":
		for _, f := range fs {
			fmt.Fprintf(bw, "%s:%d: %s: %s\n", f.File, f.Line, f.Severity, oneLine(message(f)))
		}
		fmt.Fprintln(bw, summary(fs, st))
	default:
		return fmt.Errorf("unknown format %q (want text, json or github)", format)
	}
	return bw.Flush()
}

// message is a finding's full human text: what is wrong, the sentence,
// what the source says, what to do.
func message(f Finding) string {
	var b strings.Builder
	b.WriteString(f.Kind)
	b.WriteString(": ")
	b.WriteString(f.Message)
	if f.Sentence != "" {
		fmt.Fprintf(&b, " | sentence: %q", clip(f.Sentence, 200))
	}
	if f.Evidence != "" {
		fmt.Fprintf(&b, " | evidence: %q", clip(f.Evidence, 200))
	}
	if f.Suggestion != "" {
		b.WriteString(" | suggestion: ")
		b.WriteString(f.Suggestion)
	}
	return b.String()
}

func summary(fs []Finding, st Stats) string {
	n := map[string]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	files := "files"
	if st.Files == 1 {
		files = "file"
	}
	return fmt.Sprintf("checked %d %s: %d sentences, %d cited (%d verified), %d uncited claims, %d citations (%d unknown); findings: %d critical, %d warning, %d info",
		st.Files, files, st.Sentences, st.Cited, st.Verified, st.Uncited, st.Citations, st.Unresolved, n[Critical], n[Warning], n[Info])
}

func githubLevel(sev string) string {
	switch sev {
	case Critical:
		return "error"
	case Warning:
		return "warning"
	}
	return "notice"
}

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
