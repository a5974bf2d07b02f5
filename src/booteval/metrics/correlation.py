"""Correlation metrics on ``(x, y)`` pairs: Pearson, Spearman and Kendall's tau-b.

A replicate's weights are row counts; every metric here equals the SciPy function
(:func:`scipy.stats.pearsonr`, :func:`~scipy.stats.spearmanr`,
:func:`~scipy.stats.kendalltau`) on the expanded data ``np.repeat(x, w)``.

* **Pearson** is a function of six weighted sums (of ``1, x, y, x^2, y^2, xy``, with
  ``x`` and ``y`` centred on their means first): one matrix product for all
  replicates and a closed-form jackknife (:class:`~booteval.metrics.SumEvaluator`).
* **Spearman** ranks each replicate with average ranks of the expanded data, from a
  single sort per variable: per tie group, rank = weight strictly below + (weight
  in the group + 1) / 2. Each replicate is O(n) vectorized work.
* **Kendall's tau-b** needs ``C - D = sum_{i<j} w_i w_j sign(x_i - x_j) sign(y_i - y_j)``.
  With ``A = sum_i w_i * (weight of rows above i in both x and y)``, the pairs split
  as ``C - D = 2 A + E - X`` where ``X`` is the weight of pairs with distinct ``x``
  and ``E`` that of pairs with distinct ``x`` and equal ``y`` (both from tie-group
  sums). ``A`` is a weighted 2-D dominance sum, computed by a merge-sort-like pass
  over ``log2(n)`` levels whose index arrays depend only on the data: the weights
  enter through cumulative sums, so all replicates of a batch are processed
  together in O(batch * n log n), exactly (integer arithmetic in float64).

Jackknife (leave one resampling unit out), all exact:

* Pearson: closed form, O(n).
* Kendall: closed form, O(n log^2 n), for row-level and cluster designs alike. A
  unit's removal drops ``sum_{i in unit} K_i`` from ``C - D`` (``K_i`` are the row
  sums of the sign matrix, again dominance counts) and adds back the pairs within
  the unit.
* Spearman: closed form, O(n log^2 n), for row-level designs: removing row ``i``
  shifts the centred rank of every other row by ``sign(x_i - x_j) / 2``, so the
  leave-one-out covariance needs only 1-D tie-group sums and the Kendall row sums.
  With clusters the removal couples pairs of rows within the cluster, and the
  values are computed directly, vectorized over chunks of clusters: O(n_clusters
  * n) time (about one second per 10^8 cluster-row cells), O(chunk * n) memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from ..core.design import Design
from ..core.errors import InvalidInputError
from ..core.validation import as_float_array, check_same_length
from .base import (
    Evaluator,
    Metric,
    RowLevelEvaluator,
    SumEvaluator,
    bound_example,
    doc_fragments,
    in_blocks,
    leave_units_out,
)

__all__ = ["METRICS", "Kendall", "Pearson", "Spearman"]

# weight cells (replicates x rows) processed at once: bounds the temporaries
_CELLS = 1 << 22
# cache the dominance index arrays (about 10 bytes per row and level) when
# n * levels stays below this; otherwise they are rebuilt on each call
_CACHE_CELLS = 1 << 21


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _dense_rank(v: np.ndarray) -> np.ndarray:
    return np.unique(v, return_inverse=True)[1].reshape(-1).astype(np.int64)


class _TieGroups:
    """One variable sorted once; per-tie-group weight sums of any weights."""

    def __init__(self, v: np.ndarray) -> None:
        n = v.shape[0]
        order = np.argsort(v, kind="stable")
        s = v[order]
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
        self.order = order
        self.starts = np.flatnonzero(new)
        self.n_groups = self.starts.shape[0]
        self.group_of_row = np.empty(n, dtype=np.intp)
        self.group_of_row[order] = np.cumsum(new) - 1
        self.counts = np.diff(np.r_[self.starts, n]).astype(float)

    def sums(self, w: np.ndarray) -> np.ndarray:
        """Weight per tie group (increasing value order), ``(batch, n_groups)``."""
        return np.add.reduceat(np.take(w, self.order, axis=1), self.starts, axis=1)


class _Dominance:
    """Weighted 2-D dominance sums over the rows strictly above a row in both variables.

    For row ``i`` the rows counted are those with ``x_j > x_i`` and ``y_j > y_i``.
    Rows are placed by increasing ``x`` (ties in ``x`` by decreasing ``y``, so a later
    row with the same ``x`` never has a larger ``y``); then "strictly above in both" is
    "later in the placement with a larger ``y``". At level ``L`` the placement is cut
    into blocks of ``s = 2^L`` positions; each row of an even block is matched with
    the following odd block, whose rows are kept sorted by ``y``, so a binary search
    gives the range of that block's rows with a larger ``y``. Every pair of positions
    ``p < q`` is split at exactly one level. The index arrays depend on the data only;
    weights enter through cumulative sums, so a batch of weight vectors costs
    O(batch * n) per level and O(batch * n log n) in all.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        self.n = x.shape[0]
        self._rx = _dense_rank(x)
        self._ry = _dense_rank(y)
        self._levels: list[tuple[np.ndarray, ...]] | None = None
        n_levels = max(int(np.ceil(np.log2(max(self.n, 1)))), 0)
        if self.n * n_levels <= _CACHE_CELLS:
            self._levels = list(self._build())

    def _build(self) -> Iterator[tuple[np.ndarray, ...]]:
        n = self.n
        ry = self._ry
        order = np.lexsort((-ry, self._rx))
        yp = ry[order]
        m = np.int64(yp.max() + 2) if n else np.int64(1)
        pos = np.arange(n, dtype=np.int64)
        itype = np.int32 if n < 2**31 - 2 else np.int64
        s = 1
        while s < n:
            blk = pos // s
            keys = blk * m + yp
            perm = np.argsort(keys, kind="stable")
            left = np.flatnonzero((blk % 2 == 0) & ((blk + 1) * s < n))
            lo = np.searchsorted(keys[perm], (blk[left] + 1) * m + yp[left], side="right")
            hi = np.minimum((blk[left] + 2) * s, n)
            yield (
                order[perm].astype(itype),
                order[left].astype(itype),
                lo.astype(itype),
                hi.astype(itype),
            )
            s *= 2

    def levels(self) -> Iterator[tuple[np.ndarray, ...]]:
        return iter(self._levels) if self._levels is not None else self._build()

    def per_row(self) -> np.ndarray:
        """Number of rows strictly above each row in both variables."""
        out = np.zeros(self.n)
        for _, left, lo, hi in self.levels():
            out[left] += hi - lo
        return out

    def weighted(self, w: np.ndarray) -> np.ndarray:
        """``sum_i w_i * sum_{j above i} w_j`` for each row of ``w`` (batch, n)."""
        b = w.shape[0]
        total = np.zeros(b)
        cs = np.zeros((b, self.n + 1))
        for rows, left, lo, hi in self.levels():
            np.cumsum(np.take(w, rows, axis=1), axis=1, out=cs[:, 1:])
            above = cs[:, hi] - cs[:, lo]
            total += np.einsum("ij,ij->i", np.take(w, left, axis=1), above)
        return total


