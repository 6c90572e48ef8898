package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/answer-guard/guard/internal/jsonscan"

	"github.com/answer-guard/guard/internal/sse"
)

// FuzzParseChatRequest: any body is either accepted with a model and at
// least one message, or rejected with a 400 OpenAI error; never a panic.
func FuzzParseChatRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		`{"model":"m","stream":true,"stream_options":null,"messages":[{"role":"user","content":"a"}]}`,
		`{"model":"m","stream":true,"stream_options":{"include_usage":false},"messages":[{"role":"user","content":"a"}]} `,
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}` + "\n",
		`{"model":1}`, `[]`, `{"model":"m","messages":[{"role":"user","content":5}]}`, "\xff", `{"a":[[[[[[]]]]]]}`,
		`{"model":"mock-1","messages":[{"role":"user","content":"x"}],"model":"gpt-x"}`,
		`{"model":"m","messages":[{"role":"user","content":"x"}],"Messages":[]}`,
		`{"model":"m","messages":[{"role":"user","content":"x","ro\u006ce":"system"}]}`,
		`{"model":"m","n":2,"stream":"yes","messages":[{"role":"tool","content":{}}]}`,
		`{"model":"m","messages":[{"role":"user","content":"a \\\" b \\\\","x":[[[]]]}],"stream_options":{"include_usage":1}}`,
		`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f"}}]},{"role":"tool","tool_call_id":"c1","content":"r"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"\u0022"}],"a":{"b":1,"B":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if json.Valid(body) && utf8.Valid(body) {
			key, dup := duplicateKey(body)
			if want := refDuplicate(body); dup != want {
				t.Fatalf("duplicateKey(%q) = %q %v, reference says %v", body, key, dup, want)
			}
		}
		req, ae := parseChatRequest(body, 64)
		// The one-walk parser decides as the reference (one Get per
		// member, a separate depth pass) does, error for error.
		ref, refAE := refParseChatRequest(body, 64)
		switch {
		case (ae == nil) != (refAE == nil):
			t.Fatalf("parseChatRequest(%q) error %v, reference %v", body, ae, refAE)
		case ae != nil && (ae.Code != refAE.Code || ae.Param != refAE.Param || ae.Message != refAE.Message):
			t.Fatalf("parseChatRequest(%q) = %s %s %q, reference %s %s %q", body, ae.Code, ae.Param, ae.Message, refAE.Code, refAE.Param, refAE.Message)
		case ae == nil && (req.model != ref.model || req.stream != ref.stream || req.includeUsage != ref.includeUsage ||
			req.hasStreamOpt != ref.hasStreamOpt || req.query != ref.query || len(req.messages) != len(ref.messages) ||
			strings.Join(req.actions, ",") != strings.Join(ref.actions, ",")):
			t.Fatalf("parseChatRequest(%q) = %+v, reference %+v", body, req, ref)
		}
		if ae != nil {
			if ae.Status != 400 || !json.Valid(ae.body()) {
				t.Fatalf("got %d %s", ae.Status, ae.body())
			}
			return
		}
		if req.model == "" || len(req.messages) == 0 {
			t.Fatalf("accepted a request without model or messages: %q", body)
		}
		up, err := req.upstreamBody("other", "system text")
		if err != nil || !json.Valid(up) {
			t.Fatalf("upstream body invalid: %v %q", err, up)
		}
		// Keys the client spelled in another case are the client's (the
		// guard adds stream_options as it is spelled), but no key the
		// guard sets may appear twice.
		seen := map[string]bool{}
		gjson.ParseBytes(up).ForEach(func(k, _ gjson.Result) bool {
			if seen[k.Str] && (k.Str == "model" || k.Str == "messages" || k.Str == "stream_options") {
				t.Fatalf("upstream body repeats key %q: %q", k.Str, up)
			}
			seen[k.Str] = true
			return true
		})
		if req.stream && gjson.GetBytes(up, "stream_options.include_usage").Type != gjson.True {
			t.Fatalf("streamed upstream body without include_usage: %q", up)
		}
	})
}

// relayBytes runs the relay over a raw upstream body and returns what the
// client would receive.
func relayBytes(t testing.TB, upstream []byte, includeUsage bool) string {
	return relayTurn(t, upstream, includeUsage, passTurn{})
}

// relayTurn is relayBytes with the given turn.
func relayTurn(t testing.TB, upstream []byte, includeUsage bool, turn Turn) string {
	cfg := DefaultConfig()
	cfg.Server.DisconnectProbe = time.Hour
	cfg.Upstream.MaxEventBytes = 4096
	rt := &runtime{cfg: cfg}
	src := sse.NewReader(bytes.NewReader(upstream), 4096)
	defer src.Release()
	var out bytes.Buffer
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	s := &Server{m: newMetrics(), log: nopLogger()}
	r := newRelay(&exchange{s: s, rt: rt, req: &chatRequest{stream: true, includeUsage: includeUsage}, turn: turn,
		log: &reqLog{start: time.Now()}, stop: func(err error) { cancel(err) }}, src)
	defer r.free()
	first, ok, err := src.Next(nil)
	if err != nil || !ok {
		return ""
	}
	r.run(ctx, &out, first)
	return out.String()
}

