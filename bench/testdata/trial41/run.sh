#!/usr/bin/env bash
# Operator trial 41: build the two corpora (a council's bulky waste collection pages as a Notion
# "Export as HTML" folder: five full pages with an inline <style>, <article class="page sans">, a
# header with the page title and a property table (Owner, Last edited, Tags), <details> toggles,
# callout figures, bulleted lists with each item its own <ul>, file names ending in a 32-hex-digit
# id; a pottery painting cafe's price list as one spreadsheet CSV, header Category,Item,Price,Notes,
# the Category cell filled only on each group's first row as merged cells export), serve them with
# the simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial41/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial41); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial41
port=${PORT:-18121}
corpora=("bulky northvale bulky" "pottery/prices.csv paintpot pottery")
questions=(bulky-questions.jsonl pottery-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
