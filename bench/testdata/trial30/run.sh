#!/usr/bin/env bash
# Operator trial 30: build the two corpora (a locksmith's FAQ page as one HTML page saved from a
# WordPress site: theme header with a <nav> menu, a hero banner, the FAQ in an accordion plugin's
# sp-accordion-item blocks (an h3 question, a hidden div answer) under h2 section headings, a
# sidebar with "Recent posts" and an "Areas we cover" list of towns, a footer with the shop's
# address, phone and hours, a cookie notice, inline scripts and styles; a children's day
# nursery's parent handbook as one Markdown file as pandoc writes it from a Word document:
# headings with attributes "## Fees {#fees}", a grid table of session prices, footnote
# references [^1] with their footnotes at the end, smart quotes, bold labels, backslash line
# breaks), serve them with the simulated upstream (auth on, one key per tenant and an admin key),
# ask every question over HTTP once non-stream and once streamed (a row with `history` as a chat
# of its earlier user messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial30/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial30); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial30
port=${PORT:-18110}
corpora=("locks/faq.html keysafe locks" "nursery/handbook.md littleoaks nursery")
questions=(locks-questions.jsonl nursery-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
