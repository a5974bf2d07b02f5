"""The leaderboard's results: each system's entry, pairwise differences, the board, its tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.engine import check_choice
from ..core.errors import InvalidInputError
from ..core.format import format_p_value, format_triplet
from ..core.intervals import RESAMPLED, compute_interval
from ..provenance import methods_text
from ..report import markdown_table, text_table
from ..results import (
    Difference,
    PairedDifference,
    Result,
    plot_result,
    protocol_defaults,
    with_notes,
)
from .comparison import bootstrap_p_value
from .leaderboard_joint import (
    SimultaneousIntervals,
    probability_best,
    rank_replicates,
    simultaneous_intervals,
)

#: min ranks (1 = best) along the last axis
_ranks = rank_replicates


def _pair_interval(
    method: str, est: np.ndarray, reps: np.ndarray, jack: np.ndarray | None, ia: int, ib: int,
    level: float, bounds: tuple[float, float] | None, ties: str, names: tuple[str, str],
) -> tuple[dict[str, Any], tuple[str, ...]]:  # fmt: skip
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
    effective_n : float
        With clusters, the system's effective sample size as :func:`booteval.ci` reports
        it (Kish's, never above the rows); the rows without clusters; NaN where not
        computed.
    expected_rank : float
        The mean of the system's rank over the replicates (ties share the minimum rank).
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
    effective_n: float = math.nan
    expected_rank: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        """Plain data (str, float, int, bool)."""
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, eq=False)
class PairwiseDifference(PairedDifference):
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
    system_methods : tuple of str
        Each entry's interval method, in leaderboard order: the interval is the one
        :func:`booteval.ci` gives for that system alone (``method="auto"`` may choose a
        closed form for one system and a bootstrap for another). Empty for a table read
        by column names, whose intervals all use ``method``.
    pair_methods : tuple of str
        Each pair's interval method, in the order of ``pairs`` (as
        :func:`booteval.compare` would choose it); empty as ``system_methods``.
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
    system_methods: tuple[str, ...] = ()
    pair_methods: tuple[str, ...] = ()

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
    def expected_rank(self) -> dict[str, float]:
        """Each system's mean rank over the replicates (ties share the minimum rank, as in
        ``rank_distribution``), in leaderboard order.

        Examples
        --------
        >>> import numpy as np, booteval
        >>> board = booteval.leaderboard({"a": [1, 0, 1, 1] * 25, "b": [1, 1, 1, 1] * 25},
        ...                              seed=0, n_resamples=1000)
        >>> board.expected_rank
        {'b': 1.0, 'a': 2.0}
        """
        return {e.name: e.expected_rank for e in self.entries}

    def tied_with_leader(self, confidence_level: float | None = None) -> tuple[str, ...]:
        """The leader and the systems whose simultaneous (max-T) interval of the difference
        to the leader contains 0, at the leaderboard's level unless ``confidence_level``
        is given (:attr:`SimultaneousIntervals.tied_with_leader`), in leaderboard order.

        Examples
        --------
        >>> import numpy as np, booteval
        >>> rng = np.random.default_rng(2)
        >>> skill = {"A": 0.70, "B": 0.69, "C": 0.55}
        >>> board = booteval.leaderboard(
        ...     {k: (rng.random(400) < p).astype(int) for k, p in skill.items()},
        ...     seed=0, n_resamples=2000)
        >>> board.names, board.tied_with_leader()
        (('A', 'B', 'C'), ('A', 'B'))
        """
        return self.simultaneous(confidence_level).tied_with_leader

    @property
    def p_best(self) -> dict[str, float]:
        """Each system's probability of being best: its share of the replicates in which it
        has the best value (ties shared equally), in leaderboard order."""
        return probability_best(self)

    def simultaneous(self, confidence_level: float | None = None) -> SimultaneousIntervals:
        """Intervals for every pairwise difference that hold all together (bootstrap max-T
        over the shared replicates; :mod:`booteval.inference.leaderboard_joint`), at the
        leaderboard's level unless ``confidence_level`` is given."""
        return simultaneous_intervals(self, confidence_level)

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
        at = next(i for i, p in enumerate(self.pairs) if (p.name_a, p.name_b) == (b, a))
        stored = self.pairs[at]
        method = self.pair_methods[at] if self.pair_methods else self.method
        if method not in RESAMPLED:
            # a closed form or a studentized interval: B - A mirrored is A - B exactly
            mirrored = {
                "name_a": a, "name_b": b, "estimate_a": stored.estimate_b,
                "estimate_b": stored.estimate_a, "difference": -stored.difference,
                "low": -stored.high, "high": -stored.low,
                "standard_error": stored.standard_error, "p_value": stored.p_value,
                "excludes_zero": stored.excludes_zero,
            }  # fmt: skip
            return PairwiseDifference(
                **mirrored, p_adjusted=stored.p_adjusted, separated=stored.separated
            )
        est = np.array([self.entry(n).estimate for n in self.system_names])
        rec, _ = _pair_interval(
            method, est, self.distribution, self.jackknife, idx[a], idx[b],
            self.confidence_level, self.bounds, self.bca_ties, (a, b),
        )  # fmt: skip
        return PairwiseDifference(
            **{**rec, "p_adjusted": stored.p_adjusted, "separated": stored.separated}
        )

    # -------------------------------------------------------------- rendering
    def _methods_line(self) -> str:
        """The interval methods, each named once (systems' and pairs' where they differ)."""
        if not self.system_methods:
            return methods_text(self.method, self.confidence_level)[0]
        methods = {"systems": self.system_methods, "pairs": self.pair_methods or ("none",)}
        return methods_text(methods, self.confidence_level)[0]

    def _footer(self) -> str:
        pct = f"{self.confidence_level * 100:g}%"
        lines = [
            f"{self._methods_line()}; {self.design}; B = {self.n_resamples}, "
            f"seed = {self.seed}"
            + (f", {self.n_undefined} undefined (dropped)" if self.n_undefined else ""),
            f"rank {pct}: percentile interval of the rank across resamples "
            "(ties share the minimum rank)",
            "group: systems sharing a letter are not separated "
            f"({self.correction}-adjusted p >= {self.alpha:g})",
        ]
        sizes = [e.effective_n for e in self.entries if math.isfinite(e.effective_n)]
        if self.n_clusters is not None and sizes:
            span = f"{min(sizes):.1f}" + (
                f" to {max(sizes):.1f}" if max(sizes) > min(sizes) else ""
            )
            lines.append(
                f"{self.n_clusters} clusters; effective sample size {span} of {self.n} rows "
                "(each system's, as booteval.ci reports it)"
            )
        return "\n".join(lines)

    def _system_rows(
        self, scale: float, digits: int, joint: bool = False
    ) -> tuple[list[str], list[list[str]]]:
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
        if joint:  # each system's P(best) and expected rank
            best = self.p_best
            head += ["P(best)", "E[rank]"]
            for row, e in zip(rows, self.entries, strict=True):
                row += [f"{best[e.name]:.3f}", f"{e.expected_rank:.2f}"]
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

    def to_text(
        self, scale: float = 1.0, digits: int = 4, pairs: str | None = None, joint: bool = False
    ) -> str:
        """An aligned plain-text table (and, with ``pairs``, a table of differences).

        Parameters
        ----------
        scale : float
            Multiplies estimates and endpoints (``100`` for percentages).
        digits : int
            Decimals.
        pairs : {None, "adjacent", "all"}
            Also list the differences between neighbours, or all pairs.
        joint : bool
            Also each system's probability of being best and expected rank (columns), and
            the systems tied with the leader by the simultaneous intervals (a line).
        """
        return self._tables(text_table, scale, digits, pairs, joint)

    def to_markdown(
        self, scale: float = 1.0, digits: int = 4, pairs: str | None = None, joint: bool = False
    ) -> str:
        """A Markdown table (and, with ``pairs``, a table of differences); see :meth:`to_text`."""
        return self._tables(markdown_table, scale, digits, pairs, joint)

    def _tables(
        self, table: Any, scale: float, digits: int, pairs: str | None, joint: bool = False
    ) -> str:
        """The systems' table, the pairs' table where asked for, and the footer."""
        which = self._check_pairs(pairs)
        blocks = [table(*self._system_rows(scale, digits, joint), right=(0,))]
        if which:
            blocks.append(table(*self._pair_rows(which, scale, digits), right=()))
        footer = self._footer()
        if joint:
            footer += (
                "\nP(best): share of resamples in which the system is best (ties shared); "
                "E[rank]: mean rank across resamples\n" + self.simultaneous().tied_line
            )
        blocks.append(footer)
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
            f"{self._methods_line()}; {self.design}; "
            f"B = {self.n_resamples} resamples, seed = {self.seed}; "
            f"pairwise p-values adjusted by {self.correction}",
        ]
        if self.system_methods:
            lines.append(
                "each system's interval is booteval.ci's for that system alone; the pairs "
                "and the ranks come from one resampling shared by all systems"
            )
        return with_notes(lines, self.notes, "")

    def __repr__(self) -> str:
        return self._short_repr(
            "metric method correction n n_resamples seed", systems=len(self.entries)
        )

    def plot(self, path: str | None = None, **kwargs: Any) -> Any:
        """The systems in rank order, each with its interval and its rank interval, those
        tied with the leader marked (see :func:`booteval.plot.plot_leaderboard`)."""
        return plot_result(self, "leaderboard", path, **kwargs)

    def plot_forest(self, path: str | None = None, **kwargs: Any) -> Any:
        """Forest plot of the systems in rank order (see :func:`booteval.plot.plot_forest`)."""
        return plot_result(self, "forest", path, **kwargs)

    def plot_pairwise(self, path: str | None = None, **kwargs: Any) -> Any:
        """Matrix of pairwise differences (see :func:`booteval.plot.plot_pairwise`)."""
        return plot_result(self, "pairwise", path, **kwargs)

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
