"""``booteval.leaderboard``: many systems on the same rows, ranked with honest uncertainty.

Every system is resampled with the *same* weights in every replicate (one
:class:`~booteval.core.paired.StackedEvaluator` run), so one set of ``B`` replicates
gives, at once:

* each system's interval (as :func:`booteval.ci` would give it);
* every pairwise difference with its interval and a p-value (as
  :func:`booteval.compare` would give it), adjusted for the number of pairs;
* each system's rank with a rank interval, and its expected rank;
* groups of systems that the data cannot tell apart.

Definitions, stated exactly
---------------------------
Rank
    1 is the best, respecting the metric's ``greater_is_better``. Ties get the
    *minimum* rank ("competition" ranking: 1, 2, 2, 4), both for the point
    estimates and within each replicate.
Expected rank
    The mean of a system's rank over the replicates (ties as above).
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
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ..core.design import make_design
from ..core.engine import (
    check_choice,
    check_run_options,
    screen_undefined,
)
from ..core.errors import BootevalWarning, DegenerateIntervalWarning, InvalidInputError, warn
from ..core.intervals import (
    METHODS,
    RESAMPLED,
    STUDENTIZED,
    CountedJackknife,
    compute_interval,
    order_statistic_quantile,
)
from ..core.options import entry_point
from ..core.paired import StackedEvaluator, check_defined, validate_system
from ..core.philox import describe_source, weight_source
from ..distributed.run import TableRun, run_table, source_kind
from ..metrics import Metric, resolve_metric
from ..metrics.base import deferred_compression
from ..results import freeze
from .auto_method import CLOSED_FORMS, paired_closed_form
from .confidence import SharedDraws, shared_run, system_ci
from .leaderboard_pairs import board_pair_methods, board_pairs
from .leaderboard_results import (
    LeaderboardEntry,
    LeaderboardResult,
    PairwiseDifference,
    _ranks,
)
from .multiple import CORRECTIONS, _letter_groups, _letter_names, adjust_p_values

__all__ = [
    "CORRECTIONS",
    "LeaderboardEntry",
    "LeaderboardResult",
    "PairwiseDifference",
    "adjust_p_values",
    "leaderboard",
]

#: multiple-comparison corrections accepted by :func:`leaderboard` and :func:`adjust_p_values`
#: interval methods of a leaderboard of a table read by column names (one Poisson run)
_TABLE_METHODS = RESAMPLED


# ------------------------------------------------------------ computation
def _is_dataframe(x: object) -> bool:
    return hasattr(x, "columns") and hasattr(x, "pivot") and hasattr(x, "iloc")


def _column(df: Any, col: object, parameter: str) -> Any:
    if col not in df.columns:
        raise InvalidInputError(
            parameter, f"a column of the DataFrame ({', '.join(map(str, df.columns))})", repr(col)
        )
    return df[col]


def _from_long(
    df: Any, system_col: object, row_col: object, output_col: object, label_col: object,
    strata: object, clusters: object,
) -> tuple[dict[str, Any], Any, Any, Any]:  # fmt: skip
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
    # rows in the order they first appear (as compare's long tables), whatever the ids' type
    wide = df.pivot(index=row_col, columns=system_col, values=output_col)
    wide = wide.reindex(list(dict.fromkeys(rows.tolist())))
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


@entry_point
def leaderboard(
    systems: Mapping[Any, Any] | Any, *, y_true: Any = None,
    metric: str | Metric | Callable[..., float] | None = None,
    metric_kwargs: dict[str, Any] | None = None, method: str = "auto",
    confidence_level: float = 0.95, n_resamples: int = 10_000, seed: int | None = None,
    strata: Any = None, clusters: Any = None, correction: str = "holm", batch: int | None = None,
    workers: int | None = None, engine: str = "auto", design: str = "multinomial",
    progress: Any = None, on_undefined: str = "drop", bca_ties: str = "half",
    system_col: Any = None, row_col: Any = None, output_col: Any = None, label_col: Any = None,
    system_cols: Any = None,
) -> LeaderboardResult:  # fmt: skip
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
    batch, workers, engine, on_undefined, bca_ties
        As in :func:`booteval.ci`. Replicates on which the metric is undefined
        for any system are dropped for all. The compiled kernels (``engine=``)
        cover sum metrics of continuous outputs on an iid design, one draw per replicate
        for all the systems; elsewhere ``engine="numba"`` runs the NumPy engine and says so.
    {design}
    method : str, default "auto"
        A method of :func:`booteval.ci`, or ``"auto"``. Each system's interval is the one
        :func:`booteval.ci` gives for that system alone with this method (``"auto"``: its
        choice from the coverage atlas, closed forms included), to the last bit: taken
        from the shared run's replicates where ``ci`` draws the same units, from the
        system's own run otherwise (discrete outputs that ``ci`` resamples as a few
        cells, studentized intervals). Each pair's interval and p-value is the one
        :func:`booteval.compare` forms with this method (``"auto"``: compare's choice
        for that pair): from the shared replicates for percentile, basic, normal and BCa
        intervals, from the pair's own closed form or run for the others. The ranks
        always come from the shared replicates. ``result.system_methods`` and
        ``result.pair_methods`` name what each row used. A table read by column names
        (``system_cols``) takes ``"bca"``, ``"percentile"``, ``"basic"`` or ``"normal"``
        (``"auto"`` is BCa there) for every interval.
    correction : {"holm", "bonferroni", "fdr_bh", "none"}
        Adjustment of the pairwise p-values (see :func:`adjust_p_values`).
    system_col, row_col, output_col, label_col : column names, optional
        For a long DataFrame.
    system_cols : list or mapping of column names, optional
        For a wide table read by column names (a pandas, Dask or Spark DataFrame, or a
        Parquet path or glob): each system's output column (a mapping gives display
        names), with ``label_col`` for the labels and ``clusters`` a column name:
        ``leaderboard("logs/*.parquet", system_cols=["pred_a", "pred_b"],
        label_col="label", metric="accuracy")``. It runs as :func:`booteval.ci` runs a
        table: every system on the same rows' Poisson(1) weights, with ``"percentile"``,
        ``"basic"``, ``"normal"`` and, for label metrics, ``"bca"``.

    {progress}
    Returns
    -------
    LeaderboardResult
        Every system's interval and rank, and the adjusted pairwise differences.

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
       1  C       73.6 (69.6, 77.3)  1         a
       2  B       61.0 (56.7, 65.2)  2-3       b
       3  A       56.6 (52.2, 60.9)  2-3       b
    <BLANKLINE>
    95% intervals: systems jeffreys (closed form); pairs bca (bootstrap); paired iid ...
    rank 95%: percentile interval of the rank across resamples (ties share the minimum rank)
    group: systems sharing a letter are not separated (holm-adjusted p >= 0.05)
    """
    check_choice(method, "method", ("auto", *METHODS))  # every method, and the default
    auto = method == "auto"
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed,
        method="bca" if auto else method, on_undefined=on_undefined, bca_ties=bca_ties,
        batch=batch, workers=workers, engine=engine,
    )  # fmt: skip
    correction = check_choice(correction, "correction", CORRECTIONS)
    if system_cols is not None or source_kind(systems) in ("dask", "spark", "parquet"):
        method = "bca" if auto else method
        check_choice(method, "method", _TABLE_METHODS)
        run, names = _table_run(
            systems, system_cols, label_col, y_true, system_col, metric=metric,
            metric_kwargs=metric_kwargs, method=method, confidence_level=confidence_level,
            n_resamples=n_resamples, seed=seed, strata=strata, clusters=clusters,
            on_undefined=on_undefined, design=design, progress=progress,
        )  # fmt: skip
        reps = run.reps
        return _board(
            run.metric, names, reps.estimates, reps.values, reps.jackknife, run.method,
            run.opts.confidence_level, opts.bca_ties, correction, [], run.n_undefined,
            reps.n_rows, reps.n_clusters, run.opts.n_resamples, run.opts.seed,
            "paired " + run.design, info=run.notes, workers=opts.workers,
        )  # fmt: skip

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
    _check_budget(opts.n_resamples, len(names))
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
    plan = make_design(n_rows, strata=strata, clusters=clusters)
    with deferred_compression():  # the systems are compressed jointly, once
        bound = [m.bind(arrays[k], plan) for k in names]
    stacked = StackedEvaluator(bound, plan)
    est = np.asarray(stacked.estimate(), dtype=float)
    check_defined(m, est, names)

    # ---- one run: (B, K) replicates on shared weights (ranks, and pairs by a bootstrap)
    b = opts.n_resamples
    run_opts = opts if opts.method not in STUDENTIZED else replace(opts, method="percentile")
    source = weight_source(design, plan, stacked.design, clusters, opts.method)
    run = shared_run(
        stacked, source, run_opts, may_studentize=auto or opts.method in STUDENTIZED,
        design=design,
    )  # fmt: skip
    reps, engine_notes, ran = run.values, run.notes, run.engine
    shared = SharedDraws(run.key, reps, run.standard_errors)
    defined = np.isfinite(reps).all(axis=1)
    n_undefined = screen_undefined(
        defined, f"metric {m.label!r} (on at least one system)", opts.on_undefined
    )
    reps = np.ascontiguousarray(reps[defined])

    # ---- each system's interval: booteval.ci's, from the shared draws where ci draws the same
    caught: dict[tuple[Any, str], list[str]] = {}  # each warning once, with its systems
    systems_ci = []
    for j, name in enumerate(names):
        held: list[Any] = []
        systems_ci.append(
            system_ci(
                m, arrays[name], plan, opts, auto=auto, clusters=clusters, design=design,
                shared=(shared, j), warnings_to=held, evaluator=bound[j],
            )
        )  # fmt: skip
        for w in held:
            caught.setdefault((w.category, str(w.message)), []).append(name)
    notes = list(engine_notes)
    for (category, message), which in caught.items():
        who = "system" if len(which) == 1 else "systems"
        warn(f"{who} {', '.join(which)}: {message}", category, stacklevel=2)
    # ---- each pair's method: compare's, as method="auto" chooses it for that pair
    jackknives: dict[str, np.ndarray] = {}  # each system's leave-one-cluster-out values
    pair_methods = board_pair_methods(
        m, names, arrays, plan, stacked, opts.method, auto, design == "multinomial", jackknives
    )
    jack = None
    if opts.method == "bca" or "bca" in pair_methods.values():
        jack = np.asarray(stacked.jackknife(), dtype=float)
    pair_of = partial(
        _pair_by_compare, m, names, arrays, clusters, strata, opts, design, auto, jackknives
    )  # fmt: skip
    return _board(
        m, names, est, reps, jack, "auto" if auto else opts.method, opts.confidence_level,
        opts.bca_ties, correction, notes, n_undefined, n_rows, plan.n_clusters, b, opts.seed,
        "paired " + describe_source(plan, source) + ran, systems_ci=systems_ci,
        pair_methods=pair_methods, pair_of=pair_of, workers=opts.workers,
    )  # fmt: skip


