"""A leaderboard's pairwise differences, all ``K (K - 1) / 2`` of them from the shared
replicates.

Each pair's interval, standard error and p-value are those :func:`booteval.compare` forms
from the same replicates (one pair at a time, :func:`~.leaderboard_results._pair_interval`),
to the last bit. Pairs whose method is a bootstrap interval of the replicates alone are
formed in blocks, on several threads: a block's differences are one ``(pairs, B)`` array,
whose means, standard deviations and counts, and BCa's jackknife sums, come from one
compiled pass over each pair's two rows of replicates (or of jackknife values) that sums
as NumPy does (:func:`~booteval.core.row_kernels.pair_rows`; NumPy's own reductions along
each row where :func:`~booteval.core.row_kernels.sums_match_numpy` finds otherwise), and
the intervals come from :func:`~booteval.core.row_intervals.row_intervals`, which sorts only
the positions the endpoints read. A pair that meets a degenerate case is formed on its
own, with its notes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..core.intervals import RESAMPLED, CountedJackknife
from ..core.jackknife_t import leave_one_cluster_out
from ..core.kernels import threads
from ..core.row_intervals import row_intervals
from ..core.row_kernels import jackknife_sums, pair_rows, row_counts, sums_match_numpy
from ..metrics import Metric
from .auto_method import FEW_CLUSTERS, Case, choose, outcomes, paired_case_of
from .comparison import resampled_p_value
from .leaderboard_results import _pair_interval

__all__ = ["board_pair_methods", "board_pairs", "resampled_pairs"]

#: values of one block's largest array (the differences, or the jackknife rows): 16 MiB
_BLOCK_VALUES = 1 << 21


def board_pair_methods(
    m: Metric, names: list[str], arrays: dict[str, tuple[np.ndarray, ...]], plan: Any,
    stacked: Any, method: str, auto: bool, studentized: bool,
    jackknives: dict[str, np.ndarray] | None = None,
) -> dict[tuple[int, int], str]:  # fmt: skip
    """Each pair's interval method, ``(ia, ib) -> method`` for ``B = ib``, ``A = ia``:
    ``method``, or with ``auto`` the one :func:`booteval.compare` takes for that pair
    (its :func:`~.auto_method.paired_case_of`, with every pair's discordant rows and
    constant differences computed at once, and each system's leave-one-cluster-out values
    once, kept in ``jackknives`` by name where that is given)."""
    k = len(names)
    pairs = [(ia, ib) for ia in range(k) for ib in range(k) if ia != ib]
    if not auto:
        return dict.fromkeys(pairs, method)
    grads = [getattr(p, "gradient", None) is not None for p in stacked.parts]
    ys = [outcomes(m, arrays[name]) for name in names]  # once per system, not per pair
    scores = [m.row_scores(*arrays[name]) for name in names]
    discordant = _discordant(ys)
    constant = _constant_differences(scores)
    jackknives = {} if jackknives is None else jackknives
    if (
        plan.clustered
        and plan.n_clusters < FEW_CLUSTERS
        and not all(grads)
        and all(y is None and s is None for y, s in zip(ys, scores, strict=True))
    ):  # the pairs' case asks whether B - A's cluster jackknife t can be formed
        for name in names:
            if name not in jackknives:
                jackknives[name] = leave_one_cluster_out(m, arrays[name], plan.unit_of_row)
    chosen: dict[Case, str] = {}
    out: dict[tuple[int, int], str] = {}
    for ia, ib in pairs:
        if (ib, ia) in out:  # the rule does not depend on the orientation
            out[(ia, ib)] = out[(ib, ia)]
            continue
        case = paired_case_of(
            m, arrays[names[ia]], arrays[names[ib]], plan, studentized=studentized,
            analytic_se=grads[ia] and grads[ib], known_outcomes=(ys[ia], ys[ib]),
            known_scores=(scores[ia], scores[ib]),
            known_pair=(discordant[ia][ib], constant[ia][ib]),
            known_jackknife=(jackknives[names[ia]], jackknives[names[ib]])
            if names[ia] in jackknives else None,
        )  # fmt: skip
        if case not in chosen:
            chosen[case] = choose(case).method
        out[(ia, ib)] = chosen[case]
    return out


def _discordant(ys: list[np.ndarray | None]) -> list[list[int | None]]:
    """``[ia][ib]``: the rows where exactly one of two systems is right, for every pair of
    systems with 0/1 outcomes (``paired_counts``' ``only_a + only_b``; else ``None``),
    from one matrix product of the outcomes (integers, exact)."""
    k = len(ys)
    out: list[list[int | None]] = [[None] * k for _ in range(k)]
    have = [j for j, y in enumerate(ys) if y is not None]
    if len(have) < 2:
        return out
    right = np.empty((len(have), len(ys[have[0]])))  # one system a row
    for u, j in enumerate(have):
        np.not_equal(ys[j], 0, out=right[u])
    both = right @ right.T
    total = np.diag(both)
    counts = (total[:, None] + total[None, :] - 2.0 * both).astype(np.int64).tolist()
    for u, a in enumerate(have):
        row = out[a]
        for v, b in enumerate(have):
            row[b] = counts[u][v]
    return out


def _constant_differences(scores: list[np.ndarray | None]) -> list[list[bool]]:
    """``[ia][ib]``: whether ``scores[ib] - scores[ia]`` is the same on every row (checked
    on all rows for the pairs whose differences agree on the first few)."""
    k = len(scores)
    out = [[False] * k for _ in range(k)]
    have = [j for j, s in enumerate(scores) if s is not None]
    if len(have) < 2:
        return out
    first = np.stack([np.asarray(scores[j])[:64] for j in have], axis=1)
    maybe = np.ones((len(have), len(have)), dtype=bool)
    for row in first[1:]:
        maybe &= (row[None, :] - row[:, None]) == (first[0][None, :] - first[0][:, None])
    for u, v in zip(*np.nonzero(maybe), strict=True):
        a, b = have[u], have[v]
        if a != b:
            d = scores[b] - scores[a]
            out[a][b] = bool(np.all(d == d[0]))
    return out


def board_pairs(
    order: list[int], names: list[str], method: str,
    pair_methods: dict[tuple[int, int], str] | None, pair_of: Callable[..., Any],
    est: np.ndarray, reps: np.ndarray, jack: Any, level: float,
    bounds: tuple[float, float] | None, ties: str, workers: int | None = None,
) -> tuple[list[dict[str, Any]], list[str], list[tuple[int, int]], list[str]]:  # fmt: skip
    """Every pair in leaderboard order (``B`` the higher-ranked system): each pair's record,
    its method, its positions ``(u, v)`` in the order, and the notes, pair by pair.

    ``pair_methods`` maps ``(ia, ib)`` to the pair's method (``method`` for every pair
    where ``None``); a method of the replicates alone is formed here, any other through
    ``pair_of(method, ia, ib, est, reps)``, whose record names under ``"method"`` the
    method it used where that is another.
    """
    k = len(order)
    pos = [(u, v) for u in range(k) for v in range(u + 1, k)]
    which = [(order[v], order[u]) for u, v in pos]  # (ia, ib)
    used = [method if pair_methods is None else pair_methods[p] for p in which]
    done: list[tuple[dict[str, Any], tuple[str, ...]] | None] = [None] * len(pos)
    for pm in sorted(set(used) & set(RESAMPLED)):
        at = [i for i, u in enumerate(used) if u == pm]
        got = resampled_pairs(
            pm, est, reps, jack, [which[i] for i in at], level, bounds, ties, names, workers
        )
        for i, res in zip(at, got, strict=True):
            done[i] = res
    raw, notes = [], []
    for i, (ia, ib) in enumerate(which):
        res = done[i]
        rec, pnotes = res if res is not None else pair_of(used[i], ia, ib, est, reps)
        if "method" in rec:  # the pair's own run took another method (and says why)
            rec = dict(rec)
            used[i] = rec.pop("method")
        notes.extend(f"pair {names[ib]} - {names[ia]}: {note}" for note in pnotes)
        raw.append(rec)
    return raw, used, pos, notes


def resampled_pairs(
    method: str, est: np.ndarray, reps: np.ndarray, jack: Any, pairs: list[tuple[int, int]],
    level: float, bounds: tuple[float, float] | None, ties: str, names: list[str],
    workers: int | None = None,
) -> list[tuple[dict[str, Any], tuple[str, ...]]]:  # fmt: skip
    """Each pair ``(ia, ib)``'s difference ``ib - ia`` by a bootstrap ``method`` of the
    shared replicates ``reps`` (``(B, K)``): the record and notes
    :func:`~.leaderboard_results._pair_interval` gives, formed in blocks of pairs on
    ``workers`` threads (all of numba's where ``None``).

    Examples
    --------
    >>> from booteval.inference.leaderboard_results import _pair_interval
    >>> rng = np.random.default_rng(0)
    >>> reps = rng.normal(size=(3000, 3))
    >>> est = np.zeros(3)
    >>> got = resampled_pairs("percentile", est, reps, None, [(0, 1), (2, 0)], 0.95, None,
    ...                       "half", ["a", "b", "c"])
    >>> got[1] == _pair_interval("percentile", est, reps, None, 2, 0, 0.95, None, "half",
    ...                          ("c", "a"))
    True
    """
    if not pairs:
        return []
    b = reps.shape[0]
    columns = np.ascontiguousarray(np.asarray(reps, dtype=float).T)  # one system a row
    counts = None
    jack_rows = None
    if method == "bca" and jack is not None:
        if isinstance(jack, CountedJackknife):
            counts = np.asarray(jack.counts, dtype=float)
            jack_rows = np.ascontiguousarray(np.asarray(jack.values, dtype=float).T)
        else:
            jack_rows = np.ascontiguousarray(np.asarray(jack, dtype=float).T)
    diff_bounds = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
    n_threads = threads(workers)
    width = max(b, 1 if jack_rows is None else jack_rows.shape[1])
    size = max(1, min(_BLOCK_VALUES // width, -(-len(pairs) // (n_threads + 1))))
    ia_all = np.array([p[0] for p in pairs], dtype=np.int64)
    ib_all = np.array([p[1] for p in pairs], dtype=np.int64)

    # the compiled pass over each pair's rows where its sums are NumPy's to the last bit
    fused = b > 1 and counts is None and sums_match_numpy()

    def block(lo: int) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
        ia, ib = ia_all[lo : lo + size], ib_all[lo : lo + size]
        hats = est[ib] - est[ia]
        point = 2.0 * hats if method == "basic" else np.zeros(len(ia))  # the p-value's
        if fused:
            diffs, mean, se, below, equal, low, high = pair_rows(
                columns, ia, ib, np.stack([hats, point], axis=1)
            )
            sums = None if jack_rows is None else jackknife_sums(jack_rows, ia, ib)
            jk = None
        else:
            diffs = columns[ib]
            diffs -= columns[ia]
            below, equal, low, high = row_counts(diffs, np.stack([hats, point], axis=1))
            mean = diffs.mean(axis=1)
            se = diffs.std(axis=1, ddof=1) if b > 1 else np.zeros(len(ia))
            sums = None
            jk = None
            if jack_rows is not None:
                jk = jack_rows[ib]
                jk -= jack_rows[ia]
        tails = _tails(method, b, mean, se, below, equal)
        outcomes = row_intervals(
            method, hats, diffs, level, jackknife=jk, jackknife_counts=counts, ties=ties,
            bounds=diff_bounds, mcse=False, counts=(below[:, :1], equal[:, :1], low, high),
            moments=(mean, se), jackknife_moments=sums,
        )  # fmt: skip
        out = []
        for j, res in enumerate(outcomes):
            a, c = int(ia[j]), int(ib[j])
            if res is None:  # a degenerate case: formed on its own, with its notes
                pair_names = (names[a], names[c])
                out.append(
                    _pair_interval(method, est, reps, jack, a, c, level, bounds, ties, pair_names)
                )
                continue
            diff_hat = float(hats[j])
            p = resampled_p_value(method, diff_hat, tails[j], "two-sided", res.details)
            rec = {
                "name_a": names[a], "name_b": names[c], "estimate_a": float(est[a]),
                "estimate_b": float(est[c]), "difference": diff_hat, "low": res.low,
                "high": res.high, "standard_error": float(se[j]) if b > 1 else 0.0,
                "p_value": p, "excludes_zero": bool(res.low > 0 or res.high < 0),
            }  # fmt: skip
            out.append((rec, res.notes))
        return out

    starts = range(0, len(pairs), size)
    first = block(0)  # here: the kernels compile (and say so) before the threads start
    if n_threads == 1 or len(starts) == 1:
        return first + [r for lo in starts[1:] for r in block(lo)]
    with ThreadPoolExecutor(min(n_threads, len(starts) - 1)) as pool:  # NumPy and the
        rest = pool.map(block, starts[1:])  # kernels release the GIL
        return first + [r for part in rest for r in part]


def _tails(
    method: str,
    b: int,
    mean: np.ndarray,
    sd: np.ndarray,
    below: np.ndarray,
    equal: np.ndarray,
) -> list[tuple[Any, Any, int]]:
    """Each row's :func:`~.comparison.replicate_tails` from its mean, SD and the counts at
    its second point (0, or twice the estimate for the basic interval)."""
    if method == "normal":
        return [(float(u), float(s), b) for u, s in zip(mean, sd, strict=True)]
    under, at = below[:, 1].tolist(), equal[:, 1].tolist()
    if method == "basic":  # above and at 2 * estimate
        return [(b - u - e, e, b) for u, e in zip(under, at, strict=True)]
    return [(u, e, b) for u, e in zip(under, at, strict=True)]
