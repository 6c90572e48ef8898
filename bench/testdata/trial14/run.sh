#!/usr/bin/env bash
# Operator trial 14: build the two corpora (a gym and leisure centre's membership terms and
# house rules as Markdown pages, a children's soft-play centre's FAQ export as JSONL rows, half of
# them without a title), serve them with the simulated upstream (auth on, one key per tenant and
# an admin key), ask every question over HTTP once non-stream and once streamed (a row with
# `history` as a chat of its earlier user messages, each answered "OK.", then its `text`), and
# score at the defaults.
#
#   bench/testdata/trial14/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial14); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial14
port=${PORT:-18094}
corpora=("gym/ larkfield leisure" "softplay/faq.jsonl wigglewoods play")
questions=(gym-questions.jsonl softplay-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
