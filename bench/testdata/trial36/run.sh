#!/usr/bin/env bash
# Operator trial 36: build the two corpora (a small cloud invoicing app's user docs as a Sphinx
# reStructuredText source folder, eight .rst files: an index.rst with a toctree, pages with
# =====/-----/~~~~~ underlined titles and sections, note and warning directives, :ref: and :doc:
# roles, ``literal`` text, bullet and numbered lists, one list-table of plan prices, no conf.py;
# a café's menu and allergen page as one HTML page from its site: breakfast, lunch and drinks
# tables, a list of cakes, a dietary key, an allergen statement, opening hours, dogs and high
# chairs, takeaway cups and a loyalty card, private hire, with nav and footer), serve them with
# the simulated upstream (auth on, one key per tenant and an admin key), ask every question over
# HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial36/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial36); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial36
port=${PORT:-18116}
corpora=("docs ledgerlite docs" "cafe/menu.html thecorner cafe")
questions=(ledgerlite-questions.jsonl cafe-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
