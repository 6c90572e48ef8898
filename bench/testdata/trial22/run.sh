#!/usr/bin/env bash
# Operator trial 22: build the two corpora (a home and window cleaning company's help page as one
# HTML page exported by a site builder: header nav, a cookie banner, FAQ entries as
# <details>/<summary> under <h2> groups, a <dl> price list and a footer; a language school's
# course timetable as a tab-separated spreadsheet export with policy rows at the bottom), serve
# them with the simulated upstream (auth on, one key per tenant and an admin key), ask every
# question over HTTP once non-stream and once streamed (a row with `history` as a chat of its
# earlier user messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial22/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial22); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial22
port=${PORT:-18102}
corpora=("cleaning/help.html sparkle2 cleaning" "lang/courses.tsv lingua lang")
questions=(cleaning-questions.jsonl lang-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
