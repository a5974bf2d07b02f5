"""Label metrics refuse predictions that cannot be compared with the labels, instead of
returning a silently wrong score (often 0 with only a "no variability" warning)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import booteval

Y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1] * 3)
LABEL_METRICS = ["accuracy", "f1", "cohen_kappa", "mcc", "balanced_accuracy", "error_rate"]


@pytest.mark.parametrize("metric", LABEL_METRICS)
@pytest.mark.parametrize(
    ("y_true", "y_pred", "says"),
    [
        (Y, Y.astype(float).astype(str), "numbers written as text"),
        (Y.astype(bool), Y.astype(bool).astype(str), "same type as `y_true`"),
        (Y.astype(str), Y, "true labels look like numbers written as text"),
        (Y, np.linspace(0.01, 0.99, Y.size), "scores or probabilities"),
        (np.array(["a", "b"] * 15), np.array(["A", "B"] * 15), "share at least one value"),
        (Y, np.array([0, "1"] * 15, dtype=object), "one type"),
    ],
    ids=["float-strings", "bool-vs-str", "str-vs-int", "probabilities", "disjoint", "mixed"],
)
def test_incomparable_predictions_are_refused(metric, y_true, y_pred, says):
    with pytest.raises(booteval.InvalidInputError, match=r"y_pred|y_true") as info:
        booteval.ci(y_true, y_pred, metric=metric, n_resamples=100, seed=0)
    assert says in str(info.value)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "expected"),
    [
        (np.ones(30, int), np.zeros(30, int), 0.0),  # all wrong is a legitimate answer
        (Y.astype(bool), Y, 1.0),  # bools and 0/1 are the same labels
        (Y.astype(float), Y, 1.0),  # 1.0 and 1 are the same label
        (Y, np.where(Y == 1, 2, 0), 0.4),  # a class y_true lacks, but some overlap
    ],
)
def test_comparable_predictions_still_work(y_true, y_pred, expected):
    r = booteval.ci(y_true, y_pred, metric="accuracy", n_resamples=100, seed=0, method="percentile")
    assert r.estimate == pytest.approx(expected)


def test_mcnemar_names_the_prediction_that_does_not_fit():
    with pytest.raises(booteval.InvalidInputError, match="pred_b") as info:
        booteval.mcnemar_test(Y, Y, Y.astype(float).astype(str))
    assert "numbers written as text" in str(info.value)


def test_cli_probabilities_as_predicted_labels_exit_2(tmp_path):
    path = tmp_path / "preds.csv"
    prob = np.linspace(0.01, 0.99, Y.size)
    path.write_text("label,prob\n" + "".join(f"{a},{b}\n" for a, b in zip(Y, prob, strict=True)))
    cmd = [sys.executable, "-m", "booteval", "ci", str(path), "--y-true", "label"]
    proc = subprocess.run(
        [*cmd, "--y-pred", "prob", "-m", "accuracy"], capture_output=True, text=True
    )
    assert proc.returncode == 2, proc.stdout
    assert "Traceback" not in proc.stderr
    assert "scores or probabilities" in proc.stderr
