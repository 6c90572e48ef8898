#!/usr/bin/env bash
# Usage: bash bench/anchor/anchor.sh     (DURATION, CONNS, THREADS, OUT, PORT_BASE, GUARD_LOAD,
#        GUARD_BIN (a prebuilt guard binary), GUARD_BASE_BIN (a second guard
#        binary run beside it as "guard-base", e.g. main's, to compare in the
#        same run), BURST, PACED, OPEN, PACED_DURATION, IDLE_OPEN,
#        GUARDED_OPEN, PACE, REVERSE (1: targets, and the two guards' guard
#        mode runs, in the other order), TARGETS (the targets measured, e.g.
#        "nginx fastproxy evproxy" for a shorter run), EVPROXY_FLAGS (e.g.
#        "-front fasthttp": evproxy with a fasthttp server in front that hands
#        each connection to a loop and takes it back), GUARD_SERVER (more
#        server keys for the guard, not guard-base: e.g. "event_loop: off", the goroutine path)
#        override)
#
# Paced mode (PACED=1, the default) models LLM traffic: long-lived streams
# at token pace. First, memory per idle open stream: IDLE_OPEN (2000) wrk
# connections each hold a stream whose upstream sent its first event and
# then waits 30 s ("user":"idle"), and each target's resident memory
# (VmRSS of its processes, before and with the streams open) is divided by
# the streams; the guard is measured in pass-through and, at GUARDED_OPEN
# (500), guarded (pipeline on, demo corpus). Then, for each count in OPEN
# ("2000 5000"), wrk -c COUNT for PACED_DURATION (10s) against streams of
# 20 content events PACE (50ms) apart ("user":"paced", ideally 1 s each):
# streams/s, p50/p99, CPU per stream and resident memory per open stream
# (mid-run). Every target runs its default configuration but for what a
# stream needs (nginx and Caddy keep as many idle upstream connections as
# streams may be open, nginx's worker connections and file limit are
# raised); the file limit of this script is raised to its hard limit. Then
# `guard bench load --self --stream --pipeline --pace PACE --concurrency
# GUARDED_OPEN`: a guarded stream's CPU and TTFT against the same simulated
# upstream reached directly. BURST=0 skips the burst table below.
#
# The guard as a relay, next to the relays people know: one fixed-answer
# fasthttp upstream (bench/anchor/upstream), and in front of it nginx
# (proxy_buffering off), Caddy 2 (reverse_proxy, flush_interval -1) and the
# guard in pass-through (pipeline.enabled: false, log.level: warn), and
# fastproxy (bench/anchor/fastproxy): the guard's HTTP layer, fasthttp server
# and client, with nothing else, the floor the guard's own work sits on; and
# evproxy (bench/anchor/evproxy): the same relay on an epoll event loop per
# core (no netpoller, no goroutine per connection), the floor of an
# event-loop design in Go. The same wrk run (THREADS threads, CONNS
# connections, DURATION) goes to each of direct / nginx / Caddy / fastproxy /
# evproxy / guard, once with a non-stream chat
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
BURST=${BURST:-1}
PACED=${PACED:-1}
OPEN=${OPEN:-2000 5000}
PACED_DURATION=${PACED_DURATION:-10s}
IDLE_OPEN=${IDLE_OPEN:-2000}
GUARDED_OPEN=${GUARDED_OPEN:-500}
PACE=${PACE:-50ms}
GUARD_SERVER=${GUARD_SERVER:-}
ulimit -n "$(ulimit -Hn)" # thousands of open streams: two descriptors each in a proxy
NOFILE=$(ulimit -n)
KEEPALIVE=8192
UP_PORT=$((PORT_BASE + 1))
NGINX_PORT=$((PORT_BASE + 2))
CADDY_PORT=$((PORT_BASE + 3))
GUARD_PORT=$((PORT_BASE + 4))
FAST_PORT=$((PORT_BASE + 5))
GUARDED_PORT=$((PORT_BASE + 6))
BASE_PORT=$((PORT_BASE + 7))
EV_PORT=$((PORT_BASE + 8))

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
go build -o "$OUT/evproxy" ./bench/anchor/evproxy
[ -n "${GUARD_BASE_BIN:-}" ] && cp "$GUARD_BASE_BIN" "$OUT/guard-base"

