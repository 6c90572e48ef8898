#!/usr/bin/env bash
# Operator trial 23: build the two corpora (a bicycle repair and e-bike shop's folder of three
# plain-text files written by the owner, two of them with no heading line at the top, a price list
# typed as "Service ...... £price" lines; a tutoring agency's FAQ as one CSV exported from a help
# desk, columns category,question,answer,last_updated), serve them with the simulated upstream
# (auth on, one key per tenant and an admin key), ask every question over HTTP once non-stream and
# once streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial23/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial23); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial23
port=${PORT:-18103}
corpora=("bikes spokes bikes" "tutors/faq.csv brightminds tutors")
questions=(bikes-questions.jsonl tutors-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
