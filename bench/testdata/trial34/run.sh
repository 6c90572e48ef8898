#!/usr/bin/env bash
# Operator trial 34: build the two corpora (a gas boiler and heating engineer's "Service terms and
# prices" as one Word document made with pandoc: a title, headings, numbered terms, a price table,
# bullet lists, bold labels, two footnotes; a water company's help pages saved as a folder of HTML
# files as a site mirror tool saves them: the same header, menu, cookie banner and footer on every
# page, the content in <main> or on two pages in <div class="content">, breadcrumbs, a "Related
# pages" list), serve them with the simulated upstream (auth on, one key per tenant and an admin
# key), ask every question over HTTP once non-stream and once streamed (a row with `history` as a
# chat of its earlier user messages, each answered "OK.", then its `text`), and score at the
# defaults.
#
#   bench/testdata/trial34/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial34); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial34
port=${PORT:-18114}
corpora=("heating/terms.docx warmhome heating" "water clearwater water")
questions=(heating-questions.jsonl water-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