wait_ready() { # url
  for _ in $(seq 1 150); do
    curl -sf -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "not ready: $1" >&2
  return 1
}

echo "== start: upstream :$UP_PORT, nginx :$NGINX_PORT, caddy :$CADDY_PORT, guard :$GUARD_PORT, fastproxy :$FAST_PORT, evproxy :$EV_PORT" >&2
"$OUT/upstream" -addr "127.0.0.1:$UP_PORT" -pace "$PACE" >"$OUT/upstream.log" 2>&1 &
pids+=($!)
declare -A procs # target -> its pids, for CPU per request
procs[direct]=$!
"$OUT/fastproxy" -addr "127.0.0.1:$FAST_PORT" -upstream "127.0.0.1:$UP_PORT" >"$OUT/fastproxy.log" 2>&1 &
pids+=($!)
procs[fastproxy]=$!
# shellcheck disable=SC2086 # EVPROXY_FLAGS is a list of flags
"$OUT/evproxy" -addr "127.0.0.1:$EV_PORT" -upstream "127.0.0.1:$UP_PORT" ${EVPROXY_FLAGS:-} >"$OUT/evproxy.log" 2>&1 &
pids+=($!)
procs[evproxy]=$!
sed -e "s|@OUT@|$OUT|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@UP_PORT@|$UP_PORT|g" -e "s|@NOFILE@|$NOFILE|g" \
  -e "s|@WORKER_CONNS@|$((NOFILE - 512))|g" -e "s|@KEEPALIVE@|$KEEPALIVE|g" bench/anchor/nginx.conf.in >"$OUT/nginx/nginx.conf"
"$NGINX" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf"
sed -e "s|@PORT@|$CADDY_PORT|g" -e "s|@UP_PORT@|$UP_PORT|g" -e "s|@KEEPALIVE@|$KEEPALIVE|g" bench/anchor/Caddyfile.in >"$OUT/caddy/Caddyfile"
XDG_DATA_HOME="$OUT/caddy" XDG_CONFIG_HOME="$OUT/caddy" caddy run --adapter caddyfile --config "$OUT/caddy/Caddyfile" >"$OUT/caddy/caddy.log" 2>&1 &
pids+=($!)
procs[caddy]=$!
guard_yaml() { # $1: port, $2: more server keys
  printf 'server: {addr: "127.0.0.1:%s"%s}\nupstream: {base_url: "http://127.0.0.1:%s/v1"}\npipeline: {enabled: false}\nlog: {level: warn}\n' \
    "$1" "${2:+, $2}" "$UP_PORT"
}
guard_yaml "$GUARD_PORT" "$GUARD_SERVER" >"$OUT/guard.yaml"
"$OUT/guard" serve --config "$OUT/guard.yaml" >"$OUT/guard.log" 2>&1 &
pids+=($!)
procs[guard]=$!
guards=(guard)
if [ -x "$OUT/guard-base" ]; then
  guard_yaml "$BASE_PORT" "" >"$OUT/guard-base.yaml"
  "$OUT/guard-base" serve --config "$OUT/guard-base.yaml" >"$OUT/guard-base.log" 2>&1 &
  pids+=($!)
  procs[guard-base]=$!
  guards+=(guard-base)
fi
if [ "$PACED" != 0 ]; then
  # guarded: the full pipeline over the embedded demo corpus
  cat >"$OUT/guarded.yaml" <<YAML
