#!/usr/bin/env bash
# Operator trial 26: build the two corpora (a barn wedding venue's FAQ as one Markdown file: a `#`
# title, `##` groups, each question in bold on its own line followed by its answer, nested `- `
# bullet lists, a pipe table of seasonal hire prices, emphasis and links; a removals and storage
# firm's help centre as one JSON export: a JSON array of article objects with an HTML `body`),
# serve them with the simulated upstream (auth on, one key per tenant and an admin key), ask
# every question over HTTP once non-stream and once streamed (a row with `history` as a chat of
# its earlier user messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial26/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial26); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial26
port=${PORT:-18106}
corpora=("venue/faq.md oakbarn venue" "removals/help-export.json swiftmove removals")
questions=(venue-questions.jsonl removals-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
