// Package jsonw implements append-style JSON writers for the proxy's hot
// paths: the "guard" report sent with every answer and the system message
// of the upstream body. Each writer produces exactly the bytes
// encoding/json's Marshal produces for the same value (HTML characters
// escaped, invalid UTF-8 as U+FFFD, map keys sorted, floats in Marshal's
// format), without reflection and without allocating beyond dst's growth;
// the tests hold every writer to json.Marshal.
package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/answer-guard/guard/gate"
	"github.com/answer-guard/guard/gauntlet"
	"github.com/answer-guard/guard/internal/jsonscan"
	"github.com/answer-guard/guard/internal/turnrec"
	"github.com/answer-guard/guard/judge"
)

// String appends s as json.Marshal writes a string (jsonscan.AppendQuotedString).
func String(dst []byte, s string) []byte { return jsonscan.AppendQuotedString(dst, s) }

// Float appends f as json.Marshal writes a float64; ok is false for NaN
// and the infinities, which Marshal refuses.
func Float(dst []byte, f float64) (_ []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 -> e-9, as Marshal does
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// Strings appends ss as json.Marshal writes a []string (nil: null).
func Strings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, s)
	}
	return append(dst, ']')
}

// List appends ss as a JSON array, [] when it is empty or nil (as
// json.Marshal writes a non-nil []string).
func List(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "[]"...)
	}
	return Strings(dst, ss)
}

// SystemMessage appends json.Marshal(map[string]string{"role": "system",
// "content": content}): the message the proxy puts first upstream.
func SystemMessage(dst []byte, content string) []byte {
	dst = append(dst, `{"content":`...)
	dst = String(dst, content)
	return append(dst, `,"role":"system"}`...)
}

// Messages appends a messages array with the system message first:
// [SystemMessage(system), msg(0), ..., msg(n-1)], each msg raw JSON.
func Messages(dst []byte, system string, n int, msg func(i int) string) []byte {
	dst = SystemMessage(append(dst, '['), system)
	for i := range n {
		dst = append(append(dst, ','), msg(i)...)
	}
	return append(dst, ']')
}

// ChatBody appends a chat request body with the system message put first
// in its messages array, in one pass: body with body[at:end] (the array)
// replaced by [SystemMessage(system), msg(0), ..., msg(n-1)] (each msg
// raw JSON), and member, when not empty, added as the object's last
// member. It writes what sjson.SetRawBytes(body, "messages", array) and
// then adding member after a comma write, without their two copies of
// the body.
func ChatBody(dst, body []byte, at, end int, system string, n int, msg func(i int) string, member []byte) []byte {
	dst = Messages(append(dst, body[:at]...), system, n, msg)
	tail := body[end:]
	if len(member) == 0 {
		return append(dst, tail...)
	}
	k := bytes.LastIndexByte(tail, '}')
	dst = append(append(append(dst, tail[:k]...), ','), member...)
	return append(dst, tail[k:]...)
}

// AppendMembers returns a copy of the JSON object b with the text of parts
// (one or more "key":value members) added before its closing brace, after
// a comma unless the object is empty. b must be an object.
func AppendMembers(b []byte, parts ...[]byte) []byte {
	n := len(b) + 1
	for _, p := range parts {
		n += len(p)
	}
	return AppendMembersTo(make([]byte, 0, n), b, parts...)
}

// AppendMembersTo is AppendMembers appending to dst, which must not
// overlap b.
func AppendMembersTo(dst, b []byte, parts ...[]byte) []byte {
	end := bytes.LastIndexByte(b, '}')
	dst = append(dst, b[:end]...)
	if start := bytes.IndexByte(b, '{'); start >= 0 && start < end && len(bytes.TrimSpace(b[start+1:end])) > 0 {
		dst = append(dst, ',')
	}
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return append(dst, b[end:]...)
}

