#!/usr/bin/env bash
# Operator trial 25: build the two corpora (a print and copy shop's price guide as one plain-text
# file saved from a Word document: CRLF lines, headings in capitals or Title Case on their own
# lines, "•" bullets, tab-separated price lines, lines wrapped mid-sentence, a "Terms" part; a car
# and van hire firm's rental terms as one old-style HTML page: a table layout with a left menu
# cell, `<font>`, `<center>`, `&nbsp;`, `<h2>` sections and a price `<table>`), serve them with
# the simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial25/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial25); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial25
port=${PORT:-18105}
corpora=("print/price-guide.txt inkwell print" "hire/terms.html roadrunner hire")
questions=(print-questions.jsonl hire-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
