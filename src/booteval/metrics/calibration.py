"""Probabilistic and calibration metrics: log loss, Brier score, expected calibration error.

Inputs are ``(y_true, y_score)``: binary labels with the predicted probability
of the positive class (1-D), or class labels with a probability matrix of shape
``(n, n_classes)`` whose columns follow the sorted class labels.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..core.design import Design
from ..core.errors import InvalidInputError
from ..core.validation import as_float_array, as_label_array, check_same_length
from .base import Evaluator, Metric, SumEvaluator, row_sum, safe_divide

__all__ = ["ECE", "Brier", "LogLoss", "binary_targets"]


def binary_targets(y_true: np.ndarray, pos_label: Any, parameter: str = "y_true") -> np.ndarray:
    """0/1 targets from two-class labels; ``pos_label=None`` means 1 (or True).

    Examples
    --------
    >>> binary_targets(np.array(["a", "b", "b"]), "b").tolist()
    [0.0, 1.0, 1.0]
    """
    classes = np.unique(y_true)
    if classes.size > 2:
        raise InvalidInputError(
            parameter,
            "binary labels (two classes)",
            f"{classes.size} classes",
            "Pass a probability matrix of shape (n, n_classes) for multiclass data.",
        )
    if pos_label is None:
        if classes.dtype.kind in "iufb" and set(classes.tolist()) <= {0, 1, -1}:
            pos_label = 1
        else:
            raise InvalidInputError(
                "pos_label",
                f"one of the labels {classes.tolist()}",
                "None",
                "Labels are not 0/1, so say which class is positive.",
            )
    hits = y_true == pos_label
    if not np.any(classes == pos_label) and classes.size == 2:
        raise InvalidInputError(
            "pos_label", f"one of the labels {classes.tolist()}", repr(pos_label)
        )
    return hits.astype(float)


class _ProbabilityMetric(Metric):
    input_names: ClassVar[tuple[str, ...]] = ("y_true", "y_score")
    greater_is_better = False
    bounds = (0.0, 1.0)

    def __init__(self, *, pos_label: Any = None, **params: Any) -> None:
        super().__init__(**({"pos_label": pos_label} if pos_label is not None else {}), **params)
        self.pos_label = pos_label

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        y_true = as_label_array(arrays[0], "y_true")
        y_score = as_float_array(arrays[1], "y_score", ndim=(1, 2))
        check_same_length({"y_true": y_true, "y_score": y_score})
        if y_score.min() < 0 or y_score.max() > 1:
            raise InvalidInputError(
                "y_score",
                "probabilities in [0, 1]",
                f"values from {y_score.min():g} to {y_score.max():g}",
                "Pass probabilities (e.g. predict_proba), not decision scores or logits.",
            )
        if y_score.ndim == 2:
            classes = np.unique(y_true)
            if y_score.shape[1] < classes.size or y_score.shape[1] < 2:
                raise InvalidInputError(
                    "y_score",
                    f"one column per class (at least {max(classes.size, 2)})",
                    f"{y_score.shape[1]} columns",
                )
            dev = np.abs(y_score.sum(axis=1) - 1.0)
            if dev.max() > 1e-6:
                raise InvalidInputError(
                    "y_score",
                    "rows of class probabilities summing to 1",
                    f"row {int(dev.argmax())} sums to {y_score[dev.argmax()].sum():g}",
                )
        return y_true, y_score

    def check_classes(self, classes: np.ndarray, parameter: str) -> None:
        binary_targets(np.asarray(classes), self.pos_label, parameter)

    def _onehot(self, y_true: np.ndarray, k: int) -> np.ndarray:
        classes = np.unique(y_true)
        if classes.size > k:
            raise InvalidInputError("y_score", f"{classes.size} columns", f"{k} columns")
        codes = np.searchsorted(classes, y_true)
        out = np.zeros((y_true.size, k))
        out[np.arange(y_true.size), codes] = 1.0
        return out


class _MeanLoss(_ProbabilityMetric):
    """The mean of a per-row loss of (label, probabilities)."""

    auto_family: ClassVar[str] = "mean"

    # with one probability column, each row's loss depends on that row alone (a table
    # checks the classes of the whole label column)
    row_local = True
    label_inputs = ("y_true",)

    def losses(self, y_true: np.ndarray, p: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        from .regression import Mean

        return Mean().bind((self.losses(*arrays),), design)

    def bind_rows(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        from .regression import Mean

        return Mean().bind_rows((self.losses(*arrays),), design)


class LogLoss(_MeanLoss):
    """Mean negative log-likelihood (probabilities clipped to ``[eps, 1 - eps]`` as sklearn).

    Examples
    --------
    >>> round(LogLoss()([0, 1], [0.2, 0.6]), 6)
    0.366985
    """

    name = "log_loss"
    bounds = (0.0, np.inf)

    def losses(self, y_true: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Each row's loss."""
        eps = np.finfo(float).eps
        if p.ndim == 1:
            y = binary_targets(y_true, self.pos_label)
            q = np.clip(p, eps, 1 - eps)
            return -(y * np.log(q) + (1 - y) * np.log1p(-q))
        onehot = self._onehot(y_true, p.shape[1])
        return -np.log(np.clip((onehot * p).sum(axis=1), eps, 1 - eps))


