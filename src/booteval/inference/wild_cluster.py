"""The wild cluster bootstrap-t for the mean of clustered per-row scores.

:func:`wild_cluster_ci` keeps the rows and clusters and rescales whole clusters of
residuals by random multipliers (Cameron, Gelbach & Miller, 2008), with Webb's six-point
weights by default (MacKinnon & Webb, 2017; Webb, 2023); the cluster-robust variances and
the result type it shares with the analytic remedies are in
:mod:`booteval.inference.few_clusters`.

Reproducibility
---------------
The multipliers are the engine's weights: a weight source (``_ClusterMultiplierSource``)
draws them in chunks whose size depends only on ``G``; chunk ``j`` comes from the
``few_clusters.wild`` stream of :mod:`booteval.core.streams` (spawn key ``(8, j)``). The
replicates run through :func:`booteval.core.engine.run_engine` in batches of a
bounded number of cells, on ``workers`` threads, with progress reported per batch;
replicate ``b`` is the same whatever the batch size or the number of workers, and a run
of ``B`` replicates is a prefix of a longer run with the same seed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.engine import NO_KERNEL, check_choice, engine_note, run_engine
from ..core.errors import DegenerateIntervalWarning
from ..core.options import entry_point
from ..core.streams import generator
from ..core.validation import check_n_resamples, check_positive_int, check_seed
from ..core.weights import WeightSource
from ..methods.wild import MULTIPLIERS, draw_multipliers
from ..metrics.base import matmul
from .few_clusters import (
    _ZERO_SE_NOTE,
    CLUSTER_CORRECTIONS,
    ClusteredInterval,
    _check_scores,
    _note,
    _reduce,
    _variance,
    _variance_weights,
)

__all__ = ["WILD_CLUSTER_WEIGHTS", "wild_cluster_ci"]

#: the wild cluster bootstrap's multiplier distributions
WILD_CLUSTER_WEIGHTS: tuple[str, ...] = ("webb", *MULTIPLIERS)

# with this many clusters or fewer, Rademacher weights give a coarse bootstrap distribution
_RADEMACHER_COARSE = 11
# replicates x clusters per random chunk (fixes the streams: part of reproducibility)
_CHUNK_REPLICATES = 1024
_CHUNK_CELLS = 1 << 20
# replicates x clusters per batch by default (memory only: results do not depend on it)
_BATCH_REPLICATES = 4096
_BATCH_CELLS = 1 << 22
# chunks of multipliers kept for the next batch (a batch straddles two chunks)
_CACHED_CHUNKS = 4
# a bootstrap standard error below this fraction of the original one counts as zero
_ZERO_SE = 1e-10

_WEBB_VALUES = np.array(
    [-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)]
)


def _draw(weights: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    if weights == "webb":
        return _WEBB_VALUES[rng.integers(0, 6, size=shape)]
    return draw_multipliers(weights, shape, rng)


class _ClusterMultiplierSource(WeightSource):
    """One multiplier per cluster and replicate, as the engine's weight source.

    ``unit_weights(seed, start, stop)`` are the multipliers of replicates ``start .. stop -
    1``, shape ``(stop - start, G)``, cut from chunks of ``block_size`` replicates drawn
    from the ``few_clusters.wild`` stream (chunk ``j``: spawn key ``(8, j)``), so they do
    not depend on the batching. (The wild bootstrap's source in :mod:`booteval.methods.wild`
    draws per row from the ``wild`` stream and has no Webb weights, so it is not reused.)
    The last few chunks are kept, so that batches straddling a chunk draw it once.
    """

    clustered = False
    stream = "few_clusters.wild"
    cached_blocks = _CACHED_CHUNKS

    def __init__(self, weights: str, n_clusters: int) -> None:
        self.weights, self.n_clusters = weights, n_clusters
        self.block_size = max(1, min(_CHUNK_REPLICATES, _CHUNK_CELLS // n_clusters))

    def block(self, seed: int, j: int) -> np.ndarray:
        rng = generator("few_clusters.wild", seed, j)
        return _draw(self.weights, (self.block_size, self.n_clusters), rng)


class _WildClusterRun:
    """The engine's view of the wild cluster bootstrap-t: ``t*`` of each multiplier row.

    With ``T = sum_g v_g S_g``, ``mean* - mean = T / N`` and the replicate's cluster sums
    are ``v_g S_g - p_g T``. A replicate whose ``se*`` is 0 gets ``t* = +-inf`` when its
    mean moved and 0 when it did not. Every sum runs row by row (``matmul``), so a
    replicate does not depend on the batch it is computed in.
    """

    design = None
    has_standard_error = False
    thread_safe = True

    def __init__(self, sums: np.ndarray, shares: np.ndarray, k: np.ndarray, n: int, se: float):
        self.s, self.p, self.n, self.se = sums, shares, n, se
        self.k = k[:, None]

    def estimate(self) -> float:
        return 0.0  # one t* per replicate

    def replicates(self, v: np.ndarray) -> np.ndarray:
        s, n, se = self.s, self.n, self.se
        total = matmul(v, s[:, None])[:, 0]  # T = sum_g v_g S_g
        star_sums = v * s - total[:, None] * self.p
        se_star = np.sqrt(matmul(star_sums * star_sums, self.k)[:, 0]) / n
        diff = total / n
        zero = se_star <= _ZERO_SE * se
        with np.errstate(divide="ignore", invalid="ignore"):
            t = diff / se_star
        if zero.any():
            moved = np.abs(diff) > _ZERO_SE * se
            t = np.where(zero, np.where(moved, np.copysign(np.inf, diff), 0.0), t)
        return t


def _order_statistic_indices(b: int, level: float) -> tuple[int, int]:
    """0-based positions of the lower and upper percentile-t quantiles among ``b`` values."""
    k = max(1, math.floor((b + 1) * (1.0 - level) / 2.0 + 1e-9))
    return k - 1, b - k


@entry_point
def wild_cluster_ci(
    scores: object, clusters: object, *, weights: str = "webb", n_resamples: int = 9999,
    seed: int | None = None, confidence_level: float = 0.95, correction: str = "CR2",
    batch: int | None = None, workers: int | None = None, engine: str = "auto",
    progress: Any = None,
) -> ClusteredInterval:  # fmt: skip
    """Wild cluster bootstrap-t interval for the mean of per-row scores.

    Each replicate keeps the rows and clusters and flips (rescales) whole clusters of
    residuals: with ``e_i = x_i - mean`` and one multiplier ``v_g`` per cluster, the
    pseudo-scores are ``x*_i = mean + v_g e_i``. From each replicate's mean and its
    cluster-robust standard error the statistic ``t* = (mean* - mean) / se*`` is formed,
    and the equal-tailed percentile-t interval is
    ``[mean - q*(1 - alpha/2) se, mean - q*(alpha/2) se]`` with ``se`` the original
    sample's standard error.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Finite per-row scores.
    clusters : array_like of shape (n,)
        One label per row; at least two distinct labels.
    weights : {"webb", "rademacher", "mammen", "normal"}, default "webb"
        The multiplier distribution. ``"webb"``: Webb's six-point distribution,
        ``+-sqrt(3/2), +-1, +-sqrt(1/2)`` with probability 1/6 each; the others as in
        :func:`booteval.methods.wild.draw_multipliers`.
    n_resamples : int, default 9999
        Number of bootstrap replicates ``B`` (at least enough that each tail holds one).
    seed : int, optional
        Seed of the multipliers; drawn and recorded in the result's ``seed`` when ``None``.
    confidence_level : float, default 0.95
        Nominal coverage, strictly between 0 and 1.
    correction : {"CR2", "CR1"}, default "CR2"
        The cluster-robust variance used for ``se`` and every ``se*``.
    batch : int, optional
        Replicates per batch (bounds memory); never changes the result.
    workers : int, optional
        Threads for the replicates (default: all cores). Never changes the result.
    {engine}
    {progress}

    Returns
    -------
    ClusteredInterval
        ``method = "wild-cluster-t"``, ``standard_error`` the original cluster-robust
        standard error, ``df = None``, ``seed`` and ``n_resamples`` as used; ``details``
        holds ``weights``, the two bootstrap ``t`` quantiles (``t_low``, ``t_high``) and
        ``n_infinite`` (replicates whose ``se*`` was 0).

    Raises
    ------
    InvalidInputError
        For malformed ``scores`` or ``clusters``, fewer than two clusters, an unknown
        ``weights`` or ``correction``, too few ``n_resamples`` for the confidence level, a
        bad ``seed`` or ``confidence_level``.

    Warns
    -----
    DegenerateIntervalWarning
        When the original standard error is 0 (the interval collapses to the mean) or when
        some replicates have a zero standard error (their ``t*`` is infinite, which can make
        an end point infinite; typical of two clusters).

    Notes
    -----
    The replicate means and standard errors are computed from the ``G`` cluster residual
    sums alone: with ``T = sum_g v_g S_g``, ``mean* - mean = T / N`` and the replicate's
    cluster sums are ``v_g S_g - p_g T``; a block of replicates is one ``(B, G)`` matrix
    product. Memory is bounded by the batch size plus the ``B`` stored ``t*`` values. The
    quantiles are order statistics: ``q*(alpha/2) = t*_(k)`` and
    ``q*(1 - alpha/2) = t*_(B + 1 - k)`` with ``k = floor((B + 1) alpha / 2)``. With equal
    cluster sizes ``"CR1"`` and ``"CR2"`` give the same interval (the constant factor
    cancels between ``se`` and the ``se*``).
    With Rademacher weights there are only ``2^G`` distinct replicates; with 11 clusters or
    fewer Webb's weights are preferable (MacKinnon & Webb, 2017), which the ``notes`` say.

    Examples
    --------
    >>> scores = [0.9, 0.8, 0.85, 0.4, 0.5, 0.7, 0.75, 0.6, 0.95, 0.3, 0.65, 0.55, 0.7, 0.8]
    >>> clusters = list("aaabbccccdeeff")
    >>> ci = wild_cluster_ci(scores, clusters, n_resamples=999, seed=0)
    >>> print(ci)
    0.6750 (0.4825, 0.8633)
    >>> ci.details["weights"], ci.n_clusters, round(ci.details["t_high"], 3)
    ('webb', 6, 2.814)
    """
    level = confidence_level
    weights = check_choice(weights, "weights", WILD_CLUSTER_WEIGHTS)
    correction = check_choice(correction, "correction", CLUSTER_CORRECTIONS)
    b = check_n_resamples(n_resamples, level)
    seed_int = check_seed(seed)
    batch = None if batch is None else check_positive_int(batch, "batch")
    workers = None if workers is None else check_positive_int(workers, "workers")
    values = _check_scores(scores)
    data = _reduce(values, clusters)
    g, n = data.n_clusters, data.n
    k = _variance_weights(data, correction)
    se = math.sqrt(_variance(data.sums, k, n))

    notes: list[str] = list(engine_note(engine))
    if weights == "rademacher" and g <= _RADEMACHER_COARSE:
        notes.append(
            f"with {g} clusters Rademacher weights give only 2^{g} = {2**g} distinct "
            "replicates, so the end points are coarse; Webb's six-point weights are "
            f"preferable with {_RADEMACHER_COARSE} clusters or fewer (MacKinnon & Webb, 2017)"
        )
    details: dict[str, Any] = {
        "weights": weights,
        "t_low": math.nan,
        "t_high": math.nan,
        "n_infinite": 0,
    }
    if se == 0.0:
        _note(notes, _ZERO_SE_NOTE, DegenerateIntervalWarning)
        return ClusteredInterval(
            data.mean, data.mean, data.mean, level, "wild-cluster-t", n, se,
            n_clusters=g, correction=correction, seed=seed_int, n_resamples=b,
            notes=tuple(notes), details=details,
        )  # fmt: skip

    # multipliers (weight source) -> t* per replicate (the engine's batches and threads)
    size = batch or max(1, min(_BATCH_REPLICATES, _BATCH_CELLS // g, b))
    run = _WildClusterRun(data.sums, data.shares, k, n, se)
    t_star = run_engine(
        run, _ClusterMultiplierSource(weights, g), n_resamples=b, seed=seed_int,
        engine="numpy", batch=size, workers=workers, kernel=NO_KERNEL,
    ).values  # fmt: skip
    n_infinite = int(np.isinf(t_star).sum())

    lo_pos, hi_pos = _order_statistic_indices(b, level)
    t_sorted = np.partition(t_star, (lo_pos, hi_pos))
    t_low, t_high = float(t_sorted[lo_pos]), float(t_sorted[hi_pos])
    details.update(t_low=t_low, t_high=t_high, n_infinite=n_infinite)
    if n_infinite:
        text = (
            f"{n_infinite} of {b} replicates have a zero cluster-robust standard error and "
            "an infinite t statistic (common with very few clusters); an end point may be "
            "infinite"
        )
        _note(notes, text, DegenerateIntervalWarning)
    return ClusteredInterval(
        data.mean,
        data.mean - t_high * se,
        data.mean - t_low * se,
        level,
        "wild-cluster-t",
        n,
        se,
        n_clusters=g,
        correction=correction,
        seed=seed_int,
        n_resamples=b,
        notes=tuple(notes),
        details=details,
    )
