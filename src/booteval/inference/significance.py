"""Significance tests beside the bootstrap: permutation, McNemar and paired t.

Each test compares two systems scored on the *same* rows and answers "is B's
metric different from A's?" with a p-value for ``B - A``:

* :func:`permutation_test` -- paired approximate randomization for any metric:
  under the null the two systems' outputs are exchangeable on each row (or on
  each cluster), so the null distribution swaps them on random subsets of rows.
  Exact enumeration of every swap when there are few; the ``+1`` correction
  otherwise.
* :func:`mcnemar_test` -- McNemar's test on the discordant pairs, for accuracy
  (exact binomial, or the continuity-corrected chi-square).
* :func:`paired_t_test` -- the paired t-test for a mean of per-row scores, with
  a cluster-robust standard error under a cluster design.

DeLong's paired test for ROC-AUC is :func:`booteval.analytic.delong_test`.

How the permutation test stays fast
-----------------------------------
Every swap is a pair of 0/1 weight vectors over the *pooled* rows (A's rows,
then B's): ``A'`` takes A's output where a row is not swapped and B's where it
is, ``B'`` the rest. The metric is bound once to the pooled data, and the
permutations are evaluated the way bootstrap replicates are: for a metric of
sums of per-row statistics (mean, accuracy, precision/recall/F1, MSE, ...), with
``D`` the per-unit difference of the two systems' statistics and ``Z`` a
``(permutations x units)`` 0/1 matrix,

    sums(A') = total(A) + Z @ D,    sums(B') = total(B) - Z @ D,

one matrix product for all permutations; rank metrics (ROC-AUC, average
precision, Spearman, Kendall) take their weighted replicate path. Callables
(and the rare cases where binding to the pooled data would change the metric,
see :func:`permutation_test`) are evaluated once per permutation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.design import Design, make_design
from ..core.engine import check_choice, run_replicates
from ..core.errors import (
    BootevalError,
    DegenerateIntervalWarning,
    InvalidInputError,
    UndefinedReplicateWarning,
    warn,
)
from ..core.format import format_p_value
from ..core.lazy import stats as _stats
from ..core.options import accepts_options
from ..core.paired import split_systems, validate_system
from ..core.params import validated
from ..core.progress import progress_option
from ..core.streams import generator
from ..core.validation import (
    as_float_array,
    as_label_array,
    check_confidence_level,
    check_label_pair,
    check_names,
    check_positive_int,
    check_same_length,
    check_seed,
    describe_value,
)
from ..metrics import Metric, resolve_metric
from ..metrics.base import Evaluator, SumEvaluator, matmul
from ..results import NO_INTERVAL, Difference, freeze, protocol_defaults

__all__ = [
    "ALTERNATIVES",
    "McNemarTestResult",
    "PairedTTestResult",
    "PermutationTestResult",
    "mcnemar_test",
    "paired_t_test",
    "permutation_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")

#: ``exact=True`` enumerates the swaps of at most this many units (2**20 swaps)
MAX_EXACT_UNITS = 20
# swap-matrix cells (permutations x units) per generator block; a block has at most
# _BLOCK_PERMUTATIONS rows, and its size depends only on the number of swappable units
_BLOCK_CELLS = 1 << 22
_BLOCK_PERMUTATIONS = 1024
# weight cells (permutations x pooled units) evaluated at once by default
_BATCH_CELLS = 1 << 20
# ties: |T* - T| below this fraction of the metric's scale count as equal
_TIE_RTOL = 1e-12
# the pooled binding must reproduce each system's own value to this relative tolerance
_POOLED_RTOL = 1e-9
_UNDEFINED_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PermutationTestResult(Difference):
    """Outcome of a paired permutation (approximate randomization) test of ``B - A``.

    Attributes
    ----------
    statistic : float
        ``metric(B) - metric(A)`` on the original data.
    p_value : float
        ``(1 + #{extreme}) / (R + 1)`` over ``R`` random swaps, or ``#{extreme} / 2**k``
        when every swap of the ``k`` swappable units was enumerated (``exact``). "Extreme"
        follows ``alternative``: ``|T*| >= |T|`` (two-sided), ``T* >= T`` (greater),
        ``T* <= T`` (less).
    n_permutations : int
        Number of swaps evaluated (``2**n_swappable`` when exact).
    exact : bool
        Whether every swap was enumerated.
    alternative : str
        ``"two-sided"``, ``"greater"`` (B's metric larger) or ``"less"``.
    test : str
        ``"permutation"``.
    metric : str
        The metric's label.
    n : int
        Number of rows.
    n_clusters : int or None
        Number of clusters (the swapped units) under a cluster design.
    seed : int or None
        The seed of the random swaps; ``None`` for exact enumeration (nothing is random).
    distribution : ndarray
        The defined statistics ``T*`` of the swaps (read-only); the identity swap is
        included when exact.
    name_a, name_b : str
        The systems' names.
    estimate_a, estimate_b : float
        Each system's metric on the original data.
    n_units : int
        Swap units: rows, or clusters.
    n_swappable : int
        Units on which the two systems' outputs differ (swapping the others changes
        nothing, so they are left out of the enumeration).
    n_undefined : int
        Swaps on which the metric was undefined (left out of the p-value).
    vectorized : bool
        Whether the swaps were evaluated as one weighted computation (else one call per swap).

    Examples
    --------
    >>> import booteval.significance as sig
    >>> r = sig.permutation_test([1, 0, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1])
    >>> print(r)
    mean: B - A = 0.3333, p = 0.5000 (permutation, exact over 2^2 swaps, two-sided)
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        estimate=lambda r: r.statistic,
        **NO_INTERVAL,
        method=lambda r: r.test,
    )

    statistic: float
    p_value: float
    n_permutations: int
    exact: bool
    alternative: str
    test: str
    metric: str
    n: int
    n_clusters: int | None
    seed: int | None
    distribution: np.ndarray = field(repr=False)
    name_a: str = "A"
    name_b: str = "B"
    estimate_a: float = math.nan
    estimate_b: float = math.nan
    n_units: int = 0
    n_swappable: int = 0
    n_undefined: int = 0
    vectorized: bool = True

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line: the difference, the p-value and how it was obtained."""
        how = (
            f"exact over 2^{self.n_swappable} swaps"
            if self.exact
            else f"{self.n_permutations} random swaps"
        )
        unit = " of clusters" if self.n_clusters is not None else ""
        return (
            f"{self.metric}: {self.name_b} - {self.name_a} = "
            f"{self.statistic * scale:.{digits}f}, p = {format_p_value(self.p_value, 4)} "
            f"({self.test}, {how}{unit}, {self.alternative})"
        )

    def __str__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        keys = (
            "statistic", "p_value", "n_permutations", "exact", "alternative", "test",
            "metric", "n", "n_clusters", "seed", "name_a", "name_b", "estimate_a",
            "estimate_b", "n_units", "n_swappable", "n_undefined", "vectorized",
        )  # fmt: skip
        return {k: getattr(self, k) for k in keys}


@dataclass(frozen=True, eq=False)
class McNemarTestResult(Difference):
    """Outcome of McNemar's test comparing two classifiers' accuracy on the same rows.

    Attributes
    ----------
    statistic : float
        Exact test: ``c``, the count whose Binomial(b + c, 1/2) distribution is tested.
        Chi-square test: ``(|b - c| - 1)^2 / (b + c)`` (0 when ``b == c``).
    p_value : float
    b : int
        Rows where A is right and B is wrong.
    c : int
        Rows where A is wrong and B is right.
    n_discordant : int
        ``b + c``.
    n : int
        Number of rows.
    accuracy_a, accuracy_b : float
    difference : float
        ``accuracy_b - accuracy_a = (c - b) / n``.
    alternative : str
        ``"greater"`` means B is more accurate.
    exact : bool
    test : str
        ``"mcnemar-exact"`` or ``"mcnemar-chi2"``.

    Examples
    --------
    >>> r = McNemarTestResult(3.0, 0.25, 1, 3, 4, 10, 0.6, 0.8, 0.2, "two-sided", True,
    ...                       "mcnemar-exact")
    >>> print(r)
    mcnemar-exact (two-sided): accuracy B - A = 0.2000, b = 1, c = 3, p = 0.2500
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        estimate=lambda r: r.difference,
        **NO_INTERVAL,
        method=lambda r: r.test,
    )

    statistic: float
    p_value: float
    b: int
    c: int
    n_discordant: int
    n: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    alternative: str
    exact: bool
    test: str

    def __str__(self) -> str:
        return (
            f"{self.test} ({self.alternative}): accuracy B - A = {self.difference:.4f}, "
            f"b = {self.b}, c = {self.c}, p = {format_p_value(self.p_value, 4)}"
        )


