package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestGapsCommand asks a running proxy an off-topic question twice and
// reads its gap queue with guard gaps.
func TestGapsCommand(t *testing.T) {
	base := startProxy(t, true)
	for range 2 {
		resp, err := http.Post(base+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"What is the capital of Mongolia?"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	code, out, errOut := runCLI(t, "gaps", "--addr", base)
	if code != 0 {
		t.Fatalf("gaps: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "What is the capital of Mongolia?") || !strings.Contains(out, "2      fallback") || !strings.Contains(out, "1 of 1 entries") {
		t.Errorf("gaps output:\n%s", out)
	}
	code, out, _ = runCLI(t, "gaps", "--addr", strings.TrimSuffix(base, "/v1"), "--json", "--kind", "refused")
	if code != 0 || !strings.Contains(out, `"total":0`) {
		t.Errorf("gaps --json --kind refused: exit %d\n%s", code, out)
	}
}

// TestGapsResolveDismissCommand closes gap entries from the command line:
// the id from guard gaps, resolve with a note, the open list empties, the
// resolved list has it; an unknown id fails (exit 1), a missing one or two are a
// usage error (exit 2).
func TestGapsResolveDismissCommand(t *testing.T) {
	base := startProxy(t, true)
	for _, q := range []string{"What is the capital of Mongolia?", "Who wrote the novel Moby Dick?"} {
		resp, err := http.Post(base+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"mock-1","messages":[{"role":"user","content":"`+q+`"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	code, out, _ := runCLI(t, "gaps", "--addr", base, "--json")
	var list gapList
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Data) != 2 {
		t.Fatalf("gaps --json: exit %d, %v, %d entries\n%s", code, err, len(list.Data), out)
	}
	ids := map[string]string{}
	for _, g := range list.Data {
		ids[g.Text] = g.ID
	}
	// flags after the id, as the README writes it: guard gaps resolve ID --note why
	code, out, errOut := runCLI(t, "gaps", "resolve", ids["What is the capital of Mongolia?"], "--addr", base, "--note", "added a page")
	if code != 0 || !strings.Contains(out, "resolved") {
		t.Fatalf("gaps resolve: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = runCLI(t, "gaps", "dismiss", "--addr", base, ids["Who wrote the novel Moby Dick?"]); code != 0 || !strings.Contains(out, "dismissed") {
		t.Fatalf("gaps dismiss: exit %d\n%s", code, out)
	}
	// flags before the action, as one adds it to a listing command (it was
	// "unexpected argument \"reopen\""): guard gaps --addr URL reopen ID
	if code, out, errOut = runCLI(t, "gaps", "--addr", base, "reopen", ids["Who wrote the novel Moby Dick?"]); code != 0 || !strings.Contains(out, "open") {
		t.Fatalf("gaps --addr URL reopen ID: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "gaps", "--addr", base, "dismiss", ids["Who wrote the novel Moby Dick?"], "--note", "off-topic"); code != 0 || !strings.Contains(out, "dismissed") {
		t.Fatalf("gaps --addr URL dismiss ID --note: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, "gaps", "--addr", base, "--status", "all", "dismiss", "x"); code != 2 || !strings.Contains(errOut, "status") {
		t.Errorf("a listing flag before an action: exit %d %s, want 2 naming it", code, errOut)
	}
	if _, out, _ = runCLI(t, "gaps", "--addr", base); !strings.Contains(out, "0 of 0 entries") {
		t.Errorf("open gaps after resolve and dismiss:\n%s", out)
	}
	// a list of every status says each entry's
	if _, out, _ = runCLI(t, "gaps", "--addr", base, "--status", "all"); !strings.Contains(out, " status ") || !strings.Contains(out, " resolved ") || !strings.Contains(out, " dismissed ") {
		t.Errorf("gaps --status all, want a status column:\n%s", out)
	}
	if _, out, _ = runCLI(t, "gaps", "--addr", base, "--status", "resolved", "--json"); !strings.Contains(out, "added a page") {
		t.Errorf("resolved gaps:\n%s", out)
	}
	// the server's error message in words, not its JSON body
	if code, _, errOut = runCLI(t, "gaps", "resolve", "--addr", base, "nosuchid"); code != 1 || !strings.Contains(errOut, `404 Not Found: no gap queue entry "nosuchid"`) || !strings.Contains(errOut, "(gap_not_found)") || strings.Contains(errOut, `{"error"`) {
		t.Errorf("resolve of an unknown id: exit %d %s, want 1 with 404 and the message in words", code, errOut)
	}
	if code, _, errOut = runCLI(t, "gaps", "dismiss", "a", "--addr", base, "b"); code != 2 || !strings.Contains(errOut, `got "a" "b"`) {
		t.Errorf("dismiss with two ids: exit %d %s, want 2 naming both", code, errOut)
	}
	if code, _, _ = runCLI(t, "gaps", "dismiss", "--addr", base); code != 2 {
		t.Errorf("dismiss without an id: exit %d, want 2", code)
	}
}
