package jsonscan

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// duplicateKey is DuplicateKey with no depth limit, for valid JSON: the
// duplicate-key tests and FuzzParseChatRequest's reference check use it.
func duplicateKey(b []byte) (string, bool) {
	key, dup, _ := DuplicateKey(b, math.MaxInt)
	return key, dup
}

func TestDuplicateKey(t *testing.T) {
	for _, tc := range []struct {
		body, key string
		dup       bool
	}{
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "a", true},
		{`{"a":{"x":1},"b":{"x":2}}`, "", false},
		{`[{"a":1},{"a":1}]`, "", false},
		{`{"a":[{"k":1,"k":2}]}`, "k", true},
		{`{"Model":1,"model":2}`, "model", true},
		{`{"mod\u0065l":1,"model":2}`, "model", true},
		{`{"model":1,"mod\u0065l":2}`, "model", true},
		{`{"\u212a":1,"k":2}`, "k", true}, // Kelvin sign folds to k
		{`{"a":"\"b\":1","b":2}`, "", false},
		{`{"a\"":1,"a":2}`, "", false},
		{`{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k18":1,"K3":1}`, "K3", true},
		{`{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k10":1,"k11":1,"k12":1,"k13":1,"k14":1,"k15":1,"k16":1,"k17":1,"k18":1}`, "", false},
	} {
		key, dup := duplicateKey([]byte(tc.body))
		if dup != tc.dup || key != tc.key {
			t.Errorf("duplicateKey(%s) = %q %v, want %q %v", tc.body, key, dup, tc.key, tc.dup)
		}
	}
}

// BenchmarkDuplicateKeyScan: the duplicate-key check over a typical chat
// body (system + 6 turns, a tool definition).
func BenchmarkDuplicateKeyScan(b *testing.B) {
	body := []byte(`{"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,` +
		`"tools":[{"type":"function","function":{"name":"lookup","description":"look a thing up","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}],` +
		`"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"How do I rotate the signing keys of the cluster?"},` +
		`{"role":"assistant","content":"Use the rotate command."},{"role":"user","content":"And how often should I do it?"},` +
		`{"role":"assistant","content":"Every 90 days."},{"role":"user","content":"What happens to old snapshots when I rotate?"}]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, dup := duplicateKey(body); dup {
			b.Fatal("dup")
		}
	}
}

// TestScanKeysDepth: the scan counts nesting as the depth limit reads it,
// reports a duplicate with the depth, and stops at the limit (a megabyte
// of brackets keeps no more than the limit's frames).
func TestScanKeysDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	if _, _, deep := DuplicateKey(nest(64), 64); deep {
		t.Error("64 levels reported deeper than 64")
	}
	if _, _, deep := DuplicateKey(nest(65), 64); !deep {
		t.Error("65 levels not reported deeper than 64")
	}
	if key, dup, deep := DuplicateKey([]byte(`{"a":1,"A":[[[]]]}`), 3); key != "A" || !dup || !deep {
		t.Errorf("duplicate before the limit: got %q %v %v", key, dup, deep)
	}
	st := &dupScanner{}
	if _, _, deep := st.scan(bytes.Repeat([]byte("["), 1<<20), 64); !deep || cap(st.stack) > 128 {
		t.Errorf("1 MiB of brackets: deep %v, %d frames kept", deep, cap(st.stack))
	}
}

// TestStringEnd: the closing quote past escapes, an escaped quote, a
// backslash at the end, and no quote at all.
func TestStringEnd(t *testing.T) {
	for _, tc := range []struct {
		s       string
		end     int
		escaped bool
	}{
		{`abc"x`, 3, false},
		{`a\"b"x`, 4, true},
		{`a\\"x`, 3, true},
		{`\\\\\\"`, 6, true},
		{`abc`, 3, false},
		{`ab\`, 3, true},
		{`ab\"`, 4, true},
		{`"`, 0, false},
	} {
		end, esc := stringEnd([]byte(tc.s), 0)
		if end != tc.end || esc != tc.escaped {
			t.Errorf("stringEnd(%q) = %d %v, want %d %v", tc.s, end, esc, tc.end, tc.escaped)
		}
	}
}
