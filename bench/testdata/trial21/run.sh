#!/usr/bin/env bash
# Operator trial 21: build the two corpora (a coworking space's member handbook as three
# Markdown files with YAML front matter, `##` sections and bold FAQ question lines; a farm
# shop's veg box scheme FAQ as one plain-text file of Q:/A: pairs), serve them with the
# simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial21/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial21); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial21
port=${PORT:-18101}
corpora=("cowork hive cowork" "vegbox/faq.txt greenacre vegbox")
questions=(cowork-questions.jsonl vegbox-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