@dataclass(frozen=True, eq=False)
class PairedTTestResult(Difference):
    """Outcome of a paired t-test of the mean per-row difference ``B - A``.

    Attributes
    ----------
    estimate : float
        Mean of ``d_i = b_i - a_i``.
    standard_error : float
        ``sd(d) / sqrt(n)``, or the cluster-robust standard error under a cluster design.
    statistic : float
        ``estimate / standard_error`` (alias :attr:`t`).
    df : int
        ``n - 1``, or ``G - 1`` with ``G`` clusters.
    p_value : float
    low, high : float
        Confidence interval for the mean difference, matching ``alternative`` as in
        :func:`scipy.stats.ttest_rel`: one-sided alternatives give a half-infinite interval.
    confidence_level : float
    alternative : str
    n : int
    n_clusters : int or None
    test : str
        ``"paired-t"`` or ``"paired-t (cluster-robust)"``.

    Examples
    --------
    >>> r = paired_t_test([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 3.5, 5.0])
    >>> print(r)
    paired-t (two-sided): B - A = 0.5000 (-0.1496, 1.1496), t = 2.4495, df = 3, p = 0.0917
    """

    _protocol_defaults = protocol_defaults(
        Difference,
        method=lambda r: r.test,
    )

    estimate: float
    standard_error: float
    statistic: float
    df: int
    p_value: float
    low: float
    high: float
    confidence_level: float
    alternative: str
    n: int
    n_clusters: int | None
    test: str

    @property
    def t(self) -> float:
        """The t statistic (alias of :attr:`statistic`)."""
        return self.statistic

    def __str__(self) -> str:
        return (
            f"{self.test} ({self.alternative}): B - A = {self.estimate:.4f} "
            f"({self.low:.4f}, {self.high:.4f}), t = {self.statistic:.4f}, df = {self.df}, "
            f"p = {format_p_value(self.p_value, 4)}"
        )


# --------------------------------------------------------------------------------------------
# Permutation test: inputs
# --------------------------------------------------------------------------------------------


