#!/usr/bin/env bash
# Operator trial 24: build the two corpora (a small theatre's box office and visiting pages as a
# static site generator keeps them: Markdown with YAML front matter, `##` sections, a pipe table
# of ticket prices; an electricity and gas supplier's help-centre export as JSON lines with the
# article in `body`, and `id`, `title`, `section` and `url`), serve them with the simulated
# upstream (auth on, one key per tenant and an admin key), ask every question over HTTP once
# non-stream and once streamed (a row with `history` as a chat of its earlier user messages, each
# answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial24/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial24); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial24
port=${PORT:-18104}
corpora=("theatre/ lyric theatre" "energy/articles.jsonl brightwatt energy")
questions=(theatre-questions.jsonl energy-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
