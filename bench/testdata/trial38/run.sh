#!/usr/bin/env bash
# Operator trial 38: build the two corpora (a youth football club's handbook as an Obsidian vault:
# a folder of nine Markdown notes named by their titles, with YAML front matter holding tags and
# aliases, [[wikilinks]] and [[Note|shown text]], > [!info] / > [!warning] callouts, inline #tags,
# an embedded ![[kit.png]], one note mostly a table, no "# " title line in most notes; a piano
# tuner's one-page website as a Wix-style page builder writes it: deeply nested <div>s with
# generated classes, headings as <p><span style="font-size:28px"><strong>, questions as bold
# paragraphs, prices in a <ul>, a testimonial slider, a contact form and a footer), serve them
# with the simulated upstream (auth on, one key per tenant and an admin key), ask every question
# over HTTP once non-stream and once streamed (a row with `history` as a chat of its earlier user
# messages, each answered "OK.", then its `text`), and score at the defaults.
#
#   bench/testdata/trial38/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial38); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial38
port=${PORT:-18118}
corpora=("club ashvale football" "piano/index.html tunedin piano")
questions=(club-questions.jsonl piano-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