server: {addr: "127.0.0.1:$GUARDED_PORT"}
upstream: {base_url: "http://127.0.0.1:$UP_PORT/v1"}
log: {level: warn}
YAML
  "$OUT/guard" serve --config "$OUT/guarded.yaml" >"$OUT/guarded.log" 2>&1 &
  pids+=($!)
  procs[guarded]=$!
fi
for p in $UP_PORT $NGINX_PORT $CADDY_PORT $FAST_PORT $EV_PORT; do wait_ready "http://127.0.0.1:$p/v1/models"; done
wait_ready "http://127.0.0.1:$GUARD_PORT/readyz"
[ -x "$OUT/guard-base" ] && wait_ready "http://127.0.0.1:$BASE_PORT/readyz"
[ "$PACED" != 0 ] && wait_ready "http://127.0.0.1:$GUARDED_PORT/readyz"
procs[nginx]=$(pgrep -d ' ' -f "nginx: worker process" -P "$(cat "$OUT/nginx/nginx.pid")")

NONSTREAM='{"model":"mock-1","messages":[{"role":"user","content":"What is the return window?"}]}'
STREAM='{"model":"mock-1","stream":true,"messages":[{"role":"user","content":"What is the return window?"}]}'

# Check each target answers both kinds before measuring.
declare -A port=([direct]=$UP_PORT [nginx]=$NGINX_PORT [caddy]=$CADDY_PORT [fastproxy]=$FAST_PORT [evproxy]=$EV_PORT [guard]=$GUARD_PORT [guard-base]=$BASE_PORT [guarded]=$GUARDED_PORT)
targets=(direct nginx caddy fastproxy evproxy "${guards[@]}")
[ -n "${TARGETS:-}" ] && read -r -a targets <<<"$TARGETS"
all_targets=(direct nginx caddy fastproxy evproxy guard guard-base guarded) # a table's columns, measured or not
has_target() { local t; for t in "${targets[@]}"; do [ "$t" = "$1" ] && return 0; done; return 1; }
if [ "${REVERSE:-0}" = 1 ]; then # the other order, to alternate runs in one window
  rev=()
  for ((i = ${#targets[@]} - 1; i >= 0; i--)); do rev+=("${targets[i]}"); done
  targets=("${rev[@]}")
fi
for name in "${targets[@]}"; do
  p=${port[$name]}
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

rss_kb() { # pids -> their resident memory (VmRSS), KiB
  local t=0 p
  for p in $1; do t=$((t + $(awk '/^VmRSS:/ {print $2}' "/proc/$p/status"))); done
  echo "$t"
}

run_wrk() { # port body kind pids -> "req/s cpu-us-per-request"
  local t0 t1
  t0=$(cpu_ticks "$4")
  ANCHOR_BODY="$2" timeout 120 wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" -s bench/anchor/post.lua \
    "http://127.0.0.1:$1/v1/chat/completions" >"$OUT/wrk-$1-$3.txt" 2>&1
  t1=$(cpu_ticks "$4")
  if grep -q "Non-2xx" "$OUT/wrk-$1-$3.txt"; then echo "errors -"; return; fi
  awk -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '/^Requests\/sec/ {rps = $2} / requests in / {n = $1}
    END {printf "%.0f %.1f", rps, (n > 0 ? ticks * 1e6 / hz / n : 0)}' "$OUT/wrk-$1-$3.txt"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a ~ /^[0-9]+$/) printf "%.2f", a / b; else print "-" }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a ~ /^[0-9.]+$/) printf "%.2f", a / b; else print "-" }'; }
: >"$OUT/anchor.md"

# Idle streams first, on processes that served only a few turns.
if [ "$PACED" != 0 ]; then
  PACED_BODY='{"model":"mock-1","stream":true,"user":"paced","messages":[{"role":"user","content":"What is the return window?"}]}'
  IDLE_BODY='{"model":"mock-1","stream":true,"user":"idle","messages":[{"role":"user","content":"What is the return window?"}]}'
  to_ms() { # a wrk duration (850.00us, 1.17s, 1.02m) -> milliseconds
    awk -v d="$1" 'BEGIN { v = d + 0; if (d ~ /us$/) v /= 1000; else if (d ~ /ms$/) v = v; else if (d ~ /m$/) v *= 60000; else if (d ~ /s$/) v *= 1000; printf "%.0f", v }'
  }
  # held NAME OPEN: OPEN idle streams through NAME; prints bytes per open
  # stream (resident memory with them open minus before, over OPEN).
  held() {
    local name=$1 open=$2 r0 r1 secs=$(( $2 / 250 + 6 ))
    r0=$(rss_kb "${procs[$name]}")
    ANCHOR_BODY="$IDLE_BODY" timeout $((secs + 30)) wrk -t"$THREADS" -c"$open" -d"${secs}s" --timeout 60s -s bench/anchor/post.lua \
      "http://127.0.0.1:${port[$name]}/v1/chat/completions" >"$OUT/idle-$name.txt" 2>&1 &
    local w=$!
    sleep $((secs - 2))
    r1=$(rss_kb "${procs[$name]}")
    echo "$name open=$(ss -Htn state established "( sport = :${port[$name]} )" | wc -l) rss0=${r0}KiB rss1=${r1}KiB" >>"$OUT/idle.log"
    wait $w || true
    awk -v a="$r0" -v b="$r1" -v n="$open" 'BEGIN { printf "%.0f", (b - a) * 1024 / n }'
  }
  # A few turns first (lazy set-up, the pipeline's first turns), no more:
  # a Go heap grown by a load run would hold the idle streams in its slack.
  for name in nginx caddy fastproxy evproxy "${guards[@]}" guarded; do
    for _ in 1 2 3 4 5; do curl -sfN -H 'Content-Type: application/json' -d "$STREAM" "http://127.0.0.1:${port[$name]}/v1/chat/completions" >/dev/null || true; done
  done
  declare -A idle
  for name in "${all_targets[@]}"; do idle[$name]=; done
  for name in "${targets[@]}"; do
    [ "$name" = direct ] && continue
    echo "== idle streams: $IDLE_OPEN through $name" >&2
    idle[$name]=$(held "$name" "$IDLE_OPEN")
  done
  if has_target guard; then
    echo "== idle streams: $GUARDED_OPEN through the guarded guard" >&2
    idle[guarded]=$(held guarded "$GUARDED_OPEN")
  fi
  sleep 2
fi

if [ "$BURST" != 0 ]; then
  declare -A res cpu
  for name in "${all_targets[@]}"; do res[nonstream.$name]= res[stream.$name]= cpu[nonstream.$name]= cpu[stream.$name]=; done
  for kind in nonstream stream; do
    body=$NONSTREAM
    [ $kind = stream ] && body=$STREAM
    for name in "${targets[@]}"; do
      echo "== wrk $kind $name" >&2
      read -r res[$kind.$name] cpu[$kind.$name] <<<"$(run_wrk "${port[$name]}" "$body" "$kind" "${procs[$name]}")"
    done
  done
  {
    echo "wrk -t$THREADS -c$CONNS -d$DURATION, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
    echo
    hdr="| | direct | nginx | Caddy | fastproxy (floor) | evproxy (event loop) | guard |"
    sep="|---|---|---|---|---|---|---|"
    [ -x "$OUT/guard-base" ] && { hdr+=" guard-base | guard-base / nginx |"; sep+="---|---|"; }
    echo "$hdr guard / nginx | fastproxy / nginx | evproxy / nginx |"
    echo "$sep---|---|---|"
    for kind in nonstream stream; do
      label="non-stream req/s"
      [ $kind = stream ] && label="50-event SSE streams/s"
      row="| $label | ${res[$kind.direct]} | ${res[$kind.nginx]} | ${res[$kind.caddy]} | ${res[$kind.fastproxy]} | ${res[$kind.evproxy]} | ${res[$kind.guard]} |"
      [ -x "$OUT/guard-base" ] && row+=" ${res[$kind.guard-base]} | $(ratio "${res[$kind.guard-base]}" "${res[$kind.nginx]}") |"
      echo "$row $(ratio "${res[$kind.guard]}" "${res[$kind.nginx]}") | $(ratio "${res[$kind.fastproxy]}" "${res[$kind.nginx]}") | $(ratio "${res[$kind.evproxy]}" "${res[$kind.nginx]}") |"
    done
    for kind in nonstream stream; do
      label="CPU per request (us), non-stream"
      [ $kind = stream ] && label="CPU per stream (us), SSE"
      row="| $label | ${cpu[$kind.direct]} | ${cpu[$kind.nginx]} | ${cpu[$kind.caddy]} | ${cpu[$kind.fastproxy]} | ${cpu[$kind.evproxy]} | ${cpu[$kind.guard]} |"
      [ -x "$OUT/guard-base" ] && row+=" ${cpu[$kind.guard-base]} | $(ratio2 "${cpu[$kind.guard-base]}" "${cpu[$kind.nginx]}") |"
      echo "$row $(ratio2 "${cpu[$kind.guard]}" "${cpu[$kind.nginx]}") | $(ratio2 "${cpu[$kind.fastproxy]}" "${cpu[$kind.nginx]}") | $(ratio2 "${cpu[$kind.evproxy]}" "${cpu[$kind.nginx]}") |"
    done
  } | tee -a "$OUT/anchor.md"
fi

if [ "$PACED" != 0 ]; then
  sleep 2
  # paced NAME OPEN -> "streams/s p50ms p99ms cpu-us-per-stream rss-MiB-mid-run errors"
  paced() {
    local name=$1 open=$2 t0 t1 r1 f="$OUT/paced-$1-$2.txt" secs=${PACED_DURATION%s}
    t0=$(cpu_ticks "${procs[$name]}")
    ANCHOR_BODY="$PACED_BODY" timeout $((secs + 60)) wrk -t"$THREADS" -c"$open" -d"$PACED_DURATION" --latency --timeout 30s \
      -s bench/anchor/post.lua "http://127.0.0.1:${port[$name]}/v1/chat/completions" >"$f" 2>&1 &
    local w=$!
    sleep $((secs / 2))
    r1=$(rss_kb "${procs[$name]}")
    wait $w || true
    t1=$(cpu_ticks "${procs[$name]}")
    local p50 p99
    p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$f")")
    p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$f")")
    awk -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v p50="$p50" -v p99="$p99" -v b="$r1" '
      /^Requests\/sec/ {rps = $2} / requests in / {n = $1}
      /Socket errors/ {gsub(",", ""); e += $4 + $6 + $8 + $10} /Non-2xx/ {e += $NF}
      END {printf "%.0f %s %s %.0f %.0f %d", rps, p50, p99, (n > 0 ? ticks * 1e6 / hz / n : 0), b / 1024, e}' "$f"
  }
  for open in $OPEN; do
    declare -A ps=() p50=() p99=() pc=() pm=() pe=()
    for name in "${all_targets[@]}"; do ps[$name]= p50[$name]= p99[$name]= pc[$name]= pm[$name]= pe[$name]=; done
    for name in "${targets[@]}"; do
      echo "== paced: $open open streams through $name" >&2
      read -r ps[$name] p50[$name] p99[$name] pc[$name] pm[$name] pe[$name] <<<"$(paced "$name" "$open")"
      sleep 5 # the upstream closes the idle connections this target pooled (its -idle-timeout 3s)
    done
    {
      echo
      echo "paced: wrk -t$THREADS -c$open -d$PACED_DURATION, streams of 20 events $PACE apart (ideal: 1 s each, $open streams/s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
      echo
      hdr="| $open open | direct | nginx | Caddy | fastproxy (floor) | evproxy (event loop) | guard |"
      sep="|---|---|---|---|---|---|---|"
      [ -x "$OUT/guard-base" ] && { hdr+=" guard-base |"; sep+="---|"; }
      echo "$hdr guard / nginx | fastproxy / nginx | evproxy / nginx |"
      echo "$sep---|---|---|"
      for row in "streams/s:ps:r" "p50 (ms):p50:d" "p99 (ms):p99:d" "CPU per stream (us):pc:r" "RSS mid-run (MiB):pm:r" "errors:pe:-"; do
        label=${row%%:*} rest=${row#*:} arr=${rest%%:*} how=${rest#*:}
        declare -n v=$arr
        line="| $label | ${v[direct]} | ${v[nginx]} | ${v[caddy]} | ${v[fastproxy]} | ${v[evproxy]} | ${v[guard]} |"
        [ -x "$OUT/guard-base" ] && line+=" ${v[guard-base]} |"
        for who in guard fastproxy evproxy; do
          case $how in
          r) line+=" $(ratio2 "${v[$who]}" "${v[nginx]}") |" ;;
          d) line+=" $(awk -v a="${v[$who]}" -v b="${v[nginx]}" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%+d ms", a - b }') |" ;;
          *) line+=" |" ;;
          esac
        done
        unset -n v
        echo "$line"
      done
    } | tee -a "$OUT/anchor.md"
  done
  {
    echo
    echo "memory per idle open stream (RSS with the streams open minus before, over the streams; upstream sent one event and waits): nginx ${idle[nginx]} B, Caddy ${idle[caddy]} B, fastproxy ${idle[fastproxy]} B, evproxy ${idle[evproxy]} B, guard ${idle[guard]} B$([ -x "$OUT/guard-base" ] && echo ", guard-base ${idle[guard-base]} B") ($IDLE_OPEN open); guarded (pipeline on, demo corpus) ${idle[guarded]} B ($GUARDED_OPEN open)"
  } | tee -a "$OUT/anchor.md"