def _pair_by_compare(
    m: Metric, names: list[str], arrays: dict[str, tuple[np.ndarray, ...]], clusters: Any,
    strata: Any, opts: Any, design: str, auto: bool, jackknives: dict[str, np.ndarray],
    method: str, ia: int, ib: int, est: np.ndarray, reps: np.ndarray,
) -> tuple[dict[str, Any], tuple[str, ...]]:  # fmt: skip
    """The pair ``ib - ia`` as :func:`booteval.compare` gives it with ``method``: a closed
    form (and the p-value that inverts it), or a studentized interval (whose standard
    errors need the pair's own run); ``est`` and ``reps`` are the shared run's. With
    ``auto`` (``method`` is the one compare's rule chose) compare runs as the default, so
    that where its bootstrap-t says nothing the pair takes what compare takes; the record's
    ``"method"`` is then the method used, and the note says why. ``jackknives``: systems'
    leave-one-cluster-out values already computed, by name."""
    from .comparison import compare

    a, b = arrays[names[ia]], arrays[names[ib]]
    if method in CLOSED_FORMS:
        known = None
        if names[ia] in jackknives:
            known = (jackknives[names[ia]], jackknives[names[ib]])
        low, high, p = paired_closed_form(
            method, m, (a, b), clusters, opts.confidence_level, "two-sided", known
        )
        diffs = reps[:, ib] - reps[:, ia]
        rec = {
            "name_a": names[ia], "name_b": names[ib], "estimate_a": float(est[ia]),
            "estimate_b": float(est[ib]), "difference": float(est[ib] - est[ia]),
            "low": low, "high": high,
            "standard_error": float(np.std(diffs, ddof=1)) if diffs.size > 1 else 0.0,
            "p_value": p, "excludes_zero": bool(low > 0 or high < 0),
        }  # fmt: skip
        return rec, ()
    r = compare(
        *a, b[-1], metric=m, method="auto" if auto else method,
        confidence_level=opts.confidence_level,
        n_resamples=opts.n_resamples, seed=opts.seed, batch=opts.batch, strata=strata,
        clusters=clusters, on_undefined=opts.on_undefined, n_inner=opts.n_inner,
        bca_ties=opts.bca_ties, workers=opts.workers, engine=opts.engine, design=design,
        names=(names[ia], names[ib]),
    )  # fmt: skip
    rec = {
        "name_a": names[ia], "name_b": names[ib], "estimate_a": r.estimate_a,
        "estimate_b": r.estimate_b, "difference": r.difference, "low": r.low, "high": r.high,
        "standard_error": r.standard_error, "p_value": r.p_value,
        "excludes_zero": r.excludes_zero,
    }  # fmt: skip
    if not auto or r.method == method:
        return rec, ()
    return {**rec, "method": r.method}, tuple(n for n in r.notes if "method='auto' gives" in n)