// Report appends the proxy's "guard" object with these members, in this
// order, as json.Marshal writes the proxy's Report (see proxy.Report for
// the shape). ok is false when a float is NaN or infinite (Marshal fails
// on those; the caller decides what to send).
func Report(dst []byte, decision gate.Decision, cov *gate.Coverage, cites []gauntlet.Citation, markers *turnrec.Markers,
	claims []judge.Claim, sum *judge.Summary, degraded []string, latency map[string]float64) (_ []byte, ok bool) {
	ok = true
	dst = append(dst, `{"decision":`...)
	dst = String(dst, string(decision))
	dst = append(dst, `,"coverage":`...)
	if cov == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"max":`...)
		dst, ok = Float(dst, cov.Max)
		dst = append(dst, `,"primary_kind_count":`...)
		dst = strconv.AppendInt(dst, int64(cov.PrimaryKindCount), 10)
		dst = append(dst, `,"outline":`...)
		dst = strconv.AppendInt(dst, int64(cov.Outline), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"citations":`...)
	dst = citations(dst, cites)
	dst = append(dst, `,"markers":`...)
	dst = markersJSON(dst, markers)
	dst = append(dst, `,"claims":`...)
	if claims == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range claims {
			if i > 0 {
				dst = append(dst, ',')
			}
			var cok bool
			dst, cok = claim(dst, &claims[i])
			ok = ok && cok
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"summary":`...)
	if sum == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"claims":`...)
		dst = strconv.AppendInt(dst, int64(sum.Claims), 10)
		dst = append(dst, `,"verified":`...)
		dst = strconv.AppendInt(dst, int64(sum.Verified), 10)
		dst = append(dst, `,"miscited":`...)
		dst = strconv.AppendInt(dst, int64(sum.Miscited), 10)
		dst = append(dst, `,"uncited":`...)
		dst = strconv.AppendInt(dst, int64(sum.Uncited), 10)
		dst = append(dst, `,"gaps":`...)
		dst = strconv.AppendInt(dst, int64(sum.Gaps), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"degraded":`...)
	dst = Strings(dst, degraded)
	dst = append(dst, `,"latency_ms":`...)
	if latency == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '{')
		for i, k := range sortedKeys(make([]string, 0, 8), latency) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = String(dst, k)
			dst = append(dst, ':')
			var fok bool
			dst, fok = Float(dst, latency[k])
			ok = ok && fok
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), ok
}

func citations(dst []byte, cs []gauntlet.Citation) []byte {
	if cs == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range cs {
		c := &cs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"n":`...)
		dst = strconv.AppendInt(dst, int64(c.N), 10)
		dst = append(dst, `,"id":`...)
		dst = String(dst, c.ID)
		dst = append(dst, `,"title":`...)
		dst = String(dst, c.Title)
		dst = append(dst, `,"address":`...)
		dst = String(dst, c.Address)
		dst = append(dst, `,"url":`...)
		dst = String(dst, c.URL)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func markersJSON(dst []byte, m *turnrec.Markers) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"kept":`...)
	dst = strconv.AppendInt(dst, int64(m.Kept), 10)
	dst = append(dst, `,"dropped":`...)
	dst = strconv.AppendInt(dst, int64(m.Dropped), 10)
	dst = append(dst, `,"by_reason":`...)
	if m.ByReason == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '{')
		for i, k := range sortedKeys(make([]string, 0, 8), m.ByReason) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = String(dst, k)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(m.ByReason[k]), 10)
		}
		dst = append(dst, '}')
	}
	a := &m.Audit
	dst = append(dst, `,"audit":{"markers":`...)
	dst = strconv.AppendInt(dst, int64(a.Markers), 10)
	dst = append(dst, `,"invented":`...)
	dst = strconv.AppendInt(dst, int64(a.Invented), 10)
	dst = append(dst, `,"broken":`...)
	dst = strconv.AppendInt(dst, int64(a.Broken), 10)
	dst = append(dst, `,"leaked_ids":`...)
	dst = strconv.AppendInt(dst, int64(a.LeakedIDs), 10)
	dst = append(dst, `,"unknown_citations":`...)
	dst = strconv.AppendInt(dst, int64(a.UnknownCitations), 10)
	dst = append(dst, `,"unused_citations":`...)
	dst = strconv.AppendInt(dst, int64(a.UnusedCitations), 10)
	dst = append(dst, `,"unknown_named":`...)
	dst = strconv.AppendInt(dst, int64(a.UnknownNamed), 10)
	if len(a.Findings) > 0 {
		dst = append(dst, `,"findings":[`...)
		for i := range a.Findings {
			f := &a.Findings[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"kind":`...)
			dst = String(dst, f.Kind)
			dst = append(dst, `,"text":`...)
			dst = String(dst, f.Text)
			dst = append(dst, `,"offset":`...)
			dst = strconv.AppendInt(dst, int64(f.Offset), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, "}}"...)
}

func claim(dst []byte, c *judge.Claim) (_ []byte, ok bool) {
	dst = append(dst, `{"text":`...)
	dst = String(dst, c.Text)
	dst = append(dst, `,"citations":`...)
	if c.Citations == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, n := range c.Citations {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(n), 10)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"verdict":`...)
	dst = String(dst, c.Verdict)
	dst = append(dst, `,"confidence":`...)
	dst, ok = Float(dst, c.Confidence)
	dst = append(dst, `,"severity":`...)
	dst = String(dst, c.Severity)
	dst = append(dst, `,"method":`...)
	dst = String(dst, c.Method)
	dst = append(dst, `,"reliability":`...)
	var rok bool
	dst, rok = Float(dst, c.Reliability)
	ok = ok && rok
	dst = append(dst, `,"risk":`...)
	dst = String(dst, c.Risk)
	dst = append(dst, `,"suggestion":`...)
	dst = String(dst, c.Suggestion)
	if c.Evidence != "" {
		dst = append(dst, `,"evidence":`...)
		dst = String(dst, c.Evidence)
	}
	if c.Reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = String(dst, c.Reason)
	}
	if c.Uncited != "" {
		dst = append(dst, `,"uncited":`...)
		dst = String(dst, c.Uncited)
	}
	if len(c.ClaimReview) > 0 {
		// A contradiction's JSON-LD object: rare, free-form, left to
		// encoding/json.
		b, err := json.Marshal(c.ClaimReview)
		if err != nil {
			return dst, false
		}
		dst = append(dst, `,"claim_review":`...)
		dst = append(dst, b...)
	}
	return append(dst, '}'), ok
}

// sortedKeys appends m's keys to ks in the order Marshal writes them.
func sortedKeys[V any](ks []string, m map[string]V) []string {
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
