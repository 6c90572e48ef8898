#!/usr/bin/env bash
# Operator trial 42: build the two corpora (a martial arts school's WordPress site as one WXR
# export file, site.xml, as Tools > Export writes it: RSS 2.0 with the wp:, content:, excerpt:
# and dc: namespaces, pages and posts whose content:encoded holds Gutenberg block HTML in CDATA,
# two drafts, one private page and an attachment item; a loose-leaf tea shop's Shopify product
# export CSV with the real header, variant rows holding only Handle and the variant columns,
# an image-only row and one draft product), serve them with the simulated upstream (auth on, one
# key per tenant and an admin key), ask every question over HTTP once non-stream and once
# streamed (a row with `history` as a chat of its earlier user messages, each answered "OK.",
# then its `text`), and score at the defaults.
#
#   bench/testdata/trial42/run.sh [GUARD_BINARY] [OUT_DIR] [EXTRA_YAML]
#
# GUARD_BINARY defaults to `go build ./cmd/guard` into OUT_DIR (default /tmp/trial42); EXTRA_YAML
# is appended to the config. What it writes and how it scores: ../trialrun.sh.
# Known before the run: the guard at de9ef5b does not read a .xml file (see README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=trial42
port=${PORT:-18122}
corpora=("dojo/site.xml ironcrane dojo" "tea/products_export.csv leafandcup tea")
questions=(dojo-questions.jsonl tea-questions.jsonl)
# shellcheck source=../trialrun.sh
source "$here/../trialrun.sh"
