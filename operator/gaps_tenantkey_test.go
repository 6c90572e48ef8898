package operator

import (
	"context"
	"testing"
	"time"

	"github.com/answer-guard/guard/proxy"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// TestGapsTurnLogTenantKey: with auth on, a tenant key's
// GET /v1/guard/gaps?source=turnlog groups its own tenant's turns only:
// another tenant's refused questions, asked on the same server, never
// appear in it, and the admin key sees both.
func TestGapsTurnLogTenantKey(t *testing.T) {
	ts := startGuard(t, func(c *testCfg) {
		c.Auth.Enabled = true
		c.Auth.Keys = []proxy.KeyConfig{
			{Name: "a", SHA256: sha("acme-key"), Tenant: "acme", KBs: []string{"default"}},
			{Name: "b", SHA256: sha("beta-key"), Tenant: "beta", KBs: []string{"default"}},
		}
		c.Auth.AdminKeys = []proxy.AdminKeyConfig{{Name: "ops", SHA256: sha("admin-key")}}
	})
	ask := func(key, tenant, q string) {
		t.Helper()
		c := openai.NewClient(option.WithBaseURL(ts.base+"/"), option.WithAPIKey(key), option.WithMaxRetries(0),
			option.WithRequestTimeout(10*time.Second), option.WithHeader("X-Tenant-ID", tenant))
		p := openai.ChatCompletionNewParams{Model: "mock-1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)}}
		if _, err := c.Chat.Completions.New(context.Background(), p); err != nil {
			t.Fatalf("ask as %s: %v", tenant, err)
		}
	}
	// Neither tenant has a corpus: every question is a gap of its tenant.
	ask("acme-key", "acme", "How do I restore a backup from last week?")
	ask("beta-key", "beta", "What is the notice period for cancelling my beta contract?")
	texts := func(key string) map[string]string {
		t.Helper()
		code, gaps := getGaps(t, ts.base, "source=turnlog", key)
		if code != 200 {
			t.Fatalf("gaps?source=turnlog with %s: status %d", key, code)
		}
		m := map[string]string{}
		for _, g := range gaps {
			m[g.Text] = g.Tenant
		}
		return m
	}
	for key, want := range map[string]string{"acme-key": "acme", "beta-key": "beta"} {
		got := texts(key)
		if len(got) == 0 {
			t.Errorf("%s: no gaps listed, want its own tenant's question: the test would prove nothing", key)
		}
		for text, tenant := range got {
			if tenant != want {
				t.Errorf("%s lists %q of tenant %q: another tenant's gap leaked", key, text, tenant)
			}
		}
	}
	if all := texts("admin-key"); len(all) < 2 {
		t.Errorf("admin key lists %v, want both tenants' questions", all)
	}
}
