#!/usr/bin/env bash
# Operator trial 27: build the two corpora (an allotment society's rules and tenancy terms as one
# plain-text file of numbered rules as a volunteer committee types them: a title, parts in
# capitals "PART 3 - CULTIVATION", rules numbered 1., 1.1, 1.2 with (a), (b) sub-items, long rules
# wrapped over several lines, no Markdown; a phone and tablet repair shop's folder: a price list
# CSV exported from a spreadsheet, header Device,Repair,Price,Time,Notes, quoted Notes with commas
# and line breaks, "from £" and "POA" prices, beside a short untitled plain-text file of shop
# policies), serve them with the simulated upstream (auth on, one key per tenant and an admin
# key), ask every question over HTTP once non-stream and once streamed (a row with `history` as a
# chat of its earlier user messages, each answered "OK.", then its `text`), and score at the
# defaults.
#
#   bench/testdata/trial27/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial27); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial27
port=${PORT:-18107}
corpora=("allotments/rules.txt greenacre allotments" "phonefix phonefix repairs")
questions=(allotments-questions.jsonl phonefix-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
