#!/usr/bin/env bash
# `make demo`: from a fresh clone to a results table on the shipped sample, offline, re-runnable.
# 1. .venv as README.md's "Install" says (first time only)      2. official JSON -> ./surge (HF dataset folder)
# 3. each test topic's ground truth rendered as a "generated" survey   4. `surge metrics install`
# 5. `surge evaluate` with the bundled MiniLM standing in for BAAI/bge-large-en-v1.5 -> the table
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
. scripts/setup.sh
export HF_HUB_OFFLINE=1  # nothing below needs the Hub
surge=.venv/bin/surge
step() { echo "== $*" >&2; }
step "surge data build --source examples/sample --out surge --overwrite"
"$surge" data build --source examples/sample --out surge --overwrite
step "surge data render --data surge --split test --out outputs/gt-as-generated"
"$surge" data render --data surge --split test --out outputs/gt-as-generated >/dev/null
step "surge metrics install   # evaluate.load(\"surge/<name>\") now works offline"
"$surge" metrics install >/dev/null
MINILM="$("$surge" models path minilm)"
step "surge evaluate --data surge --passages outputs/gt-as-generated --metrics recall,shr,rouge_bleu --embedding-model \$($surge models path minilm) --out outputs/ground-truth.json"
"$surge" evaluate --data surge --passages outputs/gt-as-generated --metrics recall,shr,rouge_bleu \
  --embedding-model "$MINILM" --out outputs/ground-truth.json