fi

if [ "$GUARD_LOAD" != 0 ]; then
  # Each binary runs its own guard mode; REVERSE=1 swaps their order too
  # (in one run the second has so far met the lighter load).
  gm=(guard)
  [ -x "$OUT/guard-base" ] && gm+=(guard-base)
  [ "${REVERSE:-0}" = 1 ] && [ ${#gm[@]} = 2 ] && gm=(guard-base guard)
  for b in "${gm[@]}"; do
    sfx="" label="guard mode (full pipeline, demo corpus, pace 0, concurrency 32, generator in process):"
    [ "$b" = guard-base ] && sfx=-base label="guard mode, guard-base binary (its own generator):"
    echo "== $b bench load --self --stream --pipeline --concurrency 32" >&2
    timeout 300 "$OUT/$b" bench load --self --stream --pipeline --concurrency 32 --duration "$DURATION" --out "$OUT/guardmode$sfx" >"$OUT/guardmode$sfx.txt" 2>"$OUT/guardmode$sfx.err" || true
    { echo; echo "$label"; echo; cat "$OUT/guardmode$sfx.txt"; } | tee -a "$OUT/anchor.md"
  done
  if [ "$PACED" != 0 ]; then
    echo "== guard bench load --self --stream --pipeline --pace $PACE --concurrency $GUARDED_OPEN" >&2
    timeout 300 "$OUT/guard" bench load --self --stream --pipeline --pace "$PACE" --concurrency "$GUARDED_OPEN" --warmup "$GUARDED_OPEN" \
      --duration "$PACED_DURATION" --out "$OUT/guardpaced" >"$OUT/guardpaced.txt" 2>"$OUT/guardpaced.err" || true
    { echo; echo "guarded paced streams (full pipeline, demo corpus, pace $PACE, $GUARDED_OPEN open, generator in process):"; echo; cat "$OUT/guardpaced.txt"; } | tee -a "$OUT/anchor.md"
  fi
fi
