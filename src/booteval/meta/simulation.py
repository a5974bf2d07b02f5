"""Coverage simulation for correlation intervals (private; see :mod:`booteval.meta`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError, collect_warnings
from ..core.intervals import compute_interval
from ..core.options import accepts_options
from ..core.params import validated
from ..core.streams import generator, seed_sequence
from ..core.validation import check_choice, check_n_resamples, check_positive_int, check_seed
from ..inference.analytic import fisher_z_interval
from . import core as M
from .results import CoverageRow, CoverageTable

__all__ = ["simulate_correlation_coverage", "true_correlation"]


def _rank_version(rho: float, coefficient: str) -> float:
    """Population Spearman / Kendall of a bivariate normal with Pearson correlation ``rho``."""
    if coefficient == "spearman":
        return 6.0 / math.pi * math.asin(rho / 2.0)
    if coefficient == "kendall":
        return 2.0 / math.pi * math.asin(rho)
    return rho


def true_correlation(
    level: str, coefficient: str, n_inputs: int, system_correlation: float,
    noise_correlation: float, input_correlation: float, system_sd: float, input_sd: float,
    noise_sd: float,
) -> float:  # fmt: skip
    """The population correlation of the simulation model at a level.

    ``X_ij = a_i + b_j + e_ij`` and ``Z_ij = c_i + d_j + f_ij`` with bivariate-normal pairs
    ``(a_i, c_i)`` (systems), ``(b_j, d_j)`` (inputs), ``(e_ij, f_ij)`` (cells). Input effects
    are common to all systems, so they cancel from system- and summary-level correlations.

    Examples
    --------
    >>> round(true_correlation("summary", "pearson", 100, 0.8, 0.2, 0.0, 1.0, 1.0, 1.0), 6)
    0.5
    """
    s2, b2, e2 = system_sd**2, input_sd**2, noise_sd**2
    if level == "system":
        rho = (system_correlation * s2 + noise_correlation * e2 / n_inputs) / (s2 + e2 / n_inputs)
    elif level == "summary":
        rho = (system_correlation * s2 + noise_correlation * e2) / (s2 + e2)
    else:
        rho = (system_correlation * s2 + input_correlation * b2 + noise_correlation * e2) / (
            s2 + b2 + e2
        )
    return _rank_version(rho, coefficient)


def _pairs(rng: np.random.Generator, shape: tuple[int, ...], rho: float, sd: float):
    u = rng.standard_normal(shape)
    v = rng.standard_normal(shape)
    return sd * u, sd * (rho * u + math.sqrt(max(1.0 - rho * rho, 0.0)) * v)


def _check_correlation(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise InvalidInputError(name, "a correlation in [-1, 1]", repr(value))
    return float(value)


def _check_sd(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise InvalidInputError(name, "a non-negative standard deviation", repr(value))
    return float(value)


@accepts_options
@validated
def simulate_correlation_coverage(
    *, level: str = "system", coefficient: str = "pearson", n_systems: int = 16,
    n_inputs: int = 100, system_correlation: float = 0.8, noise_correlation: float = 0.3,
    input_correlation: float = 0.0, system_sd: float = 1.0, input_sd: float = 1.0,
    noise_sd: float = 3.0, population: tuple[Any, Any] | None = None,
    designs: tuple[str, ...] = ("systems", "inputs", "both"),
    methods: tuple[str, ...] = ("percentile", "bca"), fisher: bool = True, n_trials: int = 200,
    n_resamples: int = 1000, confidence_level: float = 0.95, seed: int | None = None,
) -> CoverageTable:  # fmt: skip
    """How often does each interval cover a known correlation?

    Simulates ``n_trials`` data sets of ``n_systems`` x ``n_inputs`` metric and human scores
    with a known true correlation, forms the Fisher interval and a bootstrap interval for each
    design and method on each, and reports the share that contain the truth and their width.

    Two sources of data:

    * **a model** (default): ``X_ij = a_i + b_j + e_ij`` and ``Z_ij = c_i + d_j + f_ij``, where
      system effects ``(a_i, c_i)``, input effects ``(b_j, d_j)`` and per-cell noise
      ``(e_ij, f_ij)`` are bivariate normal with correlations ``system_correlation``,
      ``input_correlation``, ``noise_correlation`` and standard deviations ``system_sd``,
      ``input_sd``, ``noise_sd`` (the same for X and Z). Every data set draws new systems and
      new inputs. The truth is the population value at the level: system level
      ``(rho_s s^2 + rho_e e^2 / M) / (s^2 + e^2 / M)`` (system means over ``M`` inputs),
      summary level ``(rho_s s^2 + rho_e e^2) / (s^2 + e^2)``, global level with the input
      terms added; Spearman's and Kendall's versions are ``(6/pi) asin(rho/2)`` and
      ``(2/pi) asin(rho)``.
    * **a finite population** ``population=(X_pop, Z_pop)``: each data set samples
      ``n_systems`` rows and ``n_inputs`` columns without replacement; the truth is the
      correlation at the level on the whole population.

    Parameters
    ----------
    level, coefficient : str
        As in :func:`booteval.meta.correlate`.
    n_systems, n_inputs : int
        Size of each simulated data set.
    system_correlation, noise_correlation, input_correlation : float
        Model correlations (ignored with ``population``).
    system_sd, input_sd, noise_sd : float
        Model standard deviations (ignored with ``population``).
    population : (array_like, array_like), optional
        Metric and human score matrices of a finite population.
    designs : tuple of {"systems", "inputs", "both"}
        Bootstrap designs to evaluate.
    methods : tuple of {"percentile", "basic", "normal", "bca"}
        Interval methods (all computed from the same replicates).
    fisher : bool
        Also evaluate the Fisher interval.
    n_trials : int
        Simulated data sets.
    n_resamples : int
        Bootstrap replicates per data set and design.
    confidence_level : float
    seed : int, optional

    Returns
    -------
    CoverageTable
        One row per interval method: coverage, misses on each side and width.

    Examples
    --------
    >>> from booteval.meta import simulate_correlation_coverage
    >>> t = simulate_correlation_coverage(level="system", n_systems=10, n_inputs=20,
    ...                                   n_trials=20, n_resamples=200, seed=0,
    ...                                   methods=("percentile",))
    >>> round(t.truth, 4)
    0.6448
    >>> [(r.design, r.method) for r in t.rows]
    [('fisher', 'fisher'), ('systems', 'percentile'), ('inputs', 'percentile'),
     ('both', 'percentile')]
    """
    lv, co, _, lev = M.common_iv(level, coefficient, "percentile", confidence_level)
    designs = tuple(check_choice(d, "designs", M.RESAMPLE) for d in designs)
    methods = tuple(check_choice(m, "methods", M.BOOTSTRAP_METHODS) for m in methods)
    if not designs and not fisher:
        raise InvalidInputError("designs", "at least one design, or fisher=True", "none")
    if designs and not methods:
        raise InvalidInputError("methods", "at least one bootstrap method", "none")
    n_trials = check_positive_int(n_trials, "n_trials")
    b = check_n_resamples(n_resamples, lev)
    seed_int = check_seed(seed)
    n_sys = check_positive_int(n_systems, "n_systems", minimum=3)
    n_inp = check_positive_int(n_inputs, "n_inputs", minimum=1)

    if population is not None:
        xp, zp, maskp = M.matrices_iv(population[0], population[1], x_name="population[0]")
        if n_sys > xp.shape[0] or n_inp > xp.shape[1]:
            raise InvalidInputError(
                "n_systems, n_inputs",
                f"at most the population's size {xp.shape}",
                f"({n_sys}, {n_inp})",
            )
        truth = M.Problem(xp, zp, maskp, lv, co).estimate
        description = (
            f"samples of {n_sys} of {xp.shape[0]} systems and {n_inp} of {xp.shape[1]} inputs "
            "from a finite population; truth = the correlation on the whole population"
        )
    else:
        rs = _check_correlation(system_correlation, "system_correlation")
        re_ = _check_correlation(noise_correlation, "noise_correlation")
        ri = _check_correlation(input_correlation, "input_correlation")
        ss, si, se = (
            _check_sd(system_sd, "system_sd"),
            _check_sd(input_sd, "input_sd"),
            _check_sd(noise_sd, "noise_sd"),
        )
        truth = true_correlation(lv, co, n_inp, rs, re_, ri, ss, si, se)
        description = (
            f"model X = a_i + b_j + e_ij, Z = c_i + d_j + f_ij; correlations system {rs:g}, "
            f"input {ri:g}, noise {re_:g}; sd system {ss:g}, input {si:g}, noise {se:g}"
        )

    keys = ([("fisher", "fisher")] if fisher else []) + [(d, m) for d in designs for m in methods]
    lows = {k: np.full(n_trials, np.nan) for k in keys}
    highs = {k: np.full(n_trials, np.nan) for k in keys}

    with collect_warnings():
        for trial in range(n_trials):
            rng = generator("meta.simulation", seed_int, 0, trial)
            if population is not None:
                rows = np.sort(rng.choice(xp.shape[0], n_sys, replace=False))
                cols = np.sort(rng.choice(xp.shape[1], n_inp, replace=False))
                x, z, mask = (
                    xp[np.ix_(rows, cols)],
                    zp[np.ix_(rows, cols)],
                    maskp[np.ix_(rows, cols)],
                )
                if not (mask.any(axis=0).all() and mask.any(axis=1).all()):
                    continue
            else:
                a, c = _pairs(rng, (n_sys, 1), rs, ss)
                bb, d = _pairs(rng, (1, n_inp), ri, si)
                e, f = _pairs(rng, (n_sys, n_inp), re_, se)
                x, z = a + bb + e, c + d + f
                mask = np.ones(x.shape, dtype=bool)
            try:
                prob = M.Problem(x, z, mask, lv, co)
            except InvalidInputError:
                continue
            if not math.isfinite(prob.estimate):
                continue
            if fisher:
                n, _ = prob.fisher_n()
                bconst = 4 if co == "kendall" else 3
                if n > bconst and abs(prob.estimate) < 1:
                    iv = fisher_z_interval(prob.estimate, n, coefficient=co, confidence_level=lev)
                    lows["fisher", "fisher"][trial] = iv.low
                    highs["fisher", "fisher"][trial] = iv.high
            trial_seed = int(
                seed_sequence("meta.simulation", seed_int, 1, trial).generate_state(1)[0]
            )
            for d in designs:
                reps = M.bootstrap([prob.stat], d, prob.n_systems, prob.n_inputs, trial_seed, b)[0][
                    0
                ]
                reps = reps[np.isfinite(reps)]
                if reps.size < 2:
                    continue
                jack = (
                    M.jackknife_values(prob.stat, d, prob.n_systems, prob.n_inputs)
                    if "bca" in methods
                    else None
                )
                for m in methods:
                    out = compute_interval(
                        m, prob.estimate, reps, lev, jackknife=jack, bounds=(-1.0, 1.0),
                        warn=False,
                    )  # fmt: skip
                    lows[d, m][trial] = out.low
                    highs[d, m][trial] = out.high

    rows_out = []
    for key in keys:
        lo, hi = lows[key], highs[key]
        ok = np.isfinite(lo) & np.isfinite(hi)
        k = int(ok.sum())
        if k == 0:
            rows_out.append(CoverageRow(*key, *(math.nan,) * 6, 0))
            continue
        lo, hi = lo[ok], hi[ok]
        cov = float(np.mean((lo <= truth) & (truth <= hi)))
        width = hi - lo
        rows_out.append(
            CoverageRow(
                design=key[0],
                method=key[1],
                coverage=cov,
                coverage_se=math.sqrt(cov * (1 - cov) / k),
                below=float(np.mean(hi < truth)),
                above=float(np.mean(lo > truth)),
                mean_width=float(np.mean(width)),
                median_width=float(np.median(width)),
                n_intervals=k,
            )
        )
    return CoverageTable(
        truth=float(truth), level=lv, coefficient=co, n_systems=n_sys, n_inputs=n_inp,
        n_trials=n_trials, n_resamples=b, confidence_level=lev, rows=tuple(rows_out),
        description=description, seed=seed_int,
    )  # fmt: skip