def _table_run(
    systems: Any, system_cols: Any, label_col: Any, y_true: Any, system_col: Any,
    **options: Any,
) -> tuple[TableRun, list[str]]:  # fmt: skip
    """A wide table's systems (``system_cols``) run on one cluster run's shared weights."""
    if system_cols is None:
        raise InvalidInputError(
            "system_cols", "each system's output column for a table read by column names "
            "(a list, or a mapping of display name to column)", "None",
        )  # fmt: skip
    given = {"system_col": system_col, "y_true": y_true, "strata": options["strata"]}
    for name, value in given.items():
        if value is not None:
            raise InvalidInputError(
                name, "None with system_cols (a wide table: name the labels with label_col)",
                "a value",
            )  # fmt: skip
    if isinstance(system_cols, Mapping):
        names, cols = [str(k) for k in system_cols], list(system_cols.values())
    elif isinstance(system_cols, list | tuple):
        names, cols = [str(c) for c in system_cols], list(system_cols)
    else:
        raise InvalidInputError(
            "system_cols", "a list of column names, or a mapping of name to column",
            type(system_cols).__name__,
        )  # fmt: skip
    if len(cols) < 2 or len(set(names)) != len(names):
        raise InvalidInputError(
            "system_cols", "at least two systems with distinct names", repr(system_cols)
        )  # fmt: skip
    m = resolve_metric(options["metric"], options["metric_kwargs"], 1 if label_col is None else 2)
    if m.n_inputs != (1 if label_col is None else 2):
        raise InvalidInputError(
            "label_col", f"{'a column name' if m.n_inputs == 2 else 'None'} for metric "
            f"{m.label!r} (it takes {', '.join(m.input_names)})", repr(label_col),
        )  # fmt: skip
    given = ([label_col] if label_col is not None else []) + [cols]
    columns = dict(zip(m.input_names, given, strict=True))
    del options["strata"]
    run = run_table(
        systems, columns=columns, n_systems=len(cols),
        what=f"metric {m.label!r} (on at least one system)", **options,
    )  # fmt: skip
    return run, names


