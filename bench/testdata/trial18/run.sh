#!/usr/bin/env bash
# Operator trial 18: build the two corpora (a house removals company's terms of business and
# price guide as one Markdown file of numbered clauses with two pipe tables, a children's holiday
# camp's parent information pack as one untitled plain-text email with no headings), serve them
# with the simulated upstream (auth on, one key per tenant and an admin key), ask every question
# over HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial18/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial18); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial18
port=${PORT:-18098}
corpora=("removals/ copperfield moves" "camp/parent-info-pack.txt kestrel camp")
questions=(removals-questions.jsonl camp-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
