#!/usr/bin/env bash
# Operator trial 43: build the two corpora (a garden maintenance firm's customer newsletters as
# saved HTML emails, Mailchimp-style: nested layout tables with inline styles, a hidden
# preheader, a logo row, "View this email in your browser", articles with a heading, text and a
# button link, and a footer with the company address and "Unsubscribe | Update preferences" in
# every email; an advice charity's FAQ as one plain-text file saved by Windows Notepad as
# "Unicode": UTF-16 LE with a byte-order mark, CRLF line ends, section headings in capitals,
# questions on lines of their own), serve them with the simulated upstream (auth on, one key per
# tenant and an admin key), ask every question over HTTP once non-stream and once streamed (a row
# with `history` as a chat of its earlier user messages, each answered "OK.", then its `text`),
# and score at the defaults.
#
#   bench/testdata/trial43/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial43); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial43
port=${PORT:-18123}
corpora=("garden greenthumb garden" "advice/faq.txt openadvice advice")
questions=(garden-questions.jsonl advice-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
