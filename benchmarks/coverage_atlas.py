#!/usr/bin/env python
"""The coverage atlas: how often each interval method covers a known truth.

Usage::

    python benchmarks/coverage_atlas.py           # the whole grid (long: see --estimate)
    python benchmarks/coverage_atlas.py --only accuracy --reps 200 --resamples 499
    python benchmarks/coverage_atlas.py --workers 2              # cells in 2 processes
    python benchmarks/coverage_atlas.py --list                   # the selected cells and methods
    python benchmarks/coverage_atlas.py --estimate 3             # time 3 datasets per cell, project
    python benchmarks/coverage_atlas.py --render                 # JSONL -> docs/coverage.md + plot

A *cell* is (metric, n, design). For each cell, ``--reps`` data sets are drawn from a
generator whose truth is known (exactly, by quadrature, or once by a large seeded Monte
Carlo sample cached in the output file), every interval method that applies is formed
on each data set, and the share of intervals that contain the truth is recorded: one
JSON line per (cell, method). Per-cell seeds derive from a fixed root seed and the
cell's name (SHA-256), so the numbers do not depend on which cells run, in which order
or in how many processes, and a resumed run skips the finished cells. A cell's lines
are appended in one write and flushed when the cell completes, so an interrupted run
loses at most the cells that were running.

Output file (JSON lines)
------------------------
* ``{"record": "header", ...}`` (first line): the settings every later run must match
  (``root_seed``, ``reps``, ``resamples``, ``n_inner``, ``confidence_level``,
  ``truth_rows``), versions, and ``truths``: ``{key: {"value", "mc_se", "how"}}``.
* ``{"record": "truths", "truths": {...}}``: truths computed by a later run.
* ``{"record": "cell", ...}``: one per (cell, method); see :func:`summarize_cell`.

Data generators
---------------
Every cell draws rows from one model per metric. Under a cluster design with ``G``
clusters and ``n`` rows, cluster ``g`` has a size propensity ``s_g ~ N(0, 1)``, size
``m_g = 1 + Poisson((n/G - 1) w_g)`` with ``w_g = exp(0.8 s_g - 0.32)`` (``E w = 1``, so
``E m = n/G``; the sizes are unequal, coefficient of variation about 0.9) and an effect
``u_g = 0.5 s_g + sqrt(0.75) z_g`` (larger clusters are easier): the metric's rows in
the cluster are drawn given ``u_g``. The number of rows is random with mean ``n``. The
estimand is the metric of the population of *rows*, in which a cluster counts with its
size: a random row's effect is ``N(0, 1)`` with probability ``G/n`` and ``N(0.4, 1)``
otherwise (size-biased sampling of ``s``), so the truth of a cluster cell depends on the
mean cluster size ``n/G``; it is computed once per metric and mean cluster size from
``--truth-rows`` (2,000,000) rows drawn independently from that population, with a
Monte Carlo standard error from 20 batches. iid and stratified cells have ``u = 0``
and an exact truth; a stratified cell is a stratified sample (each class in its
population share, resampled within classes), while an iid cell draws each row's class.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import fnmatch
import hashlib
import json
import math
import multiprocessing
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
from scipy import integrate, stats
from scipy.special import expit, logit

import booteval
from booteval.core.intervals import compute_interval
from booteval.metrics.text import BLEU

# ------------------------------------------------------------------------------ settings
ROOT_SEED = 20_240_611
CONFIDENCE = 0.95
#: a coverage within this of the nominal level is marked (bold) on the page
BAND = 0.015
SIZES: tuple[int, ...] = (20, 50, 200, 1000, 10_000)
CLUSTER_COUNTS: tuple[int, ...] = (5, 10, 30, 50, 200)
DESIGNS: tuple[str, ...] = ("iid", "stratified", *(f"clustered-{g}" for g in CLUSTER_COUNTS))
BOOT_METHODS: tuple[str, ...] = ("percentile", "basic", "normal", "bca", "studentized")
METHOD_ORDER: tuple[str, ...] = (
    "auto",
    *BOOT_METHODS,
    "studentized-symmetric",
    "studentized-logit",
    "calibrated",
    "wilson",
    "jeffreys",
    "clopper-pearson",
    "newcombe",
    "tango",
    "clustered-wilson",
    "delong",
    "fisher-z",
    "cr2",
    "cr1",
    "wild-cluster",
)
#: the metrics whose cells run the calibrated (double) bootstrap, and its inner resamples
#: per replicate (booteval's default; recorded in each of its records as ``inner_resamples``)
CALIBRATED_METRICS = ("accuracy_p0.5", "accuracy_p0.9", "accuracy_p0.99", "lognormal_mean")
CALIBRATED_INNER = 200
#: the plot's color of each method: a method added later takes the next free color, so
#: that the others keep theirs
COLOR_ORDER = (*(m for m in METHOD_ORDER if m != "calibrated"), "calibrated")
TRUTH_ROWS = 2_000_000
TRUTH_BATCHES = 20
#: log-sd of the cluster size propensity, and its correlation with the cluster effect
SIZE_SD = 0.8
SIZE_CORR = 0.5
SCHEMA = 1
#: header settings a resumed run must share with the file
SETTINGS = ("root_seed", "reps", "resamples", "n_inner", "confidence_level", "truth_rows")
_HERE = Path(__file__).resolve().parent
REPO = _HERE.parent
DEFAULT_OUT = _HERE / "coverage_atlas.jsonl"
MAX_REDRAWS = 1000


# --------------------------------------------------------------------------------- cells
@dataclass(frozen=True, order=True)
class Cell:
    """One cell of the atlas: a metric, a sample size and a resampling design.

    Attributes
    ----------
    metric : str
        A key of :data:`METRICS`.
    n : int
        Rows per data set (under a cluster design, the expected number of rows).
    design : str
        ``"iid"``, ``"stratified"`` (resampled within classes) or ``"clustered-G"``.
    """

    metric: str
    n: int
    design: str

    @property
    def name(self) -> str:
        """The cell's stable name, e.g. ``"accuracy_p0.9/n=200/clustered-10"``."""
        return f"{self.metric}/n={self.n}/{self.design}"

    @property
    def n_clusters(self) -> int | None:
        """The number of clusters ``G`` of a cluster design, else ``None``."""
        if self.design.startswith("clustered-"):
            return int(self.design.split("-", 1)[1])
        return None

    @property
    def mean_cluster_size(self) -> float | None:
        """``n / G`` under a cluster design, else ``None``."""
        g = self.n_clusters
        return None if g is None else self.n / g


