#!/usr/bin/env bash
# Rebuilds models/bbscore/ from train.jsonl: subset -> MiniLM vectors -> head -> classifier ->
# ONNX export, then the dev evaluation (dev is only measured, never trained on).
# About 20 minutes on 2 busy CPU cores, most of it embedding 20k sentences (see README.md).
#
# Needs models/install (the MiniLM ONNX file) and a venv with requirements-bbscore.txt:
#   python3.11 -m venv models/train/.venv
#   models/train/.venv/bin/pip install --no-deps -r models/train/requirements-bbscore.txt
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-models/train/.venv/bin/python}
DATA=${DATA:-${SEGUE_DATA_DIR:-../shared/data}}
T0=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - T0 ))s)"; }
step subset;     $PY models/train/bbscore/subset.py --data "$DATA"
step embed;      $PY models/train/embed.py target/bbscore/train.bb.jsonl --threads 2
step head;       $PY -m models.train.bbscore.train
step classifier; $PY -m models.train.bbscore.train_clf
step export;     $PY -m models.train.bbscore.export
step "done training"
if [ "${SKIP_EVAL:-0}" != 1 ]; then
  $PY models/train/embed.py "$DATA/dev.jsonl" --threads 2
  $PY -m models.train.bbscore.eval --data "$DATA/dev.jsonl" --json target/bbscore/eval.dev.json
fi
