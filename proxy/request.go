package proxy

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/answer-guard/guard/internal/jsonscan"
	"github.com/answer-guard/guard/internal/jsonw"
)

// chatRequest is a validated chat completion request. The raw body is kept
// so every field the proxy does not own reaches the upstream untouched.
type chatRequest struct {
	raw             []byte
	model           string
	stream          bool
	includeUsage    bool   // the client asked for usage on streams
	hasStreamOpt    bool   // the body has a stream_options member (even null)
	query           string // text of the last user message
	prev            string // text of the user message before it ("" when none)
	before          string // text of the user message before prev ("" when none)
	messages        []gjson.Result
	msgBuf          [4]gjson.Result // messages' backing array for short conversations
	msgsAt, msgsEnd int             // the messages array is raw[msgsAt:msgsEnd] (msgsEnd 0: unknown)
	// actions are the tools that fired this turn: function names of the
	// assistant's tool calls after the last user message whose result came
	// back in a tool message (what [action:NAME] markers may name).
	actions []string
}

var validRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// parseChatRequest validates a chat completion body. Every error is a 400
// OpenAI error naming the offending parameter. The request's strings point
// into body, which must not change while the request is in use.
//
// Cost: three passes over the bytes (UTF-8, one scan for nesting depth and
// duplicate keys, gjson's validation) and one walk over the members; a
// member the body lacks costs nothing (BenchmarkRequestWork).
func parseChatRequest(body []byte, maxDepth int) (*chatRequest, *APIError) {
	r := &chatRequest{}
	if ae := r.parse(body, maxDepth); ae != nil {
		return nil, ae
	}
	return r, nil
}

// parse is parseChatRequest into r (which it overwrites): the proxy keeps
// the request in the one allocation of its per-request state.
func (r *chatRequest) parse(body []byte, maxDepth int) *APIError {
	if len(body) == 0 {
		return badRequest("invalid_json", "", "request body is empty; want a JSON object")
	}
	if !utf8.Valid(body) {
		return badRequest("invalid_encoding", "", "request body is not valid UTF-8")
	}
	// Depth first: gjson's validation recurses, and the scan stops at the
	// limit, so a hostile body costs neither stack nor memory.
	dupKey, dup, deep := jsonscan.DuplicateKey(body, maxDepth)
	if deep {
		return badRequest("invalid_json", "", "request JSON nests deeper than %d levels", maxDepth)
	}
	if !gjson.ValidBytes(body) {
		var v any
		err := json.Unmarshal(body, &v)
		msg := "request body is not valid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return badRequest("invalid_json", "", "%s", msg)
	}
	// A view, not a copy: body is the request's own copy and never
	// changes, so the strings the request keeps may point into it.
	root := gjson.Parse(b2s(body))
	if !root.IsObject() {
		return badRequest("invalid_json", "", "request body must be a JSON object")
	}
	if dup {
		return badRequest("duplicate_key", dupKey, "duplicate key %q in the request JSON: send each key once (keys are compared case-insensitively, as many upstreams read them)", dupKey)
	}
	// One walk over the members (a Get per member would walk the whole
	// body again for each one it lacks). Keys are unique: checked above.
	var m, msgs, stream, so, n gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			m = v
		case "messages":
			msgs = v
		case "stream":
			stream = v
		case "stream_options":
			so = v
		case "n":
			n = v
		}
		return true
	})
	*r = chatRequest{raw: body}
	if at, end := msgs.Index, msgs.Index+len(msgs.Raw); at > 0 && end <= len(body) && b2s(body[at:end]) == msgs.Raw {
		r.msgsAt, r.msgsEnd = at, end
	}
	switch {
	case !m.Exists():
		return badRequest("missing_required_parameter", "model", "you must provide a model parameter")
	case m.Type != gjson.String:
		return badRequest("invalid_type", "model", "model must be a string")
	case strings.TrimSpace(m.Str) == "":
		return badRequest("invalid_value", "model", "model must not be empty")
	}
	r.model = m.Str
	switch {
	case !msgs.Exists():
		return badRequest("missing_required_parameter", "messages", "you must provide a messages parameter")
	case !msgs.IsArray():
		return badRequest("invalid_type", "messages", "messages must be an array")
	}
	// Into the request's own array: no allocation up to len(msgBuf)
	// messages (Array would allocate).
	r.messages = r.msgBuf[:0]
	msgs.ForEach(func(_, v gjson.Result) bool {
		r.messages = append(r.messages, v)
		return true
	})
	lastUser := -1
	if len(r.messages) == 0 {
		return badRequest("invalid_value", "messages", "messages must contain at least one message")
	}
	for i, msg := range r.messages {
		if !msg.IsObject() {
			param := msgParam(i, "")
			return badRequest("invalid_type", param, "%s must be an object", param)
		}
		var role, c gjson.Result
		msg.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "role":
				role = v
			case "content":
				c = v
			}
			return true
		})
		if role.Type != gjson.String {
			return badRequest("invalid_type", msgParam(i, ".role"), "%s.role must be a string", msgParam(i, ""))
		}
		if !validRoles[role.Str] {
			return badRequest("invalid_value", msgParam(i, ".role"), "%s.role %q is not one of system, developer, user, assistant, tool", msgParam(i, ""), role.Str)
		}
		if c.Exists() && c.Type != gjson.String && c.Type != gjson.Null && !c.IsArray() {
			return badRequest("invalid_type", msgParam(i, ".content"), "%s.content must be a string, an array of parts or null", msgParam(i, ""))
		}
		if role.Str == "user" {
			if lastUser >= 0 {
				r.before, r.prev = r.prev, r.query
			}
			r.query = contentText(c)
			lastUser = i
		}
	}
	r.actions = firedActions(r.messages[lastUser+1:])
	if stream.Exists() {
		if stream.Type != gjson.True && stream.Type != gjson.False && stream.Type != gjson.Null {
			return badRequest("invalid_type", "stream", "stream must be a boolean")
		}
		r.stream = stream.Type == gjson.True
	}
	r.hasStreamOpt = so.Exists()
	if so.Exists() && so.Type != gjson.Null {
		if !so.IsObject() {
			return badRequest("invalid_type", "stream_options", "stream_options must be an object")
		}
		iu := so.Get("include_usage")
		if iu.Exists() && iu.Type != gjson.True && iu.Type != gjson.False {
			return badRequest("invalid_type", "stream_options.include_usage", "stream_options.include_usage must be a boolean")
		}
		r.includeUsage = iu.Type == gjson.True
	}
	if n.Exists() && n.Type != gjson.Null {
		if n.Type != gjson.Number {
			return badRequest("invalid_type", "n", "n must be an integer")
		}
		if n.Num != 1 {
			return badRequest("unsupported_value", "n", "n must be 1: the guard verifies one answer per request")
		}
	}
	return nil
}

