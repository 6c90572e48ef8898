#!/usr/bin/env bash
# Operator trial 33: build the two corpora (a skip hire and waste firm's FAQ as one YAML data
# file as a static site keeps it, _data/faq.yml: a top-level list of sections, each with
# `section:` and `items:`, each item `q:` and `a:`, some answers YAML block scalars `|` over
# several lines, one with a short "- " list inside the text; a pizza takeaway's help page saved
# from its Squarespace site: header navigation, a cookie banner, an accordion FAQ with each
# question a <button aria-expanded="false"> inside an <h3> or a <div role="button">, each answer
# in a following <div class="accordion-content" hidden>, inline <style> and <script>, a footer
# with address, phone, opening hours and social links), serve them with the simulated upstream
# (auth on, one key per tenant and an admin key), ask every question over HTTP once non-stream
# and once streamed (a row with `history` as a chat of its earlier user messages, each answered
# "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial33/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial33); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh. Known before the
# run (README.md): the guard at 531d3dc does not read .yml, so the first build stops.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial33
port=${PORT:-18113}
corpora=("skips/faq.yml skipit waste" "pizza/help.html slice pizza")
questions=(skips-questions.jsonl pizza-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
