#!/usr/bin/env bash
# Operator trial 35: build the two corpora (a window cleaning round's price list and FAQ as one
# Excel workbook made with openpyxl: a "Prices" sheet, House type / Frequency / Price / Notes,
# prices as numbers in a "£"#,##0.00 format, blank rows between groups, empty Price cells where a
# job is priced on viewing; an "Extras" sheet, Job / Price / Notes; an "FAQ" sheet, Question /
# Answer; a holiday cottage's house book as one plain-text phone note as Apple Notes exports it:
# a title line, sections opened by an emoji and a line in capitals or ending in ":", "•" bullets,
# label-and-value lines, no blank line between some sections, very long lines), serve them with
# the simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial35/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial35); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial35
port=${PORT:-18115}
corpora=("windows/prices.xlsx sparkle windows" "cottage/house-book.txt rosecottage cottage")
questions=(windows-questions.jsonl cottage-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
