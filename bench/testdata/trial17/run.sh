#!/usr/bin/env bash
# Operator trial 17: build the two corpora (a wedding and events venue's page saved from its
# website as one long HTML file with nav, footer, a cookie bar, <h2> sections, a <table> of prices
# and a <dl> FAQ; a furniture shop's delivery, assembly and returns policy as untitled JSONL rows),
# serve them with the simulated upstream (auth on, one key per tenant and an admin key), ask every
# question over HTTP once non-stream and once streamed (a row with `history` as a chat of its
# earlier user messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial17/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial17); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial17
port=${PORT:-18097}
corpora=("venue/ titheoak events" "furniture/policy.jsonl northgate delivery")
questions=(venue-questions.jsonl furniture-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
