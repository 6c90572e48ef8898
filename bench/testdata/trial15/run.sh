#!/usr/bin/env bash
# Operator trial 15: build the two corpora (an independent opticians' website, two HTML pages
# saved from a browser, one of them Windows-1252; an escape-room venue's owner's notes, one
# untitled plain-text file), serve them with the simulated upstream (auth on, one key per tenant
# and an admin key), ask every question over HTTP once non-stream and once streamed (a row with
# `history` as a chat of its earlier user messages, each answered "OK.", then its `text`), and
# score at the defaults.
#
#   bench/testdata/trial15/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial15); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial15
port=${PORT:-18095}
corpora=("opticians/ brightwell optics" "escape/info-for-customers.txt cipherkey escape")
questions=(opticians-questions.jsonl escape-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
