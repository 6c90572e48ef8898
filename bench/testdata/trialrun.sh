# Shared by the operator trials' run.sh (trial7 to trial43 run.sh): build the trial's
# corpora into one snapshot, serve it with the simulated upstream (auth on, one key per tenant,
# "TENANT-key", and an admin key, "ops-key"), ask every question over HTTP once non-stream and
# once streamed, and score at the defaults. Sourced, not run: the caller sets
#
#   here       the trial's folder
#   name       the default OUT_DIR's name (/tmp/$name)
#   port       the port to serve on
#   corpora    one "PATH TENANT KB" per corpus, PATH relative to $here; the first is built, the
#              rest added in turn
#   questions  the question files, relative to $here
#
# and its own arguments are read: [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]. A question row with
# `history` (a list of the earlier user messages, trial 12 on) is sent as a chat: each earlier
# message followed by an assistant "OK.", then its `text`; rows without it as one user message. GUARD_BINARY defaults
# to `go build ./cmd/guard` into OUT_DIR. EXTRA_YAML is appended to the config (for example
# 'gate: {off_topic: refuse}'). Writes OUT_DIR/answers.jsonl (one line per question: the
# question, then per mode the decision, coverage max and cited ids, and the non-stream answer)
# and OUT_DIR/chunks.jsonl, and prints the score: answerable grounded with a cited chunk that
# holds `key`; on-topic unanswerable refused; off-topic fallen back or refused. Needs curl and jq.
repo=$(cd "$here/../../.." && pwd)
out=${2:-/tmp/$name}
mkdir -p "$out"
guard=${1:-}
if [ -z "$guard" ]; then guard=$out/guard; (cd "$repo" && go build -o "$guard" ./cmd/guard); fi
extra=${3:-}

rm -rf "$out"/idx* "$out/turns"
: >"$out/build.log"
: >"$out/chunks.jsonl"
keys=""
prev=""
i=0
for c in "${corpora[@]}"; do
	read -r path tenant kb <<<"$c"
	i=$((i + 1))
	if [ "$i" = "${#corpora[@]}" ]; then dst=$out/idx; else dst=$out/idx$i; fi
	if [ -z "$prev" ]; then
		"$guard" index build --corpus "$here/$path" --tenant "$tenant" --kb "$kb" --out "$dst" 2>>"$out/build.log"
	else
		"$guard" index add --index "$prev" --corpus "$here/$path" --tenant "$tenant" --kb "$kb" --out "$dst" 2>>"$out/build.log"
	fi
	prev=$dst
done
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
for c in "${corpora[@]}"; do
	read -r path tenant kb <<<"$c"
	"$guard" index chunks --index "$out/idx" --tenant "$tenant" --kb "$kb" --json >>"$out/chunks.jsonl"
	keys+="    - {name: $tenant, sha256: \"$(sha "$tenant-key")\", tenant: $tenant, kbs: [$kb]}"$'\n'
done

cat >"$out/guard.yaml" <<YAML
server: {addr: "127.0.0.1:$port"}
pipeline: {index: "$out/idx"}
auth:
  enabled: true
  keys:
$keys  admin_keys:
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
for f in "${questions[@]}"; do
	while IFS= read -r q; do
		tenant=$(jq -r .tenant <<<"$q")
		# a row with `history` (the earlier user messages) is sent as the chat: each earlier
		# user message, a short assistant reply, then the last user message
		body=$(jq -c '{model: "mock-1", messages: ([(.history // [])[] | {role: "user", content: .}, {role: "assistant", content: "OK."}] + [{role: "user", content: .text}])}' <<<"$q")
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
	done <"$here/$f"
done

# score: a chunk holds the key when its text holds one of the key's `|`
# alternatives, whitespace folded (as tools/trialgate maps keys to chunks)
jq -rn --slurpfile a "$out/answers.jsonl" --slurpfile c "$out/chunks.jsonl" '
	def fold: gsub("\\s+"; " ");
	def holds($ids; $key): [($key | split("|")[] | fold) as $k | $c[] | select(.id as $i | $ids | index($i)) | .text | fold | contains($k)] | any;
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
