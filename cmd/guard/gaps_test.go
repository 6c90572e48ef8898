package main

import (
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
