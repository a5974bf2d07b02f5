#!/usr/bin/env bash
# lm-evaluation-harness (pip install lm-eval==0.4.13) with its built-in `dummy` model (random
# log-likelihoods) on the two local multiple-choice tasks of lm_eval_tasks/ (our own
# questions), both with the metrics acc and acc_norm, logged per sample.
# Usage: bash lm_eval_run.sh OUTDIR   (OUTDIR absolute; lm_eval must be on PATH)
# Two "models": the dummy LM ignores --model_args, but lm-eval takes the run's model name
# from `pretrained=` (mock/dummy-a, written to the folder mock__dummy-a); the different
# --seed values make the random log-likelihoods differ.
set -euo pipefail
out=$1
# run in a scratch copy of the tasks (their data_files are relative to it), outside any git
# checkout: lm-eval records the `git describe` of the working directory as git_hash
work=$(mktemp -d)
cp "$(dirname "$0")"/lm_eval_tasks/* "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
for run in "mock/dummy-a 0" "mock/dummy-b 1"; do
  set -- $run
  lm_eval --model dummy --model_args "pretrained=$1" --seed "$2,1234,1234,1234" \
    --include_path . --tasks science_mc,geography_mc \
    --log_samples --output_path "$out"
done
