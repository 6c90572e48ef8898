#!/usr/bin/env bash
# Operator trial 37: build the two corpora (a charity shop chain's old chatbot export: ONE JSON
# file as a chatbot builder exports its intents for migration, {"agent", "language", "intents":
# [{"name", "trainingPhrases", "responses", "followUps"?}]}, 22 intents, some with two alternative
# responses, one with a rich "card" response; a hotel's guest information for an in-room tablet:
# ONE long Markdown file with YAML front matter, ## and ### sections, tables, emoji, bold labels,
# links and HTML <details> blocks), serve them with the simulated upstream (auth on, one key per
# tenant and an admin key), ask every question over HTTP once non-stream and once streamed (a row
# with `history` as a chat of its earlier user messages, each answered "OK.", then its `text`),
# and score at the defaults.
#
#   bench/testdata/trial37/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial37); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial37
port=${PORT:-18117}
corpora=("bot/intents.json givingtree shops" "hotel/guide.md harbourview hotel")
questions=(bot-questions.jsonl hotel-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
