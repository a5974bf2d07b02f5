"""Significance tests beside the bootstrap: permutation, McNemar and paired t.

Each test compares two systems scored on the *same* rows and answers "is B's
metric different from A's?" with a p-value for ``B - A``:

* :func:`permutation_test` -- paired approximate randomization for any metric:
  under the null the two systems' outputs are exchangeable on each row (or on
  each cluster), so the null distribution swaps them on random subsets of rows.
  Exact enumeration of every swap when there are few; the ``+1`` correction
  otherwise.
* :func:`mcnemar_test` -- McNemar's test on the discordant pairs, for accuracy
  (exact binomial, or the continuity-corrected chi-square).
* :func:`paired_t_test` -- the paired t-test for a mean of per-row scores, with
  a cluster-robust standard error under a cluster design.

DeLong's paired test for ROC-AUC is :func:`booteval.analytic.delong_test`.

How the permutation test stays fast
-----------------------------------
Every swap is a pair of 0/1 weight vectors over the *pooled* rows (A's rows,
then B's): ``A'`` takes A's output where a row is not swapped and B's where it
is, ``B'`` the rest. The metric is bound once to the pooled data, and the
permutations are evaluated the way bootstrap replicates are: for a metric of
sums of per-row statistics (mean, accuracy, precision/recall/F1, MSE, ...), with
``D`` the per-unit difference of the two systems' statistics and ``Z`` a
``(permutations x units)`` 0/1 matrix,

    sums(A') = total(A) + Z @ D,    sums(B') = total(B) - Z @ D,

one matrix product for all permutations; rank metrics (ROC-AUC, average
precision, Spearman, Kendall) take their weighted replicate path. Callables
(and the rare cases where binding to the pooled data would change the metric,
see :func:`permutation_test`) are evaluated once per permutation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.design import make_design
from ..core.engine import NO_KERNEL, check_choice, run_engine
from ..core.errors import (
    BootevalError,
    InvalidInputError,
    UndefinedReplicateWarning,
    warn,
)
from ..core.format import format_p_value
from ..core.options import entry_point
from ..core.paired import pair_inputs, paired_arrays
from ..core.params import ALTERNATIVES, renamed
from ..core.validation import (
    check_positive_int,
    check_seed,
)
from ..metrics import Metric
from ..results import Difference, freeze, protocol_of_test
from .swaps import (
    MAX_EXACT_UNITS,
    _check_exact,
    _count_extreme,
    _kernel_builder,
    _make_swapper,
    _SwapRun,
    _SwapSource,
)

__all__ = ["PermutationTestResult", "permutation_test"]


# weight cells (permutations x pooled units) evaluated at once by default
_BATCH_CELLS = 1 << 20
# ties: |T* - T| below this fraction of the metric's scale count as equal
_TIE_RTOL = 1e-12


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PermutationTestResult(Difference):
    """Outcome of a paired permutation (approximate randomization) test of ``B - A``.

    Attributes
    ----------
    statistic : float
        ``metric(B) - metric(A)`` on the original data.
    p_value : float
        ``(1 + #{extreme}) / (R + 1)`` over ``R`` random swaps, or ``#{extreme} / 2**k``
        when every swap of the ``k`` swappable units was enumerated (``exact``). "Extreme"
        follows ``alternative``: ``|T*| >= |T|`` (two-sided), ``T* >= T`` (greater),
        ``T* <= T`` (less).
    n_permutations : int
        Number of swaps evaluated (``2**n_swappable`` when exact).
    exact : bool
        Whether every swap was enumerated.
    alternative : str
        ``"two-sided"``, ``"greater"`` (B's metric larger) or ``"less"``.
    test : str
        ``"permutation"``.
    metric : str
        The metric's label.
    n : int
        Number of rows.
    n_clusters : int or None
        Number of clusters (the swapped units) under a cluster design.
    seed : int or None
        The seed of the random swaps; ``None`` for exact enumeration (nothing is random).
    distribution : ndarray
        The defined statistics ``T*`` of the swaps (read-only); the identity swap is
        included when exact.
    name_a, name_b : str
        The systems' names.
    estimate_a, estimate_b : float
        Each system's metric on the original data.
    n_units : int
        Swap units: rows, or clusters.
    n_swappable : int
        Units on which the two systems' outputs differ (swapping the others changes
        nothing, so they are left out of the enumeration).
    n_undefined : int
        Swaps on which the metric was undefined (left out of the p-value).
    vectorized : bool
        Whether the swaps were evaluated as one weighted computation (else one call per swap).
    notes : tuple of str
        What the caller should know, e.g. which engine ran.

    Examples
    --------
    >>> import booteval.significance as sig
    >>> r = sig.permutation_test([1, 0, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1])
    >>> print(r)
    mean: B - A = 0.3333, p = 0.5000 (permutation, exact over 2^2 swaps, two-sided)
    """

    _protocol_defaults = protocol_of_test("statistic")

    statistic: float
    p_value: float
    n_permutations: int
    exact: bool
    alternative: str
    test: str
    metric: str
    n: int
    n_clusters: int | None
    seed: int | None
    distribution: np.ndarray = field(repr=False)
    name_a: str = "A"
    name_b: str = "B"
    estimate_a: float = math.nan
    estimate_b: float = math.nan
    n_units: int = 0
    n_swappable: int = 0
    n_undefined: int = 0
    vectorized: bool = True
    notes: tuple[str, ...] = ()

    def summary(self, scale: float = 1.0, digits: int = 4) -> str:
        """One line: the difference, the p-value and how it was obtained."""
        how = (
            f"exact over 2^{self.n_swappable} swaps"
            if self.exact
            else f"{self.n_permutations} random swaps"
        )
        unit = " of clusters" if self.n_clusters is not None else ""
        return (
            f"{self.metric}: {self.name_b} - {self.name_a} = "
            f"{self.statistic * scale:.{digits}f}, p = {format_p_value(self.p_value, 4)} "
            f"({self.test}, {how}{unit}, {self.alternative})"
        )

    def __str__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict[str, Any]:
        """Plain-data view (no arrays)."""
        keys = (
            "statistic", "p_value", "n_permutations", "exact", "alternative", "test",
            "metric", "n", "n_clusters", "seed", "name_a", "name_b", "estimate_a",
            "estimate_b", "n_units", "n_swappable", "n_undefined", "vectorized",
        )  # fmt: skip
        return {k: getattr(self, k) for k in keys}


# --------------------------------------------------------------------------------------------
# Permutation test: the public function
# --------------------------------------------------------------------------------------------


@renamed(n_permutations="n_resamples")
@entry_point
def permutation_test(
    *data: Any, metric: str | Metric | Callable[..., float] | None = None,
    n_resamples: int = 10_000, seed: int | None = None, clusters: Any = None, strata: Any = None,
    alternative: str = "two-sided", metric_kwargs: dict[str, Any] | None = None,
    names: tuple[str, str] = ("A", "B"), exact: bool | str = "auto", batch: int | None = None,
    workers: int | None = None, engine: str = "auto", progress: Any = None,
) -> PermutationTestResult:  # fmt: skip
    """Paired permutation (approximate randomization) test of ``metric(B) - metric(A)``.

    Under the null hypothesis that the two systems are interchangeable, their
    outputs on each row could as well have been the other way round. Each
    permutation swaps A's and B's outputs on a random subset of rows (each row
    independently with probability 1/2) and recomputes the statistic
    ``T* = metric(B') - metric(A')``. Under a cluster design whole clusters swap
    together: all rows of a cluster go one way, so within-cluster correlation is
    respected. Strata do not change the swaps (a swap never moves a row across
    strata); they are accepted, and checked against the clusters, so that the
    call mirrors :func:`booteval.compare`.

    Parameters
    ----------
    *data : array-like
        ``scores_a, scores_b`` for a per-row score metric (the mean by default),
        or ``y_true, pred_a, pred_b`` (labels, or scores) for a metric of two inputs.
    metric : str, Metric or callable, optional
        As in :func:`booteval.ci`.
    n_resamples : int, default 10_000
        Number of random swaps ``R`` (when not exact): the name every resampling entry
        point uses (scipy's too). ``n_permutations``, its old name, still works for one
        release, with a ``FutureWarning``.
    seed : int, optional
        Seed of the random swaps; fresh entropy (recorded in ``result.seed``) when omitted.
    clusters, strata : array-like, optional
        The design, as in :func:`booteval.ci`: clusters are the swap units.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` tests whether B's metric is larger than A's.
    metric_kwargs : dict, optional
        Parameters of a named metric, or keyword arguments of a callable.
    names : (str, str)
        Display names of the two systems.
    exact : {"auto", True, False}
        ``"auto"``: enumerate all ``2**k`` swaps of the ``k`` units where the outputs
        differ when ``2**k <= n_resamples``; ``True``: always enumerate (an error
        beyond ``2**20`` swaps); ``False``: always draw ``n_resamples`` random swaps.
    batch : int, optional
        Swaps evaluated at a time (bounds memory); never changes the result.
    workers : int, optional
        Threads (default: all cores) for registry metrics; a callable metric runs on
        one thread. Never changes the result.
    {engine}
    progress : None, True or callable, optional
        ``True`` prints the swaps done to stderr every few seconds; a callable is called
        as ``progress(done, total)`` after each batch of swaps.

    Returns
    -------
    PermutationTestResult
        The observed difference, the p-value and the permutation distribution.

    Notes
    -----
    With ``R`` random swaps the p-value is ``(1 + #{extreme}) / (R + 1)``, which is
    never 0 and keeps the test's level at most ``alpha`` (Phipson & Smyth, 2010).
    Exact enumeration counts the identity swap among the ``2**k`` and needs no
    correction. Two statistics within ``1e-12`` of the metric's scale count as
    equal, so rounding never decides a tie. Units where A's and B's outputs are
    identical are left out (swapping them changes nothing; the p-value is the same).

    Metrics of sums of per-row statistics (mean, accuracy, precision / recall / F1,
    MCC, kappa, MSE, log-loss, ...) evaluate all swaps as one matrix product, and
    rank metrics (ROC-AUC, average precision, Spearman, Kendall) through their
    weighted replicates, with the metric bound once to the rows of both systems.
    Callables, and a label metric whose class set would depend on the swap (a
    label that only the predictions contain, for F1, MCC and other confusion
    metrics), are evaluated once per swap: correct, but slow for large ``R``.
    Swaps on which the metric is undefined (NaN, or a callable raising
    ``ValueError``) are left out and counted in ``n_undefined``, with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.75, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.5, a, y)      # B fixes about half of A's errors
    >>> r = permutation_test(y, a, b, metric="accuracy", seed=0)
    >>> round(r.statistic, 4), r.p_value, r.exact
    (0.13, 9.999000099990002e-05, False)

    With few discordant rows every swap is enumerated:

    >>> r = permutation_test([1, 0, 1, 1, 0, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1, 0],
    ...                      alternative="greater")
    >>> r.exact, r.n_permutations, r.p_value
    (True, 4, 0.25)
    """
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    n_perm = check_positive_int(n_resamples, "n_resamples")
    exact_opt = _check_exact(exact)
    batch = None if batch is None else check_positive_int(batch, "batch")
    seed_value = check_seed(seed)
    name_a, name_b, m = pair_inputs(data, names, metric, metric_kwargs)
    arr_a, arr_b, n = paired_arrays(m, data, name_a, name_b)
    if arr_a[-1].shape[1:] != arr_b[-1].shape[1:]:
        raise InvalidInputError(
            f"{m.input_names[-1]} of system {name_b}",
            f"the same shape as system {name_a} ({arr_a[-1].shape})",
            f"shape {arr_b[-1].shape}",
        )
    design = make_design(n, strata=strata, clusters=clusters)
    iid = make_design(n)
    estimates = []
    for arrays, name in ((arr_a, name_a), (arr_b, name_b)):
        value = float(m.bind(arrays, iid).estimate())
        if not math.isfinite(value):
            raise InvalidInputError(
                f"{m.input_names[-1]} of system {name}",
                f"outputs on which {m.label!r} is defined",
                f"outputs where it evaluates to {value}",
            )
        estimates.append(value)
    est_a, est_b = estimates
    swapper = _make_swapper(m, arr_a, arr_b, design, (est_a, est_b))
    k = swapper.units.size

    unit_word = "clusters" if design.clustered else "rows"
    if exact_opt is True and k > MAX_EXACT_UNITS:
        raise InvalidInputError(
            "exact",
            f"at most 2^{MAX_EXACT_UNITS} swaps to enumerate",
            f"True with {k} swappable {unit_word} (2^{k} swaps)",
            "Use exact='auto' or False to draw random swaps.",
        )
    is_exact = exact_opt is True or (exact_opt == "auto" and k < 63 and (1 << k) <= n_perm)
    total = 1 << k if is_exact else n_perm
    size = batch or max(1, min(total, _BATCH_CELLS // max(2 * design.n_units, 1)))
    # the engine's loop over batches of swaps (a weight source of 0/1 swap indicators)
    run, source = _SwapRun(swapper), _SwapSource(k, is_exact, size)
    build = None if is_exact else _kernel_builder(swapper)  # random swaps: the kernels
    # the NumPy engine's batches bound a (swaps x units) matrix; the kernels need none
    ran = run_engine(
        run, source, n_resamples=total, seed=seed_value, engine=engine, batch=batch,
        workers=workers, numpy_batch=size, kernel=NO_KERNEL if build is None else build,
    )  # fmt: skip
    null, notes = ran.values, ran.notes

    defined = np.isfinite(null)
    n_undefined = int(null.size - defined.sum())
    if n_undefined:
        what = f"metric {m.label!r} was undefined on {n_undefined} of {null.size} swaps"
        if swapper.first_error:
            what += f" (first error: {swapper.first_error})"
        if n_undefined == null.size:
            raise BootevalError(what + ": no p-value can be formed.")
        warn(what + "; they were left out of the p-value.", UndefinedReplicateWarning, stacklevel=2)
        null = null[defined]
    t_ref = swapper.t_ref
    tol = _TIE_RTOL * max(abs(est_a), abs(est_b), abs(t_ref))
    count = _count_extreme(null, t_ref, alternative, tol)
    p = count / null.size if is_exact else (1.0 + count) / (null.size + 1.0)
    return PermutationTestResult(
        statistic=est_b - est_a, p_value=float(min(1.0, p)), n_permutations=total,
        exact=is_exact, alternative=alternative, test="permutation", metric=m.label, n=n,
        n_clusters=design.n_clusters, seed=None if is_exact else seed_value,
        distribution=freeze(null), name_a=name_a, name_b=name_b, estimate_a=est_a,
        estimate_b=est_b, n_units=design.n_units, n_swappable=k, n_undefined=n_undefined,
        vectorized=swapper.vectorized, notes=notes,
    )  # fmt: skip
