"""``booteval.leaderboard``: many systems on the same rows, ranked with honest uncertainty.

Every system is resampled with the *same* weights in every replicate (one
:class:`~booteval.core.paired.StackedEvaluator` run), so one set of ``B`` replicates
gives, at once:

* each system's interval (as :func:`booteval.ci` would give it);
* every pairwise difference with its interval and a p-value (as
  :func:`booteval.compare` would give it), adjusted for the number of pairs;
* each system's rank with a rank interval;
* groups of systems that the data cannot tell apart.

Definitions, stated exactly
---------------------------
Rank
    1 is the best, respecting the metric's ``greater_is_better``. Ties get the
    *minimum* rank ("competition" ranking: 1, 2, 2, 4), both for the point
    estimates and within each replicate.
Rank interval
    The percentile interval of a system's rank across the replicates: the
    ``ceil(p * B)``-th smallest rank at ``p = alpha / 2`` and ``1 - alpha / 2``
    (``alpha = 1 - confidence_level``). It is a marginal interval for each
    system, not a simultaneous one.
Pairs
    All ``K (K - 1) / 2`` pairs, listed in leaderboard order; in each pair ``B``
    (``name_b``) is the higher-ranked system and ``A`` (``name_a``) the lower
    one, and ``difference = B - A`` (so it is positive for a metric where
    greater is better). The interval is the unadjusted (marginal) interval of
    ``method``; the p-value inverts it (two-sided, as in :func:`booteval.compare`)
    and ``p_adjusted`` corrects it for the family of all pairs.
Significance
    A pair is *separated* when ``p_adjusted < alpha``, with ``alpha = 1 - confidence_level``.
Top group
    The leader (rank 1 by point estimate; the first listed on a tie) and every
    system that is not separated from it.
Letters
    A compact letter display of the separations: two systems share a letter if
    and only if they are not separated. The letter groups are the maximal sets
    of mutually non-separated systems (Piepho's insert-and-absorb algorithm,
    then redundant letters swept out), lettered ``a, b, ...`` in leaderboard
    order, so the leader always carries ``a``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.design import make_design
from ..core.engine import check_choice, check_run_options, run_replicates, screen_undefined
from ..core.errors import BootevalWarning, DegenerateIntervalWarning, InvalidInputError, warn
from ..core.format import format_p_value, format_triplet
from ..core.intervals import compute_interval, order_statistic_quantile
from ..core.lazy import stats
from ..core.options import accepts_options
from ..core.paired import StackedEvaluator, validate_system
from ..core.params import validated
from ..core.progress import progress_option
from ..metrics import Metric, resolve_metric
from ..results import Difference, Result, freeze, protocol_defaults
from .comparison import bootstrap_p_value

__all__ = [
    "CORRECTIONS",
    "LeaderboardEntry",
    "LeaderboardResult",
    "PairwiseDifference",
    "adjust_p_values",
    "leaderboard",
]

#: multiple-comparison corrections accepted by :func:`leaderboard` and :func:`adjust_p_values`
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "none")
#: interval methods a leaderboard supports (no nested studentized intervals)
_LEADERBOARD_METHODS = ("bca", "percentile", "basic", "normal")


# ------------------------------------------------------------ p-value adjustment
def adjust_p_values(p_values: Any, correction: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of float
        One p-value per hypothesis, each in [0, 1].
    correction : {"holm", "bonferroni", "fdr_bh", "none"}
        ``"holm"``: Holm's step-down adjustment (controls the family-wise error
        rate), ``p~_(k) = max_{i <= k} min(1, (m - i + 1) p_(i))`` over the sorted
        p-values. ``"bonferroni"``: ``min(1, m p)``. ``"fdr_bh"``:
        Benjamini-Hochberg (controls the false discovery rate under independence
        or positive dependence), ``p~_(k) = min_{i >= k} min(1, m p_(i) / i)``.
        ``"none"``: unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values in the input order; monotone in the raw p-values and
        capped at 1.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> np.round(adjust_p_values([0.01, 0.04, 0.03], "fdr_bh"), 6).tolist()
    [0.03, 0.04, 0.04]
    """
    correction = check_choice(correction, "correction", CORRECTIONS)
    try:
        p = np.asarray(p_values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(
            "p_values", "a sequence of numbers in [0, 1]", type(p_values).__name__
        ) from None
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise InvalidInputError(
            "p_values", "finite numbers in [0, 1]", f"values from {p.min()} to {p.max()}"
        )
    m = p.size
    if m == 0 or correction == "none":
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    srt = p[order]
    k = np.arange(1, m + 1, dtype=float)
    if correction == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - k + 1.0) * srt))
    else:  # fdr_bh
        adj = np.minimum.accumulate(np.minimum(1.0, m * srt / k)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adj
    return out


# ------------------------------------------------------------ compact letters
def _letter_groups(k: int, separated: set[tuple[int, int]]) -> list[list[int]]:
    """Groups of positions ``0..k-1`` such that two share a group iff not separated.

    Insert-and-absorb (Piepho 2004): start from one group of all; for each
    separated pair split every group holding both into two copies, each without
    one of them; drop groups contained in others. Then sweep out groups whose
    pairs (and members) are all covered by the remaining ones.
    """
    groups: list[frozenset[int]] = [frozenset(range(k))]
    for i, j in sorted(separated):
        new: list[frozenset[int]] = []
        for g in groups:
            if i in g and j in g:
                new.extend((g - {i}, g - {j}))
            else:
                new.append(g)
        uniq = list(dict.fromkeys(new))
        groups = [g for g in uniq if not any(g < h for h in uniq)]
    groups.sort(key=lambda g: (min(g), sorted(g)))

    def covered(items: set[frozenset[int]], gs: list[frozenset[int]]) -> bool:
        return all(any(item <= g for g in gs) for item in items)

    kept = list(groups)
    for g in list(groups):
        others = [h for h in kept if h is not g]
        needs = {frozenset((x,)) for x in g} | {frozenset((x, y)) for x in g for y in g if x < y}
        if others and covered(needs, others):
            kept = others
    return [sorted(g) for g in kept]


def _letter_names(n: int) -> list[str]:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    if n <= len(alphabet):
        return list(alphabet[:n])
    return [alphabet[i] if i < len(alphabet) else f"{alphabet[i % 26]}{i // 26}" for i in range(n)]


# ------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class LeaderboardEntry(Result):
    """One system's row of a leaderboard.

    Attributes
    ----------
    name : str
    estimate, low, high : float
        The metric on the original data and its interval.
    standard_error : float
        Standard deviation of the system's replicates.
    mcse_low, mcse_high : float
        Monte Carlo standard errors of the endpoints.
    rank : int
        Rank of the point estimate (1 = best; ties share the minimum rank).
    rank_low, rank_high : int
        Percentile interval of the rank across replicates.
    letters : str
        Compact letter display: systems sharing a letter are not separated.
    in_top_group : bool
        Not separated from the leader (the leader itself included).
    """

    # a row of a leaderboard: the level and method are the leaderboard's
    _protocol_defaults = protocol_defaults(Result, confidence_level=math.nan, method=None)

    name: str
    estimate: float
    low: float
    high: float
    standard_error: float
    mcse_low: float
    mcse_high: float
    rank: int
    rank_low: int
    rank_high: int
    letters: str
    in_top_group: bool

    def to_dict(self) -> dict[str, Any]:
        """Plain data (str, float, int, bool)."""
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, eq=False)
class PairwiseDifference(Difference):
    """The paired difference ``B - A`` between two systems of a leaderboard.

    Attributes
    ----------
    name_a, name_b : str
        In the leaderboard's own list of pairs, ``B`` is the higher-ranked system.
    estimate_a, estimate_b, difference : float
        ``difference = estimate_b - estimate_a``.
    low, high : float
        The (unadjusted) interval of the difference.
    standard_error : float
    p_value : float
        Two-sided bootstrap p-value of "no difference" (inverts the interval).
    p_adjusted : float
        Adjusted for all pairs of the leaderboard (``correction``).
    separated : bool
        ``p_adjusted < alpha``.
    excludes_zero : bool
        Whether the unadjusted interval excludes 0.
    """

    # a row of a leaderboard: the level and method are the leaderboard's
    _protocol_defaults = protocol_defaults(
        Difference, estimate=lambda r: r.difference, confidence_level=math.nan, method=None
    )

    name_a: str
    name_b: str
    estimate_a: float
    estimate_b: float
    difference: float
    low: float
    high: float
    standard_error: float
    p_value: float
    p_adjusted: float
    separated: bool
    excludes_zero: bool

    @property
    def label(self) -> str:
        """``"B - A"``."""
        return f"{self.name_b} - {self.name_a}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data (str, float, bool)."""
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


