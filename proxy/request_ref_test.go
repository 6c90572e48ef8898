package proxy

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// refParseChatRequest is parseChatRequest as it was before it read the
// body in fewer passes (one Get per member, a separate depth pass): the
// reference FuzzParseChatRequest compares it with. Every error is a 400
// OpenAI error naming the offending parameter. The request's strings point
// into body, which must not change while the request is in use.
func refParseChatRequest(body []byte, maxDepth int) (*chatRequest, *APIError) {
	if len(body) == 0 {
		return nil, badRequest("invalid_json", "", "request body is empty; want a JSON object")
	}
	if !utf8.Valid(body) {
		return nil, badRequest("invalid_encoding", "", "request body is not valid UTF-8")
	}
	if d := refJSONDepth(body); d > maxDepth {
		return nil, badRequest("invalid_json", "", "request JSON nests deeper than %d levels", maxDepth)
	}
	if !gjson.ValidBytes(body) {
		var v any
		err := json.Unmarshal(body, &v)
		msg := "request body is not valid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, badRequest("invalid_json", "", "%s", msg)
	}
	// A view, not a copy: body is the request's own copy and never
	// changes, so the strings the request keeps may point into it.
	root := gjson.Parse(b2s(body))
	if !root.IsObject() {
		return nil, badRequest("invalid_json", "", "request body must be a JSON object")
	}
	if key, dup := duplicateKey(body); dup {
		return nil, badRequest("duplicate_key", key, "duplicate key %q in the request JSON: send each key once (keys are compared case-insensitively, as many upstreams read them)", key)
	}
	r := &chatRequest{raw: body}
	m := root.Get("model")
	switch {
	case !m.Exists():
		return nil, badRequest("missing_required_parameter", "model", "you must provide a model parameter")
	case m.Type != gjson.String:
		return nil, badRequest("invalid_type", "model", "model must be a string")
	case strings.TrimSpace(m.Str) == "":
		return nil, badRequest("invalid_value", "model", "model must not be empty")
	}
	r.model = m.Str
	msgs := root.Get("messages")
	switch {
	case !msgs.Exists():
		return nil, badRequest("missing_required_parameter", "messages", "you must provide a messages parameter")
	case !msgs.IsArray():
		return nil, badRequest("invalid_type", "messages", "messages must be an array")
	}
	r.messages = msgs.Array()
	lastUser := -1
	if len(r.messages) == 0 {
		return nil, badRequest("invalid_value", "messages", "messages must contain at least one message")
	}
	for i, msg := range r.messages {
		if !msg.IsObject() {
			param := msgParam(i, "")
			return nil, badRequest("invalid_type", param, "%s must be an object", param)
		}
		role := msg.Get("role")
		if role.Type != gjson.String {
			return nil, badRequest("invalid_type", msgParam(i, ".role"), "%s.role must be a string", msgParam(i, ""))
		}
		if !validRoles[role.Str] {
			return nil, badRequest("invalid_value", msgParam(i, ".role"), "%s.role %q is not one of system, developer, user, assistant, tool", msgParam(i, ""), role.Str)
		}
		c := msg.Get("content")
		if c.Exists() && c.Type != gjson.String && c.Type != gjson.Null && !c.IsArray() {
			return nil, badRequest("invalid_type", msgParam(i, ".content"), "%s.content must be a string, an array of parts or null", msgParam(i, ""))
		}
		if role.Str == "user" {
			r.query = contentText(c)
			lastUser = i
		}
	}
	r.actions = firedActions(r.messages[lastUser+1:])
	if s := root.Get("stream"); s.Exists() {
		if s.Type != gjson.True && s.Type != gjson.False && s.Type != gjson.Null {
			return nil, badRequest("invalid_type", "stream", "stream must be a boolean")
		}
		r.stream = s.Type == gjson.True
	}
	so := root.Get("stream_options")
	r.hasStreamOpt = so.Exists()
	if so.Exists() && so.Type != gjson.Null {
		if !so.IsObject() {
			return nil, badRequest("invalid_type", "stream_options", "stream_options must be an object")
		}
		iu := so.Get("include_usage")
		if iu.Exists() && iu.Type != gjson.True && iu.Type != gjson.False {
			return nil, badRequest("invalid_type", "stream_options.include_usage", "stream_options.include_usage must be a boolean")
		}
		r.includeUsage = iu.Type == gjson.True
	}
	if n := root.Get("n"); n.Exists() && n.Type != gjson.Null {
		if n.Type != gjson.Number {
			return nil, badRequest("invalid_type", "n", "n must be an integer")
		}
		if n.Num != 1 {
			return nil, badRequest("unsupported_value", "n", "n must be 1: the guard verifies one answer per request")
		}
	}
	return r, nil
}

// refJSONDepth returns the deepest nesting of objects and arrays, scanning
// bytes without decoding (so a hostile body cannot exhaust the decoder).
func refJSONDepth(b []byte) int {
	depth, maxd, inStr, esc := 0, 0, false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			maxd = max(maxd, depth)
		case '}', ']':
			depth--
		}
	}
	return maxd
}
