#!/usr/bin/env bash
# Operator trial 12: build the two corpora (a pharmacy's help site as HTML pages, a council's
# residents' parking permit FAQ as a CSV sheet), serve them with the simulated upstream (auth on,
# one key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial12/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial12); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial12
port=${PORT:-18092}
corpora=("pharmacy/ hollybank help" "parking/permits-faq.csv ketterby permits")
questions=(pharmacy-questions.jsonl parking-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