// checkFraming asserts whole events only, every payload JSON or [DONE], and
// exactly one [DONE] at the very end.
func checkFraming(t testing.TB, out string) {
	if out == "" {
		return
	}
	if !strings.HasSuffix(out, "data: [DONE]\n\n") {
		t.Fatalf("stream does not end with [DONE]: %q", out)
	}
	events := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	for i, e := range events {
		if strings.HasPrefix(e, ": ") {
			continue
		}
		d, ok := strings.CutPrefix(e, "data: ")
		if !ok || strings.Contains(d, "\n") {
			t.Fatalf("event %d is not one data line: %q", i, e)
		}
		if d == "[DONE]" {
			if i != len(events)-1 {
				t.Fatalf("[DONE] before the end: %q", out)
			}
			continue
		}
		if !json.Valid([]byte(d)) {
			t.Fatalf("event %d is not JSON: %q", i, d)
		}
	}
}

func TestRelayFraming(t *testing.T) {
	good := "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"total_tokens\":3}}\n\ndata: [DONE]\n\n"
	cases := []struct {
		name, in   string
		usage      bool
		want, nots []string
	}{
		{"whole", good, false, []string{`"content":"hi"`, `"guard":`}, []string{`"usage"`}},
		{"usage asked", good, true, []string{`"usage":{"total_tokens":3}`}, nil},
		{"cut mid-answer", good[:strings.Index(good, "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{},")], false, []string{`upstream_stream_failed`}, []string{`"guard":`}},
		{"bad json", "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {oops\n\n", false, []string{`upstream_stream_failed`}, nil},
		{"huge event", "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: \"" + strings.Repeat("x", 9000) + "\"\n\n", false, []string{`"error"`}, nil},
		{"upstream error event", "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"error\":{\"message\":\"boom\"}}\n\n", false, []string{`"boom"`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := relayBytes(t, []byte(tc.in), tc.usage)
			checkFraming(t, out)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
			for _, n := range tc.nots {
				if strings.Contains(out, n) {
					t.Errorf("output has %s:\n%s", n, out)
				}
			}
		})
	}
}

// FuzzRelay: whatever the upstream sends, the client gets whole events,
// JSON payloads, and one [DONE] at the end.
func FuzzRelay(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\nb\"}}]}\n\nevent: error\ndata: {}\n\n"))
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte(": comment\n\ndata: {\"choices\":[]}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFraming(t, relayBytes(t, in, len(in)%2 == 0))
	})
}

func TestAttachReport(t *testing.T) {
	rep := &Report{Decision: "ground", URLs: []string{"u1"}}
	for _, in := range []string{`{"id":"x"}`, ` { } `, `{"id":"x","citations":["old"],"guard":1}`, "{\n\"a\":[1,{\"b\":2}]\n}\n",
		`{"guard":{"old":true},"id":"x"}`, `{"a":{"citations":1,"guard":2},"id":"x"}`} {
		f, ok := jsonscan.ScanChunk(in)
		if !ok {
			t.Fatalf("%q: not JSON", in)
		}
		out := attachReportTo([]byte(in), rep, f.Report)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%q -> invalid %q: %v", in, out, err)
		}
		if string(m["citations"]) != `["u1"]` || !strings.Contains(string(m["guard"]), `"decision":"ground"`) {
			t.Errorf("%q -> %s", in, out)
		}
		if strings.Contains(string(out), `"old"`) || strings.Count(string(out), `"citations":[`) != 1 || strings.Count(string(out), `"guard":{"decision"`) != 1 {
			t.Errorf("%q -> duplicate key: %s", in, out)
		}
	}
}

// refDuplicate is the reference for duplicateKey: encoding/json's tokens,
// keys compared with strings.EqualFold within each object.
func refDuplicate(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object    bool
		expectKey bool
		keys      []string
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.expectKey
		if top != nil && top.object {
			top.expectKey = !top.expectKey
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{object: true, expectKey: true})
			case '[':
				stack = append(stack, &frame{})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expectKey = true
				}
				continue
			}
			if top != nil && top.object {
				top.expectKey = false // the value was a container; the next token after it is a key
			}
		case string:
			if isKey {
				for _, k := range top.keys {
					if strings.EqualFold(k, v) {
						return true
					}
				}
				top.keys = append(top.keys, v)
			}
		}
	}
}

// A bad message is named in the error's param and message, and the tool
// calls answered after the last user message are the turn's actions.
func TestParseChatRequestMessages(t *testing.T) {
	for _, c := range []struct{ body, param, msg string }{
		{`{"model":"m","messages":[{"role":"user","content":"a"},5]}`, "messages[1]", "messages[1] must be an object"},
		{`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"robot"}]}`, "messages[1].role", `messages[1].role "robot" is not one of`},
		{`{"model":"m","messages":[{"role":1}]}`, "messages[0].role", "messages[0].role must be a string"},
		{`{"model":"m","messages":[{"role":"user","content":true}]}`, "messages[0].content", "messages[0].content must be a string"},
	} {
		_, ae := parseChatRequest([]byte(c.body), 64)
		if ae == nil || ae.Param != c.param || !strings.Contains(ae.Message, c.msg) {
			t.Errorf("%s: got %+v, want param %q and message %q", c.body, ae, c.param, c.msg)
		}
	}
	req, ae := parseChatRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"unlock me"},`+
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"unlock_account","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"never_ran","arguments":"{}"}}]},`+
		`{"role":"tool","tool_call_id":"c1","content":"done"}]}`), 64)
	if ae != nil || len(req.actions) != 1 || req.actions[0] != "unlock_account" || req.query != "unlock me" {
		t.Fatalf("got %+v %v, want the answered tool call as the one action", req, ae)
	}
}

// duplicateKey is jsonscan.DuplicateKey with no depth limit, for valid
// JSON: FuzzParseChatRequest's reference check and the request tests use it.
func duplicateKey(b []byte) (string, bool) {
	key, dup, _ := jsonscan.DuplicateKey(b, math.MaxInt)
	return key, dup
}