class Brier(_MeanLoss):
    """Brier score: mean squared difference between probabilities and outcomes.

    For a probability matrix, the squared differences are summed over classes.

    Examples
    --------
    >>> round(Brier()([0, 1], [0.2, 0.6]), 6)
    0.1
    """

    name = "brier"

    def losses(self, y_true: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Each row's squared error."""
        if p.ndim == 1:
            return (binary_targets(y_true, self.pos_label) - p) ** 2
        return ((self._onehot(y_true, p.shape[1]) - p) ** 2).sum(axis=1)


class ECE(_ProbabilityMetric):
    """Expected calibration error with ``n_bins`` equal-width bins on [0, 1].

    ``ECE = sum_b |sum_{i in b} (y_i - p_i)| / n``: for 1-D input, ``p`` is the
    probability of the positive class and ``y`` the 0/1 outcome; for a
    probability matrix, ``p`` is the top-label confidence and ``y`` whether the
    top label is right. Bin ``b`` holds ``[b/M, (b+1)/M)``, the last one
    includes 1. ECE depends on ``n_bins``: pin it when comparing runs.

    Examples
    --------
    >>> ECE(n_bins=2)([0, 1, 1, 1], [0.2, 0.4, 0.8, 0.9])
    0.175
    """

    name = "ece"

    def __init__(self, *, n_bins: int = 15, pos_label: Any = None) -> None:
        if isinstance(n_bins, bool) or not isinstance(n_bins, int | np.integer) or n_bins < 1:
            raise InvalidInputError("n_bins", "a positive integer", repr(n_bins))
        super().__init__(pos_label=pos_label, n_bins=int(n_bins))
        self.n_bins = int(n_bins)

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        y_true, p = arrays
        if p.ndim == 1:
            y = binary_targets(y_true, self.pos_label)
            conf = p
        else:
            classes = np.unique(y_true)
            top = p.argmax(axis=1)
            conf = p.max(axis=1)
            y = (top == np.searchsorted(classes, y_true)).astype(float)
        bins = np.minimum(np.floor(conf * self.n_bins), self.n_bins - 1).astype(np.int64)
        # only occupied bins carry a term (an empty bin adds 0), so the columns are the
        # occupied bins: memory grows with the rows, never with n_bins
        bins = np.unique(bins, return_inverse=True)[1].reshape(-1)
        m = int(bins.max()) + 1
        n = y.size
        rows = np.arange(n)
        # columns: bin b's sum of (y - p), then the row count
        stats = sp.csr_matrix(
            (
                np.concatenate([y - conf, np.ones(n)]),
                (np.concatenate([rows, rows]), np.concatenate([bins, np.full(n, m)])),
            ),
            shape=(n, m + 1),
        )

        def from_sums(s: np.ndarray) -> np.ndarray:
            return safe_divide(row_sum(np.abs(s[:, :m])), s[:, m], np.nan)

        return SumEvaluator(stats, design, from_sums)


METRICS: dict[str, type[Metric]] = {"log_loss": LogLoss, "brier": Brier, "ece": ECE}
