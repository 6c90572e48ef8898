#!/usr/bin/env bash
# Operator trial 31: build the two corpora (a funeral director's guide to arranging a funeral as
# one plain-text file with setext-style headings, a title underlined with "=====" and sections
# underlined with "-----", short paragraphs, a few indented price lines with dot leaders and one
# "- " list; a bowling alley and arcade's FAQ as one CSV exported from Excel on a European setup:
# semicolon-separated, Windows-1252 (not UTF-8), CRLF, header Topic;Question;Answer, 26 rows),
# serve them with the simulated upstream (auth on, one key per tenant and an admin key), ask every
# question over HTTP once non-stream and once streamed (a row with `history` as a chat of its
# earlier user messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial31/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial31); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial31
port=${PORT:-18111}
corpora=("funeral/guide.txt dignity funeral" "bowl/faq.csv strikezone bowl")
questions=(funeral-questions.jsonl bowl-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
