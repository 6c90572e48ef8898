#!/usr/bin/env bash
# Operator trial 29: build the two corpora (a dental practice's patient information as a folder of
# Notion Markdown exports: file names with a 32-hex-digit id suffix, a "# Title" line, property
# lines "Owner:", "Last edited:", "Tags:", <aside> callouts with an emoji, toggles as "- Question"
# bullets with the answer indented under them, one Markdown table of NHS bands; a farm shop and
# butcher's online order help as ONE product CSV exported from an online shop platform, header
# Handle,Title,Body (HTML),Vendor,Type,Tags,Published, the body cell quoted HTML with <p>, <ul><li>,
# <strong>, &amp; and line breaks, one unpublished row), serve them with the simulated upstream
# (auth on, one key per tenant and an admin key), ask every question over HTTP once non-stream and
# once streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial29/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial29); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial29
port=${PORT:-18109}
corpora=("dental brightsmile dental" "farmshop/products.csv hollowfarm shop")
questions=(dental-questions.jsonl farmshop-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
