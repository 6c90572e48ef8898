#!/usr/bin/env bash
# Operator trial 28: build the two corpora (a letting agent's tenant handbook as ONE HTML file
# as Google Docs exports it, "Download > Web page": a <style> of generated classes .c1, .c4, ...,
# the body a flat run of <p class="c3"><span class="c1"> paragraphs, <h1>/<h2> headings with
# id="h.xxxx", lists as <ul class="lst-kix_...-0 start"><li class="c2 li-bullet-0">, one <table>
# of fees, all on one line; a golf club's membership and visitor FAQ as ONE plain-text file of
# numbered questions "Q1. ..." with "A. ..." answers and small indented price lists with dot
# leaders), serve them with the simulated upstream (auth on, one key per tenant and an admin
# key), ask every question over HTTP once non-stream and once streamed (a row with `history` as a
# chat of its earlier user messages, each answered "OK.", then its `text`), and score at the
# defaults.
#
#   bench/testdata/trial28/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial28); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial28
port=${PORT:-18108}
corpora=("letting/handbook.html keyhouse lettings" "golf/faq.txt moorside golf")
questions=(letting-questions.jsonl golf-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