def _check_exact(exact: object) -> str | bool:
    if isinstance(exact, bool | np.bool_):
        return bool(exact)
    if isinstance(exact, str) and exact == "auto":
        return "auto"
    raise InvalidInputError("exact", "'auto', True or False", describe_value(exact))


def _differs(out_a: np.ndarray, out_b: np.ndarray) -> np.ndarray:
    """Per row, whether the two systems' outputs differ (any column of a 2-D output)."""
    try:
        neq = np.asarray(out_a != out_b)
    except TypeError:  # labels of incomparable types
        neq = np.ones(out_a.shape[0], dtype=bool)
    if neq.ndim == 0:
        neq = np.ones(out_a.shape[0], dtype=bool)
    return neq.reshape(neq.shape[0], -1).any(axis=1)


# --------------------------------------------------------------------------------------------
# Permutation test: evaluating swaps
# --------------------------------------------------------------------------------------------


class _Swapper:
    """Computes ``T* = metric(B') - metric(A')`` for rows of a swap matrix.

    ``z`` has one column per *swappable* unit (``self.units``); ``z[r, j] = 1`` swaps
    the two systems' outputs on every row of unit ``units[j]`` in permutation ``r``.
    """

    vectorized = True
    first_error: str | None = None

    def __init__(self, units: np.ndarray, n_units: int, t_ref: float) -> None:
        self.units = units
        self.n_units = n_units
        #: the observed statistic in the same arithmetic as ``statistics`` (the identity swap)
        self.t_ref = t_ref

    def statistics(self, z: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def system_values(self) -> tuple[float, float]:  # pragma: no cover - abstract
        """``(metric(A), metric(B))`` as this swapper computes them."""
        raise NotImplementedError


class _SumSwapper(_Swapper):
    """Sum-decomposable metric: ``T* = f(total_B - Z @ D) - f(total_A + Z @ D)``."""

    def __init__(
        self, ev: SumEvaluator, units: np.ndarray, n_units: int, shift: float = 0.0
    ) -> None:
        self.shift = shift
        s = ev.unit_stats
        s_a, s_b = s[:n_units], s[n_units:]
        ones = np.ones((1, n_units))
        self.total_a = matmul(ones, s_a).reshape(-1)
        self.total_b = matmul(ones, s_b).reshape(-1)
        diff = s_b - s_a
        diff = diff[units]
        self.diff = sp.csr_matrix(diff) if sp.issparse(diff) else np.asarray(diff)
        self.from_sums = ev.from_sums
        t_ref = float(
            self.from_sums(self.total_b[None, :])[0] - self.from_sums(self.total_a[None, :])[0]
        )
        super().__init__(units, n_units, t_ref)

    def statistics(self, z: np.ndarray) -> np.ndarray:
        if z.shape[1] == 0:
            zd = np.zeros((z.shape[0], self.total_a.size))
        else:
            zd = matmul(z, self.diff)
        sums_a = self.total_a[None, :] + zd
        sums_b = self.total_b[None, :] - zd
        out = np.asarray(self.from_sums(sums_b), dtype=float) - np.asarray(
            self.from_sums(sums_a), dtype=float
        )
        return out

    def system_values(self) -> tuple[float, float]:
        va = float(self.from_sums(self.total_a[None, :])[0]) + self.shift
        vb = float(self.from_sums(self.total_b[None, :])[0]) + self.shift
        return va, vb


class _WeightSwapper(_Swapper):
    """A vectorized evaluator of the pooled rows: ``A'`` and ``B'`` as 0/1 weights.

    With ``presence`` (pooled units x extra labels: whether the unit's outputs use
    an output label that no shared input has), each swapped system is evaluated
    by an evaluator whose data holds exactly the extra labels that system uses
    (``bind_for(present)``), so that a class set taken from the data is that of
    the swapped system alone. Without it one evaluator serves every swap.
    """

    def __init__(
        self,
        bind_for: Callable[[np.ndarray | None], Evaluator],
        presence: np.ndarray | None,
        units: np.ndarray,
        n_units: int,
    ) -> None:
        self.bind_for = bind_for
        self.presence = presence
        self._cache: dict[bytes, Any] = {}
        base = np.zeros((2, 2 * n_units))
        base[0, :n_units] = 1.0
        base[1, n_units:] = 1.0
        vals = self._values(base)
        self.values = (float(vals[0]), float(vals[1]))
        super().__init__(units, n_units, self.values[1] - self.values[0])

    def system_values(self) -> tuple[float, float]:
        return self.values

    def _entry(self, present: np.ndarray | None) -> Any:
        key = b"" if present is None else np.packbits(present).tobytes()
        if key not in self._cache:
            ev = self.bind_for(present)
            self._cache[key] = _sum_form(ev) or ev
        return self._cache[key]

    @staticmethod
    def _evaluate(entry: Any, w: np.ndarray) -> np.ndarray:
        if isinstance(entry, tuple):
            ev, shift = entry
            return np.asarray(ev.from_sums(matmul(w, ev.unit_stats)), dtype=float) + shift
        return np.asarray(entry.replicates(w), dtype=float)

    def _values(self, w: np.ndarray) -> np.ndarray:
        if self.presence is None:
            return self._evaluate(self._entry(None), w)
        present = (w @ self.presence) > 0
        patterns, inverse = np.unique(present, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        out = np.empty(w.shape[0])
        for j, pattern in enumerate(patterns):
            rows = np.flatnonzero(inverse == j)
            out[rows] = self._evaluate(self._entry(pattern), w[rows])
        return out

    def statistics(self, z: np.ndarray) -> np.ndarray:
        u = self.n_units
        w_a = np.zeros((z.shape[0], 2 * u))
        w_a[:, :u] = 1.0
        w_a[:, self.units] = 1.0 - z
        w_a[:, u + self.units] = z
        return self._values(1.0 - w_a) - self._values(w_a)


class _LoopSwapper(_Swapper):
    """One evaluation of the metric per system and swap, rows kept in their places."""

    vectorized = False

    def __init__(
        self,
        m: Metric,
        shared: tuple[np.ndarray, ...],
        out_a: np.ndarray,
        out_b: np.ndarray,
        unit_of_row: np.ndarray,
        units: np.ndarray,
        n_units: int,
    ) -> None:
        self.m = m
        self.shared = shared
        self.out_a, self.out_b = out_a, out_b
        self.unit_of_row = unit_of_row
        self.design = make_design(out_a.shape[0])
        self.values = (self._value(out_a, strict=True), self._value(out_b, strict=True))
        super().__init__(units, n_units, self.values[1] - self.values[0])

    def system_values(self) -> tuple[float, float]:
        return self.values

    def _value(self, out: np.ndarray, *, strict: bool = False) -> float:
        try:
            return float(self.m.bind((*self.shared, out), self.design).estimate())
        except _UNDEFINED_ERRORS as exc:
            if strict:
                raise
            if self.first_error is None:
                self.first_error = f"{type(exc).__name__}: {exc}"
            return math.nan

    def statistics(self, z: np.ndarray) -> np.ndarray:
        out = np.empty(z.shape[0])
        swap_unit = np.zeros(self.n_units, dtype=bool)
        extra = (slice(None),) + (None,) * (self.out_a.ndim - 1)
        for r in range(z.shape[0]):
            swap_unit[self.units] = z[r] != 0
            rows = swap_unit[self.unit_of_row][extra]
            a2 = np.where(rows, self.out_b, self.out_a)
            b2 = np.where(rows, self.out_a, self.out_b)
            out[r] = self._value(b2) - self._value(a2)
        return out


def _sum_form(ev: Evaluator) -> tuple[SumEvaluator, float] | None:
    """The SumEvaluator behind ``ev`` and the constant ``ev`` adds to it, if any.

    The mean of continuous scores is bound as sums of shifted scores plus the shift
    (for conditioning); the shift cancels in ``metric(B') - metric(A')``.
    """
    if isinstance(ev, SumEvaluator):
        return ev, 0.0
    inner = getattr(ev, "inner", None)
    shift = getattr(ev, "shift", None)
    if isinstance(inner, SumEvaluator) and isinstance(shift, float):
        return inner, shift
    return None


def _pooled_design(design: Design) -> Design:
    """A design over A's rows then B's rows, with A's units first, then B's."""
    n = design.n_rows
    if design.clustered:
        u = design.unit_of_row
        return make_design(2 * n, clusters=np.concatenate([u, u + design.n_units]))
    return make_design(2 * n)


def _bind_uncompressed(m: Metric, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
    ev = m.bind(arrays, design)
    if ev.design is not None and ev.design is not design:
        rebound = ev.with_design(design)
        if rebound is None:
            raise TypeError(f"{type(ev).__name__} cannot be rebound to an uncompressed design")
        ev = rebound
    return ev


def _extra_labels(
    m: Metric, shared: tuple[np.ndarray, ...], out_a: np.ndarray, out_b: np.ndarray
) -> np.ndarray:
    """Output labels that ``y_true`` (the first shared input) never takes.

    Empty unless the systems' outputs are predicted class labels (``y_pred``):
    scores, probabilities and texts define no class set.
    """
    if m.input_names[-1] != "y_pred" or not shared or out_a.ndim != 1:
        return out_a[:0]
    if out_a.dtype.kind in "fc":
        return out_a[:0]
    return np.setdiff1d(np.unique(np.concatenate([out_a, out_b])), np.unique(shared[0]))


def _pooled_swapper(
    m: Metric,
    arr_a: tuple[np.ndarray, ...],
    arr_b: tuple[np.ndarray, ...],
    design: Design,
    units: np.ndarray,
    estimates: tuple[float, float],
) -> _Swapper | None:
    """The vectorized swapper, or ``None`` where binding to the pooled rows changes the metric.

    The metric is bound once to the pooled rows (A's, then B's; shared inputs
    repeated), and a swapped system is a 0/1 weighting of them. Whatever a metric
    derives from the whole data set is then taken from the pooled rows: harmless
    for a centring shift, but the class set of a confusion matrix is the union of
    ``y_true`` and the predicted labels. Output labels that ``y_true`` never takes
    are therefore tracked: each swapped system is evaluated with the pooled data
    holding exactly the extra labels it uses (rows carrying the others have weight
    0 in it, so replacing their outputs by ``y_true`` changes only the class set).
    Finally the pooled evaluation must reproduce each system's own value.
    """
    if not m.vectorized:
        return None
    u = design.n_units
    pdesign = _pooled_design(design)
    shared = arr_a[:-1]
    out_a, out_b = arr_a[-1], arr_b[-1]
    try:
        pooled_shared = tuple(np.concatenate([x, x]) for x in shared)
        pooled_out = np.concatenate([out_a, out_b])
        extra = _extra_labels(m, shared, out_a, out_b)
        if extra.size == 0:
            ev = _bind_uncompressed(m, (*pooled_shared, pooled_out), pdesign)
            form = _sum_form(ev)
            swapper: _Swapper = (
                _SumSwapper(form[0], units, u, form[1])
                if form is not None
                else _WeightSwapper(lambda _: ev, None, units, u)
            )
        else:
            ref = pooled_shared[0]
            hit = (pooled_out[:, None] == extra[None, :]).astype(np.float64)
            presence = np.zeros((2 * u, extra.size))
            np.add.at(presence, pdesign.unit_of_row, hit)
            presence = (presence > 0).astype(np.float64)

            def bind_for(present: np.ndarray | None) -> Evaluator:
                drop = extra if present is None else extra[~np.asarray(present, dtype=bool)]
                out = np.where(np.isin(pooled_out, drop), ref, pooled_out)
                return _bind_uncompressed(m, (*pooled_shared, out), pdesign)

            swapper = _WeightSwapper(bind_for, presence, units, u)
    except (TypeError, ValueError):  # incompatible outputs, or a metric that refuses them
        return None
    scale = max(abs(estimates[0]), abs(estimates[1]))
    for value, est in zip(swapper.system_values(), estimates, strict=True):
        if not abs(value - est) <= _POOLED_RTOL * scale:
            return None
    return swapper


def _make_swapper(
    m: Metric,
    arr_a: tuple[np.ndarray, ...],
    arr_b: tuple[np.ndarray, ...],
    design: Design,
    estimates: tuple[float, float],
    *,
    vectorize: bool = True,
) -> _Swapper:
    """Swapper over the units on which the systems' outputs differ."""
    u = design.n_units
    differs = _differs(arr_a[-1], arr_b[-1])
    unit_differs = np.zeros(u, dtype=bool)
    unit_differs[design.unit_of_row[differs]] = True
    units = np.flatnonzero(unit_differs)
    if vectorize:
        swapper = _pooled_swapper(m, arr_a, arr_b, design, units, estimates)
        if swapper is not None:
            return swapper
    return _LoopSwapper(m, arr_a[:-1], arr_a[-1], arr_b[-1], design.unit_of_row, units, u)


# --------------------------------------------------------------------------------------------
# Permutation test: swap matrices
# --------------------------------------------------------------------------------------------


def _block_size(k: int) -> int:
    """Swaps per generator block (a function of the number of swappable units only)."""
    return max(1, min(_BLOCK_PERMUTATIONS, _BLOCK_CELLS // max(k, 1)))


def _random_block(seed: int, j: int, k: int) -> np.ndarray:
    rng = generator("permutation", seed, j)
    size = _block_size(k)
    packed = rng.integers(0, 256, size=(size, (k + 7) // 8), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=k)


def _random_swaps(seed: int, k: int, start: int, stop: int) -> np.ndarray:
    """Swap indicators of random permutations ``start .. stop - 1``, shape ``(stop - start, k)``.

    Each unit is swapped with probability 1/2, independently. Permutation ``r``
    comes from generator block ``r // block`` seeded by
    ``SeedSequence(seed, spawn_key=(10, block))`` (the ``permutation`` stream), so it is
    the same whatever range it is fetched in (and ``R`` permutations are a prefix of any
    longer run).

    Examples
    --------
    >>> z = _random_swaps(0, 5, 0, 4)
    >>> z.shape, bool((_random_swaps(0, 5, 2, 3) == z[2:3]).all())
    ((4, 5), True)
    """
    size = _block_size(k)
    parts = []
    for j in range(start // size, (stop - 1) // size + 1):
        block = _random_block(seed, j, k)
        parts.append(block[max(start - j * size, 0) : min(stop - j * size, size)])
    if not parts:
        return np.zeros((0, k), dtype=np.float64)
    return np.concatenate(parts, axis=0).astype(np.float64)


def _exact_swaps(k: int, start: int, stop: int) -> np.ndarray:
    """Swaps ``start .. stop - 1`` of the ``2**k`` in binary order (row ``r``: the bits of ``r``).

    Examples
    --------
    >>> _exact_swaps(2, 0, 4).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """
    r = np.arange(start, stop, dtype=np.int64)
    return ((r[:, None] >> np.arange(k, dtype=np.int64)) & 1).astype(np.float64)


class _SwapSource:
    """Swap indicators as the engine's weight source: all ``2**k`` in binary order when
    exact, else random swaps from the ``permutation`` stream (independent of batching)."""

    clustered = False

    def __init__(self, k: int, exact: bool, block_size: int) -> None:
        self.k, self.exact, self.block_size = k, exact, block_size

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        if self.exact:
            return _exact_swaps(self.k, start, stop)
        return _random_swaps(seed, self.k, start, stop)


class _SwapRun:
    """The engine's view of a permutation test: the statistic under each swap."""

    design = None
    has_standard_error = False

    def __init__(self, swapper: Any) -> None:
        self._swapper = swapper
        self.thread_safe = bool(swapper.vectorized)  # a callable metric: one thread

    def estimate(self) -> float:
        return 0.0  # one value per swap

    def replicates(self, swaps: np.ndarray) -> np.ndarray:
        return self._swapper.statistics(swaps)


def _count_extreme(null: np.ndarray, t: float, alternative: str, tol: float) -> int:
    if alternative == "greater":
        return int(np.count_nonzero(null >= t - tol))
    if alternative == "less":
        return int(np.count_nonzero(null <= t + tol))
    return int(np.count_nonzero(np.abs(null) >= abs(t) - tol))


# --------------------------------------------------------------------------------------------
# Permutation test: the public function
# --------------------------------------------------------------------------------------------


@accepts_options
@validated
@progress_option
def permutation_test(
    *data: Any,
    metric: str | Metric | Callable[..., float] | None = None,
    n_permutations: int = 10_000,
    seed: int | None = None,
    clusters: Any = None,
    strata: Any = None,
    alternative: str = "two-sided",
    metric_kwargs: dict[str, Any] | None = None,
    names: tuple[str, str] = ("A", "B"),
    exact: bool | str = "auto",
    batch: int | None = None,
    workers: int | None = None,
    progress: Any = None,
) -> PermutationTestResult:
    """Paired permutation (approximate randomization) test of ``metric(B) - metric(A)``.

    Under the null hypothesis that the two systems are interchangeable, their
    outputs on each row could as well have been the other way round. Each
    permutation swaps A's and B's outputs on a random subset of rows (each row
    independently with probability 1/2) and recomputes the statistic
    ``T* = metric(B') - metric(A')``. Under a cluster design whole clusters swap
    together: all rows of a cluster go one way, so within-cluster correlation is
    respected. Strata do not change the swaps (a swap never moves a row across
    strata); they are accepted, and checked against the clusters, so that the
    call mirrors :func:`booteval.compare`.

    Parameters
    ----------
    *data : array-like
        ``scores_a, scores_b`` for a per-row score metric (the mean by default),
        or ``y_true, pred_a, pred_b`` (labels, or scores) for a metric of two inputs.
    metric : str, Metric or callable, optional
        As in :func:`booteval.ci`.
    n_permutations : int, default 10_000
        Number of random swaps ``R`` (when not exact).
    seed : int, optional
        Seed of the random swaps; fresh entropy (recorded in ``result.seed``) when omitted.
    clusters, strata : array-like, optional
        The design, as in :func:`booteval.ci`: clusters are the swap units.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` tests whether B's metric is larger than A's.
    metric_kwargs : dict, optional
        Parameters of a named metric, or keyword arguments of a callable.
    names : (str, str)
        Display names of the two systems.
    exact : {"auto", True, False}
        ``"auto"``: enumerate all ``2**k`` swaps of the ``k`` units where the outputs
        differ when ``2**k <= n_permutations``; ``True``: always enumerate (an error
        beyond ``2**20`` swaps); ``False``: always draw ``n_permutations`` random swaps.
    batch : int, optional
        Swaps evaluated at a time (bounds memory); never changes the result.
    workers : int, optional
        Threads (default: all cores) for registry metrics; a callable metric runs on
        one thread. Never changes the result.
    progress : None, True or callable, optional
        ``True`` prints the swaps done to stderr every few seconds; a callable is called
        as ``progress(done, total)`` after each batch of swaps.

    Returns
    -------
    PermutationTestResult

    Notes
    -----
    With ``R`` random swaps the p-value is ``(1 + #{extreme}) / (R + 1)``, which is
    never 0 and keeps the test's level at most ``alpha`` (Phipson & Smyth, 2010).
    Exact enumeration counts the identity swap among the ``2**k`` and needs no
    correction. Two statistics within ``1e-12`` of the metric's scale count as
    equal, so rounding never decides a tie. Units where A's and B's outputs are
    identical are left out (swapping them changes nothing; the p-value is the same).

    Metrics of sums of per-row statistics (mean, accuracy, precision / recall / F1,
    MCC, kappa, MSE, log-loss, ...) evaluate all swaps as one matrix product, and
    rank metrics (ROC-AUC, average precision, Spearman, Kendall) through their
    weighted replicates, with the metric bound once to the rows of both systems.
    Callables, and a label metric whose class set would depend on the swap (a
    label that only the predictions contain, for F1, MCC and other confusion
    metrics), are evaluated once per swap: correct, but slow for large ``R``.
    Swaps on which the metric is undefined (NaN, or a callable raising
    ``ValueError``) are left out and counted in ``n_undefined``, with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.75, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.5, a, y)      # B fixes about half of A's errors
    >>> r = permutation_test(y, a, b, metric="accuracy", seed=0)
    >>> round(r.statistic, 4), r.p_value, r.exact
    (0.13, 9.999000099990002e-05, False)

    With few discordant rows every swap is enumerated:

    >>> r = permutation_test([1, 0, 1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 0],
    ...                      alternative="greater")
    >>> r.exact, r.n_permutations, r.p_value
    (True, 4, 0.25)
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    n_perm = check_positive_int(n_permutations, "n_permutations")
    exact_opt = _check_exact(exact)
    batch = None if batch is None else check_positive_int(batch, "batch")
    seed_value = check_seed(seed)
    if len(data) < 2:
        raise InvalidInputError(
            "data", "two systems' outputs (scores_a, scores_b or y_true, pred_a, pred_b)",
            f"{len(data)} array(s)",
        )  # fmt: skip
    name_a, name_b = check_names(names)
    m = resolve_metric(metric, metric_kwargs, len(data) - 1)
    shared, a, b = split_systems(data, m)
    arr_a = validate_system(m, shared, a, name_a)
    arr_b = validate_system(m, shared, b, name_b)
    n, n_b = arr_a[-1].shape[0], arr_b[-1].shape[0]
    if n != n_b:
        raise InvalidInputError(
            f"{m.input_names[-1]} of system {name_b}",
            f"the same number of rows as system {name_a} ({n})",
            f"{n_b} rows",
        )
    if arr_a[-1].shape[1:] != arr_b[-1].shape[1:]:
        raise InvalidInputError(
            f"{m.input_names[-1]} of system {name_b}",
            f"the same shape as system {name_a} ({arr_a[-1].shape})",
            f"shape {arr_b[-1].shape}",
        )
    design = make_design(n, strata=strata, clusters=clusters)
    iid = make_design(n)
    estimates = []
    for arrays, name in ((arr_a, name_a), (arr_b, name_b)):
        value = float(m.bind(arrays, iid).estimate())
        if not math.isfinite(value):
            raise InvalidInputError(
                f"{m.input_names[-1]} of system {name}",
                f"outputs on which {m.label!r} is defined",
                f"outputs where it evaluates to {value}",
            )
        estimates.append(value)
    est_a, est_b = estimates
    swapper = _make_swapper(m, arr_a, arr_b, design, (est_a, est_b))
    k = swapper.units.size

    unit_word = "clusters" if design.clustered else "rows"
    if exact_opt is True and k > MAX_EXACT_UNITS:
        raise InvalidInputError(
            "exact",
            f"at most 2^{MAX_EXACT_UNITS} swaps to enumerate",
            f"True with {k} swappable {unit_word} (2^{k} swaps)",
            "Use exact='auto' or False to draw random swaps.",
        )
    is_exact = exact_opt is True or (exact_opt == "auto" and k < 63 and (1 << k) <= n_perm)
    total = 1 << k if is_exact else n_perm
    size = batch or max(1, min(total, _BATCH_CELLS // max(2 * design.n_units, 1)))
    # the engine's loop over batches of swaps (a weight source of 0/1 swap indicators)
    null, _ = run_replicates(
        _SwapRun(swapper), _SwapSource(k, is_exact, size), total, seed_value, size,
        workers=workers,
    )  # fmt: skip

    defined = np.isfinite(null)
    n_undefined = int(null.size - defined.sum())
    if n_undefined:
        what = f"metric {m.label!r} was undefined on {n_undefined} of {null.size} swaps"
        if swapper.first_error:
            what += f" (first error: {swapper.first_error})"
        if n_undefined == null.size:
            raise BootevalError(what + ": no p-value can be formed.")
        warn(what + "; they were left out of the p-value.", UndefinedReplicateWarning, stacklevel=2)
        null = null[defined]
    t_ref = swapper.t_ref
    tol = _TIE_RTOL * max(abs(est_a), abs(est_b), abs(t_ref))
    count = _count_extreme(null, t_ref, alternative, tol)
    p = count / null.size if is_exact else (1.0 + count) / (null.size + 1.0)
    return PermutationTestResult(
        statistic=est_b - est_a, p_value=float(min(1.0, p)), n_permutations=total,
        exact=is_exact, alternative=alternative, test="permutation", metric=m.label, n=n,
        n_clusters=design.n_clusters, seed=None if is_exact else seed_value,
        distribution=freeze(null), name_a=name_a, name_b=name_b, estimate_a=est_a,
        estimate_b=est_b, n_units=design.n_units, n_swappable=k, n_undefined=n_undefined,
        vectorized=swapper.vectorized,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# McNemar
# --------------------------------------------------------------------------------------------


@validated
def mcnemar_test(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    alternative: str = "two-sided",
    exact: bool = True,
) -> McNemarTestResult:
    """McNemar's test of equal accuracy for two classifiers on the same rows.

    Only the discordant rows carry information: ``b`` rows where A is right and B
    wrong, ``c`` where A is wrong and B right. Under the null each discordant row
    is equally likely to go either way.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like
        Labels of any type (numbers, strings, booleans) and each system's predicted
        labels; a row is right when the prediction equals the label.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: B is more accurate than A (``c > b``).
    exact : bool, default True
        ``True``: the exact binomial test of ``c`` out of ``b + c`` at 1/2
        (:func:`scipy.stats.binomtest`). ``False``: the chi-square statistic with
        continuity correction, ``(|b - c| - 1)^2 / (b + c)`` on 1 degree of freedom
        (as R's ``mcnemar.test``, which drops the correction when ``b == c``);
        two-sided only.

    Returns
    -------
    McNemarTestResult
        With no discordant rows, ``p_value`` is 1.

    Examples
    --------
    >>> y = [0, 1, 1, 0, 1, 0, 1, 1, 0, 1]
    >>> a = [0, 1, 0, 1, 1, 0, 0, 1, 1, 1]
    >>> b = [0, 1, 1, 0, 1, 0, 1, 1, 0, 0]
    >>> r = mcnemar_test(y, a, b)
    >>> r.b, r.c, round(r.p_value, 4)
    (1, 4, 0.375)
    >>> round(mcnemar_test(y, a, b, alternative="greater").p_value, 4)
    0.1875
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    if not isinstance(exact, bool | np.bool_):
        raise InvalidInputError("exact", "True or False", describe_value(exact))
    exact = bool(exact)
    if not exact and alternative != "two-sided":
        raise InvalidInputError(
            "alternative",
            "'two-sided' with exact=False (the chi-square statistic has no direction)",
            repr(alternative),
            "Use exact=True for a one-sided test.",
        )
    arrays = {
        "y_true": as_label_array(y_true, "y_true"),
        "pred_a": as_label_array(pred_a, "pred_a"),
        "pred_b": as_label_array(pred_b, "pred_b"),
    }
    n = check_same_length(arrays)
    for other in ("pred_a", "pred_b"):
        check_label_pair(arrays["y_true"], arrays[other], other)
    t = arrays["y_true"]
    right_a = np.asarray(arrays["pred_a"] == t, dtype=bool).reshape(-1)
    right_b = np.asarray(arrays["pred_b"] == t, dtype=bool).reshape(-1)
    b = int(np.count_nonzero(right_a & ~right_b))
    c = int(np.count_nonzero(~right_a & right_b))
    nd = b + c
    if exact:
        statistic = float(c)
        p = 1.0 if nd == 0 else float(_stats.binomtest(c, nd, 0.5, alternative=alternative).pvalue)
    else:
        statistic = 0.0 if b == c else (abs(b - c) - 1.0) ** 2 / nd
        p = float(_stats.chi2.sf(statistic, 1)) if nd else 1.0
    acc_a = float(np.count_nonzero(right_a)) / n
    acc_b = float(np.count_nonzero(right_b)) / n
    return McNemarTestResult(
        statistic=statistic, p_value=min(1.0, p), b=b, c=c, n_discordant=nd, n=n,
        accuracy_a=acc_a, accuracy_b=acc_b, difference=(c - b) / n, alternative=alternative,
        exact=exact, test="mcnemar-exact" if exact else "mcnemar-chi2",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Paired t
# --------------------------------------------------------------------------------------------


@validated
def paired_t_test(
    scores_a: Any,
    scores_b: Any,
    *,
    clusters: Any = None,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> PairedTTestResult:
    """Paired t-test for the mean per-row difference ``d_i = b_i - a_i``.

    Parameters
    ----------
    scores_a, scores_b : array-like
        Per-row scores of the two systems on the same rows (e.g. per-sentence BLEU,
        0/1 correctness).
    clusters : array-like, optional
        Cluster label per row. The standard error is then cluster-robust: with
        ``D_g`` the sum of ``d`` over cluster ``g`` (``n_g`` rows) and ``G`` clusters,
        ``SE^2 = G / (G - 1) * sum_g (D_g - n_g * mean(d))^2 / n^2`` on ``G - 1``
        degrees of freedom. Rows in the same cluster (questions from one source,
        sentences of one document) are not independent; ignoring that makes the
        naive test reject far too often.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: B's mean is larger.
    confidence_level : float, default 0.95
        Of the interval for the mean difference.

    Returns
    -------
    PairedTTestResult
        Without clusters, the same numbers as :func:`scipy.stats.ttest_rel` (with its
        ``confidence_interval``). A zero standard error gives ``t = 0`` and ``p = 1``
        when the mean difference is 0, else ``t = +-inf`` and the limiting p-value,
        with a :class:`~booteval.DegenerateIntervalWarning`.

    Examples
    --------
    >>> a = [0.61, 0.72, 0.55, 0.80, 0.66, 0.71]
    >>> b = [0.65, 0.75, 0.54, 0.86, 0.70, 0.74]
    >>> r = paired_t_test(a, b)
    >>> round(r.estimate, 4), round(r.t, 3), r.df, round(r.p_value, 4)
    (0.0317, 3.348, 5, 0.0204)
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_confidence_level(confidence_level)
    xa = as_float_array(scores_a, "scores_a")
    xb = as_float_array(scores_b, "scores_b")
    n = check_same_length({"scores_a": xa, "scores_b": xb})
    d = xb - xa
    est = float(np.mean(d))
    if clusters is None:
        if n < 2:
            raise InvalidInputError("scores_a", "at least 2 rows", f"{n} row")
        df = n - 1
        se = float(np.std(d, ddof=1)) / math.sqrt(n)
        n_clusters = None
    else:
        design = make_design(n, clusters=clusters)
        g = design.n_units
        if g < 2:
            raise InvalidInputError("clusters", "at least 2 clusters", f"{g} cluster")
        sums = np.bincount(design.unit_of_row, weights=d, minlength=g)
        sizes = np.bincount(design.unit_of_row, minlength=g)
        resid = sums - sizes * est
        se = math.sqrt(g / (g - 1) * float(np.sum(resid * resid))) / n
        df = g - 1
        n_clusters = g
    two_sided = alternative == "two-sided"
    crit = float(_stats.t.ppf(0.5 + 0.5 * level if two_sided else level, df))
    if se == 0.0:
        warn(
            "The standard error of the paired difference is 0 (the per-row differences are "
            "all equal); the interval collapses to the mean difference and the p-value is "
            "degenerate.",
            DegenerateIntervalWarning,
            stacklevel=2,
        )
        if est == 0.0:
            t, p = 0.0, 1.0
        else:
            t = math.copysign(math.inf, est)
            p = 0.0 if two_sided or (alternative == "greater") == (est > 0) else 1.0
    else:
        t = est / se
        if two_sided:
            p = float(2.0 * _stats.t.sf(abs(t), df))
        elif alternative == "greater":
            p = float(_stats.t.sf(t, df))
        else:
            p = float(_stats.t.cdf(t, df))
    low = est - crit * se if alternative != "less" else -math.inf
    high = est + crit * se if alternative != "greater" else math.inf
    return PairedTTestResult(
        estimate=est, standard_error=se, statistic=t, df=int(df), p_value=min(1.0, p),
        low=low, high=high, confidence_level=level, alternative=alternative, n=n,
        n_clusters=n_clusters, test="paired-t" if clusters is None else "paired-t (cluster-robust)",
    )  # fmt: skip
