#!/usr/bin/env bash
# Usage: bash bench/anchor/anchor.sh     (DURATION, CONNS, THREADS, OUT, PORT_BASE, GUARD_LOAD,
#        GUARD_BIN (a prebuilt guard binary, e.g. an older build to compare) override)
#
# The guard as a relay, next to the relays people know: one fixed-answer
# fasthttp upstream (bench/anchor/upstream), and in front of it nginx
# (proxy_buffering off), Caddy 2 (reverse_proxy, flush_interval -1) and the
# guard in pass-through (pipeline.enabled: false, log.level: warn), and
# fastproxy (bench/anchor/fastproxy): the guard's HTTP layer, fasthttp server
# and client, with nothing else, the floor the guard's own work sits on. The
# same wrk run (THREADS threads, CONNS connections, DURATION) goes to each of
# direct / nginx / Caddy / fastproxy / guard, once with a non-stream chat
# completion and once with a 50-event SSE stream, and one table is printed
# (also written to OUT/anchor.md): requests/s, and the CPU each target's
# processes spent per request (utime+stime from /proc; "direct" is the
# upstream alone), the steadier of the two on a machine the load generator
# shares. In the CPU rows the ratios are the guard's (and fastproxy's) CPU
# over nginx's: below 1 is cheaper. Then, unless GUARD_LOAD=0, guard mode:
# `guard bench load --self --stream --pipeline --concurrency 32` (demo
# corpus, pace 0) for guarded turns/s.
#
# Installs nginx (nginx-light), caddy and wrk from Debian when missing.
# Everything listens on 127.0.0.1 and is stopped on exit. Only ratios within
# one run mean much: the load generator shares the machine with the proxies.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-8s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
OUT=${OUT:-bench-out/anchor}
PORT_BASE=${PORT_BASE:-18500}
GUARD_LOAD=${GUARD_LOAD:-1}
UP_PORT=$((PORT_BASE + 1))
NGINX_PORT=$((PORT_BASE + 2))
CADDY_PORT=$((PORT_BASE + 3))
GUARD_PORT=$((PORT_BASE + 4))
FAST_PORT=$((PORT_BASE + 5))

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing from Debian: ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

