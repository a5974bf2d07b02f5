"""The one confusion-count core: the registry's precision/recall/F1, the threshold
bootstrap's metrics and the multi-label scores read the same ratios and zero-division
policy (issue 34, item 4)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

import booteval
from booteval.methods.multilabel import per_label_scores
from booteval.methods.threshold import threshold_metric
from booteval.metrics.confusion import confusion_parts, confusion_ratio, zero_division_value

SKLEARN = {"precision": precision_score, "recall": recall_score, "f1": f1_score}


@pytest.mark.parametrize("name", ["precision", "recall", "f1"])
@pytest.mark.parametrize("zero_division", [0, 1, np.nan])
def test_the_core_is_sklearn_on_counts_including_empty_denominators(name, zero_division):
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        y = rng.integers(0, 2, n)
        y[:2] = (1, 0)  # both classes present (booteval refuses a pos_label it never sees)
        p = rng.integers(0, 2, n) * rng.integers(0, 2, n)  # often no predicted positive
        tp = float(np.sum((y == 1) & (p == 1)))
        fp = float(np.sum((y == 0) & (p == 1)))
        fn = float(np.sum((y == 1) & (p == 0)))
        expected = SKLEARN[name](y, p, zero_division=zero_division)
        got = float(confusion_ratio(name, tp, fp, fn, zero_division=zero_division))
        assert got == pytest.approx(expected, nan_ok=True)
        # the registry's metric, and the threshold bootstrap's (a 0/1 prediction at 0.5)
        m = booteval.get_metric(name, zero_division=zero_division)
        assert m(y, p) == pytest.approx(expected, nan_ok=True)
        t = threshold_metric(y, p.astype(float), 0.5, metric=name)  # undefined: NaN
        assert t == pytest.approx(float(confusion_ratio(name, tp, fp, fn)), nan_ok=True)


def test_multilabel_scores_read_the_core_and_its_policies():
    yt = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0]])
    yp = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]])
    tp, fn, fp = (yt * yp).sum(0), (yt * (1 - yp)).sum(0), ((1 - yt) * yp).sum(0)
    for policy in ("zero", "one", "exclude"):
        want = confusion_ratio("recall", tp, fp, fn, zero_division=zero_division_value(policy))
        np.testing.assert_array_equal(per_label_scores(yt, yp, "recall", policy), want)
    assert confusion_parts("f1", 2.0, 1.0, 1.0) == (4.0, 6.0)
    with pytest.raises(booteval.InvalidInputError, match="zero_division"):
        zero_division_value(0.5)