def _board(
    m: Metric, names: list[str], est: np.ndarray, reps: np.ndarray, jack: Any, method: str,
    level: float, bca_ties: str, correction: str, notes: list[str], n_undefined: int,
    n_rows: int, n_clusters: int | None, b: int, seed: int, design: str,
    info: tuple[str, ...] = (), systems_ci: list[Any] | None = None,
    pair_methods: dict[tuple[int, int], str] | None = None, pair_of: Any = None,
    workers: int | None = None,
) -> LeaderboardResult:  # fmt: skip
    """The leaderboard from every system's ``(B, K)`` replicates on shared weights
    (``notes``: the run's so far; ``info``: notes about the run, not degenerate cases).

    ``systems_ci``: each system's :func:`booteval.ci` result (else each interval is formed
    from its column of ``reps`` by ``method``); ``pair_methods``: each pair's method, a
    bootstrap method formed from ``reps`` or, through ``pair_of(method, ia, ib)``, one
    that needs the pair's own run (a closed form, a studentized interval)."""
    alpha = round(1.0 - level, 12)
    gib = bool(m.greater_is_better)
    k = len(names)

    # ---- each system's interval
    sys_out: list[Any] = []
    ci_notes: list[tuple[str, str]] = []  # (system, note) of ci's results
    own_notes: list[tuple[str, str]] = []
    for j, name in enumerate(names):
        if systems_ci is not None:  # ci's notes; its warnings were raised with it
            out = systems_ci[j]
            ci_notes.extend((name, note) for note in out.notes)
            sys_out.append(out)
            continue
        out = compute_interval(
            method, float(est[j]), reps[:, j], level,
            jackknife=None if jack is None else jack[:, j], bounds=m.bounds,
            ties=bca_ties, warn=False,
        )  # fmt: skip
        own_notes.extend((name, note) for note in out.notes)
        sys_out.append(out)
    system_notes = _by_note(ci_notes)
    notes.extend(_by_note(own_notes))

    # ---- ranks
    rank_hat = _ranks(est, gib)
    order = sorted(range(k), key=lambda j: (int(rank_hat[j]), j))
    pos = {j: i for i, j in enumerate(order)}
    rank_all = _ranks(reps, gib)
    mean_rank = rank_all.mean(axis=0)  # integers: the same sum in any order
    rank_reps = np.sort(rank_all, axis=0)
    rank_lo = [int(order_statistic_quantile(rank_reps[:, j], alpha / 2)) for j in range(k)]
    rank_hi = [int(order_statistic_quantile(rank_reps[:, j], 1 - alpha / 2)) for j in range(k)]

    # ---- pairs in leaderboard order: B is the higher-ranked system
    raw, used, pair_pos, pair_notes = board_pairs(
        order, names, method, pair_methods, pair_of, est, reps, jack, level, m.bounds, bca_ties,
        workers,
    )  # fmt: skip
    notes.extend(pair_notes)
    p_adj = adjust_p_values([r["p_value"] for r in raw], correction)
    pairs = tuple(
        PairwiseDifference(**r, p_adjusted=float(pa), separated=bool(pa < alpha))
        for r, pa in zip(raw, p_adj, strict=True)
    )
    n_pairs = len(pairs)
    floor = 2.0 / (reps.shape[0] + 1.0)  # the smallest two-sided bootstrap p-value
    resampled = sum(pm not in CLOSED_FORMS for pm in used)  # closed forms have no floor
    if correction in ("holm", "bonferroni") and resampled and n_pairs * floor >= alpha:
        which = "no pair" if resampled == n_pairs else (
            f"none of the {resampled} pairs with a bootstrap p-value"
        )  # fmt: skip
        msg = (
            f"with {n_pairs} pairs and B = {reps.shape[0]} the smallest {correction}-adjusted "
            f"bootstrap p-value is {n_pairs} * 2/(B + 1) = {n_pairs * floor:.3g} >= {alpha:g}, "
            f"so {which} can be separated; use n_resamples > {math.ceil(2 * n_pairs / alpha)}"
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
                standard_error=_system_se(out, reps[:, j]),
                mcse_low=out.mcse_low,
                mcse_high=out.mcse_high,
                rank=int(rank_hat[j]),
                rank_low=rank_lo[j],
                rank_high=rank_hi[j],
                letters=letters[pos[j]],
                in_top_group=pos[j] in top,
                effective_n=float(getattr(out, "effective_n", None) or math.nan),
                expected_rank=float(mean_rank[j]),
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
        confidence_level=level, method=method, correction=correction, alpha=alpha,
        rank_ties="min", n=n_rows, n_clusters=n_clusters, n_resamples=b,
        seed=seed, n_undefined=n_undefined, design=design,
        system_names=tuple(names), distribution=freeze(reps),
        jackknife=jack if isinstance(jack, CountedJackknife) else freeze(jack),
        notes=(*info, *system_notes, *notes), bca_ties=bca_ties, bounds=m.bounds,
        system_methods=tuple(  # in leaderboard order, as the entries
            getattr(sys_out[j], "method", method) for j in order
        ) if systems_ci is not None else (),
        pair_methods=tuple(used) if pair_methods is not None else (),
    )  # fmt: skip


