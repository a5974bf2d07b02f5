"""Group labels (clusters, strata) must be one scalar per row: nested values and missing
labels are refused with the reason, in the API and on the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import booteval

SCORES = np.linspace(0.1, 0.9, 10)


@pytest.mark.parametrize(
    ("labels", "says"),
    [
        ([{"id": 1}] * 5 + [{"id": 2}] * 5, "dict in row 0"),
        ([[1, 2]] * 10, "list in row 0"),
        (pd.Series([[1]] * 10), "list in row 0"),
        ([np.nan] * 3 + [1.0] * 7, "3 missing label(s)"),
        (pd.Series([None] + ["a"] * 9), "1 missing label(s)"),
        (np.array(["a"] * 9 + [None], dtype=object), "first in row 9"),
    ],
)
@pytest.mark.parametrize("parameter", ["clusters", "strata"])
def test_nested_or_missing_labels_are_refused(labels, says, parameter):
    with pytest.raises(booteval.InvalidInputError, match=parameter) as info:
        booteval.ci(SCORES, n_resamples=100, seed=0, **{parameter: labels})
    assert says in str(info.value)


def test_power_refuses_missing_cluster_labels():
    a = np.tile([0.0, 1.0], 10)
    with pytest.raises(booteval.InvalidInputError, match="clusters"):
        booteval.minimum_detectable_effect(a, a[::-1], clusters=[np.nan] + [1.0] * 19)


def test_wrong_length_still_says_lengths():
    with pytest.raises(booteval.InvalidInputError, match=r"one label per row \(10 labels\)"):
        booteval.ci(SCORES, clusters=[1, 2, 3], n_resamples=100, seed=0)


def test_cli_refuses_a_nested_column_as_cluster(tmp_path):
    path = tmp_path / "rows.jsonl"
    rows = [{"s": 1, "c": {"x": 1}}, {"s": 0, "c": {"x": 2}}, {"s": 1, "c": [1]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = subprocess.run(
        [sys.executable, "-m", "booteval", "ci", str(path), "--score", "s", "--cluster", "c"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "column 'c' (--cluster)" in proc.stderr
    assert "one scalar label per row" in proc.stderr
