"""Comparing two metrics' correlations with the human scores (private; see
:func:`booteval.meta.compare_correlations`)."""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from ..core.engine import run_engine
from ..core.errors import InvalidInputError, collect_warnings, warn
from ..core.intervals import compute_interval
from ..core.lazy import stats as _stats
from ..core.options import entry_point
from ..core.validation import check_choice, check_n_resamples, check_seed
from ..core.weights import WeightSource
from ..results import freeze
from . import kernels as K
from .core import (
    ALTERNATIVES,
    BOOTSTRAP_METHODS,
    P_TOL,
    RESAMPLE,
    Difference,
    Problem,
    as_matrix,
    bootstrap,
    check_undefined,
    common_iv,
    describe_design,
    jackknife_values,
    matrices_iv,
)
from .results import CorrelationComparison

__all__ = ["compare_correlations"]


# ------------------------------------------------------------------------------ compare
def _standardize(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    vals = x[mask]
    sd = float(np.std(vals))
    return (x - float(np.mean(vals))) / (sd if sd > 0 else 1.0)


class _PairedPermutation:
    """Difference of two metrics' correlations after swapping their scores."""

    def __init__(
        self, xa: np.ndarray, xb: np.ndarray, z: np.ndarray, mask: np.ndarray, level: str,
        coefficient: str,
    ) -> None:  # fmt: skip
        self.level, self.coefficient = level, coefficient
        xa, xb = _standardize(xa, mask), _standardize(xb, mask)
        self.mask = mask
        self._spec: dict[str, Any] = {
            "level": level, "coefficient": coefficient, "shape": xa.shape, "xa": xa, "xb": xb,
            "z": z, "mask": mask,
        }  # fmt: skip
        if level == "system":
            sa = K.SystemLevel(xa, z, mask, coefficient)
            sb = K.SystemLevel(xb, z, mask, coefficient)
            self.xa, self.xb, self.z = sa.x, sb.x, sa.z
            self.d = np.where(mask, xb - xa, 0.0)
            self.dsum = self.d.sum(axis=1)
            self.cnt = mask.sum(axis=1).astype(np.float64)
            self.tol_x = max(sa.tol_x, sb.tol_x)
            self.tol_z = sa.tol_z
            self._spec.update(xa=self.xa, xb=self.xb, z=self.z, d=self.d, dsum=self.dsum,
                              cnt=self.cnt, tol_x=self.tol_x, tol_z=self.tol_z)  # fmt: skip
        elif level == "summary":
            self.ra = K.ColumnKernel(xa, z, mask, coefficient)(np.ones((1, xa.shape[0])))[0]
            self.rb = K.ColumnKernel(xb, z, mask, coefficient)(np.ones((1, xa.shape[0])))[0]
            self.args = (np.vstack([xa, xb]), np.vstack([z, z]), np.vstack([mask, mask]))
            self._kernel: K.ColumnKernel | None = None
            self._lock = threading.Lock()  # the kernel is built once, by the first thread
        else:
            rows, cols = np.nonzero(mask)
            self.rows, self.cols = rows, cols
            xs = np.concatenate([xa[rows, cols], xb[rows, cols]])
            zs = np.concatenate([z[rows, cols], z[rows, cols]])
            self.cells = K.GlobalLevel(xs[None], zs[None], np.ones((1, xs.size), bool),
                                       coefficient)  # fmt: skip

    def spec(self) -> dict[str, Any]:
        """The test's data, for the compiled engine (:mod:`booteval.core.crossed_swap_kernels`):
        the standardized cells, and at the system level the systems' means and the cells'
        differences."""
        return self._spec

    def __call__(self, s: np.ndarray | None, t: np.ndarray | None) -> np.ndarray:
        co = self.coefficient
        if self.level == "system":
            if t is None:
                sw = s > 0
                xa2 = np.where(sw, self.xb, self.xa)
                xb2 = np.where(sw, self.xa, self.xb)
            else:
                dt = K.row_products(t, self.d.T)
                inc = dt if s is None else (1.0 - 2.0 * s) * dt + s * self.dsum
                inc = inc / self.cnt
                xa2, xb2 = self.xa + inc, self.xb - inc
            ones = np.ones(xa2.shape)
            ra = K.corr_rows(xa2, self.z[None], ones, co, self.tol_x, self.tol_z)
            rb = K.corr_rows(xb2, self.z[None], ones, co, self.tol_x, self.tol_z)
            return ra - rb
        if self.level == "summary":
            if s is None:
                sw = t > 0
                r_a = np.where(sw, self.rb, self.ra)
                r_b = np.where(sw, self.ra, self.rb)
            else:
                with self._lock:
                    if self._kernel is None:
                        self._kernel = K.ColumnKernel(*self.args, co)
                kernel = self._kernel
                r0 = kernel(np.hstack([1.0 - s, s]))
                r1 = kernel(np.hstack([s, 1.0 - s]))
                if t is None:
                    r_a, r_b = r0, r1
                else:
                    sw = t > 0
                    r_a, r_b = np.where(sw, r1, r0), np.where(sw, r0, r1)
            return K.mean_over_inputs(r_a, None)[0] - K.mean_over_inputs(r_b, None)[0]
        # global: virtual cells (metric A's scores, then B's), one of each pair selected
        if s is None:
            c = t[:, self.cols]
        elif t is None:
            c = s[:, self.rows]
        else:
            a, b = s[:, self.rows], t[:, self.cols]
            c = a + b - 2.0 * a * b
        ra = self.cells(None, np.hstack([1.0 - c, c]))
        rb = self.cells(None, np.hstack([c, 1.0 - c]))
        return ra - rb


class _SwapSource(WeightSource):
    """Swap indicators of the permutation test as the engine's weight source.

    ``unit_weights(seed, start, stop)`` gives patterns ``start .. stop - 1`` as one
    ``(stop - start, n_systems + n_inputs)`` block of 0/1 swaps, systems first: all
    ``2**k`` patterns of the ``k`` permuted units in binary order when ``exact``, else
    random ones from the fixed-size blocks of the ``meta.permutation`` stream
    (:func:`kernels.permutation_block`), the same whatever the batching. Units the design
    does not permute are 0.
    """

    clustered = False
    stream = "meta.permutation"

    def __init__(self, n_systems: int, n_inputs: int, design: str, exact: bool) -> None:
        self.n_systems, self.n_inputs, self.exact = n_systems, n_inputs, exact
        self.use_s, self.use_t = design != "inputs", design != "systems"
        self.block_size = K.block_size(n_systems, n_inputs)

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        if not self.exact:  # random swaps: cut out of the stream's blocks
            return super().unit_weights(seed, start, stop)
        n_sys, n_inp = self.n_systems, self.n_inputs
        n_bits = n_sys * self.use_s + n_inp * self.use_t
        codes = np.arange(start, stop, dtype=np.int64)
        bits = ((codes[:, None] >> np.arange(n_bits)) & 1).astype(np.float64)
        s = bits[:, :n_sys] if self.use_s else np.zeros((stop - start, n_sys))
        t = bits[:, n_sys if self.use_s else 0 :] if self.use_t else np.zeros((stop - start, n_inp))
        return np.hstack([s, t])

    def block(self, seed: int, j: int) -> np.ndarray:
        s, t = K.permutation_block(seed, j, self.n_systems, self.n_inputs)
        return np.hstack([s, t])


class _SwapRun:
    """The engine's view of the permutation test: the difference under each swap pattern."""

    design = None
    has_standard_error = False
    thread_safe = True

    def __init__(self, perm: _PairedPermutation, source: _SwapSource) -> None:
        self.perm, self.source = perm, source

    def estimate(self) -> float:
        return 0.0  # one value per swap pattern

    def replicates(self, swaps: np.ndarray) -> np.ndarray:
        n, src = self.source.n_systems, self.source
        s = np.ascontiguousarray(swaps[:, :n]) if src.use_s else None
        t = np.ascontiguousarray(swaps[:, n:]) if src.use_t else None
        with np.errstate(all="ignore"):
            return self.perm(s, t)


def _swaps_runner(perm: _PairedPermutation, design: str, exact: bool) -> Any:
    from ..core.crossed_swap_kernels import crossed_swaps_runner  # numba: after the check

    return crossed_swaps_runner(perm.spec(), design, exact)


def _permutation_test(
    perm: _PairedPermutation, design: str, n_sys: int, n_inp: int, n_resamples: int, seed: int,
    alternative: str, workers: int | None = 1, engine: str = "auto",
) -> tuple[float, float, bool, np.ndarray, int, str | None]:  # fmt: skip
    n_bits = {"systems": n_sys, "inputs": n_inp, "both": n_sys + n_inp}[design]
    use_s, use_t = design != "inputs", design != "systems"
    with np.errstate(all="ignore"):
        obs = float(
            perm(np.zeros((1, n_sys)) if use_s else None, np.zeros((1, n_inp)) if use_t else None)[
                0
            ]
        )
    exact = n_bits <= 62 and 2**n_bits <= n_resamples
    source = _SwapSource(n_sys, n_inp, design, exact)
    total = 2**n_bits if exact else n_resamples
    ran = run_engine(
        _SwapRun(perm, source), source, n_resamples=total, seed=seed, engine=engine,
        workers=workers, kernel=lambda _: _swaps_runner(perm, design, exact),
    )  # fmt: skip
    vals, note = ran.values, (ran.notes or (None,))[0]
    ok = np.isfinite(vals)
    vals = vals[ok]
    n_undef = int((~ok).sum())
    if alternative == "two-sided":
        count = int(np.sum(np.abs(vals) >= abs(obs) - P_TOL))
    elif alternative == "greater":
        count = int(np.sum(vals >= obs - P_TOL))
    else:
        count = int(np.sum(vals <= obs + P_TOL))
    p = count / vals.size if exact else (count + 1) / (vals.size + 1)
    return min(1.0, p), obs, exact, vals, n_undef, note


def _williams(r12: float, r13: float, r23: float, n: int, alternative: str) -> tuple[float, float]:
    """Williams' t for ``r12 - r13`` (correlations of 2 and 3 with 1; ``r23`` between them).

    ``t = (r12 - r13) sqrt((n - 1)(1 + r23) / (2 (n - 1)/(n - 3) |R| + rbar^2 (1 - r23)^3))``
    with ``|R| = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23`` and ``rbar = (r12 + r13) / 2``,
    on ``n - 3`` degrees of freedom (Steiger 1980, eq. 3; as R psych's ``r.test``).
    """
    det = 1.0 - r12 * r12 - r13 * r13 - r23 * r23 + 2.0 * r12 * r13 * r23
    rbar = 0.5 * (r12 + r13)
    den = 2.0 * (n - 1) / (n - 3) * det + rbar * rbar * (1.0 - r23) ** 3
    t = (r12 - r13) * math.sqrt((n - 1) * (1.0 + r23) / den) if den > 0 else math.nan
    if alternative == "two-sided":
        p = 2.0 * float(_stats.t.sf(abs(t), n - 3))
    elif alternative == "greater":
        p = float(_stats.t.sf(t, n - 3))
    else:
        p = float(_stats.t.cdf(t, n - 3))
    return t, min(1.0, p)


@entry_point
def compare_correlations(
    X_a: Any, X_b: Any, Z: Any, *, level: str = "system", coefficient: str = "pearson",
    resample: str = "both", permutation: str | None = "both", method: str = "percentile",
    alternative: str = "two-sided", confidence_level: float = 0.95, n_resamples: int = 10_000,
    seed: int | None = None, metrics: tuple[str, str] = ("a", "b"), workers: int | None = None,
    engine: str = "auto", progress: Any = None,
) -> CorrelationComparison:  # fmt: skip
    """Does metric A agree with the human scores better than metric B, on the same data?

    Three answers, each with a p-value:

    * **paired bootstrap** (``resample=``): both metrics' correlations on the same resampled
      systems and inputs; an interval for ``r_a - r_b`` and the test of ``d* - d`` against
      ``d``;
    * **permutation test** (``permutation=``): under the null hypothesis the two metrics are
      exchangeable, so their scores are swapped at random per system (Perm-Systems), per
      input (Perm-Inputs) or per system and input (Perm-Both; a cell is swapped when exactly
      one of its system and its input is). The scores are first standardized (z-scored over
      the scored cells) so that swapped values are on one scale; this leaves every
      correlation unchanged. When the ``2^k`` swap patterns number no more than
      ``n_resamples``, all are enumerated (an exact test);
    * **Williams' test** (system level only): the classic test for two dependent correlations
      that share a variable, from ``r_a``, ``r_b``, the correlation between the two metrics'
      system means and ``n`` = number of systems. It assumes normal data (and is derived for
      Pearson's r).

    Parameters
    ----------
    X_a, X_b, Z : array_like, shape (N, M)
        The two metrics' and the human scores; a cell is used when all three are present.
    level, coefficient : str
        As in :func:`correlate`.
    resample : {"both", "systems", "inputs"}
        Bootstrap design of the interval and of ``p_value_bootstrap``.
    permutation : {"both", "systems", "inputs"} or None
        Permutation design; ``None`` skips the permutation test.
    method : {"percentile", "basic", "normal", "bca"}
        Interval method for the difference.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's correlation is larger than B's.
    confidence_level : float
    n_resamples : int
        Bootstrap replicates, and random swap patterns for the permutation test.
    seed : int, optional
    metrics : (str, str)
        Labels of the two metrics.
    workers : int, optional
        Threads for the bootstrap replicates and the swap patterns (default: all cores).
        Never changes the result.
    {engine}
    progress : None, True or callable, optional
        ``True`` prints the replicates done to stderr every few seconds; a callable is
        called as ``progress(done, total)`` after each batch, first of the bootstrap
        replicates, then of the swap patterns of the permutation test.

    Returns
    -------
    CorrelationComparison
        The difference of the two correlations, its interval and the tests' p-values.

    Examples
    --------
    >>> import numpy as np
    >>> from booteval.meta import compare_correlations
    >>> rng = np.random.default_rng(3)
    >>> human = rng.normal(size=(10, 1)) + rng.normal(size=(10, 50))
    >>> good = human + rng.normal(size=(10, 50))
    >>> poor = human + 3 * rng.normal(size=(10, 50))
    >>> c = compare_correlations(good, poor, human, level="summary", n_resamples=2000, seed=0,
    ...                          metrics=("good", "poor"))
    >>> print(c)
    0.30 (0.19, 0.42)
    >>> c.p_value_bootstrap < 0.01, c.p_value_permutation < 0.01
    (True, True)
    """
    lv, co, me, lev = common_iv(level, coefficient, method, confidence_level)
    if me == "fisher":
        raise InvalidInputError(
            "method", f"one of {', '.join(map(repr, BOOTSTRAP_METHODS))}", "'fisher'",
            "Compare correlations with the paired bootstrap, a permutation test or Williams' "
            "test (reported at the system level).",
        )  # fmt: skip
    resample = check_choice(resample, "resample", RESAMPLE)
    if permutation is not None:
        permutation = check_choice(permutation, "permutation", RESAMPLE)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    b = check_n_resamples(n_resamples, lev)
    seed_int = check_seed(seed)
    xa = as_matrix(X_a, "X_a")
    xb = as_matrix(X_b, "X_b")
    if xa.shape != xb.shape:
        raise InvalidInputError("X_b", f"the same shape as `X_a` {xa.shape}", f"shape {xb.shape}")
    matrices_iv(xb, Z, x_name="X_b")
    nan_b = np.where(np.isnan(xb), np.nan, 0.0)
    xa_, z_, mask = matrices_iv(xa + nan_b, Z, x_name="X_a")
    xb_ = np.where(mask, xb, np.nan)
    xa_ = np.where(mask, xa_, np.nan)
    pa = Problem(xa_, z_, mask, lv, co)
    pb = Problem(xb_, z_, mask, lv, co)
    for p, name in ((pa, "X_a"), (pb, "X_b")):
        if not math.isfinite(p.estimate):
            raise InvalidInputError(
                name, f"scores on which the {lv}-level correlation is defined", "constant scores"
            )
    n_sys, n_inp = pa.n_systems, pa.n_inputs
    notes = list(pa.notes)
    diff = pa.estimate - pb.estimate

    stat = Difference(pa.stat, pb.stat)
    out, _, engine_notes = bootstrap(
        [stat], resample, n_sys, n_inp, seed_int, b, workers=workers, engine=engine
    )
    notes.extend(engine_notes)
    reps = out[0]
    values, n_undef = check_undefined(reps, "difference of the correlations", stacklevel=3)
    jack = jackknife_values(stat, resample, n_sys, n_inp) if me == "bca" else None
    with collect_warnings() as caught:
        out = compute_interval(me, diff, values, lev, jackknife=jack, bounds=(-2.0, 2.0))
    for w in caught:
        warn(w.message, w.category, stacklevel=2)
    notes.extend(out.notes)
    shifted = values - diff
    if alternative == "two-sided":
        count = int(np.sum(np.abs(shifted) >= abs(diff) - P_TOL))
    elif alternative == "greater":
        count = int(np.sum(shifted >= diff - P_TOL))
    else:
        count = int(np.sum(shifted <= diff + P_TOL))
    p_boot = min(1.0, (count + 1) / (values.size + 1))

    p_perm = None
    exact = False
    perm_vals = None
    n_perm = 0
    if permutation is not None:
        perm = _PairedPermutation(pa.x, pb.x, pa.z, pa.mask, lv, co)
        p_perm, _, exact, perm_vals, n_perm_undef, note = _permutation_test(
            perm, permutation, n_sys, n_inp, b, seed_int, alternative, workers, engine
        )
        if note and note not in notes:
            notes.append(note)
        n_perm = int(perm_vals.size + n_perm_undef)
        if n_perm_undef:
            notes.append(f"{n_perm_undef} swap patterns gave an undefined difference (dropped)")
        perm_vals = freeze(perm_vals)

    p_will = t_will = r_ab = None
    if lv == "system":
        sa = pa.stat
        r_ab = float(
            K.corr_rows(sa.x[None], pb.stat.x[None], np.ones((1, n_sys)), co,
                        sa.tol_x, pb.stat.tol_x)[0]
        )  # fmt: skip
        if n_sys > 3 and math.isfinite(r_ab):
            t_will, p_will = _williams(pa.estimate, pb.estimate, r_ab, n_sys, alternative)
            if co != "pearson":
                notes.append(
                    f"Williams' test is derived for Pearson's r; with {co} it is an approximation"
                )
        else:
            notes.append("Williams' test needs more than 3 systems and distinct metrics")
    _, population = describe_design(resample, n_sys, n_inp)
    return CorrelationComparison(
        metric_a=str(metrics[0]), metric_b=str(metrics[1]), level=lv, coefficient=co,
        estimate_a=pa.estimate, estimate_b=pb.estimate, difference=diff, low=out.low, high=out.high,
        confidence_level=lev, method=me, resample=resample, population=population,
        alternative=alternative, p_value_bootstrap=p_boot, permutation=permutation,
        p_value_permutation=p_perm, permutation_exact=exact, n_permutations=n_perm,
        p_value_williams=p_will, williams_t=t_will, correlation_ab=r_ab, n_systems=n_sys,
        n_inputs=n_inp, n_resamples=b, n_undefined=n_undef, seed=seed_int,
        distribution=freeze(values), permutation_distribution=perm_vals, notes=tuple(notes),
    )  # fmt: skip