rm -rf "$OUT"
mkdir -p "$OUT"/nginx "$OUT"/caddy
OUT=$(cd "$OUT" && pwd)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$OUT/nginx/nginx.pid" ] && kill "$(cat "$OUT/nginx/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "== build" >&2
if [ -n "${GUARD_BIN:-}" ]; then cp "$GUARD_BIN" "$OUT/guard"; else go build -o "$OUT/guard" ./cmd/guard; fi
go build -o "$OUT/upstream" ./bench/anchor/upstream
go build -o "$OUT/fastproxy" ./bench/anchor/fastproxy

wait_ready() { # url
  for _ in $(seq 1 150); do
    curl -sf -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "not ready: $1" >&2
  return 1
}

echo "== start: upstream :$UP_PORT, nginx :$NGINX_PORT, caddy :$CADDY_PORT, guard :$GUARD_PORT, fastproxy :$FAST_PORT" >&2
"$OUT/upstream" -addr "127.0.0.1:$UP_PORT" >"$OUT/upstream.log" 2>&1 &
pids+=($!)
declare -A procs # target -> its pids, for CPU per request
procs[direct]=$!
"$OUT/fastproxy" -addr "127.0.0.1:$FAST_PORT" -upstream "127.0.0.1:$UP_PORT" >"$OUT/fastproxy.log" 2>&1 &
pids+=($!)
procs[fastproxy]=$!
sed -e "s|@OUT@|$OUT|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@UP_PORT@|$UP_PORT|g" bench/anchor/nginx.conf.in >"$OUT/nginx/nginx.conf"
"$NGINX" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf"
sed -e "s|@PORT@|$CADDY_PORT|g" -e "s|@UP_PORT@|$UP_PORT|g" bench/anchor/Caddyfile.in >"$OUT/caddy/Caddyfile"
XDG_DATA_HOME="$OUT/caddy" XDG_CONFIG_HOME="$OUT/caddy" caddy run --adapter caddyfile --config "$OUT/caddy/Caddyfile" >"$OUT/caddy/caddy.log" 2>&1 &
pids+=($!)
procs[caddy]=$!
cat >"$OUT/guard.yaml" <<YAML
server: {addr: "127.0.0.1:$GUARD_PORT"}
upstream: {base_url: "http://127.0.0.1:$UP_PORT/v1"}
pipeline: {enabled: false}
log: {level: warn}
YAML
"$OUT/guard" serve --config "$OUT/guard.yaml" >"$OUT/guard.log" 2>&1 &
pids+=($!)
procs[guard]=$!
for p in $UP_PORT $NGINX_PORT $CADDY_PORT $FAST_PORT; do wait_ready "http://127.0.0.1:$p/v1/models"; done
wait_ready "http://127.0.0.1:$GUARD_PORT/readyz"
procs[nginx]=$(pgrep -d ' ' -f "nginx: worker process" -P "$(cat "$OUT/nginx/nginx.pid")")

NONSTREAM='{"model":"mock-1","messages":[{"role":"user","content":"What is the return window?"}]}'
STREAM='{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"What is the return window?"}]}'

# Check each target answers both kinds before measuring.
for p in $UP_PORT $NGINX_PORT $CADDY_PORT $FAST_PORT $GUARD_PORT; do
  curl -sf -H 'Content-Type: application/json' -d "$NONSTREAM" "http://127.0.0.1:$p/v1/chat/completions" | grep -q '"choices"' ||
    { echo "port $p: bad non-stream answer" >&2; exit 1; }
  n=$(curl -sfN -H 'Content-Type: application/json' -d "$STREAM" "http://127.0.0.1:$p/v1/chat/completions" | grep -c '^data: ')
  [ "$n" -ge 52 ] || { echo "port $p: stream has $n events" >&2; exit 1; }
done

cpu_ticks() { # pids -> their user+system clock ticks so far
  local t=0 p
  for p in $1; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}

run_wrk() { # port body kind pids -> "req/s cpu-us-per-request"
  local t0 t1
  t0=$(cpu_ticks "$4")
  ANCHOR_BODY="$2" wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" -s bench/anchor/post.lua \
    "http://127.0.0.1:$1/v1/chat/completions" >"$OUT/wrk-$1-$3.txt" 2>&1
  t1=$(cpu_ticks "$4")
  if grep -q "Non-2xx" "$OUT/wrk-$1-$3.txt"; then echo "errors -"; return; fi
  awk -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/^Requests\/sec/ {rps = $2} / requests in / {n = $1}
    END {printf "%.0f %.1f", rps, (n > 0 ? ticks * 1e6 / hz / n : 0)}' "$OUT/wrk-$1-$3.txt"
}

declare -A res cpu
for kind in nonstream stream; do
  body=$NONSTREAM
  [ $kind = stream ] && body=$STREAM
  for t in direct:$UP_PORT nginx:$NGINX_PORT caddy:$CADDY_PORT fastproxy:$FAST_PORT guard:$GUARD_PORT; do
    name=${t%%:*} port=${t##*:}
    echo "== wrk $kind $name" >&2
    read -r res[$kind.$name] cpu[$kind.$name] <<<"$(run_wrk "$port" "$body" "$kind" "${procs[$name]}")"
  done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a ~ /^[0-9]+$/) printf "%.2f", a / b; else print "-" }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a ~ /^[0-9.]+$/) printf "%.2f", a / b; else print "-" }'; }
{
  echo "wrk -t$THREADS -c$CONNS -d$DURATION, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo
  echo "| | direct | nginx | Caddy | fastproxy (floor) | guard | guard / nginx | fastproxy / nginx |"
  echo "|---|---|---|---|---|---|---|---|"
  for kind in nonstream stream; do
    label="non-stream req/s"
    [ $kind = stream ] && label="50-event SSE streams/s"
    echo "| $label | ${res[$kind.direct]} | ${res[$kind.nginx]} | ${res[$kind.caddy]} | ${res[$kind.fastproxy]} | ${res[$kind.guard]} | $(ratio "${res[$kind.guard]}" "${res[$kind.nginx]}") | $(ratio "${res[$kind.fastproxy]}" "${res[$kind.nginx]}") |"
  done
  for kind in nonstream stream; do
    label="CPU per request (us), non-stream"
    [ $kind = stream ] && label="CPU per stream (us), SSE"
    echo "| $label | ${cpu[$kind.direct]} | ${cpu[$kind.nginx]} | ${cpu[$kind.caddy]} | ${cpu[$kind.fastproxy]} | ${cpu[$kind.guard]} | $(ratio2 "${cpu[$kind.guard]}" "${cpu[$kind.nginx]}") | $(ratio2 "${cpu[$kind.fastproxy]}" "${cpu[$kind.nginx]}") |"
  done
} | tee "$OUT/anchor.md"

if [ "$GUARD_LOAD" != 0 ]; then
  echo "== guard bench load --self --stream --pipeline --concurrency 32" >&2
  "$OUT/guard" bench load --self --stream --pipeline --concurrency 32 --duration "$DURATION" --out "$OUT/guardmode" >"$OUT/guardmode.txt" 2>"$OUT/guardmode.err" || true
  { echo; echo "guard mode (full pipeline, demo corpus, pace 0, concurrency 32, generator in process):"; echo; cat "$OUT/guardmode.txt"; } | tee -a "$OUT/anchor.md"
fi