def _pair_key(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dense codes of the pairs ``(a, b)`` of non-negative integer codes."""
    return _dense_rank(a.astype(np.int64) * (int(b.max()) + 1) + b)


def _sign_row_sums(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """``K_i = sum_j sign(x_i - x_j) sign(y_i - y_j)`` for every row, in O(n log^2 n)."""
    n = rx.shape[0]
    up = _Dominance(rx, ry).per_row()  # rows above in both x and y
    down = _Dominance(-rx, -ry).per_row()  # rows below in both
    rxy = _pair_key(rx, ry)
    cnt_x = np.bincount(rx)[rx]
    cnt_y = np.bincount(ry)[ry]
    cnt_xy = np.bincount(rxy)[rxy]
    # rows with another x: concordant (up + down), discordant, or tied in y only
    return 2.0 * (up + down) - (n - cnt_x) + (cnt_y - cnt_xy)


def _unit_group_counts(
    unit: np.ndarray, grp: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows per (unit, group) pair present: the pairs' units, groups and counts."""
    m = int(grp.max()) + 1
    uk, cnt = np.unique(unit.astype(np.int64) * m + grp, return_counts=True)
    u = uk // m
    return u, uk - u * m, cnt.astype(float)


def _sum_sq_removed(unit: np.ndarray, grp: np.ndarray, n_units: int) -> np.ndarray:
    """``sum_v c_v^2`` over tie groups ``v`` once each unit's rows are removed."""
    counts = np.bincount(grp).astype(float)
    u, g, c = _unit_group_counts(unit, grp)
    drop = np.bincount(u, weights=c * (2.0 * counts[g] - c), minlength=n_units)
    return float(counts @ counts) - drop


def _sum_sq_within(unit: np.ndarray, grp: np.ndarray, n_units: int) -> np.ndarray:
    """``sum_v c_{u,v}^2`` over the tie groups within each unit ``u``."""
    u, _, c = _unit_group_counts(unit, grp)
    return np.bincount(u, weights=c * c, minlength=n_units)


def _tau_b(cd: np.ndarray, w_tot: np.ndarray, sx2: np.ndarray, sy2: np.ndarray) -> np.ndarray:
    w2 = w_tot * w_tot
    den = (w2 - sx2) * (w2 - sy2) * 0.25
    out = np.full(np.shape(cd), np.nan)
    ok = (w2 - sx2 > 0) & (w2 - sy2 > 0)
    np.divide(cd, np.sqrt(np.where(ok, den, 1.0)), out=out, where=ok)
    return np.clip(out, -1.0, 1.0)


def _pearson_from_moments(
    cov: np.ndarray, vx: np.ndarray, vy: np.ndarray, ok: np.ndarray
) -> np.ndarray:
    out = np.full(np.shape(cov), np.nan)
    ok = ok & (vx > 0) & (vy > 0)
    np.divide(cov, np.sqrt(np.where(ok, vx * vy, 1.0)), out=out, where=ok)
    return np.clip(out, -1.0, 1.0)


# --------------------------------------------------------------------------------------------
# Pearson
# --------------------------------------------------------------------------------------------

# a variance below this fraction of the mean square is taken as zero (constant input)
_PEARSON_RTOL = 1e-12


def pearson_from_sums(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=float)
    n = s[:, 0]
    ok = n > 0
    nn = np.where(ok, n, 1.0)
    mx, my = s[:, 1] / nn, s[:, 2] / nn
    qx, qy = s[:, 3] / nn, s[:, 4] / nn
    vx = qx - mx * mx
    vy = qy - my * my
    cov = s[:, 5] / nn - mx * my
    ok = ok & (vx > _PEARSON_RTOL * qx) & (vy > _PEARSON_RTOL * qy)
    return _pearson_from_moments(cov, vx, vy, ok)


#: the upper triangle of the 6 x 6 products of Pearson's unit sums (its standard error)
_PAIRS = np.triu_indices(6)


def _pearson_extra(unit: np.ndarray) -> np.ndarray:
    """Products of each unit's six sums, the upper triangle (21 columns)."""
    return unit[:, _PAIRS[0]] * unit[:, _PAIRS[1]]


def pearson_se_from_sums(s: np.ndarray) -> np.ndarray:
    """Delta-method (linearization) standard error of Pearson's r from weighted sums.

    ``s`` holds the six sums of :func:`pearson_from_sums` and the 21 weighted sums of
    unit products (:func:`_pearson_extra`). With ``T`` the sums and ``a`` the gradient of
    r with respect to them, a unit with sums ``s_g`` contributes ``z_g = a . s_g`` (whose
    weighted total is 0, r being a function of means), and the variance is
    ``sum_g w_g z_g^2 = a' M a``, ``M = sum_g w_g s_g s_g'``: valid for rows and for
    clusters, without a normality assumption. NaN where r is.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=4000)
    >>> y = 0.6 * x + 0.8 * rng.normal(size=4000)
    >>> t = np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y])
    >>> sums = np.r_[t.sum(0), _pearson_extra(t).sum(0)][None, :]
    >>> float(pearson_se_from_sums(sums)[0].round(4))  # normal theory: (1 - 0.6^2) / sqrt(4000)
    0.0102
    """
    s = np.asarray(s, dtype=float)
    r = pearson_from_sums(s[:, :6])
    n = np.where(s[:, 0] > 0, s[:, 0], 1.0)
    mu = s[:, 1:6] / n[:, None]
    mx, my = mu[:, 0], mu[:, 1]
    ok = np.isfinite(r)
    vx = np.where(ok, mu[:, 2] - mx * mx, 1.0)
    vy = np.where(ok, mu[:, 3] - my * my, 1.0)
    sd = np.sqrt(vx * vy)
    rr = np.where(ok, r, 0.0)
    # gradient with respect to the means (mx, my, mxx, myy, mxy), then the sums
    d = np.column_stack(
        [-my / sd + rr * mx / vx, -mx / sd + rr * my / vy, -rr / (2 * vx), -rr / (2 * vy), 1 / sd]
    )
    a = np.column_stack([-np.einsum("mj,mj->m", d, mu), d]) / n[:, None]
    m = np.zeros((s.shape[0], 6, 6))
    m[:, _PAIRS[0], _PAIRS[1]] = s[:, 6:]
    m[:, _PAIRS[1], _PAIRS[0]] = s[:, 6:]
    var = np.einsum("mi,mij,mj->m", a, m, a)
    return np.where(ok, np.sqrt(np.maximum(var, 0.0)), np.nan)


# --------------------------------------------------------------------------------------------
# Spearman
# --------------------------------------------------------------------------------------------


class _RankEvaluator(RowLevelEvaluator):
    """Shared replicate machinery: chunks of row weights through ``_chunk``."""

    def __init__(self, x: np.ndarray, y: np.ndarray, design: Design) -> None:
        super().__init__(design.n_rows, design.n_units)
        self.design = design
        self.gx = _TieGroups(x)
        self.gy = _TieGroups(y)

    def _chunk(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _from_row_weights(self, w: np.ndarray) -> np.ndarray:
        return in_blocks(w.shape[0], self.n_rows, _CELLS, lambda s: self._chunk(w[s]))

    def estimate(self) -> float:
        return float(self._from_row_weights(np.ones((1, self.n_rows)))[0])

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        uw = np.asarray(unit_weights, dtype=np.float64)
        rows = self.design.row_weights
        return in_blocks(
            uw.shape[0], self.n_rows, _CELLS, lambda s: self._from_row_weights(rows(uw[s]))
        )


class _SpearmanEvaluator(_RankEvaluator):
    #: the compiled engine's statistic (:mod:`booteval.core.rank_kernels`)
    compiled_statistic: ClassVar[str] = "spearman"

    @staticmethod
    def _centred_ranks(
        groups: _TieGroups, w: np.ndarray, w_tot: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per-group weights and average ranks minus the mean rank ``(W + 1) / 2``.

        Both are exact for integer weights (the ranks are half-integers).
        """
        wg = groups.sums(w)
        return wg, np.cumsum(wg, axis=1) - 0.5 * (wg + w_tot[:, None])

    def _chunk(self, w: np.ndarray) -> np.ndarray:
        w_tot = w.sum(axis=1)
        wgx, rx = self._centred_ranks(self.gx, w, w_tot)
        wgy, ry = self._centred_ranks(self.gy, w, w_tot)
        vx = np.einsum("ij,ij->i", wgx, rx * rx)
        vy = np.einsum("ij,ij->i", wgy, ry * ry)
        prod = np.take(rx, self.gx.group_of_row, axis=1)
        prod *= np.take(ry, self.gy.group_of_row, axis=1)
        cov = np.einsum("ij,ij->i", w, prod)
        return _pearson_from_moments(cov, vx, vy, w_tot > 0)

    def jackknife(self) -> np.ndarray:
        if self.design.clustered:
            return self._jackknife_direct()
        return self._jackknife_rows()

    def _jackknife_direct(self) -> np.ndarray:
        """Leave-one-cluster-out by direct evaluation: O(n_units * n), in chunks."""
        return leave_units_out(self, np.arange(self.n_units), _CELLS)

    def _jackknife_rows(self) -> np.ndarray:
        """Leave-one-row-out in closed form, O(n log^2 n).

        With centred average ranks ``a`` (of x) and ``b`` (of y), removing row ``i``
        leaves row ``j`` with centred rank ``a_j + sign(x_i - x_j) / 2``, so
        ``cov_i = sum_{j != i} a_j b_j + (sum_j a_j sy_ij + sum_j b_j sx_ij) / 2 + K_i / 4``
        and ``var_i = sum_{j != i} a_j^2 + sum_j a_j sx_ij + #{j: x_j != x_i} / 4``.
        """
        n = self.n_rows
        gx, gy = self.gx, self.gy
        ones = np.ones((1, n))
        a = self._centred_ranks(gx, ones, np.array([float(n)]))[1][0][gx.group_of_row]
        b = self._centred_ranks(gy, ones, np.array([float(n)]))[1][0][gy.group_of_row]

        def signed_sum(values: np.ndarray, groups: _TieGroups) -> np.ndarray:
            # sum_j values_j * sign(v_i - v_j) for the variable of `groups`
            tot = np.bincount(groups.group_of_row, weights=values, minlength=groups.n_groups)
            cum = np.cumsum(tot)
            below = cum - tot
            above = cum[-1] - cum
            return (below - above)[groups.group_of_row]

        k_rows = _sign_row_sums(gx.group_of_row, gy.group_of_row)
        cov = (a @ b - a * b) + 0.5 * (signed_sum(a, gy) + signed_sum(b, gx)) + 0.25 * k_rows
        cnt_x = gx.counts[gx.group_of_row]
        cnt_y = gy.counts[gy.group_of_row]
        vx = (a @ a - a * a) + signed_sum(a, gx) + 0.25 * (n - cnt_x)
        vy = (b @ b - b * b) + signed_sum(b, gy) + 0.25 * (n - cnt_y)
        # constant after the removal: one distinct value left
        ok = (gx.n_groups - (cnt_x == 1) > 1) & (gy.n_groups - (cnt_y == 1) > 1)
        return _pearson_from_moments(cov, vx, vy, ok)


# --------------------------------------------------------------------------------------------
# Kendall
# --------------------------------------------------------------------------------------------


class _KendallEvaluator(_RankEvaluator):
    compiled_statistic: ClassVar[str] = "kendall"

    def __init__(self, x: np.ndarray, y: np.ndarray, design: Design) -> None:
        super().__init__(x, y, design)
        self.rx = self.gx.group_of_row.astype(np.int64)
        self.ry = self.gy.group_of_row.astype(np.int64)
        self.gxy = _TieGroups(_pair_key(self.rx, self.ry))
        self.dom = _Dominance(self.rx, self.ry)

    def _chunk(self, w: np.ndarray) -> np.ndarray:
        w_tot = w.sum(axis=1)
        sx2 = np.square(self.gx.sums(w)).sum(axis=1)
        sy2 = np.square(self.gy.sums(w)).sum(axis=1)
        sxy2 = np.square(self.gxy.sums(w)).sum(axis=1)
        # C - D = 2 A + (pairs with distinct x, equal y) - (pairs with distinct x)
        cd = 2.0 * self.dom.weighted(w) + 0.5 * (sy2 - sxy2) - 0.5 * (w_tot * w_tot - sx2)
        return _tau_b(cd, w_tot, sx2, sy2)

    def jackknife(self) -> np.ndarray:
        """Leave-one-unit-out tau-b in closed form, O(n log^2 n).

        Removing unit ``c`` takes ``sum_{i in c} K_i`` (pairs of its rows with all
        rows, pairs within ``c`` counted twice) from ``C - D`` and adds back the
        pairs within ``c``.
        """
        n = self.n_rows
        k = self.n_units
        u = self.design.unit_of_row
        rx, ry, rxy = self.rx, self.ry, self.gxy.group_of_row
        cd = self._from_counts(self.dom.per_row().sum(), n, self.gx, self.gy, self.gxy)
        removed = np.bincount(u, weights=_sign_row_sums(rx, ry), minlength=k)
        size = np.bincount(u, minlength=k).astype(float)
        within = np.zeros(k)
        if self.design.clustered:
            # pairs within a unit: dominance on (unit, x) and (unit, y) codes counts
            # every row of a later unit as above, which is subtracted
            up = _Dominance(_pair_key(u, rx), _pair_key(u, ry)).per_row()
            up -= n - np.cumsum(size)[u]
            sqx = _sum_sq_within(u, rx, k)
            sqy = _sum_sq_within(u, ry, k)
            sqxy = _sum_sq_within(u, rxy, k)
            a = np.bincount(u, weights=up, minlength=k)
            within = 2.0 * a + 0.5 * (sqy - sqxy) - 0.5 * (size * size - sqx)
        cd_k = cd - removed + within
        return _tau_b(cd_k, n - size, _sum_sq_removed(u, rx, k), _sum_sq_removed(u, ry, k))

    @staticmethod
    def _from_counts(a: float, n: int, gx: _TieGroups, gy: _TieGroups, gxy: _TieGroups) -> float:
        sx2 = float(gx.counts @ gx.counts)
        sy2 = float(gy.counts @ gy.counts)
        sxy2 = float(gxy.counts @ gxy.counts)
        return 2.0 * a + 0.5 * (sy2 - sxy2) - 0.5 * (float(n) * n - sx2)


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


class _PairMetric(Metric):
    """Base of metrics on two real-valued arrays ``(x, y)``."""

    input_names: ClassVar[tuple[str, ...]] = ("x", "y")
    bounds = (-1.0, 1.0)

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        if len(arrays) != 2:
            raise InvalidInputError("arrays", "two arrays (x, y)", f"{len(arrays)} array(s)")
        x = as_float_array(arrays[0], "x")
        y = as_float_array(arrays[1], "y")
        check_same_length({"x": x, "y": y})
        if x.shape[0] < 2:
            raise InvalidInputError("x", "at least two rows for a correlation", "1 row")
        return x, y


#: the data of the correlations' examples
_XY = "[1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 5.0]"


@doc_fragments(example=bound_example("Pearson", _XY, "0.831522", digits=6))
class Pearson(_PairMetric):
    """Pearson's correlation coefficient.

    Equals :func:`scipy.stats.pearsonr`; on a bootstrap replicate it equals that
    function on the expanded (repeated) rows, and it is NaN when either variable is
    constant in the replicate (a variance below ``1e-12`` times the mean square about
    the full data's mean counts as zero).

    Notes
    -----
    A function of six weighted sums, so all replicates are one matrix product and the
    jackknife is closed form (O(n)). ``x`` and ``y`` are centred on their means first
    for numerical stability. A studentized interval uses the delta-method standard
    error of every replicate (:func:`pearson_se_from_sums`; no normality assumed, whole
    clusters where clustered) instead of a nested bootstrap.

    {example}
    >>> ev.replicates(np.array([[2.0, 0.0, 0.0, 2.0], [4.0, 0.0, 0.0, 0.0]])).tolist()
    [1.0, nan]
    """

    name = "pearson"
    auto_family: ClassVar[str] = "pearson"

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        x, y = (np.asarray(a, dtype=np.float64) for a in arrays)
        x = x - x.mean()
        y = y - y.mean()
        stats = np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y])
        return SumEvaluator(
            stats, design, pearson_from_sums,
            se_from_sums=pearson_se_from_sums, unit_extra=_pearson_extra,
        )  # fmt: skip


@doc_fragments(example=bound_example("Spearman", _XY, "0.8"))
class Spearman(_PairMetric):
    """Spearman's rank correlation (Pearson's correlation of average ranks).

    Equals :func:`scipy.stats.spearmanr`; on a bootstrap replicate the ranks are those
    of the expanded (repeated) rows, so it equals that function on the expanded data.
    NaN when either variable is constant in the replicate.

    Notes
    -----
    Each variable is sorted once; a replicate is O(n) vectorized work. The jackknife
    is closed form, O(n log^2 n), for row-level designs; with clusters it is computed
    directly, vectorized over chunks of clusters, in O(n_clusters * n) time (fine up to
    about 10^9 cluster-row cells).

    {example}
    >>> ev.jackknife().tolist()
    [0.5, 1.0, 1.0, 0.5]
    """

    name = "spearman"

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        x, y = (np.asarray(a, dtype=np.float64) for a in arrays)
        return _SpearmanEvaluator(x, y, design)


@doc_fragments(example=bound_example("Kendall", _XY, "0.666667", digits=6))
class Kendall(_PairMetric):
    """Kendall's tau-b rank correlation (adjusted for ties).

    ``tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2))``, as :func:`scipy.stats.kendalltau`;
    on a bootstrap replicate it equals that function on the expanded (repeated) rows
    (a row paired with its own copy is tied in both variables). NaN when either
    variable is constant in the replicate.

    Notes
    -----
    ``C - D`` of every replicate comes from one weighted 2-D dominance pass over
    ``log2(n)`` merge levels whose index arrays are built once: O(batch * n log n)
    time, exact, with no per-replicate loop. The jackknife is closed form,
    O(n log^2 n), with or without clusters.

    {example}
    >>> ev.replicates(np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 2.0, 2.0, 0.0]])).round(6).tolist()
    [0.666667, -1.0]
    """

    name = "kendall"
    auto_family: ClassVar[str] = "kendall"

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        x, y = (np.asarray(a, dtype=np.float64) for a in arrays)
        return _KendallEvaluator(x, y, design)


METRICS: dict[str, type[Metric]] = {
    "pearson": Pearson,
    "spearman": Spearman,
    "kendall": Kendall,
}
