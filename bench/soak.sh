#!/usr/bin/env bash
# Usage: go build -o guard ./cmd/guard && bash bench/soak.sh   (DURATION, RATE, OUT override)
# 10-minute soak: guard serve (full pipeline, demo corpus) against an external mockllm,
# steady open-loop load of streamed answers; samples the server's goroutines and RSS.
set -u
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10m}
RATE=${RATE:-100}
OUT=${OUT:-bench-out/soak}
mkdir -p "$OUT"
./guard mockllm --addr 127.0.0.1:19090 --pace 5ms > $OUT/mock.log 2>&1 &
MOCK=$!
./guard serve --addr 127.0.0.1:18090 --upstream http://127.0.0.1:19090/v1 > $OUT/serve.log 2>&1 &
SERVE=$!
for i in $(seq 1 100); do curl -sf http://127.0.0.1:18090/readyz >/dev/null && break; sleep 0.2; done
( while kill -0 $SERVE 2>/dev/null; do
    m=$(curl -s http://127.0.0.1:18090/metrics)
    g=$(echo "$m" | awk '/^go_goroutines /{print $2}')
    r=$(echo "$m" | awk '/^process_resident_memory_bytes /{printf "%.1f", $2/1048576}')
    echo "$(date +%T) goroutines=$g rss_mib=$r"
    sleep 30
  done ) > $OUT/samples.txt &
./guard bench load --target http://127.0.0.1:18090/v1 --stream --rate "$RATE" --concurrency 200 --duration "$DURATION" --prompts bench/testdata/demo_prompts.txt --out "$OUT"/report > $OUT/load.out 2> $OUT/load.err
sleep 5
kill $SERVE $MOCK
echo done >> $OUT/samples.txt
