#!/usr/bin/env bash
# Operator trial 40: build the two corpora (an online appointment-booking tool's help docs as a
# Docusaurus folder of .mdx files: front matter, `import Tabs` lines, <Tabs>/<TabItem> blocks,
# :::tip / :::caution admonitions, code fences, a Markdown table; a wedding photographer's terms
# and packages as `pdftotext -layout` output of a two-page designed PDF: lines padded with spaces,
# a two-column packages table laid out with spaces, a letterhead on each page, right-aligned page
# numbers, a form feed between the pages), serve them with the simulated upstream (auth on, one
# key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial40/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial40); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial40
port=${PORT:-18120}
corpora=("docs bookwise help" "photo/terms.txt lumen photo")
questions=(bookwise-questions.jsonl lumen-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
