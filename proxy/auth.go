package proxy

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/answer-guard/guard/index"
)

// keyEntry is a configured API key: its SHA-256 and what it may read.
type keyEntry struct {
	name   string
	hash   [sha256.Size]byte
	tenant string
	kbs    []string
}

func buildKeys(a AuthConfig) ([]keyEntry, error) {
	out := make([]keyEntry, 0, len(a.Keys))
	for i, k := range a.Keys {
		h, err := hex.DecodeString(strings.ToLower(k.SHA256))
		if err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("auth.keys[%d].sha256: want 64 hex digits", i)
		}
		e := keyEntry{name: k.Name, tenant: k.Tenant, kbs: k.KBs}
		copy(e.hash[:], h)
		out = append(out, e)
	}
	return out, nil
}

func buildAdminKeys(a AuthConfig) ([][sha256.Size]byte, error) {
	out := make([][sha256.Size]byte, len(a.AdminKeys))
	for i, k := range a.AdminKeys {
		h, err := hex.DecodeString(strings.ToLower(k.SHA256))
		if err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("auth.admin_keys[%d].sha256: want 64 hex digits", i)
		}
		copy(out[i][:], h)
	}
	return out, nil
}

// authorizeAdmin admits a request to an operator endpoint (/metrics,
// /v1/guard/*): anyone with auth off (a loopback listener), otherwise only
// an admin key. A tenant key gets 403, no or an unknown key 401.
func (rt *runtime) authorizeAdmin(ctx *fasthttp.RequestCtx) *APIError {
	if !rt.cfg.Auth.Enabled {
		return nil
	}
	sum, ae := bearerSum(ctx)
	if ae != nil {
		return ae
	}
	admin, tenant := rt.isAdmin(sum), false
	for i := range rt.keys {
		if subtle.ConstantTimeCompare(sum[:], rt.keys[i].hash[:]) == 1 {
			tenant = true
		}
	}
	switch {
	case admin:
		return nil
	case tenant:
		return &APIError{Status: 403, Type: "permission_error", Code: "admin_key_required",
			Message: "this endpoint needs an admin key (auth.admin_keys)"}
	}
	return &APIError{Status: 401, Type: "authentication_error", Code: "invalid_api_key", Message: "invalid API key"}
}

// authorizeOperator admits a read of the operator plane (the turn log and
// the what-if): anyone with auth off (a loopback listener), an admin key
// across tenants (tenant ""), a tenant key for its own tenant and KBs; no
// or an unknown key is 401.
func (rt *runtime) authorizeOperator(ctx *fasthttp.RequestCtx) (tenant string, kbs []string, ae *APIError) {
	if !rt.cfg.Auth.Enabled {
		return "", nil, nil
	}
	sum, ae := bearerSum(ctx)
	if ae != nil {
		return "", nil, ae
	}
	admin := rt.isAdmin(sum)
	var match *keyEntry
	for i := range rt.keys {
		if subtle.ConstantTimeCompare(sum[:], rt.keys[i].hash[:]) == 1 {
			match = &rt.keys[i]
		}
	}
	switch {
	case admin:
		return "", nil, nil
	case match != nil:
		return match.tenant, match.kbs, nil
	}
	return "", nil, &APIError{Status: 401, Type: "authentication_error", Code: "invalid_api_key", Message: "invalid API key"}
}

// isAdmin reports whether sum is an admin key's, comparing every key in
// constant time.
func (rt *runtime) isAdmin(sum [sha256.Size]byte) bool {
	admin := false
	for i := range rt.adminKeys {
		admin = subtle.ConstantTimeCompare(sum[:], rt.adminKeys[i][:]) == 1 || admin
	}
	return admin
}

// bearerSum is the SHA-256 of the request's bearer key.
func bearerSum(ctx *fasthttp.RequestCtx) ([sha256.Size]byte, *APIError) {
	auth := ctx.Request.Header.Peek("Authorization")
	const prefix = "Bearer "
	if len(auth) <= len(prefix) || !strings.EqualFold(string(auth[:len(prefix)]), prefix) {
		return [sha256.Size]byte{}, &APIError{Status: 401, Type: "authentication_error", Code: "missing_api_key",
			Message: "missing API key: send Authorization: Bearer <key>"}
	}
	return sha256.Sum256(bytes.TrimSpace(auth[len(prefix):])), nil
}

