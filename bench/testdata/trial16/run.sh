#!/usr/bin/env bash
# Operator trial 16: build the two corpora (a members' tennis club's handbook as three Markdown
# pages with numbered rules, bullet lists and a pipe table of fees; a tattoo and piercing studio's
# FAQ as one question,answer CSV, a third of its rows with no question), serve them with the
# simulated upstream (auth on, one key per tenant and an admin key), ask every question over HTTP
# once non-stream and once streamed (a row with `history` as a chat of its earlier user messages,
# each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial16/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial16); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial16
port=${PORT:-18096}
corpora=("tennis/ ashcombe club" "studio/faq.csv nettle studio")
questions=(tennis-questions.jsonl studio-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