def _fmt_rank(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


@dataclass(frozen=True, eq=False)
class LeaderboardResult(Result):
    """Systems ranked by a metric, with intervals, rank intervals and pairwise tests.

    See :mod:`booteval.leaderboard` for the exact definitions.

    Attributes
    ----------
    metric : str
    greater_is_better : bool
    entries : tuple of LeaderboardEntry
        In leaderboard order (best first; ties keep the input order).
    pairs : tuple of PairwiseDifference
        All pairs, in leaderboard order, ``B`` the higher-ranked system.
    confidence_level, method : as in :func:`booteval.ci`
    correction : str
        The multiple-comparison adjustment of the pairwise p-values.
    alpha : float
        ``1 - confidence_level``: the level at which pairs count as separated.
    rank_ties : str
        ``"min"``: how ties are ranked.
    n, n_clusters, n_resamples, seed, n_undefined, design :
        Provenance, as in :class:`~booteval.CIResult` (``n_undefined`` counts the
        replicates dropped because the metric was undefined on any system).
    system_names : tuple of str
        The systems in input order (the column order of ``distribution``).
    distribution : ndarray, shape (B, K)
        The defined replicate values, one column per system in input order.
    jackknife : ndarray or None
        Leave-one-unit-out values, shape ``(n_jackknife, K)`` (BCa only).
    notes : tuple of str
    """

    metric: str
    greater_is_better: bool
    entries: tuple[LeaderboardEntry, ...]
    pairs: tuple[PairwiseDifference, ...]
    confidence_level: float
    method: str
    correction: str
    alpha: float
    rank_ties: str
    n: int
    n_clusters: int | None
    n_resamples: int
    seed: int
    n_undefined: int
    design: str
    system_names: tuple[str, ...]
    distribution: np.ndarray = field(repr=False)
    jackknife: np.ndarray | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    bca_ties: str = field(default="half", repr=False)
    bounds: tuple[float, float] | None = field(default=None, repr=False)

    # -------------------------------------------------------------- views
    @property
    def names(self) -> tuple[str, ...]:
        """The systems in leaderboard order."""
        return tuple(e.name for e in self.entries)

    @property
    def top_group(self) -> tuple[str, ...]:
        """The leader and every system not separated from it, in leaderboard order."""
        return tuple(e.name for e in self.entries if e.in_top_group)

    @property
    def letters(self) -> dict[str, str]:
        """Compact letter display: name -> letters."""
        return {e.name: e.letters for e in self.entries}

    @property
    def adjacent(self) -> tuple[PairwiseDifference, ...]:
        """The pairs of neighbours in leaderboard order (``B`` the upper one)."""
        names = self.names
        return tuple(self.pair(names[i + 1], names[i]) for i in range(len(names) - 1))

    @property
    def records(self) -> list[dict[str, Any]]:
        """One plain dict per system, in leaderboard order (e.g. for ``pandas.DataFrame``)."""
        return [e.to_dict() for e in self.entries]

    @property
    def pair_records(self) -> list[dict[str, Any]]:
        """One plain dict per pair, in leaderboard order."""
        return [p.to_dict() for p in self.pairs]

    @property
    def rank_distribution(self) -> np.ndarray:
        """Each system's rank in each replicate, shape ``(B, K)`` (input order)."""
        return _ranks(self.distribution, self.greater_is_better)

    def entry(self, name: str) -> LeaderboardEntry:
        """The row of system ``name``."""
        for e in self.entries:
            if e.name == name:
                return e
        raise InvalidInputError("name", f"one of {list(self.system_names)}", repr(name))

    def pair(self, a: str, b: str) -> PairwiseDifference:
        """The difference ``b - a``, in either order.

        The interval and p-value are computed from the stored replicates in the
        requested orientation (so they equal :func:`booteval.compare` ``(a, b)``
        under the same weights); ``p_adjusted`` and ``separated`` are those of
        the unordered pair in the leaderboard's family.
        """
        idx = {n: i for i, n in enumerate(self.system_names)}
        for name in (a, b):
            if name not in idx:
                raise InvalidInputError("name", f"one of {list(self.system_names)}", repr(name))
        if a == b:
            raise InvalidInputError("b", "a system other than `a`", repr(b))
        for p in self.pairs:
            if (p.name_a, p.name_b) == (a, b):
                return p
        stored = next(p for p in self.pairs if (p.name_a, p.name_b) == (b, a))
        est = np.array([self.entry(n).estimate for n in self.system_names])
        rec, _ = _pair_interval(
            self.method, est, self.distribution, self.jackknife, idx[a], idx[b],
            self.confidence_level, self.bounds, self.bca_ties, (a, b),
        )  # fmt: skip
        return PairwiseDifference(
            **{**rec, "p_adjusted": stored.p_adjusted, "separated": stored.separated}
        )

    # -------------------------------------------------------------- rendering
    def _footer(self) -> str:
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{pct} {self.method} intervals; {self.design}; B = {self.n_resamples}, "
            f"seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"rank {pct}: percentile interval of the rank across resamples "
            "(ties share the minimum rank)",
            "group: systems sharing a letter are not separated "
            f"({self.correction}-adjusted p >= {self.alpha:g})",
        ]
        return "\n".join(lines)

    def _system_rows(self, scale: float, digits: int) -> tuple[list[str], list[list[str]]]:
        pct = f"{self.confidence_level * 100:g}%"
        head = ["rank", "system", f"{self.metric} ({pct} CI)", f"rank {pct}", "group"]
        rows = [
            [
                str(e.rank),
                e.name,
                format_triplet(e.estimate, e.low, e.high, scale=scale, digits=digits),
                _fmt_rank(e.rank_low, e.rank_high),
                e.letters,
            ]
            for e in self.entries
        ]
        return head, rows

    def _pair_rows(
        self, which: str, scale: float, digits: int
    ) -> tuple[list[str], list[list[str]]]:
        pct = f"{self.confidence_level * 100:g}%"
        pairs = self.adjacent if which == "adjacent" else self.pairs
        head = ["pair (B - A)", f"difference ({pct} CI)", "p", f"p ({self.correction})",
                "separated"]  # fmt: skip
        rows = [
            [
                p.label,
                format_triplet(p.difference, p.low, p.high, scale=scale, digits=digits),
                format_p_value(p.p_value),
                format_p_value(p.p_adjusted),
                "yes" if p.separated else "no",
            ]
            for p in pairs
        ]
        return head, rows

    @staticmethod
    def _check_pairs(pairs: str | None) -> str | None:
        if pairs is None:
            return None
        return check_choice(pairs, "pairs", ("adjacent", "all"))

    def to_text(self, scale: float = 1.0, digits: int = 4, pairs: str | None = None) -> str:
        """An aligned plain-text table (and, with ``pairs``, a table of differences).

        Parameters
        ----------
        scale : float
            Multiplies estimates and endpoints (``100`` for percentages).
        digits : int
            Decimals.
        pairs : {None, "adjacent", "all"}
            Also list the differences between neighbours, or all pairs.
        """
        which = self._check_pairs(pairs)
        blocks = [_text_table(*self._system_rows(scale, digits), right=(0,))]
        if which:
            blocks.append(_text_table(*self._pair_rows(which, scale, digits), right=()))
        blocks.append(self._footer())
        return "\n\n".join(blocks)

    def to_markdown(self, scale: float = 1.0, digits: int = 4, pairs: str | None = None) -> str:
        """A Markdown table (and, with ``pairs``, a table of differences); see :meth:`to_text`."""
        which = self._check_pairs(pairs)
        blocks = [_markdown_table(*self._system_rows(scale, digits), right=(0,))]
        if which:
            blocks.append(_markdown_table(*self._pair_rows(which, scale, digits), right=()))
        blocks.append(self._footer())
        return "\n\n".join(blocks)

    def __str__(self) -> str:
        return self.to_text()

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """The leaderboard as a text table (see :meth:`to_text`)."""
        return self.to_text(scale, digits)

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """The table, how it was computed, and the notes."""
        lines = [
            self.to_text(scale, digits),
            f"{self.confidence_level * 100:g}% {self.method} intervals; {self.design}; "
            f"B = {self.n_resamples} resamples, seed = {self.seed}; "
            f"pairwise p-values adjusted by {self.correction}",
        ]
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"LeaderboardResult(metric={self.metric!r}, systems={len(self.entries)}, "
            f"method={self.method!r}, correction={self.correction!r}, n={self.n}, "
            f"n_resamples={self.n_resamples}, seed={self.seed})"
        )

    def plot(self, path: str | None = None, **kwargs: Any) -> Any:
        """Forest plot of the systems in rank order (see :func:`booteval.plot.plot_forest`)."""
        from ..plot import plot_forest

        return plot_forest(self, path=path, **kwargs)

    def plot_pairwise(self, path: str | None = None, **kwargs: Any) -> Any:
        """Matrix of pairwise differences (see :func:`booteval.plot.plot_pairwise`)."""
        from ..plot import plot_pairwise

        return plot_pairwise(self, path, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (no arrays): provenance, one record per system and per pair."""
        keys = (
            "metric", "greater_is_better", "confidence_level", "method", "correction",
            "alpha", "rank_ties", "n", "n_clusters", "n_resamples", "seed", "n_undefined",
            "design",
        )  # fmt: skip
        out: dict[str, Any] = {k: getattr(self, k) for k in keys}
        out["systems"] = self.records
        out["pairs"] = self.pair_records
        out["top_group"] = list(self.top_group)
        out["notes"] = list(self.notes)
        return out


def _text_table(head: list[str], rows: list[list[str]], right: tuple[int, ...]) -> str:
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(len(head))]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(w) if c in right else cell.ljust(w)
            for c, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(head), *(line(r) for r in rows)])


def _markdown_table(head: list[str], rows: list[list[str]], right: tuple[int, ...]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = [
        "| " + " | ".join(esc(h) for h in head) + " |",
        "| " + " | ".join("---:" if c in right else "---" for c in range(len(head))) + " |",
    ]
    lines += ["| " + " | ".join(esc(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------ computation
def _ranks(values: np.ndarray, greater_is_better: bool) -> np.ndarray:
    """Min ranks (1 = best) along the last axis."""
    v = np.asarray(values, dtype=float)
    return stats.rankdata(-v if greater_is_better else v, method="min", axis=-1).astype(np.int64)


def _pair_interval(
    method: str,
    est: np.ndarray,
    reps: np.ndarray,
    jack: np.ndarray | None,
    ia: int,
    ib: int,
    level: float,
    bounds: tuple[float, float] | None,
    ties: str,
    names: tuple[str, str],
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The interval and p-value of ``system ib - system ia``, as :func:`compare` forms them."""
    diffs = reps[:, ib] - reps[:, ia]
    diff_hat = float(est[ib] - est[ia])
    se = float(np.std(diffs, ddof=1)) if diffs.size > 1 else 0.0
    diff_bounds = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
    out = compute_interval(
        method, diff_hat, diffs, level,
        jackknife=None if jack is None else jack[:, ib] - jack[:, ia],
        standard_error=se, bounds=diff_bounds, ties=ties, warn=False,
    )  # fmt: skip
    p = bootstrap_p_value(
        method, diff_hat, diffs, "two-sided", jackknife_details=out.details, standard_error=se
    )
    rec = {
        "name_a": names[0], "name_b": names[1], "estimate_a": float(est[ia]),
        "estimate_b": float(est[ib]), "difference": diff_hat, "low": out.low, "high": out.high,
        "standard_error": se, "p_value": p,
        "excludes_zero": bool(out.low > 0 or out.high < 0),
    }  # fmt: skip
    return rec, out.notes


def _is_dataframe(x: object) -> bool:
    return hasattr(x, "columns") and hasattr(x, "pivot") and hasattr(x, "iloc")


def _column(df: Any, col: object, parameter: str) -> Any:
    if col not in df.columns:
        raise InvalidInputError(
            parameter, f"a column of the DataFrame ({', '.join(map(str, df.columns))})", repr(col)
        )
    return df[col]


def _from_long(
    df: Any,
    system_col: object,
    row_col: object,
    output_col: object,
    label_col: object,
    strata: object,
    clusters: object,
) -> tuple[dict[str, Any], Any, Any, Any]:
    """Pivot a long table (one row per system x item) into aligned per-system arrays."""
    if row_col is None or output_col is None:
        missing = "row_col" if row_col is None else "output_col"
        raise InvalidInputError(
            missing, "a column name for a long table (system_col given)", "None"
        )
    sys_ = _column(df, system_col, "system_col")
    rows = _column(df, row_col, "row_col")
    _column(df, output_col, "output_col")
    dup = df.duplicated([system_col, row_col])
    if bool(dup.any()):
        first = df[dup].iloc[0]
        raise InvalidInputError(
            "systems",
            f"one output per ({system_col!r}, {row_col!r})",
            f"{int(dup.sum())} duplicate(s), e.g. system {first[system_col]!r}, "
            f"row {first[row_col]!r}",
        )
    wide = df.pivot(index=row_col, columns=system_col, values=output_col)
    order = list(dict.fromkeys(sys_.tolist()))
    systems: dict[str, Any] = {}
    for name in order:
        col = wide[name]
        if bool(col.isna().any()):
            raise InvalidInputError(
                f"outputs of system {name}",
                f"an output for every {row_col!r} in the table ({len(wide)} rows)",
                f"{int(col.isna().sum())} missing",
            )
        systems[str(name)] = col.to_numpy()
    row_ids = wide.index

    def per_row(spec: object, parameter: str) -> Any:
        if spec is None:
            return None
        if not isinstance(spec, str):
            raise InvalidInputError(
                parameter, "a column name when `systems` is a long table", type(spec).__name__
            )
        col = _column(df, spec, parameter)
        counts = col.groupby(rows).nunique(dropna=False)
        if bool((counts > 1).any()):
            bad = counts.index[counts.to_numpy() > 1][0]
            raise InvalidInputError(
                parameter, f"one value per {row_col!r}", f"several values for row {bad!r}"
            )
        return col.groupby(rows).first().reindex(row_ids).to_numpy()

    return (
        systems,
        per_row(label_col, "label_col"),
        per_row(strata, "strata"),
        per_row(clusters, "clusters"),
    )


@accepts_options
@validated
@progress_option
def leaderboard(
    systems: Mapping[Any, Any] | Any,
    *,
    y_true: Any = None,
    metric: str | Metric | Callable[..., float] | None = None,
    metric_kwargs: dict[str, Any] | None = None,
    method: str = "bca",
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = None,
    strata: Any = None,
    clusters: Any = None,
    correction: str = "holm",
    batch: int | None = None,
    workers: int | None = None,
    progress: Any = None,
    on_undefined: str = "drop",
    bca_ties: str = "half",
    system_col: Any = None,
    row_col: Any = None,
    output_col: Any = None,
    label_col: Any = None,
) -> LeaderboardResult:
    """Rank several systems scored on the same rows, with intervals, rank intervals and tests.

    One run resamples every system with the same weights: each system's
    interval, every pairwise difference (with a p-value adjusted for all
    ``K (K - 1) / 2`` pairs), each system's rank interval and the groups of
    systems that cannot be told apart all come from the same ``B`` replicates.
    See :mod:`booteval.leaderboard` for the exact definitions.

    Parameters
    ----------
    systems : mapping or pandas.DataFrame
        A mapping of system name to outputs (per-row scores, or predictions /
        scores when ``y_true`` is given); all systems on the same rows in the
        same order. A *wide* DataFrame (``system_col`` not given) is read the
        same way, one column per system. A *long* DataFrame, one row per
        (system, item), needs ``system_col``, ``row_col`` and ``output_col``
        (and ``label_col`` for a metric of labels); its items are aligned by
        ``row_col`` and ``strata`` / ``clusters`` may then name columns.
    y_true : array-like, optional
        Labels shared by every system (not with a long table: use ``label_col``).
    metric, metric_kwargs, confidence_level, n_resamples, seed, strata, clusters
        As in :func:`booteval.ci`.
    batch, workers, on_undefined, bca_ties
        As in :func:`booteval.ci`. Replicates on which the metric is undefined
        for any system are dropped for all.
    method : {"bca", "percentile", "basic", "normal"}
        For every interval and p-value (``"studentized"`` is not offered here).
    correction : {"holm", "bonferroni", "fdr_bh", "none"}
        Adjustment of the pairwise p-values (see :func:`adjust_p_values`).
    system_col, row_col, output_col, label_col : column names, optional
        For a long DataFrame.

    progress : None, True or callable, optional
        ``True`` prints the replicates done to stderr every few seconds; a callable is
        called as ``progress(done, total)`` after each batch of replicates.
    Returns
    -------
    LeaderboardResult

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.leaderboard import leaderboard
    >>> rng = np.random.default_rng(0)
    >>> skill = {"A": 0.60, "B": 0.62, "C": 0.75}
    >>> scores = {k: (rng.random(500) < p).astype(int) for k, p in skill.items()}
    >>> board = leaderboard(scores, n_resamples=2000, seed=0)
    >>> board.names, board.top_group
    (('C', 'B', 'A'), ('C',))
    >>> print(board.to_text(scale=100, digits=1))
    rank  system  mean (95% CI)      rank 95%  group
       1  C       73.6 (69.2, 77.0)  1         a
       2  B       61.0 (56.4, 65.2)  2-3       b
       3  A       56.6 (52.2, 61.2)  2-3       b
    <BLANKLINE>
    95% bca intervals; paired iid bootstrap (500 rows); B = 2000, seed = 0
    rank 95%: percentile interval of the rank across resamples (ties share the minimum rank)
    group: systems sharing a letter are not separated (holm-adjusted p >= 0.05)
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, bca_ties=bca_ties, batch=batch, workers=workers,
    )  # fmt: skip
    check_choice(opts.method, "method", _LEADERBOARD_METHODS)
    correction = check_choice(correction, "correction", CORRECTIONS)

    # ---- inputs: name -> outputs, shared labels and design columns
    if _is_dataframe(systems) and system_col is not None:
        if y_true is not None:
            raise InvalidInputError(
                "y_true", "None for a long table (name the label column with label_col=)",
                "an array",
            )  # fmt: skip
        mapping, y_true, strata, clusters = _from_long(
            systems, system_col, row_col, output_col, label_col, strata, clusters
        )
    elif _is_dataframe(systems):
        mapping = {str(c): systems[c] for c in systems.columns}
    elif isinstance(systems, Mapping):
        mapping = {str(k): v for k, v in systems.items()}
        if len(mapping) != len(systems):
            raise InvalidInputError("systems", "distinct system names", "names equal as text")
    else:
        raise InvalidInputError(
            "systems",
            "a mapping of system name to outputs, or a pandas DataFrame",
            type(systems).__name__,
        )
    if len(mapping) < 2:
        raise InvalidInputError(
            "systems", "at least two systems to rank", f"{len(mapping)} system(s)"
        )
    names = list(mapping)
    n_arrays = 1 if y_true is None else 2
    m = resolve_metric(metric, metric_kwargs, n_arrays)
    if m.n_inputs != n_arrays:
        if m.n_inputs == 2 and y_true is None:
            raise InvalidInputError(
                "y_true", f"the labels for metric {m.label!r} (it takes "
                f"{', '.join(m.input_names)})", "None",
            )  # fmt: skip
        raise InvalidInputError(
            "y_true",
            f"None for metric {m.label!r}, which takes {', '.join(m.input_names)}",
            "labels",
        )
    shared = () if y_true is None else (y_true,)
    arrays = {}
    n_rows: int | None = None
    for name in names:
        arr = validate_system(m, shared, mapping[name], name)
        rows = arr[-1].shape[0]
        if n_rows is None:
            n_rows = rows
        elif rows != n_rows:
            raise InvalidInputError(
                f"{m.input_names[-1]} of system {name}",
                f"the same number of rows as system {names[0]} ({n_rows})",
                f"{rows} rows",
            )
        arrays[name] = arr
    assert n_rows is not None
    design = make_design(n_rows, strata=strata, clusters=clusters)
    stacked = StackedEvaluator([m.bind(arrays[k], design) for k in names], design)
    est = np.asarray(stacked.estimate(), dtype=float)
    for value, name in zip(est, names, strict=True):
        if not math.isfinite(value):
            raise InvalidInputError(
                f"{m.input_names[-1]} of system {name}",
                f"outputs on which {m.label!r} is defined",
                f"outputs where it evaluates to {value}",
            )

    # ---- one run: (B, K) replicates on shared weights
    b = opts.n_resamples
    reps, _ = run_replicates(stacked, design, b, opts.seed, opts.batch, workers=opts.workers)
    defined = np.isfinite(reps).all(axis=1)
    n_undefined = screen_undefined(
        defined, f"metric {m.label!r} (on at least one system)", opts.on_undefined
    )
    reps = np.ascontiguousarray(reps[defined])
    jack = np.asarray(stacked.jackknife(), dtype=float) if opts.method == "bca" else None
    level = opts.confidence_level
    alpha = round(1.0 - level, 12)
    gib = bool(m.greater_is_better)
    k = len(names)
    notes: list[str] = []

    # ---- each system's interval
    sys_out = []
    for j, name in enumerate(names):
        out = compute_interval(
            opts.method, float(est[j]), reps[:, j], level,
            jackknife=None if jack is None else jack[:, j], bounds=m.bounds,
            ties=opts.bca_ties, warn=False,
        )  # fmt: skip
        notes.extend(f"system {name}: {note}" for note in out.notes)
        sys_out.append(out)

    # ---- ranks
    rank_hat = _ranks(est, gib)
    order = sorted(range(k), key=lambda j: (int(rank_hat[j]), j))
    pos = {j: i for i, j in enumerate(order)}
    rank_reps = np.sort(_ranks(reps, gib), axis=0)
    rank_lo = [int(order_statistic_quantile(rank_reps[:, j], alpha / 2)) for j in range(k)]
    rank_hi = [int(order_statistic_quantile(rank_reps[:, j], 1 - alpha / 2)) for j in range(k)]

    # ---- pairs in leaderboard order: B is the higher-ranked system
    raw: list[dict[str, Any]] = []
    pair_pos: list[tuple[int, int]] = []
    for u in range(k):
        for v in range(u + 1, k):
            ib, ia = order[u], order[v]
            rec, pnotes = _pair_interval(
                opts.method, est, reps, jack, ia, ib, level, m.bounds, opts.bca_ties,
                (names[ia], names[ib]),
            )  # fmt: skip
            notes.extend(f"pair {names[ib]} - {names[ia]}: {note}" for note in pnotes)
            raw.append(rec)
            pair_pos.append((u, v))
    p_adj = adjust_p_values([r["p_value"] for r in raw], correction)
    pairs = tuple(
        PairwiseDifference(**r, p_adjusted=float(pa), separated=bool(pa < alpha))
        for r, pa in zip(raw, p_adj, strict=True)
    )
    n_pairs = len(pairs)
    floor = 2.0 / (reps.shape[0] + 1.0)  # the smallest two-sided bootstrap p-value
    if correction in ("holm", "bonferroni") and n_pairs * floor >= alpha:
        msg = (
            f"with {n_pairs} pairs and B = {reps.shape[0]} the smallest {correction}-adjusted "
            f"p-value is {n_pairs} * 2/(B + 1) = {n_pairs * floor:.3g} >= {alpha:g}, so no pair "
            f"can be separated; use n_resamples > {math.ceil(2 * n_pairs / alpha)}"
        )
        notes.append(msg)
        warn(msg, BootevalWarning, stacklevel=2)

    # ---- groups
    separated = {pp for pp, pr in zip(pair_pos, pairs, strict=True) if pr.separated}
    groups = _letter_groups(k, separated)
    letter_of = _letter_names(len(groups))
    letters = {i: "" for i in range(k)}
    for g, letter in zip(groups, letter_of, strict=True):
        for i in g:
            letters[i] += letter
    top = {0} | {v for (u, v) in pair_pos if u == 0 and (0, v) not in separated}

    entries = []
    for j in order:
        out = sys_out[j]
        entries.append(
            LeaderboardEntry(
                name=names[j],
                estimate=float(est[j]),
                low=out.low,
                high=out.high,
                standard_error=float(np.std(reps[:, j], ddof=1)) if reps.shape[0] > 1 else 0.0,
                mcse_low=out.mcse_low,
                mcse_high=out.mcse_high,
                rank=int(rank_hat[j]),
                rank_low=rank_lo[j],
                rank_high=rank_hi[j],
                letters=letters[pos[j]],
                in_top_group=pos[j] in top,
            )
        )
    if notes:
        degenerate = [x for x in notes if not x.startswith("with ")]
        if degenerate:
            warn(
                f"{len(degenerate)} interval(s) met a degenerate case (see result.notes), "
                f"e.g. {degenerate[0]}",
                DegenerateIntervalWarning,
                stacklevel=2,
            )
    return LeaderboardResult(
        metric=m.label, greater_is_better=gib, entries=tuple(entries), pairs=pairs,
        confidence_level=level, method=opts.method, correction=correction, alpha=alpha,
        rank_ties="min", n=n_rows, n_clusters=design.n_clusters, n_resamples=b,
        seed=opts.seed, n_undefined=n_undefined, design="paired " + design.describe(),
        system_names=tuple(names), distribution=freeze(reps),
        jackknife=freeze(jack), notes=tuple(notes), bca_ties=opts.bca_ties, bounds=m.bounds,
    )  # fmt: skip
