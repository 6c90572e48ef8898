#!/usr/bin/env bash
# Operator trial 11: build the two corpora, serve them with the simulated upstream (auth on, one
# key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed, and score at the defaults.
#
#   bench/testdata/trial11/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial11); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial11
port=${PORT:-18091}
corpora=("ski/ snowline terms" "laundrette/notes.jsonl suds notes")
questions=(ski-questions.jsonl laundrette-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