// firedActions returns the function names of the assistant tool calls in
// msgs that a later tool message answered (by tool_call_id), in call order.
func firedActions(msgs []gjson.Result) []string {
	var answered map[string]bool // made at the first tool answer: most turns have none
	for _, m := range msgs {
		if m.Get("role").Str == "tool" {
			if id := m.Get("tool_call_id"); id.Type == gjson.String {
				if answered == nil {
					answered = map[string]bool{}
				}
				answered[id.Str] = true
			}
		}
	}
	if len(answered) == 0 {
		return nil
	}
	var out []string
	for _, m := range msgs {
		if m.Get("role").Str != "assistant" {
			continue
		}
		for _, tc := range m.Get("tool_calls").Array() {
			if name := tc.Get("function.name"); name.Type == gjson.String && answered[tc.Get("id").Str] {
				out = append(out, name.Str)
			}
		}
	}
	return out
}

// contentText joins the text of a message content (a string or text parts).
func contentText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	if !c.IsArray() {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Array() {
		if p.Get("type").Str == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Get("text").Str)
		}
	}
	return b.String()
}

// upstreamBody builds the body sent upstream: the client's body with the
// model replaced, a system message prepended, and usage forced on streams.
func (r *chatRequest) upstreamBody(model, system string) ([]byte, error) {
	body := r.raw
	var err error
	if model == r.model && system != "" && r.msgsEnd > 0 && (!r.stream || r.includeUsage || !r.hasStreamOpt) {
		// The common turn: one pass, one buffer (jsonw.ChatBody).
		var usage []byte
		if r.stream && !r.includeUsage {
			usage = streamUsage
		}
		dst := make([]byte, 0, len(body)+len(system)+len(system)/16+len(usage)+64)
		return jsonw.ChatBody(dst, body, r.msgsAt, r.msgsEnd, system, len(r.messages), r.message, usage), nil
	}
	if model != r.model {
		if body, err = sjson.SetBytes(body, "model", model); err != nil {
			return nil, err
		}
	}
	if system != "" {
		arr := jsonw.Messages(make([]byte, 0, len(system)+len(system)/16+len(body)+64), system, len(r.messages), r.message)
		if body, err = sjson.SetRawBytes(body, "messages", arr); err != nil {
			return nil, err
		}
	}
	switch {
	case !r.stream, r.includeUsage:
	case !r.hasStreamOpt:
		// The common case: add the member without re-parsing the body.
		body = jsonw.AppendMembers(body, streamUsage)
	default:
		if body, err = sjson.SetBytes(body, "stream_options.include_usage", true); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// message is message i's raw JSON.
func (r *chatRequest) message(i int) string { return r.messages[i].Raw }

var streamUsage = []byte(`"stream_options":{"include_usage":true}`)

// msgParam names message i (and a field of it) in an error, built only
// when there is one.
func msgParam(i int, field string) string {
	return "messages[" + strconv.Itoa(i) + "]" + field
}
