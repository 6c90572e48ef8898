#!/usr/bin/env bash
# Operator trial 8: build the two corpora, serve them with the simulated upstream (auth on, one
# key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed, and score at the defaults.
#
#   bench/testdata/trial7/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial8). EXTRA_YAML
# is appended to the config (for example 'gate: {off_topic: refuse}'). Writes OUT_DIR/answers.jsonl
# (one line per question and mode: decision, coverage max, cited ids, the turn id) and prints
# the score: answerable grounded with a cited chunk that holds `key`; on-topic unanswerable
# refused; off-topic fallen back or refused. Needs curl and jq.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${2:-/tmp/trial8}
mkdir -p "$out"
guard=${1:-}
if [ -z "$guard" ]; then guard=$out/guard; (cd "$repo" && go build -o "$guard" ./cmd/guard); fi
extra=${3:-}

rm -rf "$out/idx1" "$out/idx" "$out/turns"
"$guard" index build --corpus "$here/plumber/" --tenant kestrel --kb service --out "$out/idx1" 2>"$out/build.log"
"$guard" index add --index "$out/idx1" --corpus "$here/museum/visitor-info.jsonl" --tenant fenwick --kb visit --out "$out/idx" 2>>"$out/build.log"
for p in kestrel/service fenwick/visit; do
	"$guard" index chunks --index "$out/idx" --tenant "${p%/*}" --kb "${p#*/}" --json
done >"$out/chunks.jsonl"

sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
port=${PORT:-18088}
cat >"$out/guard.yaml" <<YAML
server: {addr: "127.0.0.1:$port"}
pipeline: {index: "$out/idx"}
auth:
  enabled: true
  keys:
    - {name: kestrel, sha256: "$(sha kestrel-key)", tenant: kestrel, kbs: [service]}
    - {name: fenwick, sha256: "$(sha fenwick-key)", tenant: fenwick, kbs: [visit]}
  admin_keys:
    - {name: ops, sha256: "$(sha ops-key)"}
turnlog: {persist: {dir: "$out/turns"}}
$extra
YAML
"$guard" config check --config "$out/guard.yaml" >&2
"$guard" serve --config "$out/guard.yaml" 2>"$out/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
base=http://127.0.0.1:$port
for _ in $(seq 100); do curl -sf "$base/readyz" >/dev/null && break; sleep 0.2; done

: >"$out/answers.jsonl"
for f in "$here"/plumber-questions.jsonl "$here"/museum-questions.jsonl; do
	while IFS= read -r q; do
		tenant=$(jq -r .tenant <<<"$q")
		body=$(jq -c '{model: "mock-1", messages: [{role: "user", content: .text}]}' <<<"$q")
		ns=$(curl -s "$base/v1/chat/completions" -H "Authorization: Bearer $tenant-key" \
			-H 'Content-Type: application/json' -d "$body")
		st=$(curl -sN "$base/v1/chat/completions" -H "Authorization: Bearer $tenant-key" \
			-H 'Content-Type: application/json' \
			-d "$(jq -c '. + {stream: true, stream_options: {include_usage: true}}' <<<"$body")")
		final=$(sed -n 's/^data: //p' <<<"$st" | grep -v '^\[DONE\]$' | jq -c 'select(.guard != null)' | tail -1)
		done_seen=$(grep -c '^data: \[DONE\]' <<<"$st" || true)
		jq -c --argjson q "$q" --argjson s "${final:-null}" --arg done "$done_seen" \
			'{q: $q,
			  ns: {decision: .guard.decision, max: .guard.coverage.max, cited: [.guard.citations[]?.id], answer: .choices[0].message.content},
			  st: {decision: $s.guard.decision, max: $s.guard.coverage.max, cited: [$s.guard.citations[]?.id], done: ($done == "1")}}' \
			<<<"$ns" >>"$out/answers.jsonl"
	done <"$f"
done

# score: a chunk holds the key when its text does, whitespace folded
jq -rn --slurpfile a "$out/answers.jsonl" --slurpfile c "$out/chunks.jsonl" '
	def fold: gsub("\\s+"; " ");
	def holds($ids; $key): [$c[] | select(.id as $i | $ids | index($i)) | .text | fold | contains($key)] | any;
	def ok($m): . as $r | $r.q.expect as $e |
		if $e == "answerable" then $r[$m].decision == "ground" and holds($r[$m].cited; $r.q.key)
		elif $e == "on_topic_unanswerable" then $r[$m].decision == "refuse"
		else ($r[$m].decision == "fallback" or $r[$m].decision == "refuse") end;
	($a | group_by(.q.kb) | .[] | . as $g |
		($g | group_by(.q.expect) | .[] |
			"\(.[0].q.kb)\t\(.[0].q.expect)\tnon-stream \([.[] | select(ok("ns"))] | length)/\(length)\tstream \([.[] | select(ok("st"))] | length)/\(length)")),
	"same decision and citations both ways: \([$a[] | select(.ns.decision == .st.decision and .ns.cited == .st.cited)] | length)/\($a | length); streams ending in [DONE]: \([$a[] | select(.st.done)] | length)",
	"",
	"misses (non-stream): id kb expect decision max cited | question",
	($a[] | select(ok("ns") | not) | "\(.q.id)\t\(.q.kb)\t\(.q.expect)\t\(.ns.decision)\t\(.ns.max)\t\(.ns.cited | join(","))\t| \(.q.text)")'
