"""Ranking metrics: ROC-AUC and average precision (the area under the precision-recall curve).

Both metrics depend on the scores only through their order, so the scores are sorted
once, when the metric is bound. Rows with equal scores form *tie groups*; within a
group the positive rows come first, so one ``np.add.reduceat`` over the
column-permuted weight matrix gives, for every replicate at once, the positive and
the negative weight of every tie group. Cumulative sums over the groups finish the job:

* ROC-AUC is the weighted Mann-Whitney statistic
  ``sum_g P_g (Nbelow_g + N_g / 2) / (P N)``;
* average precision is sklearn's step-wise sum
  ``sum_g P_g * precision_g / P`` over thresholds in decreasing score order.

A replicate whose weights are row counts gives exactly the value on the expanded
data ``np.repeat(x, w)``. The cost is O(n) per replicate with no per-replicate
Python loop, and memory is bounded by processing at most ``_CELLS`` weight cells
at a time.

The jackknife (leave one resampling unit out) is exact:

* ROC-AUC, any design: closed form in O(n log n) -- the numerator loses the pairs
  of the removed unit's rows with all rows and gains back the pairs within it.
* Average precision: removing a unit shifts the cumulative counts of every
  later threshold by the unit's cumulative counts, which are piecewise constant
  between the unit's own tie groups. With prefix sums of
  ``P_h TP_h / (D_h - k)`` and ``P_h / (D_h - k)`` for each shift ``k`` that
  occurs, every unit costs O(its size). This is O(n) for row-level designs and
  O(n + k_max * n_groups) with clusters of at most ``k_max`` rows; clusters larger
  than ``_AP_SHIFT_MAX`` rows are evaluated directly (O(n) each, vectorized over
  chunks of clusters).
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..core.design import Design
from ..core.errors import InvalidInputError
from ..core.validation import as_float_array, as_label_array, check_same_length
from .base import (
    Evaluator,
    Metric,
    RowLevelEvaluator,
    bound_example,
    doc_fragments,
    in_blocks,
    leave_units_out,
)

__all__ = ["METRICS", "AveragePrecision", "RocAuc"]

# weight cells (replicates x rows) processed at once: bounds the temporaries, and keeps
# the per-group sums of a chunk in cache (2**19: 1.3-1.5x faster than 2**22 at 100k rows)
_CELLS = 1 << 19
# clusters larger than this are handled directly in the average-precision jackknife
_AP_SHIFT_MAX = 256


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _show(classes: np.ndarray) -> str:
    items = [repr(c.item() if hasattr(c, "item") else c) for c in classes[:10]]
    more = ", ..." if classes.shape[0] > 10 else ""
    return f"[{', '.join(items)}{more}]"


def _is_default_binary(values: list[Any]) -> bool:
    if not all(isinstance(v, numbers.Real) for v in values):
        return False
    s = set(values)
    return s == {0, 1} or s == {-1, 1}


def binary_labels(y_true: object, pos_label: Any) -> np.ndarray:
    """Boolean mask of positive rows; ``y_true`` must hold exactly two classes.

    With ``pos_label=None`` the labels must be ``{0, 1}``, ``{-1, 1}`` or booleans,
    and ``1`` (``True``) is the positive class.

    Examples
    --------
    >>> binary_labels([0, 1, 1], None).tolist()
    [False, True, True]
    >>> binary_labels(["a", "b", "a"], "a").tolist()
    [True, False, True]
    """
    y = as_label_array(y_true, "y_true")
    try:
        classes = np.unique(y)
    except TypeError:  # an unorderable mixture of label types
        raise InvalidInputError(
            "y_true", "labels of a single comparable type", f"labels of dtype {y.dtype}"
        ) from None
    if classes.shape[0] != 2:
        raise InvalidInputError(
            "y_true",
            "exactly two classes",
            f"{classes.shape[0]} class(es): {_show(classes)}",
            "A ranking metric needs both positive and negative rows"
            if classes.shape[0] < 2
            else "Ranking metrics here are binary; compute one-vs-rest scores per class.",
        )
    values = classes.tolist()
    if pos_label is None:
        if not _is_default_binary(values):
            raise InvalidInputError(
                "pos_label",
                "the positive class, since the labels are not {0, 1}, {-1, 1} or booleans",
                f"None with classes {_show(classes)}",
                f"Pass e.g. pos_label={values[1]!r}.",
            )
        pos_label = 1
    elif pos_label not in values:
        raise InvalidInputError(
            "pos_label", f"one of the classes in y_true {_show(classes)}", repr(pos_label)
        )
    return np.asarray(y == pos_label, dtype=bool)


# --------------------------------------------------------------------------------------------
# Tie groups of the sorted scores
# --------------------------------------------------------------------------------------------


class _ScoreGroups:
    """The scores sorted once; per-group positive and negative weights of any weights.

    Groups (of tied scores) are numbered in increasing score order; ``order`` sorts
    the rows by score, positives first within a group. A fixed sparse matrix sums
    any row weights into the groups' positive and negative weights.
    """

    def __init__(self, pos: np.ndarray, score: np.ndarray) -> None:
        n = score.shape[0]
        order = np.lexsort((~pos, score))
        s = score[order]
        p = pos[order]
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        group_sorted = np.cumsum(new) - 1
        self.n = n
        self.order = order
        self.n_groups = starts.shape[0]
        self.group_of_row = np.empty(n, dtype=np.intp)
        self.group_of_row[order] = group_sorted
        self.pos = pos
        self.pos_count = np.bincount(group_sorted, weights=p, minlength=self.n_groups)
        self.neg_count = np.bincount(group_sorted, minlength=self.n_groups) - self.pos_count
        # one sparse product gives every group's positive and negative weight: row g
        # adds up group g's positive rows, row n_groups + g its negative rows, each in
        # row order (so a replicate's sums do not depend on the batch it is in)
        g = self.n_groups
        target = self.group_of_row + np.where(pos, 0, g)
        self._agg = sp.csr_matrix((np.ones(n), (target, np.arange(n))), shape=(2 * g, n))

    def sums(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positive and negative weight per group, each ``(batch, n_groups)``.

        The product runs in scipy's C++ kernel with the GIL released; rows of the
        results are contiguous, for the cumulative sums along groups that follow.
        """
        both = np.ascontiguousarray((self._agg @ np.asarray(w, dtype=np.float64).T).T)
        return both[:, : self.n_groups], both[:, self.n_groups :]


