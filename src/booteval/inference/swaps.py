"""The permutation test's swaps.

How each design swaps paired outputs, and the swap weight source the engine draws from (random
swaps on the ``permutation`` stream, or the exact enumeration).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.design import Design, make_design
from ..core.errors import (
    InvalidInputError,
)
from ..core.streams import generator
from ..core.validation import (
    describe_value,
)
from ..core.weights import WeightSource, cut_blocks
from ..metrics import Metric
from ..metrics.base import Evaluator, SumEvaluator, matmul

# --------------------------------------------------------------------------------------------
# Permutation test: inputs
# --------------------------------------------------------------------------------------------

#: ``exact=True`` enumerates the swaps of at most this many units (2**20 swaps)
MAX_EXACT_UNITS = 20
# swap-matrix cells (permutations x units) per generator block; a block has at most
# _BLOCK_PERMUTATIONS rows, and its size depends only on the number of swappable units
_BLOCK_CELLS = 1 << 22
_BLOCK_PERMUTATIONS = 1024
# the pooled binding must reproduce each system's own value to this relative tolerance
_POOLED_RTOL = 1e-9
_UNDEFINED_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)
# the compiled swap kernel takes a sum metric's sparse statistics (confusion-matrix cells)
# as dense columns up to this many
_DENSE_COLUMNS = 64


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
        return self.statistics_of_shift(zd)

    def statistics_of_shift(self, zd: np.ndarray) -> np.ndarray:
        """The statistics when the swapped units move ``zd`` (their summed differences
        ``B - A``, shape ``(batch, k)``) from B's sums to A's."""
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

    def layout_evaluator(self) -> Evaluator | None:
        """The pooled evaluator when the compiled swap kernel covers it (ROC-AUC, average
        precision, Spearman, Kendall: one evaluator for every swap), else ``None``."""
        from ..metrics.ranking import AucEvaluator

        if self.presence is not None:
            return None
        entry = self._entry(None)
        if isinstance(entry, tuple):
            return None
        if type(entry) is AucEvaluator or getattr(entry, "compiled_statistic", None):
            return entry
        return None

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
        self, m: Metric, shared: tuple[np.ndarray, ...], out_a: np.ndarray, out_b: np.ndarray,
        unit_of_row: np.ndarray, units: np.ndarray, n_units: int,
    ) -> None:  # fmt: skip
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


def _kernel_builder(swapper: _Swapper) -> Callable[[Any], Any] | None:
    """``build(kernels)`` of the compiled runner of random swaps for ``swapper`` (see
    :func:`booteval.core.engine.run_engine`), or ``None`` where no kernel covers it."""
    if isinstance(swapper, _SumSwapper) and (
        isinstance(swapper.diff, np.ndarray) or swapper.diff.shape[1] <= _DENSE_COLUMNS
    ):
        # a sum metric: the kernel adds the swapped units' diffs (a confusion matrix's few
        # cells as dense columns)
        diff, statistic = swapper.diff, swapper.statistics_of_shift
        if not isinstance(diff, np.ndarray):
            diff = diff.toarray()

        def sums(_: Any) -> Any:
            from ..core.swap_kernels import swap_sums_runner  # numba: after the engine's check

            return swap_sums_runner(diff, statistic)

        return sums
    ev = swapper.layout_evaluator() if isinstance(swapper, _WeightSwapper) else None
    if ev is None:
        return None

    def layout(_: Any) -> Any:
        from ..core.swap_kernels import swap_layout_runner

        runner = swap_layout_runner(ev, swapper.units, swapper.n_units)
        return None if isinstance(runner, str) else runner

    return layout


def _make_swapper(
    m: Metric, arr_a: tuple[np.ndarray, ...], arr_b: tuple[np.ndarray, ...], design: Design,
    estimates: tuple[float, float], *, vectorize: bool = True,
) -> _Swapper:  # fmt: skip
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
    the ``permutation`` stream of :mod:`booteval.core.streams` at key ``block``, so it is
    the same whatever range it is fetched in (and ``R`` permutations are a prefix of any
    longer run).

    Examples
    --------
    >>> z = _random_swaps(0, 5, 0, 4)
    >>> z.shape, bool((_random_swaps(0, 5, 2, 3) == z[2:3]).all())
    ((4, 5), True)
    """
    if stop <= start:
        return np.zeros((0, k), dtype=np.float64)
    blocks = cut_blocks(lambda s, j: _random_block(s, j, k), _block_size(k), seed, start, stop)
    return blocks.astype(np.float64)


def _exact_swaps(k: int, start: int, stop: int) -> np.ndarray:
    """Swaps ``start .. stop - 1`` of the ``2**k`` in binary order (row ``r``: the bits of ``r``).

    Examples
    --------
    >>> _exact_swaps(2, 0, 4).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """
    r = np.arange(start, stop, dtype=np.int64)
    return ((r[:, None] >> np.arange(k, dtype=np.int64)) & 1).astype(np.float64)


class _SwapSource(WeightSource):
    """Swap indicators as the engine's weight source: all ``2**k`` in binary order when
    exact, else random swaps from the ``permutation`` stream (independent of batching)."""

    clustered = False
    stream = "permutation"

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
