"""Meta-evaluation: how well does an automatic metric agree with human judgments?

A metric's scores ``X`` and human scores ``Z`` on the same ``N`` systems x ``M`` inputs
(NaN marks a missing score) are compared at one of three **levels**:

* ``"system"``: average each system over its inputs, then correlate the ``N`` system means;
* ``"summary"`` (alias ``"input"``): correlate across systems within each input, then average
  the ``M`` per-input correlations;
* ``"global"``: correlate all judged system-input pairs at once.

with Pearson's ``r``, Spearman's ``rho`` or Kendall's ``tau-b``. A single correlation is not
enough: :func:`correlate` gives a confidence interval, either the Fisher-z interval with the
Bonett-Wright constants or a bootstrap under one of three designs that answer different
questions:

=================  ==========================  =============================================
``resample=``      resamples                   the interval speaks about
=================  ==========================  =============================================
``"systems"``      systems (Boot-Systems)      new systems like these, on these inputs
``"inputs"``       inputs (Boot-Inputs)        these systems, on new inputs like these
``"both"``         both (Boot-Both)            new systems and new inputs like these
=================  ==========================  =============================================

:func:`compare_correlations` tests whether one metric agrees better than another (paired
bootstrap, permutation tests that swap the two metrics' scores per system / input / both, and
Williams' test at the system level); :func:`simulate_correlation_coverage` measures how often
each interval covers a known correlation.

Conventions
-----------
Missing scores
    A cell counts only when both the metric and the human score are present; the rest are
    left out and counted (``n_missing``). A system or input with no such cell is an error.
    Summary level: inputs judged for fewer than 3 systems are left out (noted); inputs where
    the correlation is undefined (a constant score across systems) are skipped, as SciPy
    returns NaN there, and counted in ``n_inputs_undefined``. A replicate is the same
    statistic on the resampled matrices: a system none of whose scored inputs was drawn drops
    out of that replicate's system-level correlation, and a drawn input left with fewer than
    3 scored rows (drawn systems, repeats counted) is skipped.
Undefined replicates
    A replicate whose correlation is undefined (e.g. the same system drawn every time) is
    dropped and counted in ``n_undefined``, with an
    :class:`~booteval.UndefinedReplicateWarning` when more than 1 % are.
What ``n`` means for the Fisher interval
    system level: the number of systems; summary level: the number of systems per input (the
    most judged on one input), so the mean of ``M`` correlations is treated as one
    correlation of ``n`` pairs; global level: the number of judged cells, treated as
    independent pairs (they are not: cells share systems and inputs).
Seeds
    The default engine (``engine="auto"``) compiles the crossed bootstrap
    (:mod:`booteval.core.crossed_kernels`): replicate ``b`` draws the systems, then the
    inputs, from its own generator on the ``kernels.meta`` stream of
    :mod:`booteval.core.streams`. With ``engine="numpy"``, replicate ``b`` resamples them
    from a generator seeded by the ``meta.bootstrap`` stream for the fixed-size block
    holding ``b``. Either way the same seed gives the same replicates whatever the level,
    coefficient, metric or design (Boot-Systems and Boot-Both draw the same systems), so
    metrics are compared on common resamples. Random swap patterns of the permutation test
    come from the ``kernels.meta.swaps`` stream (one generator per pattern;
    :mod:`booteval.core.crossed_swap_kernels`), or from the ``meta.permutation`` stream with
    ``engine="numpy"``; an exact test enumerates the patterns in the same order on both
    engines, with the same values. All run through the engine's loop
    (:func:`booteval.core.engine.run_engine`), with a two-way crossed weight source
    (system counts, then input counts, per replicate): ``workers`` threads and the batching
    never change a replicate, and ``progress`` is reported per batch.
Interval methods
    ``"percentile"`` (default, as in the reference paper), ``"basic"``, ``"normal"``,
    ``"bca"``, computed by :func:`booteval.intervals.compute_interval`. BCa's acceleration
    comes from the jackknife of the resampled units: leave one system out (Boot-Systems), one
    input out (Boot-Inputs), or both sets, combined as for a two-sample statistic (Boot-Both).
    The studentized interval is not offered: a correlation level under a two-way design has no
    analytic standard error, and a nested bootstrap would multiply the cost by its size.
Cost
    One ``(B, M) @ (M, N)`` product gives every replicate's system means; rank coefficients
    compare the ``N`` systems pairwise, ``O(B N^2)``. The summary level computes every input's
    weighted sums, ranks or pair counts with one ``(B, N) @ (N, k N M)`` product. The global
    level uses the registry's weighted correlation metrics over the ``N M`` cells: fast for
    Pearson and Spearman, about a second per 1,000 replicates at 1,600 cells for Kendall.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.options import entry_point
from ..core.validation import check_choice, check_n_resamples, check_seed, describe_value
from .compare import compare_correlations
from .core import (
    ALTERNATIVES,
    BOOTSTRAP_METHODS,
    COEFFICIENTS,
    LEVELS,
    METHODS,
    RESAMPLE,
    Problem,
    bootstrap,
    common_iv,
    correlate_prepared,
    matrices_iv,
)
from .results import CorrelationComparison, CorrelationResult, CoverageRow, CoverageTable
from .simulation import simulate_correlation_coverage

__all__ = [
    "ALTERNATIVES",
    "BOOTSTRAP_METHODS",
    "COEFFICIENTS",
    "LEVELS",
    "METHODS",
    "RESAMPLE",
    "CorrelationComparison",
    "CorrelationResult",
    "CoverageRow",
    "CoverageTable",
    "ScoreMatrices",
    "compare_correlations",
    "correlate",
    "correlate_metrics",
    "score_matrices",
    "simulate_correlation_coverage",
]


# ------------------------------------------------------------------------------ correlate
def _plan(
    level: object, coefficient: object, method: object, confidence_level: object,
    resample: object, n_resamples: object, seed: object,
) -> tuple[str, str, str, float, str | None, int, int]:  # fmt: skip
    """The checked level, coefficient, method, confidence level, resampling scheme
    (``None`` for Fisher's z, which resamples nothing), B (0 without resampling) and seed."""
    lv, co, me, lev = common_iv(level, coefficient, method, confidence_level)
    if resample is not None:
        resample = check_choice(resample, "resample", RESAMPLE)
    if me == "fisher" or resample is None:
        return lv, co, "fisher", lev, None, 0, check_seed(seed)
    return lv, co, me, lev, resample, check_n_resamples(n_resamples, lev), check_seed(seed)


@entry_point
def correlate(
    X: Any, Z: Any, *, level: str = "system", coefficient: str = "pearson",
    resample: str | None = "both", method: str = "percentile", confidence_level: float = 0.95,
    n_resamples: int = 10_000, seed: int | None = None, metric: str = "metric",
    human: str = "human", workers: int | None = None, engine: str = "auto", progress: Any = None,
) -> CorrelationResult:  # fmt: skip
    """Correlation of a metric with human scores, with a confidence interval.

    Parameters
    ----------
    X, Z : array_like, shape (N, M)
        The metric's and the human scores of ``N`` systems (rows) on ``M`` inputs (columns);
        NaN marks a missing score. NumPy arrays, nested lists or pandas DataFrames (use
        :func:`score_matrices` to build them from a long table).
    level : {"system", "summary", "global"}
        ``"summary"`` correlates across systems within each input and averages over inputs
        (``"input"`` is accepted as an alias).
    coefficient : {"pearson", "spearman", "kendall"}
        Kendall's tau-b.
    resample : {"both", "systems", "inputs"} or None
        The bootstrap design: Boot-Both, Boot-Systems or Boot-Inputs (see the module notes
        for what each interval speaks about). ``None``: no resampling, the Fisher interval.
    method : {"percentile", "basic", "normal", "bca", "fisher"}
        Interval method. ``"fisher"`` is the Fisher-z interval with the Bonett-Wright
        constants (``resample`` is then ignored); the result says what its ``n`` counts.
    confidence_level : float, default 0.95
    n_resamples : int, default 10_000
    seed : int, optional
        The same seed gives the same replicates for any level, coefficient or metric. When
        omitted, fresh entropy is drawn and recorded in ``result.seed``.
    metric, human : str
        Labels used in descriptions.
    workers : int, optional
        Threads for the bootstrap replicates (default: all cores). Never changes the
        result.
    {engine}
    {progress}

    Returns
    -------
    CorrelationResult
        The correlation with its interval, and the design that was resampled.

    Raises
    ------
    InvalidInputError
        Shapes of ``X`` and ``Z`` differ; a row or column has no score; fewer than 3 systems;
        an unknown level, coefficient, design or method (the message lists the valid ones);
        the correlation is undefined on the original data.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import correlate
    >>> rng = np.random.default_rng(1)
    >>> quality = rng.normal(size=(12, 1)) + rng.normal(size=(12, 40))
    >>> human = quality + rng.normal(size=(12, 40))
    >>> metric = quality + rng.normal(size=(12, 40))
    >>> r = correlate(metric, human, level="system", resample="both", seed=0)
    >>> print(r)
    0.90 (0.28, 0.98)
    >>> r.population
    'new systems and new inputs like these'
    >>> print(correlate(metric, human, method="fisher").format(digits=3))
    0.900 (0.675, 0.972)
    """
    lv, co, me, lev, resample, b, seed_int = _plan(
        level, coefficient, method, confidence_level, resample, n_resamples, seed
    )
    x, z, mask = matrices_iv(X, Z)
    prob = Problem(x, z, mask, lv, co)
    return correlate_prepared(
        prob, me, lev, resample, b, seed_int, metric, human, workers=workers, engine=engine,
    )  # fmt: skip


@entry_point
def correlate_metrics(
    metrics: Mapping[str, Any], Z: Any, *, level: str = "system", coefficient: str = "pearson",
    resample: str | None = "both", method: str = "percentile", confidence_level: float = 0.95,
    n_resamples: int = 10_000, seed: int | None = None, human: str = "human",
    workers: int | None = None, engine: str = "auto", progress: Any = None,
) -> dict[str, CorrelationResult]:  # fmt: skip
    """:func:`correlate` for several metrics against the same human scores.

    Every metric is resampled with the same systems and inputs (one seed), so the intervals
    are directly comparable; use :func:`compare_correlations` to test a difference. (At the
    summary level, metrics whose missing cells leave out different inputs are resampled
    separately, with the same seed.)

    Parameters
    ----------
    metrics : mapping of str to array_like
        Metric name -> its ``(N, M)`` score matrix.
    Z : array_like, shape (N, M)
    level, coefficient, resample, method, confidence_level, n_resamples, seed, human
        As in :func:`correlate`.
    workers, engine, progress
        As in :func:`correlate` (progress is reported per batch of each bootstrap run).

    Returns
    -------
    dict of str to CorrelationResult
        In the order of ``metrics``.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import correlate_metrics
    >>> rng = np.random.default_rng(2)
    >>> human = rng.normal(size=(6, 30))
    >>> out = correlate_metrics({"good": human + rng.normal(size=(6, 30)),
    ...                          "poor": human + 3 * rng.normal(size=(6, 30))},
    ...                         human, level="summary", n_resamples=1000, seed=0)
    >>> {name: r.format() for name, r in out.items()}
    {'good': '0.63 (0.35, 0.76)', 'poor': '0.30 (-0.03, 0.52)'}
    """
    if not isinstance(metrics, Mapping) or not metrics:
        raise InvalidInputError(
            "metrics", "a non-empty mapping of metric name to score matrix",
            describe_value(metrics),
        )  # fmt: skip
    lv, co, me, lev, resample, b, seed_int = _plan(
        level, coefficient, method, confidence_level, resample, n_resamples, seed
    )
    probs = {}
    for name, x in metrics.items():
        xa, za, mask = matrices_iv(x, Z, x_name=f"metrics[{name!r}]")
        probs[str(name)] = Problem(xa, za, mask, lv, co)
    reps: dict[str, np.ndarray] = {}
    if resample is not None:
        shapes = {(p.n_systems, p.n_inputs) for p in probs.values()}
        if len(shapes) == 1:  # one pass over the resamples for every metric
            n_sys, n_inp = shapes.pop()
            stats = [p.stat for p in probs.values()]
            out, label, engine_notes = bootstrap(stats, resample, n_sys, n_inp, seed_int, b,
                                                 workers=workers, engine=engine)  # fmt: skip
            reps = dict(zip(probs, out, strict=True))
            for p in probs.values():
                p.engine_label = label
                p.notes.extend(engine_notes)
    return {
        name: correlate_prepared(
            p,
            me,
            lev,
            resample,
            b,
            seed_int,
            name,
            human,
            replicates=reps.get(name),
            workers=workers,
            engine=engine,
        )
        for name, p in probs.items()
    }


# --------------------------------------------------------------------------- long tables
class ScoreMatrices(Mapping):
    """Score matrices (systems x inputs) built from a long table, one per score column.

    A read-only mapping of column name -> ``(N, M)`` array, with the row and column labels.

    Attributes
    ----------
    systems : tuple
        Row labels, sorted.
    inputs : tuple
        Column labels, sorted.
    """

    def __init__(self, systems: tuple, inputs: tuple, matrices: dict[str, np.ndarray]) -> None:
        self.systems = systems
        self.inputs = inputs
        self._m = matrices

    def __getitem__(self, name: str) -> np.ndarray:
        return self._m[name]

    def __iter__(self):
        return iter(self._m)

    def __len__(self) -> int:
        return len(self._m)

    def __repr__(self) -> str:
        return (
            f"ScoreMatrices({len(self.systems)} systems x {len(self.inputs)} inputs: "
            f"{', '.join(self._m)})"
        )


def score_matrices(
    table: Any,
    scores: str | list[str] | tuple[str, ...],
    *,
    system: str = "system",
    input: str = "input",
) -> ScoreMatrices:
    """Pivot a long table (one row per system and input) into systems x inputs matrices.

    Parameters
    ----------
    table : pandas.DataFrame or mapping of str to 1-D array_like
        Columns ``system``, ``input`` and the score columns.
    scores : str or list of str
        Score columns to pivot (metrics and human scores alike).
    system, input : str
        Names of the system and input id columns.

    Returns
    -------
    ScoreMatrices
        Rows and columns in sorted label order; a (system, input) pair absent from the table
        is NaN (missing).

    Raises
    ------
    InvalidInputError
        A column is absent, or a (system, input) pair occurs more than once.

    Examples
    --------
    >>> from booteval.meta import score_matrices
    >>> t = {"sys": ["a", "a", "b", "b"], "doc": [1, 2, 1, 2],
    ...      "bleu": [0.3, 0.5, 0.2, 0.4], "human": [3.0, 4.0, 2.0, 5.0]}
    >>> m = score_matrices(t, ["bleu", "human"], system="sys", input="doc")
    >>> m.systems, m.inputs
    (('a', 'b'), (1, 2))
    >>> m["human"]
    array([[3., 4.],
           [2., 5.]])
    """
    names = [scores] if isinstance(scores, str) else list(scores)
    if not names:
        raise InvalidInputError("scores", "at least one score column name", "none")

    def col(name: str, param: str) -> np.ndarray:
        try:
            c = table[name]
        except (KeyError, IndexError, TypeError):
            raise InvalidInputError(param, "the name of a column of `table`", repr(name)) from None
        return np.asarray(c.to_numpy() if hasattr(c, "to_numpy") else c).reshape(-1)

    sys_col = col(system, "system")
    inp_col = col(input, "input")
    sys_labels, si = np.unique(sys_col, return_inverse=True)
    inp_labels, ii = np.unique(inp_col, return_inverse=True)
    si, ii = si.reshape(-1), ii.reshape(-1)
    n, m = sys_labels.size, inp_labels.size
    key = si.astype(np.int64) * m + ii
    uniq, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        k = int(uniq[np.argmax(counts > 1)])
        raise InvalidInputError(
            "table",
            "at most one row per (system, input) pair",
            f"{int((counts > 1).sum())} repeated pair(s), e.g. "
            f"({sys_labels[k // m]!r}, {inp_labels[k % m]!r})",
            "Average repeated judgments first.",
        )
    mats = {}
    for name in names:
        vals = col(name, "scores")
        try:
            vals = vals.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError("scores", "numeric score columns", repr(name)) from None
        mat = np.full((n, m), np.nan)
        mat[si, ii] = vals
        mats[str(name)] = mat
    return ScoreMatrices(tuple(sys_labels.tolist()), tuple(inp_labels.tolist()), mats)
