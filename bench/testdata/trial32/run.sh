#!/usr/bin/env bash
# Operator trial 32: build the two corpora (a veterinary practice's client handbook as one
# plain-text file as pdftotext, without -layout, writes it from a 6-page A4 leaflet: lines
# hard-wrapped mid-sentence, a few words hyphenated across line ends, a form feed between pages,
# a running header line and a "Page 3 of 6" footer on each page, headings on their own lines,
# price tables flattened into alternating item and price lines; a driving school's website as a
# Hugo content folder: 8 Markdown files with YAML front matter, one `draft: true`, two with no
# title and no heading, Hugo shortcodes on two), serve them with the simulated upstream (auth on,
# one key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial32/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial32); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial32
port=${PORT:-18112}
corpora=("vet/handbook.txt riverside vets" "driving roadready driving")
questions=(vet-questions.jsonl driving-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