def cell_seed(name: str, root_seed: int = ROOT_SEED) -> int:
    """The seed of a cell (or of a truth computation): a stable hash of its name.

    Parameters
    ----------
    name : str
        The cell's name (:attr:`Cell.name`), or any other stable label.
    root_seed : int
        The atlas's root seed.

    Returns
    -------
    int
        A 63-bit non-negative integer from SHA-256 (never Python's salted ``hash``).

    Examples
    --------
    >>> cell_seed("accuracy_p0.9/n=20/iid") == cell_seed("accuracy_p0.9/n=20/iid")
    True
    """
    digest = hashlib.sha256(f"{root_seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


# ------------------------------------------------------------------------ cluster model
def cluster_layout(
    rng: np.random.Generator, n: int, n_clusters: int
) -> tuple[np.ndarray, np.ndarray]:
    """Cluster labels and per-row cluster effects of one clustered data set.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        The expected number of rows.
    n_clusters : int
        ``G``.

    Returns
    -------
    labels, effects : ndarray
        The cluster of each row and its effect ``u_g`` (standard normal over clusters).
    """
    s = rng.standard_normal(n_clusters)
    z = rng.standard_normal(n_clusters)
    w = np.exp(SIZE_SD * s - SIZE_SD**2 / 2.0)
    sizes = 1 + rng.poisson((n / n_clusters - 1.0) * w)
    u = SIZE_CORR * s + math.sqrt(1.0 - SIZE_CORR**2) * z
    return np.repeat(np.arange(n_clusters), sizes), np.repeat(u, sizes)


def population_effects(rng: np.random.Generator, rows: int, k: float) -> np.ndarray:
    """Cluster effects of ``rows`` rows drawn independently from the population of rows.

    A row belongs to a cluster with probability proportional to the cluster's size,
    whose expectation given ``s`` is ``1 + (k - 1) w(s)``; as ``w(s) phi(s)`` is the
    ``N(0.8, 1)`` density, a random row's ``s`` is ``N(0, 1)`` with probability ``1/k``
    and ``N(0.8, 1)`` otherwise.

    Parameters
    ----------
    rng : numpy.random.Generator
    rows : int
    k : float
        The mean cluster size ``n / G``.

    Returns
    -------
    ndarray
    """
    shifted = rng.random(rows) < (k - 1.0) / k
    s = rng.standard_normal(rows) + SIZE_SD * shifted
    z = rng.standard_normal(rows)
    return SIZE_CORR * s + math.sqrt(1.0 - SIZE_CORR**2) * z


def row_expectation(g: Callable[[np.ndarray], np.ndarray], k: float, nodes: int = 96) -> Any:
    """``E g(u)`` over the population of rows, by Gauss-Hermite quadrature.

    A random row's effect is ``N(0, 1)`` with probability ``1/k`` and
    ``N(0.4, 1)`` otherwise (see :func:`population_effects`).

    Parameters
    ----------
    g : callable
        Vectorized; may return an array of shape ``(nodes, ...)``.
    k : float
        The mean cluster size.
    nodes : int

    Returns
    -------
    float or ndarray
    """
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    shift = SIZE_CORR * SIZE_SD

    def mean(values: np.ndarray) -> Any:
        return np.tensordot(w, values, axes=(0, 0))

    return mean(g(x)) / k + (k - 1.0) / k * mean(g(x + shift))


# ------------------------------------------------------------------------------ metrics
@dataclass
class Rows:
    """One data set.

    Attributes
    ----------
    arrays : tuple of array-like
        The positional inputs of ``booteval.ci`` (or ``booteval.compare``).
    strata : ndarray or None
        The class of each row (for the stratified design).
    scores : ndarray or None
        Per-row values whose mean is the metric (for Wilson, cluster-robust and wild
        cluster intervals), where the metric is a mean.
    """

    arrays: tuple[Any, ...]
    strata: np.ndarray | None = None
    scores: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Number of rows."""
        return len(self.arrays[0])

    def take(self, sl: slice) -> Rows:
        """The rows in ``sl``."""
        return Rows(
            tuple(a[sl] for a in self.arrays),
            None if self.strata is None else self.strata[sl],
            None if self.scores is None else self.scores[sl],
        )


@dataclass
class MetricSpec:
    """A metric of the atlas with its data generator and truth.

    Attributes
    ----------
    name : str
        The atlas's name (``"accuracy_p0.9"``).
    title : str
        Heading on the page.
    metric : str
        The booteval metric.
    kwargs : dict
        ``metric_kwargs`` for booteval.
    has_classes : bool
        Whether the stratified design applies (strata = the true class).
    analytic_iid, analytic_clustered : tuple of str
        The closed-form methods of iid and clustered cells.
    logit : bool
        Whether the studentized interval on the logit scale is run (proportions).
    paired : bool
        Whether the data are two systems compared with ``booteval.compare``.
    requires : str or None
        An optional module the metric needs.
    describe : str
        The generator in words (for the page).
    """

    name: str
    title: str
    metric: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    has_classes: bool = False
    analytic_iid: tuple[str, ...] = ()
    analytic_clustered: tuple[str, ...] = ()
    logit: bool = False
    paired: bool = False
    requires: str | None = None
    describe: str = ""

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        """Draw one row per entry of ``u`` (the rows' cluster effects; 0 when iid).

        With ``fixed`` (the stratified design) the classes come in fixed shares, the
        population's, as in a stratified sample; otherwise each row's class is drawn.
        """
        raise NotImplementedError

    def iid_truth(self) -> tuple[float, str]:
        """The truth with no cluster effect, and how it was obtained."""
        raise NotImplementedError

    def clustered_truth(self, k: float) -> tuple[float, str] | None:
        """The truth under clusters of mean size ``k`` where it has a closed form."""
        return None

    @property
    def target(self) -> Any:
        """What ``metric=`` receives in booteval's calls (the name, unless overridden)."""
        return self.metric

    def estimate(self, rows: Rows) -> float:
        """The metric on a data set."""
        return float(booteval.get_metric(self.target, **self.kwargs)(*rows.arrays))

    def valid(self, rows: Rows) -> bool:
        """Whether the metric is defined on ``rows`` (else the data set is redrawn)."""
        return True


def _classes(rng: np.random.Generator, n: int, shares: Sequence[float], fixed: bool) -> np.ndarray:
    """Each row's class: drawn with probabilities ``shares``, or ``n * shares`` of each
    class when ``fixed`` (a stratified sample: what resampling within classes assumes)."""
    if fixed:
        counts = np.floor(n * np.asarray(shares)).astype(np.int64)
        counts[np.argsort(-(n * np.asarray(shares) - counts))[: n - counts.sum()]] += 1
        return rng.permutation(np.repeat(np.arange(len(shares)), counts))
    if len(shares) == 2:
        return (rng.random(n) < shares[1]).astype(np.int64)
    return rng.choice(len(shares), size=n, p=np.asarray(shares))


@dataclass
class AccuracySpec(MetricSpec):
    """Accuracy: each row is right with probability ``expit(logit(p) + sigma u)``."""

    p: float = 0.9
    sigma: float = 1.0

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        y = _classes(rng, n, (0.5, 0.5), fixed)
        correct = rng.random(n) < expit(logit(self.p) + self.sigma * u)
        pred = np.where(correct, y, 1 - y)
        return Rows((y, pred), strata=y, scores=correct.astype(np.float64))

    def iid_truth(self) -> tuple[float, str]:
        return self.p, "exact"


@dataclass
class F1Spec(MetricSpec):
    """Binary F1: positives 30 %, sensitivity 0.8 and specificity 0.9 at ``u = 0``."""

    prevalence: float = 0.3
    sensitivity: float = 0.8
    specificity: float = 0.9
    sigma: float = 1.0

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        y = _classes(rng, n, (1.0 - self.prevalence, self.prevalence), fixed)
        right = np.where(y == 1, logit(self.sensitivity), logit(self.specificity))
        correct = rng.random(n) < expit(right + self.sigma * u)
        pred = np.where(correct, y, 1 - y)
        return Rows((y, pred), strata=y)

    def iid_truth(self) -> tuple[float, str]:
        tp = self.prevalence * self.sensitivity
        fn = self.prevalence - tp
        fp = (1.0 - self.prevalence) * (1.0 - self.specificity)
        return 2 * tp / (2 * tp + fp + fn), "exact"

    def valid(self, rows: Rows) -> bool:
        y, pred = rows.arrays
        return bool(np.any(y == 1) or np.any(pred == 1))


@dataclass
class MacroF1Spec(MetricSpec):
    """Macro-F1 over 3 classes (50/30/20 %), each right with its own probability."""

    priors: tuple[float, ...] = (0.5, 0.3, 0.2)
    accuracies: tuple[float, ...] = (0.85, 0.75, 0.65)
    sigma: float = 1.0

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        c = len(self.priors)
        y = _classes(rng, n, self.priors, fixed)
        right = logit(np.asarray(self.accuracies))[y]
        correct = rng.random(n) < expit(right + self.sigma * u)
        wrong = (y + rng.integers(1, c, n)) % c  # one of the other classes, uniformly
        pred = np.where(correct, y, wrong)
        return Rows((y, pred), strata=y)

    def iid_truth(self) -> tuple[float, str]:
        pri, acc = np.asarray(self.priors), np.asarray(self.accuracies)
        c = pri.size
        tp = pri * acc
        fn = pri - tp
        errors = pri * (1.0 - acc) / (c - 1)  # mass sent to each other class
        fp = errors.sum() - errors
        return float(np.mean(2 * tp / (2 * tp + fp + fn))), "exact"

    def valid(self, rows: Rows) -> bool:
        # the class set is the labels present: a missing class would change the estimand
        return np.unique(rows.arrays[0]).size == len(self.priors)


@dataclass
class ScoreSpec(MetricSpec):
    """Scores ``N(0, 1)`` for negatives and ``N(d + sigma u, 1)`` for positives (30 %)."""

    prevalence: float = 0.3
    separation: float = 1.2
    sigma: float = 0.5

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        y = _classes(rng, n, (1.0 - self.prevalence, self.prevalence), fixed)
        score = y * (self.separation + self.sigma * u) + rng.standard_normal(n)
        return Rows((y, score), strata=y)

    def iid_truth(self) -> tuple[float, str]:
        d, pi = self.separation, self.prevalence
        if self.metric == "roc_auc":
            return float(stats.norm.cdf(d / math.sqrt(2.0))), "exact"

        # average precision of the population: integral of precision(t) dTPR(t)
        def integrand(t: float) -> float:
            s1, s0 = stats.norm.sf(t - d), stats.norm.sf(t)
            return pi * s1 / (pi * s1 + (1 - pi) * s0) * stats.norm.pdf(t - d)

        value, _ = integrate.quad(integrand, d - 12.0, d + 12.0, epsabs=1e-12, limit=200)
        return float(value), "quadrature"

    def valid(self, rows: Rows) -> bool:
        y = rows.arrays[0]
        return bool(0 < int(y.sum()) < y.size)


@dataclass
class LognormalMeanSpec(MetricSpec):
    """The mean of ``exp(sigma_u u + sigma_e e)`` (lognormal, skewed)."""

    sigma_u: float = 0.5

    @property
    def sigma_e(self) -> float:
        """The within-cluster log-sd (1 when iid)."""
        return math.sqrt(1.0 - self.sigma_u**2)

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        if not np.any(u):
            x = np.exp(rng.standard_normal(u.size))
        else:
            x = np.exp(self.sigma_u * u + self.sigma_e * rng.standard_normal(u.size))
        return Rows((x,), scores=x)

    def iid_truth(self) -> tuple[float, str]:
        return math.exp(0.5), "exact"

    def clustered_truth(self, k: float) -> tuple[float, str] | None:
        su, shift = self.sigma_u, SIZE_CORR * SIZE_SD
        e_u = math.exp(su * su / 2.0) * (1.0 / k + (k - 1.0) / k * math.exp(su * shift))
        return math.exp(self.sigma_e**2 / 2.0) * e_u, "exact"

    def estimate(self, rows: Rows) -> float:
        return float(np.mean(rows.arrays[0]))


@dataclass
class CorrelationSpec(MetricSpec):
    """``(x, y)`` bivariate normal with correlation 0.5; clustered: ``x = a u + e1``,
    ``y = a u + e2`` with ``corr(e1, e2) = 0.3``."""

    rho: float = 0.5
    rho_within: float = 0.3
    sigma: float = 0.7

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        z1, z2 = rng.standard_normal(n), rng.standard_normal(n)
        if not np.any(u):
            x, y = z1, self.rho * z1 + math.sqrt(1 - self.rho**2) * z2
        else:
            r = self.rho_within
            x = self.sigma * u + z1
            y = self.sigma * u + r * z1 + math.sqrt(1 - r * r) * z2
        return Rows((x, y))

    def iid_truth(self) -> tuple[float, str]:
        if self.metric == "pearson":
            return self.rho, "exact"
        return 2.0 / math.pi * math.asin(self.rho), "exact (Greiner)"


@dataclass
class PairedAccuracySpec(MetricSpec):
    """Two systems on the same rows: A right with probability ``expit(logit(0.78) + u)``;
    B fixes 40 % of A's errors and breaks 5 % of A's right answers."""

    p_a: float = 0.78
    fix: float = 0.40
    breaks: float = 0.05
    sigma: float = 1.0

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        n = u.size
        y = _classes(rng, n, (0.5, 0.5), fixed)
        a = rng.random(n) < expit(logit(self.p_a) + self.sigma * u)
        flip = rng.random(n) < np.where(a, self.breaks, self.fix)
        b = a ^ flip
        pred_a, pred_b = np.where(a, y, 1 - y), np.where(b, y, 1 - y)
        return Rows((y, pred_a, pred_b), strata=y, scores=b.astype(np.float64) - a)

    def iid_truth(self) -> tuple[float, str]:
        return self.fix * (1 - self.p_a) - self.breaks * self.p_a, "exact"

    def estimate(self, rows: Rows) -> float:
        y, pa, pb = rows.arrays
        return float(np.mean(pb == y) - np.mean(pa == y))


class _StatisticsBLEU(BLEU):
    """Corpus BLEU whose one input is sacrebleu's per-sentence statistics (n, 10).

    The atlas draws BLEU's data sets as those statistics (see :meth:`BleuSpec.rows`),
    which skips tokenizing and counting n-grams in 2000 corpora a cell; resampling,
    the score and its gradient are booteval's BLEU unchanged.
    """

    input_names = ("statistics",)

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        return (np.asarray(arrays[0], dtype=np.float64),)

    def statistics(self, arrays: tuple[np.ndarray, ...]) -> np.ndarray:
        return arrays[0]


@dataclass
class BleuSpec(MetricSpec):
    """Corpus BLEU: references of 5 + Poisson(15) words from a Zipf vocabulary; each
    hypothesis word is replaced, with probability ``expit(logit(0.3) + sigma u)``, by a
    word from a disjoint vocabulary (so a hypothesis n-gram matches exactly when none of
    its words was replaced, and the brevity penalty is 1)."""

    replace: float = 0.3
    sigma: float = 0.7
    vocabulary: int = 2000

    def texts(self, rng: np.random.Generator, u: np.ndarray) -> tuple[list[str], list[str]]:
        """References and hypotheses as text (what :meth:`rows` summarises)."""
        lengths, replaced, words, noise = self._draw(rng, u)
        ref_tokens = np.char.add("w", words.astype(str))
        hyp_tokens = np.where(replaced, np.char.add("x", noise.astype(str)), ref_tokens)
        cuts = np.cumsum(lengths)[:-1]
        refs = [" ".join(s) for s in np.split(ref_tokens, cuts)]
        hyps = [" ".join(s) for s in np.split(hyp_tokens, cuts)]
        return refs, hyps

    def rows(self, rng: np.random.Generator, u: np.ndarray, fixed: bool = False) -> Rows:
        # sacrebleu's sentence statistics of `texts` (the same draws), counted directly:
        # a hypothesis m-gram matches exactly when none of its m words was replaced, so
        # the matches of order m are the windows of m kept words; lengths are equal
        lengths, replaced, _, _ = self._draw(rng, u)
        n = lengths.size
        sentence = np.repeat(np.arange(n), lengths)
        position = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        kept = ~replaced
        stats = np.empty((n, 10))
        stats[:, 0] = stats[:, 1] = lengths
        window = kept.copy()  # the m words ending here were all kept
        for m in range(1, 5):
            if m > 1:
                window[m - 1 :] &= kept[: 1 - m]
                window[: m - 1] = False
            inside = window & (position >= m - 1)  # and lie in one sentence
            stats[:, 1 + m] = np.bincount(sentence, weights=inside, minlength=n)
            stats[:, 5 + m] = np.maximum(lengths - m + 1, 0)
        return Rows((stats,))

    def _draw(
        self, rng: np.random.Generator, u: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        n = u.size
        lengths = 5 + rng.poisson(15, n)
        total = int(lengths.sum())
        words = (rng.zipf(1.3, total) - 1) % self.vocabulary
        q = np.repeat(expit(logit(self.replace) + self.sigma * u), lengths)
        replaced = rng.random(total) < q
        noise = rng.integers(0, self.vocabulary, total)
        return lengths, replaced, words, noise

    @property
    def target(self) -> Any:
        return _StatisticsBLEU()

    def estimate(self, rows: Rows) -> float:
        return float(self.target(*rows.arrays))

    def _truth(self, expectation: Callable[[int], float]) -> float:
        # corpus BLEU of the population: matches / totals per order, ratio of expectations
        return 100.0 * math.exp(sum(math.log(expectation(m)) for m in range(1, 5)) / 4.0)

    def iid_truth(self) -> tuple[float, str]:
        return self._truth(lambda m: (1.0 - self.replace) ** m), "exact"

    def clustered_truth(self, k: float) -> tuple[float, str] | None:
        def keep(m: int) -> float:
            return float(
                row_expectation(
                    lambda x: (1.0 - expit(logit(self.replace) + self.sigma * x)) ** m, k
                )
            )

        return self._truth(keep), "quadrature"


def _specs() -> dict[str, MetricSpec]:
    bins = ("wilson", "clopper-pearson", "jeffreys")
    clus = ("clustered-wilson", "cr2", "cr1", "wild-cluster")
    means = ("cr2", "cr1", "wild-cluster")
    out: list[MetricSpec] = [
        AccuracySpec(
            f"accuracy_p{p:g}",
            f"Accuracy (p = {p:g})",
            "accuracy",
            has_classes=True,
            analytic_iid=bins,
            analytic_clustered=clus,
            logit=True,
            p=p,
            describe=f"binary classes 50/50; each row right with probability "
            f"expit(logit({p:g}) + u), u the cluster effect (0 when iid)",
        )
        for p in (0.5, 0.9, 0.99)
    ]
    out += [
        F1Spec(
            "f1",
            "Binary F1",
            "f1",
            has_classes=True,
            describe="positives 30 %; right with probability expit(logit(0.8) + u) on "
            "positives and expit(logit(0.9) + u) on negatives",
        ),
        MacroF1Spec(
            "macro_f1",
            "Macro-F1 (3 classes)",
            "f1",
            {"average": "macro"},
            has_classes=True,
            describe="classes 50/30/20 %; right with probability expit(logit(a_c) + u), "
            "a = (0.85, 0.75, 0.65), else one of the other two classes",
        ),
        ScoreSpec(
            "roc_auc",
            "ROC-AUC",
            "roc_auc",
            has_classes=True,
            analytic_iid=("delong",),
            describe="positives 30 %; score N(0, 1) for negatives, N(1.2 + 0.5 u, 1) for positives",
        ),
        ScoreSpec(
            "average_precision",
            "Average precision",
            "average_precision",
            has_classes=True,
            describe="as ROC-AUC",
        ),
        LognormalMeanSpec(
            "lognormal_mean",
            "Mean of a lognormal score",
            "mean",
            analytic_clustered=means,
            describe="exp(N(0, 1)) when iid; exp(0.5 u + sqrt(0.75) e) under clusters",
        ),
        CorrelationSpec(
            "pearson",
            "Pearson correlation",
            "pearson",
            analytic_iid=("fisher-z",),
            describe="bivariate normal, rho = 0.5, when iid; x = 0.7 u + e1, "
            "y = 0.7 u + e2, corr(e1, e2) = 0.3 under clusters",
        ),
        CorrelationSpec(
            "kendall",
            "Kendall tau-b",
            "kendall",
            analytic_iid=("fisher-z",),
            describe="as Pearson (iid truth 2/pi asin(0.5) = 1/3)",
        ),
        PairedAccuracySpec(
            "paired_accuracy_diff",
            "Paired difference of accuracies (B - A)",
            "accuracy",
            has_classes=True,
            analytic_clustered=means,
            paired=True,
            describe="A right with probability expit(logit(0.78) + u); B fixes 40 % of A's "
            "errors and breaks 5 % of its right answers (iid truth 0.049)",
        ),
        BleuSpec(
            "bleu",
            "Corpus BLEU",
            "bleu",
            requires="sacrebleu",
            describe="references of 5 + Poisson(15) Zipf words; each hypothesis word "
            "replaced with probability expit(logit(0.3) + 0.7 u) by an unseen word",
        ),
    ]
    return {s.name: s for s in out}


METRICS: dict[str, MetricSpec] = _specs()


def unavailable(spec: MetricSpec) -> str | None:
    """Why a metric cannot run here (a missing optional module), or ``None``."""
    if spec.requires and find_spec(spec.requires) is None:
        return f"{spec.requires} is not importable"
    return None


# --------------------------------------------------------------------------------- grid
def build_grid(
    metrics: Iterable[str] | None = None,
    sizes: Iterable[int] | None = None,
    designs: Iterable[str] | None = None,
) -> list[Cell]:
    """The cells of the atlas, in a fixed order.

    Cluster counts of at least ``n / 2`` are left out; the stratified design only
    for metrics with classes.

    Parameters
    ----------
    metrics, sizes, designs : iterable, optional
        Restrict to these (default: all).

    Returns
    -------
    list of Cell
    """
    cells = []
    for name in metrics if metrics is not None else METRICS:
        spec = METRICS[name]
        for n in sizes if sizes is not None else SIZES:
            for design in designs if designs is not None else DESIGNS:
                cell = Cell(name, int(n), design)
                g = cell.n_clusters
                if design == "stratified" and not spec.has_classes:
                    continue
                if g is not None and g >= n / 2:
                    continue
                cells.append(cell)
    return cells


def select(cells: Sequence[Cell], patterns: Sequence[str] | None) -> list[Cell]:
    """The cells whose name matches one of ``patterns``.

    A pattern with a glob character (``*?[``) must match the whole name
    (:func:`fnmatch.fnmatchcase`); any other pattern is a prefix of the name (a metric,
    or ``metric/n=200``).
    """
    if not patterns:
        return list(cells)

    def hit(name: str, pat: str) -> bool:
        if any(ch in pat for ch in "*?["):
            return fnmatch.fnmatchcase(name, pat)
        return name.startswith(pat)

    return [c for c in cells if any(hit(c.name, p) for p in patterns)]


#: metrics whose default looks at the data beyond the design (a positive mean's interval on
#: the log scale, which no column of the atlas holds; ROC-AUC's rows of the rarer class; and,
#: for every bootstrap-t, whether its interval is unbounded or spans the whole range, where
#: the default gives another; below 30 clusters without an analytic standard error, whether
#: the cluster jackknife t can be formed): ``auto`` is run as such
AUTO_RUN = ("lognormal_mean", "roc_auc", "f1", "macro_f1", "pearson", "bleu", "kendall",
            "average_precision")  # fmt: skip


def methods_for(cell: Cell) -> tuple[str, ...]:
    """The interval methods run in a cell, in :data:`METHOD_ORDER`."""
    spec = METRICS[cell.metric]
    out = list(BOOT_METHODS)
    if spec.logit:
        out.append("studentized-logit")
    if cell.n_clusters is not None:
        # what the default picks with few clusters (from the studentized run)
        out.append("studentized-symmetric")
    if cell.metric not in ANALYTIC_SE and not isinstance(spec, AccuracySpec | PairedAccuracySpec):
        if cell.n > NESTED_MAX_N:  # a nested bootstrap: too costly here, and never the default
            out = [m for m in out if m not in ("studentized", "studentized-symmetric")]
    if cell.design == "iid":
        out += spec.analytic_iid
    elif cell.n_clusters is not None:
        out += spec.analytic_clustered
    if spec.paired and cell.n_clusters is None:
        out += ["newcombe", "tango"]
    if cell.metric in CALIBRATED_METRICS:
        out.append("calibrated")
    if isinstance(spec, AccuracySpec | PairedAccuracySpec) or cell.metric in AUTO_RUN:
        # booteval.ci's (compare's) default, run as such; for other metrics the rule does not
        # look at the data, so the page reads its column off the method it picks (derived_auto)
        out.append("auto")
    return tuple(m for m in METHOD_ORDER if m in out)


# -------------------------------------------------------------------------------- truth
def truth_key(cell: Cell) -> str:
    """Cells sharing a truth share this key (the metric and the mean cluster size)."""
    k = cell.mean_cluster_size
    return f"{cell.metric}/iid" if k is None else f"{cell.metric}/clustered/k={k:.6g}"


def compute_truth(
    spec: MetricSpec,
    k: float | None,
    *,
    rows: int = TRUTH_ROWS,
    seed: int = 0,
    batches: int = TRUTH_BATCHES,
) -> dict[str, Any]:
    """The truth of a metric, exactly or from a large Monte Carlo sample of rows.

    Parameters
    ----------
    spec : MetricSpec
    k : float or None
        The mean cluster size (``None``: no cluster effect).
    rows : int
        Rows of the Monte Carlo sample, drawn independently from the population of rows.
    seed : int
    batches : int
        The Monte Carlo standard error is the standard deviation of the metric on this
        many equal batches over ``sqrt(batches)``.

    Returns
    -------
    dict
        ``value``, ``mc_se`` (0 for an exact value) and ``how``.
    """
    if k is None:
        value, how = spec.iid_truth()
        return {"value": float(value), "mc_se": 0.0, "how": how}
    closed = spec.clustered_truth(k)
    if closed is not None:
        return {"value": float(closed[0]), "mc_se": 0.0, "how": closed[1]}
    rng = np.random.default_rng(seed)
    data = spec.rows(rng, population_effects(rng, rows, k))
    value = spec.estimate(data)
    size = rows // batches
    parts = [spec.estimate(data.take(slice(i * size, (i + 1) * size))) for i in range(batches)]
    mc_se = float(np.std(parts, ddof=1) / math.sqrt(batches))
    return {"value": float(value), "mc_se": mc_se, "how": f"monte-carlo, {rows} rows"}


# ---------------------------------------------------------------------------- one cell
def _interval(r: Any) -> tuple[float, float]:
    return float(r.low), float(r.high)


def dataset_intervals(
    spec: MetricSpec,
    cell: Cell,
    data: Rows,
    clusters: np.ndarray | None,
    seed: int,
    methods: Sequence[str],
    *,
    resamples: int,
    n_inner: int,
    confidence_level: float = CONFIDENCE,
) -> tuple[dict[str, tuple[float, float]], dict[str, float]]:
    """Every interval of a cell on one data set, with the seconds each took.

    One bootstrap run gives percentile, basic, normal and BCa (``with_method``); the
    studentized intervals run their own. A method that raises gets ``(nan, nan)``.
    The time of a shared run is counted in full for each method that shares it.
    """
    level = confidence_level
    design: dict[str, Any] = {}
    if cell.design == "stratified":
        design["strata"] = data.strata
    elif clusters is not None:
        design["clusters"] = clusters
    run = {"n_resamples": resamples, "seed": seed, "workers": 1, "confidence_level": level}
    out: dict[str, tuple[float, float]] = {}
    secs: dict[str, float] = {}
    wanted = set(methods)

    def attempt(names: Sequence[str], fn: Callable[[], Any], shared: float = 0.0) -> Any:
        names = [m for m in names if m in wanted]
        if not names:
            return None
        t0 = time.perf_counter()
        try:
            got = fn()
        except Exception:  # an interval that cannot be formed counts as a failure
            got = None
        dt = time.perf_counter() - t0 + shared
        for m in names:
            out[m] = _interval(got) if got is not None else (math.nan, math.nan)
            secs[m] = dt
        return got

    boot_names = [m for m in ("percentile", "basic", "normal", "bca") if m in wanted]
    if boot_names:
        t0 = time.perf_counter()
        try:
            if spec.paired:
                base: Any = booteval.compare(
                    *data.arrays, metric=spec.target, method="bca", **run, **design
                )
            else:
                base = booteval.ci(
                    *data.arrays,
                    metric=spec.target,
                    metric_kwargs=spec.kwargs or None,
                    method="percentile",
                    **run,
                    **design,
                )
        except Exception:
            base = None
        shared = time.perf_counter() - t0
        for m in boot_names:
            if base is None:
                attempt([m], lambda: None, shared)
            elif spec.paired and m == "bca":
                attempt([m], lambda b=base: b, shared)
            elif spec.paired:
                attempt(
                    [m],
                    lambda b=base, m=m: compute_interval(
                        m, b.difference, b.distribution, level, bounds=(-1.0, 1.0), warn=False
                    ),
                    shared,
                )
            else:
                attempt([m], lambda b=base, m=m: b.with_method(m), shared)

    common = {"metric": spec.target, "method": "studentized", "n_inner": n_inner, **run, **design}
    if "studentized" in wanted:
        if spec.paired:
            attempt(["studentized"], lambda: booteval.compare(*data.arrays, **common))
            sym = {**common, "method": "studentized-symmetric"}
            attempt(["studentized-symmetric"], lambda: booteval.compare(*data.arrays, **sym))
        else:
            kw = {"metric_kwargs": spec.kwargs or None}
            t0 = time.perf_counter()
            st = attempt(["studentized"], lambda: booteval.ci(*data.arrays, **common, **kw))
            shared_t = time.perf_counter() - t0
            # the symmetric bootstrap-t from the same replicates (a miss where they failed)
            attempt(
                ["studentized-symmetric"],
                lambda: None if st is None else st.with_method("studentized-symmetric"),
                shared_t,
            )
    if "calibrated" in wanted:  # the double bootstrap: its own run
        attempt(
            ["calibrated"],
            lambda: booteval.ci(
                *data.arrays, metric=spec.target, metric_kwargs=spec.kwargs or None,
                method="calibrated", n_inner=CALIBRATED_INNER, **run, **design,
            ),
        )  # fmt: skip
    if "studentized-logit" in wanted:
        attempt(
            ["studentized-logit"],
            lambda: booteval.ci(*data.arrays, **common, transform="logit"),
        )
    if "auto" in wanted and spec.paired:
        attempt(
            ["auto"],
            lambda: booteval.compare(*data.arrays, metric=spec.target, **run, **design),
        )
    elif "auto" in wanted:
        kw = {"metric_kwargs": spec.kwargs or None, "n_inner": n_inner}
        attempt(
            ["auto"],
            lambda: booteval.ci(*data.arrays, metric=spec.target, **kw, **run, **design),
        )
    scores = data.scores
    if "wilson" in wanted or "clopper-pearson" in wanted:
        assert scores is not None
        k, n = round(float(scores.sum())), scores.size
        attempt(
            ["wilson"], lambda: booteval.closed_forms.wilson_interval(k, n, confidence_level=level)
        )
        attempt(
            ["clopper-pearson"],
            lambda: booteval.closed_forms.clopper_pearson_interval(k, n, confidence_level=level),
        )
        attempt(
            ["jeffreys"],
            lambda: booteval.closed_forms.jeffreys_interval(k, n, confidence_level=level),
        )
    if "newcombe" in wanted:
        y, pred_a, pred_b = data.arrays
        attempt(
            ["newcombe"],
            lambda: booteval.closed_forms.newcombe_interval(
                pred_a == y, pred_b == y, confidence_level=level
            ),
        )
        attempt(
            ["tango"],
            lambda: booteval.closed_forms.tango_interval(
                pred_a == y, pred_b == y, confidence_level=level
            ),
        )
    if "delong" in wanted:
        attempt(
            ["delong"],
            lambda: booteval.closed_forms.delong_interval(*data.arrays, confidence_level=level),
        )
    if "fisher-z" in wanted:
        attempt(
            ["fisher-z"],
            lambda: booteval.closed_forms.fisher_z_interval(
                spec.estimate(data), data.n, coefficient=spec.metric, confidence_level=level
            ),
        )
    if clusters is not None:
        attempt(
            ["clustered-wilson"],
            lambda: booteval.closed_forms.clustered_wilson_interval(
                np.rint(scores).astype(np.int64), clusters, confidence_level=level
            ),
        )
        for corr in ("CR2", "CR1"):
            attempt(
                [corr.lower()],
                lambda corr=corr: booteval.closed_forms.cluster_robust_interval(
                    scores, clusters, correction=corr, confidence_level=level
                ),
            )
        attempt(
            ["wild-cluster"],
            lambda: booteval.wild_cluster_ci(
                scores, clusters, n_resamples=resamples, seed=seed, confidence_level=level
            ),
        )
    return out, secs


def draw_dataset(
    spec: MetricSpec, cell: Cell, rng: np.random.Generator
) -> tuple[Rows, np.ndarray | None, int]:
    """One data set of a cell (redrawn while the metric is undefined on it).

    Returns
    -------
    rows : Rows
    clusters : ndarray or None
        The cluster of each row under a cluster design.
    redrawn : int
        How many draws were rejected.
    """
    for redrawn in range(MAX_REDRAWS):
        g = cell.n_clusters
        if g is None:
            clusters, u = None, np.zeros(cell.n)
        else:
            clusters, u = cluster_layout(rng, cell.n, g)
        data = spec.rows(rng, u, fixed=cell.design == "stratified")
        if spec.valid(data):
            return data, clusters, redrawn
    raise RuntimeError(f"{cell.name}: no valid data set in {MAX_REDRAWS} draws")


def dataset_seeds(seed: int, j: int) -> tuple[np.random.Generator, int]:
    """The data generator and the bootstrap seed of data set ``j`` of a cell."""
    data_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(j, 0)))
    state = np.random.SeedSequence(seed, spawn_key=(j, 1)).generate_state(1, np.uint64)
    return data_rng, int(state[0]) >> 1


def run_cell(
    cell: Cell,
    truth: dict[str, Any],
    *,
    reps: int,
    resamples: int,
    n_inner: int = 50,
    root_seed: int = ROOT_SEED,
    confidence_level: float = CONFIDENCE,
    methods: Sequence[str] | None = None,
    others: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Simulate one cell: ``reps`` data sets, every method (or ``methods``) on each.

    Parameters
    ----------
    cell : Cell
    truth : dict
        From :func:`compute_truth`.
    reps : int
        Data sets.
    resamples : int
        Bootstrap replicates ``B`` per interval (and wild-bootstrap replicates).
    n_inner : int
        Inner replicates of a nested studentized interval.
    root_seed : int
    confidence_level : float
    methods : sequence of str, optional
        Run only these of the cell's methods (the data sets do not depend on which run:
        a method added to the atlas runs on the very data sets of the others).
    others : sequence of dict
        The cell's records of other methods, already in the file: the best-calibrated
        method of the new records is chosen among them too.

    Returns
    -------
    list of dict
        One JSON-ready record per method (see :func:`summarize_cell`).
    """
    spec = METRICS[cell.metric]
    methods = methods_for(cell) if methods is None else tuple(methods)
    seed = cell_seed(cell.name, root_seed)
    lows = {m: np.full(reps, math.nan) for m in methods}
    highs = {m: np.full(reps, math.nan) for m in methods}
    secs = dict.fromkeys(methods, 0.0)
    redrawn = 0
    total_rows = 0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j in range(reps):
            rng, boot_seed = dataset_seeds(seed, j)
            data, clusters, r = draw_dataset(spec, cell, rng)
            redrawn += r
            total_rows += data.n
            got, took = dataset_intervals(
                spec,
                cell,
                data,
                clusters,
                boot_seed,
                methods,
                resamples=resamples,
                n_inner=n_inner,
                confidence_level=confidence_level,
            )
            for m in methods:
                lows[m][j], highs[m][j] = got[m]
                secs[m] += took[m]
    wall = time.perf_counter() - t0
    common = {
        "cell": cell.name,
        "metric": cell.metric,
        "n": cell.n,
        "design": cell.design,
        "n_clusters": cell.n_clusters,
        "truth": truth["value"],
        "truth_mc_se": truth["mc_se"],
        "n_datasets": reps,
        "n_redrawn": redrawn,
        "mean_rows": round(total_rows / reps, 3),
        "reps": reps,
        "resamples": resamples,
        "n_inner": n_inner,
        "confidence_level": confidence_level,
        "root_seed": root_seed,
        "seed": seed,
        "wall_s_cell": round(wall, 4),
    }
    records = summarize_cell(common, methods, lows, highs, secs, confidence_level, others)
    for r in records:
        if r["method"] == "calibrated":
            r["inner_resamples"] = CALIBRATED_INNER
    return records


def _sig(x: float, digits: int = 6) -> float | None:
    return float(f"{x:.{digits}g}") if math.isfinite(x) else None


def summarize_cell(
    common: dict[str, Any],
    methods: Sequence[str],
    lows: dict[str, np.ndarray],
    highs: dict[str, np.ndarray],
    secs: dict[str, float],
    confidence_level: float = CONFIDENCE,
    others: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The records of a cell, one per method (``others``: the cell's records of methods
    that ran before, which take part in the choice of the reference method).

    Each record has ``common`` plus ``record = "cell"``, ``method``, ``status``
    (``"ok"``), ``coverage`` (share of data sets whose interval contains the truth; an
    interval that could not be formed counts as a miss), ``coverage_se`` (binomial
    Monte Carlo standard error), ``miss_below`` and ``miss_above`` (shares of intervals
    lying entirely below / above the truth), ``n_failed``, ``median_width`` (over the
    formed intervals), ``rel_width`` (``median_width`` over that of the cell's
    ``reference_method``, the best-calibrated method: among those whose coverage is not
    more than 2 standard errors ``sqrt(0.95 * 0.05 / n_datasets)`` below nominal, the
    one closest to nominal, ties to the narrower; if none qualifies, the one with the
    highest coverage), ``wall_s`` (seconds of the calls this method needed, a shared
    bootstrap run counted in full) and ``n_methods``.
    """
    truth = common["truth"]
    reps = common["n_datasets"]
    rows = []
    for m in methods:
        lo, hi = lows[m], highs[m]
        ok = np.isfinite(lo) & np.isfinite(hi)
        covered = int(np.sum(ok & (lo <= truth) & (truth <= hi)))
        c = covered / reps
        width = float(np.median(hi[ok] - lo[ok])) if ok.any() else math.nan
        rows.append(
            {
                **common,
                "record": "cell",
                "method": m,
                "status": "ok",
                "coverage": round(c, 6),
                "coverage_se": round(math.sqrt(c * (1 - c) / reps), 6),
                "miss_below": round(int(np.sum(ok & (hi < truth))) / reps, 6),
                "miss_above": round(int(np.sum(ok & (lo > truth))) / reps, 6),
                "n_failed": int(np.sum(~ok)),
                "median_width": _sig(width),
                "wall_s": round(secs[m], 4),
                "n_methods": len(methods),
            }
        )
    with_reference([*others, *rows], confidence_level, only=rows)
    return rows


def with_reference(
    rows: Sequence[dict[str, Any]], nominal: float = CONFIDENCE,
    only: Sequence[dict[str, Any]] | None = None,
) -> None:  # fmt: skip
    """Set ``reference_method`` and ``rel_width`` of a cell's records (of ``only`` where
    given), the reference chosen among all of ``rows`` (:func:`reference_method`, on the
    simulated coverage where an exact one replaced it)."""
    simulated = [{**r, "coverage": r.get("coverage_sim", r["coverage"])} for r in rows]
    ref = reference_method(simulated, nominal)
    ref_width = next((r["median_width"] for r in rows if r["method"] == ref), None)
    for r in rows if only is None else only:
        w = r["median_width"]
        r["reference_method"] = ref
        r["rel_width"] = _sig(w / ref_width, 4) if w is not None and ref_width else None


#: the width of each bounded metric's range (accuracy-like metrics: 1)
RANGE_WIDTH = {
    **{name: 1.0 for name in ("accuracy_p0.5", "accuracy_p0.9", "accuracy_p0.99", "f1")},
    **{name: 1.0 for name in ("macro_f1", "roc_auc", "average_precision")},
    **{name: 2.0 for name in ("pearson", "kendall", "paired_accuracy_diff")},
    "bleu": 100.0,
}
#: a method whose median interval spans this share of the metric's range says little:
#: its coverage is near 100 % for free, so it is not the best-calibrated method of a cell
VACUOUS = 0.9


def vacuous(r: dict[str, Any]) -> bool:
    """Whether a record's median interval spans :data:`VACUOUS` of its metric's range.

    Examples
    --------
    >>> vacuous({"metric": "roc_auc", "median_width": 0.95}), vacuous({"metric": "kendall", "median_width": 0.95})
    (True, False)
    """  # noqa: E501
    width, full = r.get("median_width"), RANGE_WIDTH.get(r.get("metric", ""))
    return width is not None and full is not None and width >= VACUOUS * full


def reference_method(rows: Sequence[dict[str, Any]], nominal: float = CONFIDENCE) -> str | None:
    """The best-calibrated method of a cell (see :func:`summarize_cell`), among those
    whose intervals are not :func:`vacuous` (unless all are)."""
    if not rows:
        return None
    rows = [r for r in rows if not vacuous(r)] or list(rows)
    se = math.sqrt(nominal * (1 - nominal) / rows[0]["n_datasets"])
    ok = [r for r in rows if r["coverage"] >= nominal - 2 * se and r["median_width"] is not None]

    def width(r: dict[str, Any]) -> float:
        return r["median_width"] if r["median_width"] is not None else math.inf

    if ok:
        best = min(ok, key=lambda r: (round(abs(r["coverage"] - nominal), 9), width(r)))
    else:
        best = max(rows, key=lambda r: (r["coverage"], -width(r)))
    return str(best["method"])


# ------------------------------------------------------------------------------ the file
def versions() -> dict[str, str]:
    """Versions of Python and the libraries that shape the numbers."""
    out = {"python": platform.python_version()}
    for mod in ("numpy", "scipy", "booteval", "sacrebleu"):
        try:
            out[mod] = metadata.version(mod)
        except metadata.PackageNotFoundError:
            out[mod] = "absent"
    return out


@dataclass
class Atlas:
    """The contents of an atlas file.

    Attributes
    ----------
    header : dict or None
    truths : dict
        Every cached truth, by :func:`truth_key`.
    lines : dict
        The latest record of each ``(cell, method)``.
    skipped : dict
        Metrics recorded as skipped, with the reason.
    """

    header: dict[str, Any] | None = None
    truths: dict[str, dict[str, Any]] = field(default_factory=dict)
    lines: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def done(self, cell: Cell) -> bool:
        """Whether every method of ``cell`` has a record."""
        return not self.missing(cell)

    def missing(self, cell: Cell, methods: Sequence[str] | None = None) -> tuple[str, ...]:
        """The methods of ``cell`` (of ``methods`` among them, where given) without a record."""
        wanted = [m for m in methods_for(cell) if methods is None or m in methods]
        return tuple(m for m in wanted if (cell.name, m) not in self.lines)

    def records(self, cell: Cell) -> list[dict[str, Any]]:
        """The latest record of each method of ``cell``."""
        return [r for (name, _), r in self.lines.items() if name == cell.name]


def load(path: Path) -> Atlas:
    """Read an atlas file; a torn last line (an interrupted write) is cut off the file."""
    atlas = Atlas()
    if not path.exists():
        return atlas
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        keep = raw.rfind(b"\n") + 1
        print(f"{path}: cutting off an incomplete last line ({len(raw) - keep} bytes)")
        with open(path, "r+b") as f:
            f.truncate(keep)
        raw = raw[:keep]
    for text in raw.decode().splitlines():
        if not text.strip():
            continue
        rec = json.loads(text)
        kind = rec.get("record")
        if kind == "header":
            atlas.header = rec
        if kind in ("header", "truths"):
            atlas.truths.update(rec.get("truths", {}))
            atlas.skipped.update(rec.get("skipped", {}))
        elif kind == "cell":
            atlas.lines[(rec["cell"], rec["method"])] = rec
    return atlas


def append_records(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """Append records as JSON lines in one write, flushed to disk."""
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _cell_job(
    cell: Cell, truth: dict[str, Any], settings: dict[str, Any],
    job: tuple[tuple[str, ...] | None, list[dict[str, Any]]] = (None, []),
) -> tuple[Cell, list[dict[str, Any]]]:  # fmt: skip
    """Run one cell (in a worker process): every method, or ``job``'s methods with the
    cell's records of the others."""
    methods, others = job
    extra = {} if methods is None else {"methods": methods, "others": others}
    return cell, run_cell(
        cell,
        truth,
        reps=settings["reps"],
        resamples=settings["resamples"],
        n_inner=settings["n_inner"],
        root_seed=settings["root_seed"],
        confidence_level=settings["confidence_level"],
        **extra,
    )


def _worker_setup() -> tuple[Callable[..., Any] | None, tuple[Any, ...]]:
    """An initializer that makes this module importable in a spawned worker.

    Run as a script, spawn re-imports the main module by itself; loaded from its path
    under another name (as the tests do), the worker loads it the same way first.
    """
    if __name__ in ("__main__", "__mp_main__"):
        return None, ()
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location({__name__!r}, {str(Path(__file__))!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        f"sys.modules[{__name__!r}] = mod\n"
        "spec.loader.exec_module(mod)\n"
    )
    return exec, (code,)


def run_atlas(
    out: Path,
    cells: Sequence[Cell],
    *,
    reps: int,
    resamples: int,
    n_inner: int = 50,
    workers: int = 1,
    root_seed: int = ROOT_SEED,
    truth_rows: int = TRUTH_ROWS,
    confidence_level: float = CONFIDENCE,
    log: Callable[[str], None] = print,
    redo: bool = False,
    methods: Sequence[str] | None = None,
) -> dict[str, int]:
    """Run the cells of ``cells`` not yet in ``out``, appending each when it completes.

    A cell whose file records lack some of its methods (a method added to the atlas) runs
    those alone, on the same data sets.

    Parameters
    ----------
    out : Path
        The JSONL file (created with a header on first use).
    cells : sequence of Cell
    reps, resamples, n_inner, root_seed, confidence_level
        Must equal the file's header when the file exists.
    workers : int
        Cells run in this many processes (spawn); 1 runs them in this process.
    truth_rows : int
        Rows of a Monte Carlo truth.
    log : callable
    redo : bool
        Run the cells even where ``out`` has them (after a change of the library; the
        latest record of a cell and method is the one read).
    methods : sequence of str, optional
        Run only these methods of each cell (where missing, or all of them with ``redo``).

    Returns
    -------
    dict
        ``ran``, ``already_done``, ``skipped`` (cells of unavailable metrics).
    """
    settings = {
        "root_seed": root_seed,
        "reps": reps,
        "resamples": resamples,
        "n_inner": n_inner,
        "confidence_level": confidence_level,
        "truth_rows": truth_rows,
    }
    atlas = load(out)
    if atlas.header is not None:
        differ = {k: (atlas.header.get(k), v) for k, v in settings.items()}
        differ = {k: kv for k, kv in differ.items() if kv[0] != kv[1]}
        if differ:
            raise SystemExit(
                f"{out} was made with other settings ({', '.join(f'{k}: file {a}, asked {b}' for k, (a, b) in differ.items())}); "  # noqa: E501
                "use the same settings to resume, or another --out"
            )
    skipped: dict[str, str] = {}
    todo: list[Cell] = []
    jobs: dict[Cell, tuple[tuple[str, ...] | None, list[dict[str, Any]]]] = {}
    n_skipped = n_done = 0
    for cell in cells:
        why = unavailable(METRICS[cell.metric])
        every = methods_for(cell)
        wanted = every if methods is None else tuple(m for m in every if m in methods)
        run = wanted if redo else atlas.missing(cell, methods)
        if why:
            skipped[cell.metric] = why
            n_skipped += 1
        elif not run:
            n_done += 1
        else:
            todo.append(cell)
            others = [r for r in atlas.records(cell) if r["method"] not in run]
            jobs[cell] = (None, []) if run == every else (run, others)
    for name, why in skipped.items():
        log(f"skipping {name}: {why}")
    new_truths: dict[str, dict[str, Any]] = {}
    for cell in todo:
        key = truth_key(cell)
        if key in atlas.truths or key in new_truths:
            continue
        t0 = time.perf_counter()
        new_truths[key] = compute_truth(
            METRICS[cell.metric],
            cell.mean_cluster_size,
            rows=truth_rows,
            seed=cell_seed("truth:" + key, root_seed),
        )
        t = new_truths[key]
        log(
            f"truth {key} = {t['value']:.6g} (mc se {t['mc_se']:.2g}, {t['how']}) "
            f"[{time.perf_counter() - t0:.1f} s]"
        )
    new_skips = {k: v for k, v in skipped.items() if atlas.skipped.get(k) != v}
    if atlas.header is None:
        out.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "record": "header",
            "schema": SCHEMA,
            **settings,
            "band": BAND,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "versions": versions(),
            "truths": new_truths,
            "skipped": skipped,
            "cluster_model": {"size_sd": SIZE_SD, "size_effect_corr": SIZE_CORR},
        }
        append_records(out, [header])
    elif new_truths or new_skips:
        append_records(out, [{"record": "truths", "truths": new_truths, "skipped": new_skips}])
    truths = {**atlas.truths, **new_truths}
    log(f"{len(todo)} cells to run, {n_done} already done, {n_skipped} skipped")

    def finished(cell: Cell, records: list[dict[str, Any]], i: int) -> None:
        append_records(out, records)
        log(
            f"[{i}/{len(todo)}] {cell.name}: {records[0]['wall_s_cell']:.1f} s  "
            + "  ".join(f"{r['method']} {100 * r['coverage']:.1f}" for r in records)
        )

    if workers <= 1 or len(todo) <= 1:
        for i, cell in enumerate(todo, 1):
            _, records = _cell_job(cell, truths[truth_key(cell)], settings, jobs[cell])
            finished(cell, records, i)
    else:
        init, initargs = _worker_setup()
        # larger cells first, so that the last ones to finish are short
        order = sorted(todo, key=lambda c: -c.n)
        pool = cf.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init,
            initargs=initargs,
        )
        try:
            futures = [
                pool.submit(_cell_job, c, truths[truth_key(c)], settings, jobs[c]) for c in order
            ]
            for i, fut in enumerate(cf.as_completed(futures), 1):
                cell, records = fut.result()
                finished(cell, records, i)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    return {"ran": len(todo), "already_done": n_done, "skipped": n_skipped}


# ---------------------------------------------------------------------------- estimates
def estimate_time(
    cells: Sequence[Cell],
    *,
    probe_reps: int,
    reps: int,
    resamples: int,
    n_inner: int,
    workers: int,
    log: Callable[[str], None] = print,
    methods: Sequence[str] | None = None,
) -> float:
    """Time ``probe_reps`` data sets per cell (of ``methods`` only, where given) and
    project the run at ``reps``.

    Truths are not needed for timing (a placeholder is used) and nothing is written.

    Returns
    -------
    float
        The projected CPU seconds of all cells.
    """
    rows = []
    for cell in cells:
        chosen = [m for m in methods_for(cell) if methods is None or m in methods]
        if unavailable(METRICS[cell.metric]) or not chosen:
            continue
        t0 = time.perf_counter()
        recs = run_cell(
            cell,
            {"value": 0.0, "mc_se": 0.0},
            reps=probe_reps,
            resamples=resamples,
            n_inner=n_inner,
            methods=chosen,
        )
        per = (time.perf_counter() - t0) / probe_reps
        heavy = max(recs, key=lambda r: r["wall_s"])
        rows.append((per * reps, cell.name, heavy["method"], heavy["wall_s"] / probe_reps))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    log(f"| cell | projected s at reps={reps} | per data set s | slowest method (s per set) |")
    log("|---|---|---|---|")
    for proj, name, method, msec in rows:
        log(f"| {name} | {proj:,.0f} | {proj / reps:.3g} | {method} ({msec:.3g}) |")
    log(
        f"total: {total / 3600:,.1f} CPU hours; with {workers} worker(s) about "
        f"{total / 3600 / max(workers, 1):,.1f} hours"
    )
    return total


# ------------------------------------------------------------------------------- render
def _design_rank(design: str) -> int:
    return DESIGNS.index(design) if design in DESIGNS else len(DESIGNS)


def _fmt_cov(r: dict[str, Any], nominal: float, band: float) -> str:
    c, se = 100 * r["coverage"], 100 * r["coverage_se"]
    text = f"{c:.1f} exact" if r.get("exact") else f"{c:.1f} ±{se:.1f}"
    if abs(r["coverage"] - nominal) <= band + 1e-12:
        text = f"**{text}**"
    if r.get("n_failed") and not r.get("exact"):
        text += "†"
    if r.get("derived_from"):
        text += "‡"
    if vacuous(r):
        text += "◊"
    return text


def _completeness(by_metric: dict[str, list[dict[str, Any]]]) -> str:
    """A sentence saying which part of the grid the file holds (a partial atlas says so)."""
    grid = build_grid()
    done = {r["cell"] for rs in by_metric.values() for r in rs}
    missing = sorted({c.metric for c in grid if c.name not in done})
    if not missing:
        return f"The file holds every cell of the grid ({len(grid)} cells)."
    untouched = [m for m in missing if m not in by_metric]
    parts = [
        f"{m} at n = {', '.join(f'{n:,}' for n in sizes)}"
        for m in missing
        if m in by_metric
        and (sizes := sorted({c.n for c in grid if c.metric == m and c.name not in done}))
    ]
    parts = [f"cells of {'; '.join(parts)} still to run"] if parts else []
    parts += [f"{', '.join(untouched)} not run yet"] if untouched else []
    return (
        f"This atlas is partial: {len(done)} of the grid's {len(grid)} cells have run "
        f"(metrics: {', '.join(sorted(by_metric)) or 'none'}); {'; '.join(parts)}. "
        "`--estimate K` projects their cost."
    )


#: the family ``booteval.inference.auto_method`` gives each metric of the grid
AUTO_FAMILY = {
    "lognormal_mean": "mean",
    "f1": "f1",
    "macro_f1": "f1",
    "pearson": "pearson",
    "roc_auc": "other",
    "average_precision": "other",
    "kendall": "kendall",
    "bleu": "bleu",
}
#: metrics without an analytic standard error run their studentized interval (a nested
#: bootstrap, 50 inner resamples per replicate: about 28 CPU hours a cell at n = 10,000)
#: only up to this n; ``method="auto"`` never picks it for them
NESTED_MAX_N = 50
#: the metrics of the grid with an analytic standard error (``Case.analytic_se``)
ANALYTIC_SE = {"lognormal_mean", "f1", "macro_f1", "pearson", "roc_auc", "bleu"}


def derived_auto(metric: str, rows: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The ``auto`` record of a cell that did not run it, read off the column of the method
    the rule picks; ``None`` where that choice depends on the data (proportions: their
    cells run ``auto`` themselves, as do the paired differences; the cluster jackknife t,
    taken where it can be formed, has no column)."""
    from booteval.inference.auto_method import FEW_CLUSTERS, Case, choose

    family = AUTO_FAMILY.get(metric)
    any_r = next(iter(rows.values()))
    if family is None or "auto" in rows:
        return None
    g = any_r.get("n_clusters")
    case = Case(
        family, clustered=g is not None, n=int(any_r["n"]), n_clusters=g,
        analytic_se=metric in ANALYTIC_SE, stratified=any_r.get("design") == "stratified",
    )  # fmt: skip
    if case.clustered and not case.analytic_se and (g or 0) < FEW_CLUSTERS:
        return None  # the cluster jackknife t where it can be formed: it depends on the data
    chosen = rows.get(choose(case).method)
    if chosen is None:
        return None
    return {**chosen, "method": "auto", "derived_from": chosen["method"]}


#: closed-form binomial methods whose coverage on iid rows is a finite sum (see exact_coverage)
BINOMIAL_FORMS = {
    "wilson": booteval.closed_forms.wilson_interval,
    "jeffreys": booteval.closed_forms.jeffreys_interval,
    "clopper-pearson": booteval.closed_forms.clopper_pearson_interval,
}


def exact_coverage(
    method: str, n: int, p: float, confidence_level: float = CONFIDENCE
) -> float | None:
    """The exact coverage of a binomial method (or of ``auto`` where it picks one) at
    ``n`` independent rows each right with probability ``p``; ``None`` for other methods.

    The number of right rows is Binomial(n, p) under the iid and the stratified designs
    alike (the classes do not change a row's chance), and these intervals depend on the
    data only through it, so the coverage is ``sum_k P(K = k) [lo_k <= p <= hi_k]``:
    no Monte Carlo error. ``auto`` asks the rule which method it picks for each ``k``.

    Examples
    --------
    >>> round(100 * exact_coverage("jeffreys", 50, 0.5), 2)
    93.51
    >>> exact_coverage("percentile", 50, 0.5) is None
    True
    """
    from booteval.inference.auto_method import Case, choose

    total = 0.0
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    for k in range(n + 1):
        name = method
        if method == "auto":
            name = choose(Case("proportion", clustered=False, n=n, minority=min(k, n - k))).method
        form = BINOMIAL_FORMS.get(name)
        if form is None:
            return None
        if pmf[k] < 1e-15:  # cannot move the sum at the printed precision
            continue
        r = form(k, n, confidence_level=confidence_level)
        total += pmf[k] * (r.low <= p <= r.high)
    return total


def with_exact_coverage(rows: list[dict[str, Any]]) -> None:
    """Replace the simulated coverage of binomial closed forms in iid and stratified
    accuracy cells by the exact one (:func:`exact_coverage`), keeping the simulation's
    figure as ``coverage_sim`` (a check: the two agree within its error)."""
    for r in rows:
        spec = METRICS.get(r["metric"])
        if not isinstance(spec, AccuracySpec) or r["design"] not in ("iid", "stratified"):
            continue
        level = float(r.get("confidence_level", CONFIDENCE))
        exact = exact_coverage(r["method"], int(r["n"]), spec.p, level)
        if exact is None:
            continue
        r["coverage_sim"], r["coverage_sim_se"] = r["coverage"], r["coverage_se"]
        r["coverage"], r["coverage_se"], r["exact"] = exact, 0.0, True


def attainable_coverage(n: int, p: float, nominal: float = CONFIDENCE) -> float:
    """The smallest coverage at or above ``nominal`` that any interval for a binomial
    proportion can have at ``n`` rows and true proportion ``p``, among intervals whose ends
    increase with the count of right rows.

    Such an interval contains ``p`` for a contiguous range of counts, so its coverage is
    the probability of a range ``[a, b]``; the count's few likely values leave gaps.

    Examples
    --------
    >>> round(100 * attainable_coverage(200, 0.99), 1)   # 94.8 % (0 to 4 errors) or 98.4 %
    98.4
    """
    cum = np.concatenate([[0.0], np.cumsum(stats.binom.pmf(np.arange(n + 1), n, p))])
    # for each start a, the first end b whose range [a, b] reaches nominal
    ends = np.searchsorted(cum, cum[:-1] + nominal - 1e-12)
    ok = ends <= n + 1
    return float(np.min(cum[ends[ok]] - cum[:-1][ok]))


def _attainable(metric: str, n: int, nominal: float) -> float:
    spec = METRICS.get(metric)
    return attainable_coverage(n, spec.p, nominal) if isinstance(spec, AccuracySpec) else -1.0


def _auto_summary(
    by_metric: dict[str, list[dict[str, Any]]], nominal: float, band: float
) -> list[str]:
    """The page's table of the default: every cell with an ``auto`` column, against BCa and
    the best-calibrated method of the cell."""
    out = [
        '## The default: `method="auto"`',
        "",
        "`booteval.ci`'s and `booteval.compare`'s default picks the method by the rule in",
        "`booteval.inference.auto_method.RULES`. Its column is run as `ci(...)` (or",
        "`compare(...)`) itself wherever the choice depends on the data (a proportion's",
        "distance from 0 or 1, ROC-AUC's rows of the rarer class, the rows where two systems",
        "disagree, a bootstrap-t that comes out unbounded, whether the cluster jackknife t",
        "can be formed) and read off the column of the",
        "method it picks elsewhere (marked ‡; the same seed gives the same interval).",
        "Below, every such cell: the default's coverage, BCa's",
        "(the default of booteval 0.1 and of `scipy.stats.bootstrap`), and the method closest",
        "to nominal whose median interval is not nearly the metric's whole range (◊). *in",
        "band*: within "
        f"{100 * band:g} points of {100 * nominal:g}; *none in band*: no method of the cell is;",
        "*discrete*: an exact binomial cell where the default has the smallest coverage at or",
        "above nominal that any interval can have (`attainable_coverage`: the count of right",
        "rows takes so few likely values that nothing lands between; a method in band there",
        "under-covers); *vs BCa*: closer to nominal than BCa (*better*), as close within 2",
        "Monte Carlo standard errors (*same*), or farther (*worse*).",
        "",
    ]
    rows: list[tuple[str, int, str, dict[str, Any], dict[str, Any] | None, dict[str, Any]]] = []
    for metric, rs in by_metric.items():
        cells: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
        for r in rs:
            cells.setdefault((r["n"], r["design"]), {})[r["method"]] = r
        for (n, design), row in cells.items():
            auto = row.get("auto")
            if auto is None:
                continue
            others = [r for m, r in row.items() if m != "auto"]
            best = min(
                [r for r in others if not vacuous(r)] or others,
                key=lambda r: abs(r["coverage"] - nominal),
            )
            rows.append((metric, n, design, auto, row.get("bca"), best))
    rows.sort(key=lambda t: (list(by_metric).index(t[0]), t[1], _design_rank(t[2])))
    counts = {"in band": 0, "none in band": 0, "discrete": 0, "outside": 0, "worse": 0}
    table = [
        "| metric | n | design | default | chose | BCa | closest method | status | vs BCa |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for metric, n, design, auto, bca, best in rows:
        c = auto["coverage"]
        if abs(c - nominal) <= band + 1e-12:
            status = "in band"
        elif abs(best["coverage"] - nominal) > band + 1e-12:
            status = "none in band"
        elif auto.get("exact") and abs(c - _attainable(metric, n, nominal)) < 1e-9:
            status = "discrete"
        else:
            status = "outside"
        counts[status] += 1
        versus = ""
        if bca is not None:
            se = math.hypot(auto["coverage_se"], bca["coverage_se"])
            gap = abs(c - nominal) - abs(bca["coverage"] - nominal)
            versus = "better" if gap < -2 * se else ("worse" if gap > 2 * se else "same")
            counts["worse"] += versus == "worse"
        chose = auto.get("derived_from", "per data set")
        table.append(
            f"| {metric} | {n:,} | {design} | {_fmt_cov(auto, nominal, band)} | {chose} | "
            + (_fmt_cov(bca, nominal, band) if bca else "")
            + f" | {best['method']} {100 * best['coverage']:.1f} | {status} | {versus} |"
        )
    out += [
        f"Cells: {len(rows)}; in band {counts['in band']}; no method in band "
        f"{counts['none in band']}; at the discrete limit {counts['discrete']}; outside the "
        f"band where some method is in it {counts['outside']}; worse calibrated than BCa "
        f"{counts['worse']}.",
        "",
        *table,
        "",
    ]
    return out


#: coverage studies that do not fit the grid of cells, each with the script that writes it
OTHER_STUDIES = (
    ("Families beyond the grid, fitted and held out", "atlas_families.md",
     "`benchmarks/atlas_families.py` (the data sets), `benchmarks/atlas_families_fit.py` "
     "(the fit and these tables) and `benchmarks/atlas_families_confirm.py` (the beaten "
     "cells on fresh data sets)",
     "The grid above draws every clustered cell from one model. These families are built "
     "differently: binary outcomes in clusters of equal, geometric or lognormal sizes, the "
     "size independent of the outcome or tied to it (larger clusters easier), intra-cluster "
     "correlation 0.05 to 0.5; lognormal scores in such clusters; skewed and t3 scores; the "
     "Pearson correlation of lognormal and t3 pairs; ROC-AUC and F1 at 10 % and 5 % "
     "prevalence. Every data set keeps the outcome of every candidate method, so the whole "
     "rule of `method=\"auto\"` is judged per data set for any value of its thresholds: the "
     "thresholds are fitted on one half of the families together with the grid's own "
     "clustered accuracy cells (rerun on the grid's data sets, every candidate kept), and "
     "the other half of the families is held out, with two families at accuracies the "
     "fitted ones never had (0.5 and 0.95), run after the fit. A cell where some candidate "
     "beats the default is drawn again on 400 fresh data sets, since that candidate was "
     "picked as the best of a dozen on the data sets it is judged on."),
    ("ROC-AUC near its bounds", "auc_score.md", "benchmarks/auc_score.py",
     "The grid's ROC-AUC has 30 % positives and an AUC of 0.80. With few rows of one class, "
     "or with near-perfect separation, most bootstrap replicates reproduce the observed AUC "
     "and every bootstrap interval is far too short. Newcombe's score interval (method 5, "
     "2006: `booteval.closed_forms.newcombe_auc_interval`) keeps its width there. These "
     "cells run, on independent rows, every method and the rule \"Newcombe below K rows of "
     "the rarer class, BCa from K\" for each K, judged data set by data set: binormal scores "
     "(*fit*), families held out from the fit (*held out*), families run once with K = 10 "
     "fixed beforehand (*fresh*), and, after those showed K = 10 farther from 95 % than BCa "
     "in 3 cells and K became 8 (the largest K never farther than BCa on the first three), "
     "families run once after K = 8 was fixed (*last*)."),
    ("Side by side with evalstats", "evalstats_comparison.md",
     "benchmarks/evalstats_comparison.py",
     "evalstats (PyPI) also chooses an interval automatically from its own coverage study: "
     "Wilson's interval for one binary mean, the logit-t interval for the mean of [0, 1] "
     "scores, Bonett and Price's interval for a paired difference of two binary systems. The "
     "same data sets go through that choice and through booteval's default, on conditions "
     "of evalstats' three kinds (N = 10-100; see [Reliability checks](reliability.md))."),
    ("Judge correction (PPI++)", "ppi_coverage.md", "benchmarks/ppi_coverage.py",
     "The prediction-powered estimate of a mean human score from an LLM judge's scores and "
     "human labels on a subset (`booteval.judge_corrected_ci`; see "
     "[Correcting an LLM judge](judge_correction.md)): how often each 95 % interval covers "
     "the mean human score, against the human labels alone and the judge alone."),
)  # fmt: skip


def _other_studies() -> list[str]:
    """The sections of :data:`OTHER_STUDIES` whose tables exist (markdown written by their
    scripts beside this one)."""
    out: list[str] = []
    here = Path(__file__).resolve().parent
    for title, name, script, what in OTHER_STUDIES:
        table = here / name
        if table.is_file():
            by = script if "`" in script else f"`{script}`"
            out += [f"## {title}", "", f"{what} Written by {by}.", "",
                    table.read_text(encoding="utf-8").strip(), ""]  # fmt: skip
    return out


def render(
    jsonl: Path,
    md_path: Path,
    png_path: Path | None = None,
    *,
    log: Callable[[str], None] = print,
) -> str:
    """Write the atlas page (markdown) and plot from an atlas file.

    Parameters
    ----------
    jsonl : Path
    md_path : Path
        The markdown page (``docs/coverage.md``).
    png_path : Path, optional
        The plot (``docs/img/coverage_atlas.png``); skipped with a message when
        matplotlib is missing.
    log : callable

    Returns
    -------
    str
        The markdown text.
    """
    atlas = load(jsonl)
    head = atlas.header or {}
    nominal = float(head.get("confidence_level", CONFIDENCE))
    band = float(head.get("band", BAND))
    recs = [r for r in atlas.lines.values() if r.get("status") == "ok"]
    by_metric: dict[str, list[dict[str, Any]]] = {}
    with_exact_coverage(recs)
    for r in recs:
        by_metric.setdefault(r["metric"], []).append(r)
    for metric, rs in by_metric.items():
        per_cell: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
        for r in rs:
            per_cell.setdefault((r["n"], r["design"]), {})[r["method"]] = r
        for row in per_cell.values():
            # records of separate runs (a column added later): one reference for the cell
            if len({r.get("reference_method") for r in row.values()}) > 1:
                with_reference(list(row.values()), nominal)
        rs += [d for row in per_cell.values() if (d := derived_auto(metric, row)) is not None]
    order = [m for m in METRICS if m in by_metric] + sorted(set(by_metric) - set(METRICS))
    rel = None
    if png_path is not None:
        rel = Path(os.path.relpath(png_path, md_path.parent)).as_posix()
    ver = head.get("versions", {})
    lines = [
        "# Coverage atlas",
        "",
        "How often does each interval method cover the true value? Every number below is",
        "the share of simulated data sets (from a model whose truth is known) whose",
        f"{100 * nominal:g} % interval contains the truth, with its Monte Carlo standard error:",
        f"`94.8 ±0.5`. **Bold**: within {100 * band:g} points of {100 * nominal:g} (the "
        "nominal band). †: some intervals could not be formed (counted as misses).",
        "`95.7 exact`: the coverage of a binomial interval (Wilson, Jeffreys,",
        "Clopper-Pearson, and the default where it picks one) on independent rows, summed",
        "exactly over the number of right rows instead of simulated (the file keeps the",
        "simulated figure, which agrees within its error).",
        "",
        f"Settings: {head.get('reps', '?')} data sets per cell, B = "
        f"{head.get('resamples', '?')} bootstrap resamples, {head.get('n_inner', '?')} inner "
        f"resamples for a nested studentized interval, root seed {head.get('root_seed', '?')}; "
        f"booteval {ver.get('booteval', '?')}, NumPy {ver.get('numpy', '?')}, SciPy "
        f"{ver.get('scipy', '?')}. Regenerate with `python benchmarks/coverage_atlas.py` "
        "(resumable) "
        "then `python benchmarks/coverage_atlas.py --render`.",
        "",
        _completeness(by_metric),
        "",
        "## How to read it",
        "",
        "* Designs: `iid` (rows resampled independently), `stratified` (a stratified sample,",
        "  each true class in its population share, resampled within the classes),",
        "  `clustered-G` (G clusters of unequal",
        "  size, whole clusters resampled; the clustered data have a cluster effect, and the",
        "  number of rows is random with mean n).",
        "* Under clusters the truth is the metric of the population of rows (a cluster counts",
        "  with its size, and larger clusters are easier), computed once per metric and mean",
        "  cluster size from 2,000,000 rows drawn from that population (or in closed form).",
        "* Methods: `percentile`, `basic`, `normal`, `bca` (one bootstrap run,",
        "  `CIResult.with_method`), `studentized` (its own run; a nested bootstrap where the",
        "  metric has no analytic standard error), `studentized-symmetric` (the same run, one",
        "  quantile of |t| on both sides; clustered cells), `studentized-logit` (on the",
        "  logit scale, proportions), `calibrated` (the double bootstrap's calibrated",
        "  percentile interval, its own run: the percentile levels moved to where the",
        f"  percentile interval of {CALIBRATED_INNER} inner resamples of each replicate",
        "  misses each tail as often as it should; means and proportions, added to cells",
        "  already run, on their data sets); closed forms: `wilson`, `clopper-pearson`,",
        "  `clustered-wilson`, `delong`, `fisher-z`, `cr2` and `cr1` (cluster-robust t),",
        "  `wild-cluster` (wild cluster bootstrap-t), `jeffreys` (proportions), `newcombe`",
        "  and `tango` (Newcombe's and Tango's score intervals, paired accuracies). Under a",
        "  cluster design the",
        "  bootstrap methods resample clusters. `auto`: `booteval.ci`'s (`compare`'s)",
        "  default (below);",
        "  ‡: read off the column of the method it picks.",
        "* ◊: the median interval spans at least 90 % of the metric's range (all of [0, 1]",
        "  for most metrics). Such an interval covers for free and says little (a bootstrap-t",
        "  where many replicates have a zero standard error, a proportion near 1 at small n);",
        "  it is never taken as a cell's best-calibrated or closest method.",
        "* Relative width (the tables under *widths*): median interval width over that of",
        "  the cell's best-calibrated method, which is, among the methods whose coverage is",
        "  not more than 2 Monte Carlo standard errors (at the nominal level) below",
        "  nominal, the one closest to nominal (ties: the narrower); when none qualifies,",
        "  the one with the highest coverage (marked *).",
        "",
    ]
    if rel is not None:
        lines += [f"![Coverage against n, iid design, one panel per metric]({rel})", ""]
    lines += _auto_summary({m: by_metric[m] for m in order}, nominal, band)
    skipped = {k: v for k, v in atlas.skipped.items() if k not in by_metric}
    if skipped:
        lines += ["Skipped: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()), ""]
    for metric in order:
        rs = by_metric[metric]
        spec = METRICS.get(metric)
        cols = [m for m in METHOD_ORDER if any(r["method"] == m for r in rs)]
        cols += sorted({r["method"] for r in rs} - set(cols))
        cells: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
        for r in rs:
            cells.setdefault((r["n"], r["design"]), {})[r["method"]] = r
        keys = sorted(cells, key=lambda k: (k[0], _design_rank(k[1]), k[1]))
        lines += [f"## {spec.title if spec else metric}", ""]
        if spec is not None and spec.describe:
            lines += [f"Data: {spec.describe}.", ""]
        lines += [
            "| n | design | truth | " + " | ".join(cols) + " |",
            "|---|---|---|" + "---|" * len(cols),
        ]
        for key in keys:
            row = cells[key]
            any_r = next(iter(row.values()))
            vals = [_fmt_cov(row[m], nominal, band) if m in row else "" for m in cols]
            lines.append(
                f"| {key[0]:,} | {key[1]} | {any_r['truth']:.4g} | " + " | ".join(vals) + " |"
            )
        lines += ["", "<details><summary>widths (relative median width)</summary>", ""]
        lines += [
            "| n | design | median width of the reference | " + " | ".join(cols) + " |",
            "|---|---|---|" + "---|" * len(cols),
        ]
        for key in keys:
            row = cells[key]
            any_r = next(iter(row.values()))
            ref = any_r.get("reference_method")
            ref_r = row.get(ref) if ref else None
            nat = math.sqrt(nominal * (1 - nominal) / any_r["n_datasets"])
            star = "*" if ref_r is not None and ref_r["coverage"] < nominal - 2 * nat else ""
            ref_w = ref_r["median_width"] if ref_r is not None else None
            ref_text = f"{ref_w:.4g} ({ref}{star})" if ref_w is not None else "-"
            vals = []
            for m in cols:
                v = row.get(m, {}).get("rel_width")
                vals.append("" if m not in row else ("-" if v is None else f"{v:.2f}"))
            lines.append(f"| {key[0]:,} | {key[1]} | {ref_text} | " + " | ".join(vals) + " |")
        lines += ["", "</details>", ""]
    lines += _other_studies()
    text = "\n".join(lines).rstrip() + "\n"
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text(text, encoding="utf-8")
    log(f"wrote {md_path}")
    if png_path is not None:
        plot(by_metric, order, png_path, nominal=nominal, band=band, log=log)
    return text


def plot(
    by_metric: dict[str, list[dict[str, Any]]],
    order: Sequence[str],
    png_path: Path,
    *,
    nominal: float = CONFIDENCE,
    band: float = BAND,
    design: str = "iid",
    log: Callable[[str], None] = print,
) -> bool:
    """Coverage against n per method, one panel per metric (one design).

    Returns
    -------
    bool
        Whether the plot was written (``False`` without matplotlib).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        log("matplotlib is not installed: no plot (pip install matplotlib)")
        return False
    panels = [m for m in order if any(r["design"] == design for r in by_metric[m])]
    if not panels:
        log(f"no {design} cells: no plot")
        return False
    ncol = min(4, len(panels))
    nrow = math.ceil(len(panels) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4 * ncol, 3.2 * nrow), squeeze=False)
    colors = plt.get_cmap("tab20")
    handles: dict[str, Any] = {}
    for ax, metric in zip(axes.flat, panels, strict=False):
        rs = [r for r in by_metric[metric] if r["design"] == design]
        ax.axhspan(100 * (nominal - band), 100 * (nominal + band), color="0.9", zorder=0)
        ax.axhline(100 * nominal, color="0.5", lw=0.8, zorder=1)
        for m in METHOD_ORDER:
            i = COLOR_ORDER.index(m)
            pts = sorted((r["n"], 100 * r["coverage"]) for r in rs if r["method"] == m)
            if not pts:
                continue
            xs, ys = zip(*pts, strict=True)
            (h,) = ax.plot(xs, ys, marker="o", ms=3, lw=1.2, color=colors(i), label=m)
            handles[m] = h
        ax.set_xscale("log")
        sizes = sorted({r["n"] for r in rs})
        ax.set_xticks(sizes, [f"{n:,}" for n in sizes], fontsize=7)
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_title(METRICS[metric].title if metric in METRICS else metric, fontsize=9)
        ax.set_xlabel("n")
        ax.set_ylabel("coverage %")
        ax.set_ylim(max(0.0, ax.get_ylim()[0]), 100.5)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.legend(
        handles.values(),
        handles.keys(),
        loc="lower center",
        ncol=min(8, len(handles)),
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(f"Coverage of {100 * nominal:g} % intervals ({design} design)")
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    png_path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
    log(f"wrote {png_path}")
    return True


# --------------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(
        description="Coverage atlas of booteval's interval methods (resumable).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSONL file")
    p.add_argument("--reps", type=int, default=2000, help="data sets per cell")
    p.add_argument("--resamples", type=int, default=999, help="bootstrap resamples B")
    p.add_argument("--n-inner", type=int, default=50, help="inner resamples (nested studentized)")
    p.add_argument(
        "--only",
        nargs="+",
        action="extend",
        metavar="PATTERN",
        help="cells whose name matches (a glob on the whole name, or a prefix), "
        "e.g. 'accuracy' or '*/n=200/clustered-10'",
    )
    p.add_argument(
        "--metrics", nargs="+", choices=list(METRICS), metavar="NAME", help="restrict the metrics"
    )
    p.add_argument("--sizes", nargs="+", type=int, help=f"restrict n (grid: {SIZES})")
    p.add_argument(
        "--designs", nargs="+", choices=list(DESIGNS), metavar="DESIGN", help="restrict the designs"
    )
    p.add_argument(
        "--methods",
        nargs="+",
        choices=list(METHOD_ORDER),
        metavar="METHOD",
        help="run only these methods of the selected cells (where the file lacks them, or "
        "all with --redo): a new column runs on the data sets of the others",
    )
    p.add_argument("--workers", type=int, default=1, help="cells run in this many processes")
    p.add_argument("--seed", type=int, default=ROOT_SEED, help="root seed")
    p.add_argument("--truth-rows", type=int, default=TRUTH_ROWS, help="rows of an MC truth")
    p.add_argument("--list", action="store_true", help="list the selected cells and stop")
    p.add_argument(
        "--redo",
        action="store_true",
        help="run the selected cells even where the file has them (after a library change)",
    )
    p.add_argument(
        "--estimate",
        type=int,
        metavar="K",
        help="time K data sets per selected cell, project to --reps, write nothing",
    )
    p.add_argument(
        "--render",
        action="store_true",
        help="only render --out into the page and plot (no simulation)",
    )
    p.add_argument("--docs", type=Path, default=REPO / "docs", help="where --render writes")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run, estimate, list or render; returns the exit status (130 when interrupted)."""
    args = parse_args(argv)
    if args.render:
        if not args.out.exists():
            print(f"{args.out} does not exist: run the simulation first")
            return 1
        render(args.out, args.docs / "coverage.md", args.docs / "img" / "coverage_atlas.png")
        return 0
    cells = select(build_grid(args.metrics, args.sizes, args.designs), args.only)
    if not cells:
        print("no cell selected")
        return 1
    if args.list:
        for c in cells:
            why = unavailable(METRICS[c.metric])
            extra = f"  (skipped: {why})" if why else ""
            print(f"{c.name}: {', '.join(methods_for(c))}{extra}")
        print(f"{len(cells)} cells")
        return 0
    if args.estimate:
        estimate_time(
            cells,
            probe_reps=args.estimate,
            reps=args.reps,
            resamples=args.resamples,
            n_inner=args.n_inner,
            workers=args.workers,
            methods=args.methods,
        )
        return 0
    t0 = time.perf_counter()
    try:
        summary = run_atlas(
            args.out,
            cells,
            reps=args.reps,
            resamples=args.resamples,
            n_inner=args.n_inner,
            workers=args.workers,
            root_seed=args.seed,
            truth_rows=args.truth_rows,
            redo=args.redo,
            methods=args.methods,
        )
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished cells are in {args.out}; run again to resume")
        return 130
    print(f"done: {summary} in {time.perf_counter() - t0:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
