"""Questions about a whole leaderboard at once, answered from its shared replicates.

* **Simultaneous intervals** for every pairwise difference (bootstrap max-T): with
  ``d*`` a replicate's differences and ``se`` their bootstrap standard deviations
  (``np.std(d*, ddof=1)``, each bootstrap pair's ``standard_error``), the
  critical value ``c`` is the ``confidence_level`` quantile of
  ``max over pairs of |d* - d_hat| / se``, and each pair's interval is ``d_hat -/+ c se``.
  All of them hold together with the stated probability, where each pairwise interval
  alone holds its own; ``c`` is larger than a single pair's quantile.
  The systems **tied with the leader** are those whose simultaneous interval of the
  difference to the leader contains 0: the set the data cannot separate from the leader
  with all comparisons holding together.
* **The probability of being best**: the share of replicates in which a system has the
  best value (ties shared equally), the bootstrap's answer to "how sure is the leader?".
* **The expected rank**: each system's mean rank over the replicates (ties share the
  minimum rank, as the leaderboard's ranks do).

All read ``LeaderboardResult.distribution`` (the replicates of every system on the same
draws), so they cost no new run; the max-T statistic is computed replicate by replicate
(:func:`~booteval.core.row_kernels.max_t`), never forming the ``(B, pairs)`` differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.format import format_triplet
from ..core.intervals import CLOSED_FORMS, RESAMPLED, order_statistic_quantile
from ..core.row_kernels import max_t, min_ranks, pair_deviations
from ..core.validation import check_confidence_level
from ..report import text_table

__all__ = ["SimultaneousIntervals", "probability_best", "rank_replicates", "simultaneous_intervals"]


@dataclass(frozen=True)
class SimultaneousIntervals:
    """Intervals for every pairwise difference ``B - A`` that hold all together.

    Attributes
    ----------
    confidence_level : float
        The probability that every interval holds its difference at once.
    critical_value : float
        The max-T quantile ``c``: each interval is ``difference -/+ c * standard_error``.
    pairs : tuple of dict
        One per pair, in the leaderboard's order (``name_b`` the higher-ranked system):
        ``name_a``, ``name_b``, ``difference``, ``standard_error``, ``low``, ``high``,
        ``excludes_zero``.
    n_resamples : int
        The replicates the quantile is read from.
    names : tuple of str
        The systems in leaderboard order (the leader first).
    """

    confidence_level: float
    critical_value: float
    pairs: tuple[dict[str, Any], ...]
    n_resamples: int
    names: tuple[str, ...] = ()

    @property
    def leader(self) -> str:
        """The leader (rank 1 by point estimate)."""
        return self.names[0] if self.names else self.pairs[0]["name_b"]

    @property
    def tied_with_leader(self) -> tuple[str, ...]:
        """The leader and every system whose simultaneous interval of the difference to
        the leader contains 0, in leaderboard order: the systems not separated from the
        leader when all pairwise intervals hold together."""
        leader = self.leader
        tied = {
            p["name_a"] if p["name_b"] == leader else p["name_b"]
            for p in self.pairs
            if leader in (p["name_a"], p["name_b"]) and p["low"] <= 0.0 <= p["high"]
        }
        names = self.names or tuple(dict.fromkeys(
            n for p in self.pairs for n in (p["name_b"], p["name_a"])
        ))  # fmt: skip
        return tuple(n for n in names if n == leader or n in tied)

    def table(self, scale: float = 1.0, digits: int = 4) -> tuple[list[str], list[list[str]]]:
        """The column names and one row per pair (the difference with its simultaneous
        interval, and whether it excludes 0): what :meth:`to_text` and the command line's
        ``--joint`` print."""
        pct = f"{self.confidence_level * 100:g}%"
        head = ["pair (B - A)", f"difference ({pct} simultaneous)", "separated"]
        rows = [
            [
                f"{p['name_b']} - {p['name_a']}",
                format_triplet(p["difference"], p["low"], p["high"], scale=scale, digits=digits),
                "yes" if p["excludes_zero"] else "no",
            ]
            for p in self.pairs
        ]
        return head, rows

    @property
    def title(self) -> str:
        """What the intervals are, in one line."""
        return (
            f"{self.confidence_level * 100:g}% simultaneous intervals (bootstrap max-T over "
            f"{len(self.pairs)} pairs, "
            f"c = {self.critical_value:.3f}, B = {self.n_resamples})"
        )

    def to_text(self, scale: float = 1.0, digits: int = 4) -> str:
        """The title, the table of :meth:`table`, aligned, and the systems tied with the
        leader."""
        table = text_table(*self.table(scale, digits), right=(1,))
        return f"{self.title}\n{table}\n\n{self.tied_line}"

    @property
    def tied_line(self) -> str:
        """The systems tied with the leader, in one line."""
        tied = self.tied_with_leader
        return (
            f"tied with the leader {self.leader} at {self.confidence_level * 100:g}% "
            f"(the simultaneous interval of the difference contains 0): {len(tied) - 1} "
            f"system{'' if len(tied) == 2 else 's'}"
            + (f" ({', '.join(tied[1:])})" if len(tied) > 1 else "")
        )

    def __str__(self) -> str:
        return self.to_text()


def simultaneous_intervals(
    result: Any, confidence_level: float | None = None
) -> SimultaneousIntervals:
    """Bootstrap max-T intervals for all pairwise differences of a leaderboard.

    Examples
    --------
    >>> import numpy as np, booteval
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> systems = {f"m{k}": np.where(rng.random(300) < 0.6 + 0.1 * k, y, 1 - y)
    ...            for k in range(3)}
    >>> board = booteval.leaderboard(systems, y_true=y, metric="accuracy", seed=0,
    ...                              n_resamples=2000)
    >>> joint = board.simultaneous()
    >>> round(joint.critical_value, 2) > 1.96, len(joint.pairs), joint.tied_with_leader
    (True, 3, ('m2',))
    """
    level = result.confidence_level if confidence_level is None else confidence_level
    level = check_confidence_level(level)
    reps = np.asarray(result.distribution, dtype=float)
    index = {name: j for j, name in enumerate(result.system_names)}
    if not result.pairs:
        raise InvalidInputError("result", "a leaderboard of at least two systems", "one")
    ia = np.array([index[p.name_a] for p in result.pairs], dtype=np.int64)
    ib = np.array([index[p.name_b] for p in result.pairs], dtype=np.int64)
    est = np.array(_estimates(result, index))
    hats = est[ib] - est[ia]
    # each difference's bootstrap SD: the pair's standard error where it is that SD (a
    # bootstrap or closed-form pair), NumPy's np.std of the differences otherwise
    methods = result.pair_methods or (result.method,) * len(result.pairs)
    se = np.array([p.standard_error for p in result.pairs], dtype=float)
    other = np.array([m not in RESAMPLED and m not in CLOSED_FORMS for m in methods])
    if reps.shape[0] < 2 or not np.all(np.isfinite(se)):
        other[:] = True
    if other.any():
        se[other] = pair_deviations(np.ascontiguousarray(reps.T), ia[other], ib[other])
    # and each replicate's largest |d* - d_hat| / SD
    live = se > 0
    worst = max_t(reps, ia[live], ib[live], hats[live], se[live])
    c = order_statistic_quantile(np.sort(worst), level)  # the endpoints' quantile rule
    out = []
    for p, d, s in zip(result.pairs, hats.tolist(), se.tolist(), strict=True):
        low, high = float(d - c * s), float(d + c * s)
        out.append({
            "name_a": p.name_a, "name_b": p.name_b, "difference": float(d),
            "standard_error": float(s), "low": low, "high": high,
            "excludes_zero": bool(low > 0 or high < 0),
        })  # fmt: skip
    names = tuple(e.name for e in result.entries)
    return SimultaneousIntervals(level, c, tuple(out), int(worst.size), names)


def _estimates(result: Any, index: dict[str, int]) -> list[float]:
    est = [math.nan] * len(index)
    for e in result.entries:
        est[index[e.name]] = e.estimate
    return est


def probability_best(result: Any) -> dict[str, float]:
    """Each system's share of replicates in which it is best (ties shared), best first.

    Examples
    --------
    >>> import numpy as np, booteval
    >>> board = booteval.leaderboard({"a": [1, 0, 1, 1] * 25, "b": [1, 1, 1, 1] * 25},
    ...                              seed=0, n_resamples=1000)
    >>> board.p_best
    {'b': 1.0, 'a': 0.0}
    """
    reps = np.asarray(result.distribution, dtype=float)
    signed = reps if result.greater_is_better else -reps
    top = signed.max(axis=1, keepdims=True)
    winners = signed == top
    share = (winners / winners.sum(axis=1, keepdims=True)).mean(axis=0)
    order = [e.name for e in result.entries]
    index = {name: j for j, name in enumerate(result.system_names)}
    return {name: float(share[index[name]]) for name in order}


def rank_replicates(values: np.ndarray, greater_is_better: bool) -> np.ndarray:
    """Min ranks (1 = best; ties share the smallest) along the last axis of finite values:
    a leaderboard's ranks, of its estimates or of each replicate.

    Examples
    --------
    >>> rank_replicates(np.array([[0.7, 0.9, 0.7], [0.1, 0.0, 0.2]]), True).tolist()
    [[2, 1, 2], [2, 3, 1]]
    """
    v = np.asarray(values, dtype=float)
    signed = -v if greater_is_better else v
    return min_ranks(signed.reshape(-1, v.shape[-1])).reshape(v.shape)