def _auc_from_groups(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Weighted Mann-Whitney AUC from per-group weights in increasing score order."""
    below = np.cumsum(neg, axis=1) - neg
    num = np.einsum("ij,ij->i", pos, below + 0.5 * neg)
    den = pos.sum(axis=1) * neg.sum(axis=1)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _ap_from_groups(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Step-wise average precision from per-group weights in increasing score order."""
    p = pos[:, ::-1]
    tp = np.cumsum(p, axis=1)
    seen = tp + np.cumsum(neg[:, ::-1], axis=1)
    precision = np.zeros_like(tp)
    np.divide(tp, seen, out=precision, where=seen > 0)
    num = np.einsum("ij,ij->i", p, precision)
    total = tp[:, -1]
    out = np.full(num.shape, np.nan)
    np.divide(num, total, out=out, where=total > 0)
    return out


def _cluster_entries(
    unit_of_row: np.ndarray, group: np.ndarray, pos: np.ndarray, n_groups: int
) -> dict[str, np.ndarray]:
    """Per (unit, group) positive and row counts, sorted by unit then group."""
    key = unit_of_row.astype(np.int64) * n_groups + group
    uk, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    pc = np.bincount(inv, weights=pos)
    mc = np.bincount(inv).astype(float)
    unit = uk // n_groups
    grp = uk - unit * n_groups
    first = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    last = np.r_[first[1:] - 1, unit.shape[0] - 1]
    # every unit holds at least one row (designs encode the labels present), so
    # first[u] is unit u's first entry
    return {"unit": unit, "group": grp, "pc": pc, "mc": mc, "first": first, "last": last}


def _within_cumsum(values: np.ndarray, unit: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``values`` restarting at each unit (inclusive)."""
    c = np.cumsum(values)
    base = (c - values)[first]
    return c - base[unit]


# --------------------------------------------------------------------------------------------
# Evaluators
# --------------------------------------------------------------------------------------------


class _RankingEvaluator(RowLevelEvaluator):
    """Shared replicate machinery for the ranking metrics."""

    def __init__(self, pos: np.ndarray, score: np.ndarray, design: Design) -> None:
        super().__init__(design.n_rows, design.n_units)
        self.design = design
        self.groups = _ScoreGroups(pos, score)

    @staticmethod
    def _stat(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _from_row_weights(self, row_weights: np.ndarray) -> np.ndarray:
        def block(s: slice) -> np.ndarray:
            return self._stat(*self.groups.sums(row_weights[s]))

        return in_blocks(row_weights.shape[0], self.n_rows, _CELLS, block)

    def estimate(self) -> float:
        g = self.groups
        return float(self._stat(g.pos_count[None, :], g.neg_count[None, :])[0])

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        uw = np.asarray(unit_weights, dtype=np.float64)
        rows = self.design.row_weights
        return in_blocks(
            uw.shape[0], self.n_rows, _CELLS, lambda s: self._from_row_weights(rows(uw[s]))
        )

    def _leave_units_out_direct(self, units: np.ndarray) -> np.ndarray:
        """Leave-one-unit-out values for ``units`` by direct evaluation (O(n) each)."""
        return leave_units_out(self, units, _CELLS)


class AucEvaluator(_RankingEvaluator):
    _stat = staticmethod(_auc_from_groups)
    has_standard_error = True
    #: the compiled kernel family it declares (:mod:`booteval.core.kernel_plan`)
    kernel = "auc"

    def standard_errors(self, unit_weights: np.ndarray) -> np.ndarray:
        """DeLong's standard error of every replicate (plug-in variances).

        A row's influence on the AUC is its placement less the AUC, over its class's
        weight; the variance sums the squared influence of every drawn unit (a row,
        or a whole cluster, whose rows' influences add up first). On the original
        rows this is DeLong's variance with divisors ``m`` and ``n`` for ``m - 1`` and
        ``n - 1``; NaN where one class is absent.
        """
        from ..core.auc_kernels import delong_standard_errors

        d = self.design
        layout = getattr(self, "_delong_layout", None)  # (design, arrays): with_design copies
        if layout is None or layout[0] is not d:
            g = self.groups
            rows = np.asarray(g.order, dtype=np.int64)
            unit = np.asarray(d.unit_of_row, dtype=np.int64)[rows] if d.clustered else rows
            group = np.asarray(g.group_of_row[rows], dtype=np.int64)
            layout = self._delong_layout = (d, unit, g.pos[rows], group, g.n_groups)
        return delong_standard_errors(unit_weights, *layout[1:], bool(d.clustered))

    def jackknife(self) -> np.ndarray:
        g = self.groups
        d = self.design
        P, N = g.pos_count, g.neg_count
        p_tot, n_tot = P.sum(), N.sum()
        neg_below = np.cumsum(N) - N
        pos_above = p_tot - np.cumsum(P)
        num = float(P @ (neg_below + 0.5 * N))
        grp, pos = g.group_of_row, g.pos
        # each row's pairs with all rows of the other class
        pairs = np.where(pos, neg_below[grp] + 0.5 * N[grp], pos_above[grp] + 0.5 * P[grp])
        u = d.unit_of_row
        k = d.n_units
        removed = np.bincount(u, weights=pairs, minlength=k)
        pc = np.bincount(u, weights=pos, minlength=k)
        nc = np.bincount(u, minlength=k) - pc
        within = np.zeros(k)
        if d.clustered:
            e = _cluster_entries(u, grp, pos, g.n_groups)
            ne = e["mc"] - e["pc"]
            below = _within_cumsum(ne, e["unit"], e["first"]) - ne
            within = np.bincount(e["unit"], weights=e["pc"] * (below + 0.5 * ne), minlength=k)
        num_k = num - removed + within
        den = (p_tot - pc) * (n_tot - nc)
        out = np.full(k, np.nan)
        np.divide(num_k, den, out=out, where=den > 0)
        return out


class _ApEvaluator(_RankingEvaluator):
    #: the compiled engine's statistic (:mod:`booteval.core.rank_kernels`)
    compiled_statistic: ClassVar[str] = "average_precision"

    _stat = staticmethod(_ap_from_groups)

    def jackknife(self) -> np.ndarray:
        g = self.groups
        d = self.design
        G = g.n_groups
        k_units = d.n_units
        # groups in decreasing score order: h = G - 1 - g
        P = g.pos_count[::-1]
        TP = np.cumsum(P)
        D = TP + np.cumsum(g.neg_count[::-1])  # >= 1 everywhere
        p_tot = TP[-1]
        F0 = np.r_[0.0, np.cumsum(P * TP / D)]
        h_row = G - 1 - g.group_of_row
        e = _cluster_entries(d.unit_of_row, h_row, g.pos, G)
        unit, h, pc, mc, first, last = (
            e["unit"],
            e["group"],
            e["pc"],
            e["mc"],
            e["first"],
            e["last"],
        )
        dt = _within_cumsum(pc, unit, first)  # positives removed at or above h
        dd = _within_cumsum(mc, unit, first)  # rows removed at or above h
        # groups above the unit's first group are untouched
        total = F0[h[first]].copy()
        # the unit's own groups
        num = (P[h] - pc) * (TP[h] - dt)
        den = D[h] - dd
        own = np.zeros_like(num)
        np.divide(num, den, out=own, where=den > 0)
        total += np.bincount(unit, weights=own, minlength=k_units)
        # segments of untouched groups between the unit's groups: constant shifts (dt, dd)
        nxt = np.r_[h[1:], G]
        nxt[last] = G
        lo, hi = h + 1, nxt
        size = np.bincount(d.unit_of_row, minlength=k_units)
        big = size > _AP_SHIFT_MAX
        seg = np.flatnonzero((hi > lo) & ~big[unit])
        if seg.size:
            ks = dd[seg]
            srt = np.argsort(ks, kind="stable")
            seg, ks = seg[srt], ks[srt]
            values, bounds = np.unique(ks, return_index=True)
            bounds = np.r_[bounds, seg.size]
            seg_sum = np.zeros(seg.size)
            for j, kval in enumerate(values):
                rem = D - kval
                valid = rem > 0
                fk = np.zeros(G)
                hk = np.zeros(G)
                np.divide(P * TP, rem, out=fk, where=valid)
                np.divide(P, rem, out=hk, where=valid)
                Fk = np.r_[0.0, np.cumsum(fk)]
                Hk = np.r_[0.0, np.cumsum(hk)]
                s = seg[bounds[j] : bounds[j + 1]]
                seg_sum[bounds[j] : bounds[j + 1]] = (Fk[hi[s]] - Fk[lo[s]]) - dt[s] * (
                    Hk[hi[s]] - Hk[lo[s]]
                )
            total += np.bincount(unit[seg], weights=seg_sum, minlength=k_units)
        p_left = p_tot - dt[last]
        out = np.full(k_units, np.nan)
        np.divide(total, p_left, out=out, where=p_left > 0)
        if big.any():
            units = np.flatnonzero(big)
            out[units] = self._leave_units_out_direct(units)
        return out


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


class _BinaryRankingMetric(Metric):
    """Base of metrics on ``(y_true, y_score)``: binary labels and real-valued scores."""

    input_names: ClassVar[tuple[str, ...]] = ("y_true", "y_score")
    bounds = (0.0, 1.0)
    _evaluator: ClassVar[type[_RankingEvaluator]]

    def __init__(self, *, pos_label: Any = None) -> None:
        super().__init__(**({} if pos_label is None else {"pos_label": pos_label}))
        self.pos_label = pos_label

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        if len(arrays) != 2:
            raise InvalidInputError(
                "arrays", "two arrays (y_true, y_score)", f"{len(arrays)} array(s)"
            )
        y_raw = as_label_array(arrays[0], "y_true")
        y_score = as_float_array(arrays[1], "y_score")
        check_same_length({"y_true": y_raw, "y_score": y_score})
        is_pos = binary_labels(y_raw, self.pos_label)
        return is_pos.astype(np.float64), y_score

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        y, score = arrays
        pos = np.asarray(y, dtype=float) > 0.5
        return self._evaluator(pos, np.asarray(score, dtype=np.float64), design)

    def from_groups(self, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
        """The metric of each row of per-group positive and negative weights ``(R, G)``,
        groups (distinct scores, or bins of them) in increasing score order.

        Examples
        --------
        >>> RocAuc().from_groups(np.array([[0.0, 1.0, 1.0]]), np.array([[1.0, 1.0, 0.0]]))
        array([0.875])
        """
        return self._evaluator._stat(pos, neg)


#: the ``pos_label`` parameter, as the ranking metrics document it
_POS_LABEL_DOC = """\
pos_label : scalar, optional
    The positive class. By default ``1`` (``True``), which requires labels in
    ``{0, 1}``, ``{-1, 1}`` or booleans; other labels need an explicit value."""


@doc_fragments(pos_label=_POS_LABEL_DOC)
class RocAuc(_BinaryRankingMetric):
    """Area under the ROC curve (the probability that a positive outranks a negative).

    Ties count one half. Equals :func:`sklearn.metrics.roc_auc_score`; on a bootstrap
    replicate it equals that function on the expanded (repeated) rows, and it is NaN
    when the replicate holds no positive or no negative row.

    Parameters
    ----------
    {pos_label}

    Notes
    -----
    The scores are sorted once when bound; each replicate is then O(n) vectorized
    work (a weighted Mann-Whitney statistic over tie groups). The jackknife is exact
    and closed form, O(n log n), for row-level and cluster designs alike.

    Examples
    --------
    >>> RocAuc()([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> from booteval.design import make_design
    >>> m = RocAuc(pos_label="spam")
    >>> data = m.validate(["ham", "ham", "spam", "spam"], [0.1, 0.4, 0.35, 0.8])
    >>> ev = m.bind(data, make_design(4))
    >>> ev.replicates(np.array([[2.0, 0.0, 1.0, 1.0], [1.0, 1.0, 2.0, 0.0]])).tolist()
    [1.0, 0.5]
    >>> ev.jackknife().tolist()
    [0.5, 1.0, 1.0, 0.5]
    """

    name = "roc_auc"
    auto_family: ClassVar[str] = "roc_auc"
    _evaluator = AucEvaluator


@doc_fragments(
    pos_label=_POS_LABEL_DOC,
    example=bound_example(
        "AveragePrecision", "[0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]", "0.8333333333333333"
    ),
)
class AveragePrecision(_BinaryRankingMetric):
    """Average precision: the step-wise area under the precision-recall curve.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over score thresholds in decreasing order,
    tied scores forming one threshold, exactly as
    :func:`sklearn.metrics.average_precision_score`. On a bootstrap replicate it equals
    that function on the expanded (repeated) rows; it is NaN when the replicate holds
    no positive row.

    Parameters
    ----------
    {pos_label}

    Notes
    -----
    The scores are sorted once; each replicate is O(n) vectorized work. The
    jackknife is exact: O(n) for row-level designs and O(n + k * n_groups) for
    clusters of at most ``k`` rows (clusters over 256 rows are evaluated directly,
    O(n) each).

    {example}
    >>> ev.replicates(np.array([[2.0, 2.0, 0.0, 0.0], [0.0, 1.0, 0.0, 3.0]])).tolist()
    [nan, 1.0]
    """

    name = "average_precision"
    _evaluator = _ApEvaluator


METRICS: dict[str, type[Metric]] = {
    "roc_auc": RocAuc,
    "average_precision": AveragePrecision,
}
