#!/usr/bin/env bash
# Every Eval Ever's converter (every-eval-ever 0.3.0, which asks for Python >= 3.12; it was
# installed on Python 3.11 with `pip install --no-deps --ignore-requires-python
# every-eval-ever==0.3.0` after its dependencies, and ran as is) on the lm-eval output
# folder written by lm_eval_run.sh, with the per-sample records (--include_samples).
# Usage: bash eee_convert.sh LM_EVAL_OUTDIR OUTDIR   (python must have every_eval_ever)
# Writes OUTDIR/data/<task>/<developer>/<model>/<uuid>.json and <uuid>_samples.jsonl.
set -euo pipefail
cd "$2"
HF_HUB_OFFLINE=1 python -m every_eval_ever convert lm_eval --log_path "$1" \
  --output_dir data --source_organization_name booteval-tests \
  --evaluator_relationship other --eval_library_version 0.4.13 --include_samples
