#!/usr/bin/env bash
# Operator trial 13: build the two corpora (a salon booking app's help docs as Markdown pages, an
# MOT and service garage's customer information as one untitled plain-text file), serve them with
# the simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial13/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial13); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial13
port=${PORT:-18093}
corpora=("salonapp/ chairtime help" "garage/customer-info.txt fenwick garage")
questions=(salonapp-questions.jsonl garage-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
