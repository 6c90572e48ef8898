#!/usr/bin/env bash
# Operator trial 39: build the two corpora (a community library of things' borrowing rules as one
# LibreOffice document, things/rules.odt, made with pandoc from Markdown: headings, numbered rules,
# a table of item categories, loan fees and deposits, bullet lists and one footnote; an
# electrician's FAQ as a Google Docs "Plain text (.txt)" export, sparks/faq.txt: a byte-order
# mark, CRLF line ends, the title and headings as ordinary lines, "* " bullets and "   + "
# sub-bullets, "1. " numbered lists, a price table as tab-separated lines, no blank line between
# some paragraphs), serve them with the simulated upstream (auth on, one key per tenant and an
# admin key), ask every question over HTTP once non-stream and once streamed (a row with `history`
# as a chat of its earlier user messages, each answered "OK.", then its `text`), and score at the
# defaults.
#
#   bench/testdata/trial39/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial39); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial39
port=${PORT:-18119}
corpora=("things/rules.odt sharehub things" "sparks/faq.txt brightsparks electric")
questions=(things-questions.jsonl sparks-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
