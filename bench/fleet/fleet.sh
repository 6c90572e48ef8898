#!/usr/bin/env bash
# Usage: bash bench/fleet/fleet.sh        (REPLICAS, RATE, PHASE, OUT, PORT_BASE override)
#
# A fleet of `guard serve` replicas on loopback behind nginx, one simulated
# upstream, steady streamed load through nginx, and a rolling snapshot update
# under that load: `guard index add` writes a new snapshot while the load
# runs, then each replica's config is pointed at it and the replica gets
# SIGHUP, one by one. Three load phases (before, during and after the roll)
# report requests, errors and TTFT p50/p99 each; at the end every replica is
# asked, directly, a question only the new snapshot answers.
#
# Installs nginx (Debian package nginx-light) when it is missing. Every
# process listens on 127.0.0.1 and is stopped on exit; the run is bounded
# by 3 x PHASE plus start-up.
set -euo pipefail
cd "$(dirname "$0")/../.."

REPLICAS=${REPLICAS:-3}
RATE=${RATE:-60}
PHASE=${PHASE:-15s}
OUT=${OUT:-bench-out/fleet}
PORT_BASE=${PORT_BASE:-18400}
MOCK_PORT=$PORT_BASE
LB_PORT=$((PORT_BASE + 1))

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "installing nginx (Debian nginx-light)" >&2
  apt-get update -qq && apt-get install -y -qq nginx-light >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

rm -rf "$OUT"
mkdir -p "$OUT"/nginx/logs "$OUT"/idx
OUT=$(cd "$OUT" && pwd)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$OUT/nginx/nginx.pid" ] && kill "$(cat "$OUT/nginx/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "== build" >&2
go build -o "$OUT/guard" ./cmd/guard
G="$OUT/guard"
"$G" index build --demo --out "$OUT/idx/v1" >/dev/null

wait_ready() { # url
  for _ in $(seq 1 150); do
    curl -sf "$1" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "not ready: $1" >&2
  return 1
}

echo "== start: mockllm, $REPLICAS replicas, nginx on 127.0.0.1:$LB_PORT" >&2
"$G" mockllm --addr "127.0.0.1:$MOCK_PORT" --pace 5ms >"$OUT/mock.log" 2>&1 &
pids+=($!)
upstreams=""
for i in $(seq 1 "$REPLICAS"); do
  port=$((PORT_BASE + 10 + i))
  cat >"$OUT/replica$i.yaml" <<EOF
server: {addr: "127.0.0.1:$port"}
upstream: {base_url: "http://127.0.0.1:$MOCK_PORT/v1"}
pipeline: {index: "$OUT/idx/v1"}
log: {level: warn}
EOF
  "$G" serve --config "$OUT/replica$i.yaml" >"$OUT/replica$i.log" 2>&1 &
  pids+=($!)
  echo $! >"$OUT/replica$i.pid"
  upstreams+="    server 127.0.0.1:$port;"$'\n'
done
sed -e "s|@OUT@|$OUT|g" -e "s|@LB_PORT@|$LB_PORT|g" bench/fleet/nginx.conf.in |
  awk -v ups="$upstreams" '{ if ($0 ~ /@UPSTREAMS@/) printf "%s", ups; else print }' >"$OUT/nginx/nginx.conf"
"$NGINX" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf"
wait_ready "http://127.0.0.1:$MOCK_PORT/v1/models"
for i in $(seq 1 "$REPLICAS"); do wait_ready "http://127.0.0.1:$((PORT_BASE + 10 + i))/readyz"; done
wait_ready "http://127.0.0.1:$LB_PORT/readyz"

load() { # phase name
  "$G" bench load --target "http://127.0.0.1:$LB_PORT/v1" --stream --rate "$RATE" --concurrency 128 \
    --duration "$PHASE" --warmup 20 --prompts bench/testdata/demo_prompts.txt --out "$OUT/$1" \
    >"$OUT/$1.out" 2>"$OUT/$1.err"
}

echo "== phase 1: steady ($PHASE at $RATE streams/s)" >&2
load before

echo "== phase 2: rolling update under load" >&2
load rolling &
loadpid=$!
"$G" index add --index "$OUT/idx/v1" --corpus bench/fleet/new_docs.jsonl --out "$OUT/idx/v2" >"$OUT/index_add.log" 2>&1
for i in $(seq 1 "$REPLICAS"); do
  sed -i "s|$OUT/idx/v1|$OUT/idx/v2|" "$OUT/replica$i.yaml"
  kill -HUP "$(cat "$OUT/replica$i.pid")"
  echo "   replica $i: SIGHUP at $(date +%T.%N | cut -c1-12)" >&2
  sleep 2
done
wait "$loadpid"

echo "== phase 3: after the roll" >&2
load after

echo "== the new snapshot on every replica" >&2
visible=0
for i in $(seq 1 "$REPLICAS"); do
  port=$((PORT_BASE + 10 + i))
  body=$(curl -s "http://127.0.0.1:$port/v1/chat/completions" -H 'Content-Type: application/json' \
    -d '{"model":"mock-1","messages":[{"role":"user","content":"When does the Lanternfish quartz rotation window open?"}]}')
  if echo "$body" | grep -q '"id":"fleet-quartz-window"'; then
    echo "   replica $i: cites fleet-quartz-window" >&2
    visible=$((visible + 1))
  else
    echo "   replica $i: does NOT cite the new document: $(echo "$body" | head -c 400)" >&2
  fi
done

python3 - "$OUT" "$REPLICAS" "$visible" <<'PY'
import json, sys
out, replicas, visible = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(f"| phase | sent | ok | errors | dropped | TTFT p50 ms | TTFT p99 ms | latency p99 ms |")
print(f"|---|---|---|---|---|---|---|---|")
failed = 0
for phase in ("before", "rolling", "after"):
    r = json.load(open(f"{out}/{phase}/report.json"))["runs"][0]
    errs = sum(r.get("errors", {}).values())
    failed += errs
    t = r.get("ttft") or {}
    ms = lambda d, k: d.get(k, 0) / 1e6
    print(f"| {phase} | {r['sent']} | {r['ok']} | {errs} {r.get('errors') or ''} | {r['dropped']} | "
          f"{ms(t, 'p50_ns'):.1f} | {ms(t, 'p99_ns'):.1f} | {ms(r['latency'], 'p99_ns'):.1f} |")
print(f"\nnew snapshot visible on {visible}/{replicas} replicas; failed requests: {failed}")
sys.exit(0 if failed == 0 and visible == replicas else 1)
PY
