#!/usr/bin/env bash
# Operator trial 20: build the two corpora (a bed-and-breakfast's guest information as one HTML
# page with <h2> sections and a price <table>, a phone and laptop repair shop's support FAQ as
# JSON Lines, some rows `question` and `answer`, some `text` only), serve them with the
# simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial20/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial20); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial20
port=${PORT:-18100}
corpora=("guesthouse/info.html harbourview guesthouse" "repair/faq.jsonl fixit repair")
questions=(guesthouse-questions.jsonl repair-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
