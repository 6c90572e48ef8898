#!/usr/bin/env bash
# Operator trial 19: build the two corpora (a physiotherapy and sports-massage clinic's patient
# information as two Markdown pages, a hand car wash's price list and terms as one CSV with the
# columns service,price,notes), serve them with the simulated upstream (auth on, one key per
# tenant and an admin key), ask every question over HTTP once non-stream and once streamed (a row
# with `history` as a chat of its earlier user messages, each answered "OK.", then its `text`),
# and score at the defaults.
#
#   bench/testdata/trial19/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial19); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial19
port=${PORT:-18099}
corpora=("physio/ kingsmead physio" "carwash/prices.csv sparkle carwash")
questions=(physio-questions.jsonl carwash-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