// partitionHeaders reads and checks the X-Tenant-ID and X-KB-ID headers
// ("" when absent).
func partitionHeaders(ctx *fasthttp.RequestCtx) (tenant, kb string, ae *APIError) {
	tenant = string(bytes.TrimSpace(ctx.Request.Header.Peek("X-Tenant-ID")))
	kb = string(bytes.TrimSpace(ctx.Request.Header.Peek("X-KB-ID")))
	for _, h := range []struct{ name, v string }{{"X-Tenant-ID", tenant}, {"X-KB-ID", kb}} {
		if h.v != "" && !index.ValidName(h.v) {
			return "", "", &APIError{Status: 400, Type: "invalid_request_error", Code: "invalid_header",
				Message: h.name + " must be 1-64 letters, digits, '.', '-' or '_', the first a letter or a digit"}
		}
	}
	return tenant, kb, nil
}

// authorize resolves the tenant and KB of a request. With auth off (loopback
// demo only) the headers pick the partition directly.
func (rt *runtime) authorize(ctx *fasthttp.RequestCtx) (tenant, kb string, ae *APIError) {
	hTenant, hKB, ae := partitionHeaders(ctx)
	if ae != nil {
		return "", "", ae
	}
	if !rt.cfg.Auth.Enabled {
		tenant, kb = "default", "default"
		if hTenant != "" {
			tenant = hTenant
		}
		if hKB != "" {
			kb = hKB
		}
		return tenant, kb, nil
	}
	sum, ae := bearerSum(ctx)
	if ae != nil {
		return "", "", ae
	}
	var match *keyEntry
	for i := range rt.keys { // compare against every key, in constant time each
		if subtle.ConstantTimeCompare(sum[:], rt.keys[i].hash[:]) == 1 {
			match = &rt.keys[i]
		}
	}
	if match == nil && rt.isAdmin(sum) {
		return "", "", &APIError{Status: 403, Type: "permission_error", Code: "tenant_key_required",
			Message: "an admin key (auth.admin_keys) reads the operator endpoints only: chat and models take a tenant key (auth.keys)"}
	}
	if match == nil {
		return "", "", &APIError{Status: 401, Type: "authentication_error", Code: "invalid_api_key",
			Message: "invalid API key"}
	}
	if hTenant != "" && hTenant != match.tenant {
		return "", "", &APIError{Status: 403, Type: "permission_error", Code: "tenant_mismatch",
			Message: "X-Tenant-ID does not match the API key's tenant"}
	}
	kb = match.kbs[0]
	if hKB != "" {
		if !slices.Contains(match.kbs, hKB) {
			return "", "", &APIError{Status: 403, Type: "permission_error", Code: "kb_not_allowed",
				Message: "the API key may not read knowledge base " + quote(hKB)}
		}
		kb = hKB
	}
	return match.tenant, kb, nil
}

// resolveModel applies the allow-list and aliases. With neither configured
// every model passes through.
func (rt *runtime) resolveModel(m string) (string, *APIError) {
	mc := rt.cfg.Models
	if len(mc.Allow) == 0 && len(mc.Aliases) == 0 {
		return m, nil
	}
	if up, ok := mc.Aliases[m]; ok {
		return up, nil
	}
	if slices.Contains(mc.Allow, m) {
		return m, nil
	}
	return "", &APIError{Status: 404, Type: "invalid_request_error", Code: "model_not_found", Param: "model",
		Message: "the model " + quote(m) + " does not exist or you do not have access to it"}
}

// listModels is the /v1/models body for a configured model list, or nil to
// ask the upstream.
func (rt *runtime) listModels() []byte {
	mc := rt.cfg.Models
	if len(mc.Allow) == 0 && len(mc.Aliases) == 0 {
		return nil
	}
	names := append([]string(nil), mc.Allow...)
	for a := range mc.Aliases {
		if !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	sort.Strings(names)
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, n := range names {
		list.Data = append(list.Data, model{ID: n, Object: "model", OwnedBy: "answer-guard"})
	}
	b, _ := json.Marshal(list)
	return b
}
