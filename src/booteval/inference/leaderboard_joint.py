"""Questions about a whole leaderboard at once, answered from its shared replicates.

* **Simultaneous intervals** for every pairwise difference (bootstrap max-T): with
  ``d*`` a replicate's differences and ``se`` their bootstrap standard deviations, the
  critical value ``c`` is the ``confidence_level`` quantile of
  ``max over pairs of |d* - d_hat| / se``, and each pair's interval is ``d_hat -/+ c se``.
  All of them hold together with the stated probability, where each pairwise interval
  alone holds its own; ``c`` is larger than a single pair's quantile.
* **The probability of being best**: the share of replicates in which a system has the
  best value (ties shared equally), the bootstrap's answer to "how sure is the leader?".

Both read ``LeaderboardResult.distribution`` (the replicates of every system on the same
draws), so they cost no new run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.format import format_triplet
from ..core.intervals import order_statistic_quantile
from ..core.validation import check_confidence_level
from ..report import text_table

__all__ = ["SimultaneousIntervals", "probability_best", "simultaneous_intervals"]


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
    """

    confidence_level: float
    critical_value: float
    pairs: tuple[dict[str, Any], ...]
    n_resamples: int

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
        """The title and the table of :meth:`table`, aligned."""
        return f"{self.title}\n{text_table(*self.table(scale, digits), right=(1,))}"

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
    >>> round(joint.critical_value, 2) > 1.96, len(joint.pairs)
    (True, 3)
    """
    level = result.confidence_level if confidence_level is None else confidence_level
    level = check_confidence_level(level)
    reps = np.asarray(result.distribution, dtype=float)
    index = {name: j for j, name in enumerate(result.system_names)}
    pairs = [(index[p.name_a], index[p.name_b], p) for p in result.pairs]
    if not pairs:
        raise InvalidInputError("result", "a leaderboard of at least two systems", "one")
    est = np.array(_estimates(result, index))
    diffs = np.stack([reps[:, b] - reps[:, a] for a, b, _ in pairs], axis=1)
    hats = np.array([est[b] - est[a] for a, b, _ in pairs])
    se = diffs.std(axis=0, ddof=1)
    live = se > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diffs[:, live] - hats[live]) / se[live]
    worst = t.max(axis=1) if t.shape[1] else np.zeros(reps.shape[0])
    c = order_statistic_quantile(np.sort(worst), level)  # the endpoints' quantile rule
    out = []
    for (_a, _b, p), d, s in zip(pairs, hats, se, strict=True):
        low, high = float(d - c * s), float(d + c * s)
        out.append({
            "name_a": p.name_a, "name_b": p.name_b, "difference": float(d),
            "standard_error": float(s), "low": low, "high": high,
            "excludes_zero": bool(low > 0 or high < 0),
        })  # fmt: skip
    return SimultaneousIntervals(level, c, tuple(out), int(worst.size))


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