#: replicate values a leaderboard holds at once, all systems together (8 bytes each; the
#: ranks and pairs take a few copies): 5 x 10**7 is 0.4 GiB a copy
BUDGET = 5 * 10**7


def _check_budget(n_resamples: int, k: int) -> None:
    """Refuse, before any work, a run whose replicates of all systems would not fit."""
    if n_resamples * k > BUDGET:
        raise InvalidInputError(
            "n_resamples",
            f"at most {BUDGET // k:,} for {k} systems (a leaderboard holds every system's "
            f"replicates at once, {BUDGET:,} values in all)",
            f"{n_resamples:,} ({n_resamples * k:,} values, "
            f"{n_resamples * k * 8 / 2**30:.1f} GiB a copy)",
            "The default, 10,000, is the usual choice for 95 % intervals; each result reports "
            "its Monte Carlo error.",
        )


def _by_note(pairs: list[tuple[str, str]]) -> list[str]:
    """Each distinct note once, naming the systems it is about, in first-seen order."""
    who: dict[str, list[str]] = {}
    for name, note in pairs:
        who.setdefault(note, []).append(name)
    return [
        f"{'system' if len(names) == 1 else 'systems'} {', '.join(names)}: {note}"
        for note, names in who.items()
    ]


def _system_se(out: Any, values: np.ndarray) -> float:
    """A system's standard error: its ci result's, or its replicates' standard deviation."""
    se = getattr(out, "standard_error", None)
    if se is not None:
        return float(se)
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0
