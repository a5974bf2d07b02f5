"""Prediction-powered inference (PPI and PPI++) for the mean of human scores, with an
LLM judge's scores on many more items.

A judge scores every item; humans score a random subset (the *labelled* rows). The human
labels alone give an unbiased but wide interval; the judge's scores alone give a narrow
interval around a biased value. PPI++ (Angelopoulos, Duchi and Zrnic, 2023) combines them:

    theta(lambda) = mean(Y - lambda * Yhat) + lambda * mean(Yhat_unlabelled)

with ``Y`` the human labels and ``Yhat`` the judge's scores on the labelled rows. It is
unbiased for every ``lambda`` (the judge's bias on the labelled rows is subtracted), its
variance is ``var(Y - lambda Yhat) / n + lambda^2 var(Yhat_unlabelled) / N``, and the
power-tuned ``lambda`` makes it as small as the data allow: ``lambda = 0`` is the human
labels alone, ``lambda = 1`` classic PPI (Angelopoulos et al., 2023, *Science*).

The formulas are those of the reference implementation, ``ppi_py`` (``ppi_mean_ci``,
``_calc_lam_glm``), to 1e-9 on the same data (``tests/test_judge.py``); the bootstrap, the
clusters and the paired comparison are booteval's. ``docs/judge_correction.md`` says when
the correction helps and shows its coverage.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..core.design import Design, encode_groups, make_design
from ..core.errors import DegenerateIntervalWarning, InvalidInputError, SmallSampleWarning, warn
from ..core.intervals import order_statistic_quantile
from ..core.options import accepts_options
from ..core.params import validated
from ..core.validation import (
    as_float_array,
    as_group_labels,
    check_choice,
    check_n_resamples,
    check_names,
    check_same_length,
    check_seed,
    describe_value,
)
from ..metrics.base import matmul
from ..results import freeze
from .analytic import zero_se_test
from .comparison import bootstrap_p_value
from .judge_results import JudgeCorrectedComparison, JudgeCorrectedResult

__all__ = [
    "JudgeCorrectedComparison",
    "JudgeCorrectedResult",
    "judge_corrected_ci",
    "judge_corrected_compare",
]

#: the interval methods: the normal approximation of the reference, or the bootstrap
JUDGE_METHODS = ("auto", "clt", "bootstrap")
#: weight cells (replicates x units) drawn at a time by the bootstrap
_BATCH_CELLS = 1 << 21
#: below this many labelled units the normal interval is warned about (its coverage falls
#: to 87-92 % at 20 rows and 67 % at 10 in benchmarks/ppi_coverage.py)
_FEW_LABELLED = 30


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _units(labels: object, name: str, n_rows: int) -> tuple[np.ndarray | None, int]:
    """``(code of each row's cluster, number of clusters)``; ``(None, n_rows)`` without."""
    if labels is None:
        return None, n_rows
    codes, g = encode_groups(as_group_labels(labels, name, n_rows), name)
    if g < 2:
        raise InvalidInputError(
            name, "at least 2 clusters", f"{g} cluster", "One cluster gives no variance."
        )
    return codes, g


def _check_lam(lam: object) -> float | None:
    if lam is None:
        return None
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not math.isfinite(lam):
        raise InvalidInputError(
            "lam", "None (power-tuned) or a finite number such as 1 (classic PPI)",
            describe_value(lam),
        )  # fmt: skip
    return float(lam)


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise InvalidInputError(name, "True or False", describe_value(value))
    return bool(value)


def _overlap_note(a: object, b: object) -> tuple[str, ...]:
    """A note where a cluster label occurs in both sets (taken as two independent clusters)."""
    if a is None or b is None:
        return ()
    try:
        shared = np.intersect1d(np.asarray(a), np.asarray(b)).size
    except TypeError:  # labels of types that do not sort together: nothing shared
        return ()
    if not shared:
        return ()
    return (
        f"{shared} cluster label(s) occur in both the labelled and the unlabelled rows; each "
        "set is a sample of its own (PPI assumes two independent samples), so such a "
        "cluster counts as two independent ones",
    )


# --------------------------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------------------------


def _sums(x: np.ndarray, codes: np.ndarray | None, g: int) -> np.ndarray:
    """Sums of ``x`` within each cluster (``x`` itself without clusters)."""
    return x if codes is None else np.bincount(codes, weights=x, minlength=g)


def _tuned_lambda(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lab: tuple, unl: tuple
) -> tuple[float, float]:
    """``(cov, var)``: the power-tuned lambda is ``cov / ((1 + n / N) var)``.

    As ``ppi_py``'s ``_calc_lam_glm`` for the mean: ``cov`` the covariance of human labels and
    judge scores on the labelled rows (denominator ``n``), ``var`` the variance of the judge
    scores of both sets pooled (denominator ``n + N - 1``). With clusters each product of
    deviations is summed within clusters first, so both are the per-row (co)variances times
    the design effect, and one row per cluster gives the iid values.
    """
    n, big_n = y.size, yu.size
    dy, dh = _sums(y - y.mean(), *lab), _sums(yh - yh.mean(), *lab)
    cov = float(dy @ dh) / n
    pooled = (float(yh.sum()) + float(yu.sum())) / (n + big_n)
    vh, vu = _sums(yh - pooled, *lab), _sums(yu - pooled, *unl)
    return cov, (float(vh @ vh) + float(vu @ vu)) / (n + big_n - 1)


def _variance(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lam: float, lab: tuple, unl: tuple
) -> float:
    """``var(Y - lam Yhat) / n + lam^2 var(Yhat_unlabelled) / N`` (denominators ``n`` and
    ``N``, as the reference), cluster-robust (sums within clusters) where clusters are given."""
    r = y - lam * yh
    dr, du = _sums(r - r.mean(), *lab), _sums(yu - yu.mean(), *unl)
    return float(dr @ dr) / y.size**2 + lam * lam * float(du @ du) / yu.size**2


def _resampling_plan(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lab: tuple, unl: tuple, cy: float, ch: float
) -> tuple[Design, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The design that resamples both sets, the sums of each unit (labelled units:
    ``k, A, H, A H, k A, k H, k^2, H^2`` with ``k`` rows, ``A`` and ``H`` the sums of the
    centred human and judge scores; unlabelled: ``k, U, k U, k^2, U^2``) and which units
    are labelled and unlabelled.

    The labelled and the unlabelled rows (or clusters) are two strata, so each replicate
    keeps both sizes. Without clusters, rows with equal scores are interchangeable; where
    they are few (0/1 verdicts, ratings on a scale) the design draws counts of those cells
    (:meth:`~booteval.core.design.Design.compress`), at a cost that does not grow with ``N``.
    """
    n, big_n = y.size, yu.size
    strata = np.repeat([0, 1], [n, big_n])
    if lab[0] is None and unl[0] is None:
        key_l = np.unique(np.column_stack([y, yh]), axis=0, return_inverse=True)[1]
        key_u = np.unique(yu, return_inverse=True)[1]
        keys = np.concatenate([key_l.reshape(-1), key_u.reshape(-1)])
        if 2 * (int(keys[:n].max()) + int(keys[n:].max()) + 2) <= n + big_n:
            design = make_design(n + big_n, strata=strata).compress(keys)
            rows = np.asarray(design.cell_row)
            is_lab = design.unit_stratum == 0
            a, h = y[rows[is_lab]] - cy, yh[rows[is_lab]] - ch
            u = yu[rows[~is_lab] - n] - ch
            kl, ku = np.ones(a.size), np.ones(u.size)  # a cell is drawn one row at a time
            return design, _unit_sums(kl, a, h), _unlabelled_sums(ku, u), is_lab, ~is_lab
    (cl, gl), (cu, gu) = lab, unl
    cl = np.arange(n) if cl is None else cl
    cu = np.arange(big_n) if cu is None else cu
    design = make_design(n + big_n, strata=strata, clusters=np.concatenate([cl, gl + cu]))
    kl = np.bincount(cl, minlength=gl).astype(float)
    a, h = np.bincount(cl, y - cy, gl), np.bincount(cl, yh - ch, gl)
    ku = np.bincount(cu, minlength=gu).astype(float)
    u = np.bincount(cu, yu - ch, gu)
    is_lab = design.unit_stratum == 0
    return design, _unit_sums(kl, a, h), _unlabelled_sums(ku, u), is_lab, ~is_lab


def _unit_sums(k: np.ndarray, a: np.ndarray, h: np.ndarray) -> np.ndarray:
    return np.column_stack([k, a, h, a * h, k * a, k * h, k * k, h * h])


def _unlabelled_sums(k: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.column_stack([k, u, k * u, k * k, u * u])


def _bootstrap(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lab: tuple, unl: tuple,
    lam: float | None, clip: bool, b: int, seed: int, tiny: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The replicates of the PPI++ estimate and of the human-only mean.

    The labelled and the unlabelled rows (or clusters) are resampled independently, as
    two strata (:func:`_resampling_plan`), so that replicate ``b`` is the same whatever
    the batching. Each replicate's estimate comes from weighted sums per unit: drawn by the
    compiled engine, which adds up each drawn unit's sums as it goes, or, where the design
    draws counts of cells of equal rows, the counts times the cells' sums
    (:func:`booteval.metrics.base.matmul`, which sums a row the same way wherever it
    sits). A power-tuned lambda is tuned again within each replicate (a given ``lam`` is
    kept), so the error of the tuning is part of the spread.
    """
    n, big_n = y.size, yu.size
    cy, ch = float(y.mean()), (float(yh.sum()) + float(yu.sum())) / (n + big_n)
    design, s_lab, s_unl, in_lab, in_unl = _resampling_plan(y, yh, yu, lab, unl, cy, ch)
    width = s_lab.shape[1]
    if design.compressed:  # counts of cells: a cost that does not grow with N
        sums = np.empty((b, width + s_unl.shape[1]))
        step = max(1, min(b, _BATCH_CELLS // design.n_units))
        for start in range(0, b, step):
            w = design.unit_weights(seed, start, min(start + step, b))
            sums[start : start + step, :width] = matmul(w[:, in_lab], s_lab)
            sums[start : start + step, width:] = matmul(w[:, in_unl], s_unl)
    else:  # each unit's sums, side by side (zero in the other stratum's columns)
        from ..core.kernels import stratified_sums  # numba, on first use

        stats = np.zeros((design.n_units, width + s_unl.shape[1]))
        stats[in_lab, :width], stats[in_unl, width:] = s_lab, s_unl
        sums = stratified_sums(stats, design.unit_stratum)(seed, 0, b)
    sl, su = sums[:, :width], sums[:, width:]
    n_b, big_b = sl[:, 0], su[:, 0]
    my, mh, mu = sl[:, 1] / n_b, sl[:, 2] / n_b, su[:, 1] / big_b
    if lam is None:
        cov = (sl[:, 3] - mh * sl[:, 4] - my * sl[:, 5] + my * mh * sl[:, 6]) / n_b
        mp = (sl[:, 2] + su[:, 1]) / (n_b + big_b)
        ss = sl[:, 7] - 2 * mp * sl[:, 5] + mp * mp * sl[:, 6]
        ss += su[:, 4] - 2 * mp * su[:, 2] + mp * mp * su[:, 3]
        var = ss / (n_b + big_b - 1)
        ok = var > tiny
        lam_b = np.where(ok, cov / ((1 + n_b / big_b) * np.where(ok, var, 1.0)), 0.0)
        lam_b = np.clip(lam_b, 0.0, 1.0) if clip else lam_b
    else:
        lam_b = lam
    return cy + my + lam_b * (mu - mh), cy + my


def _percentile(reps: np.ndarray, level: float, alternative: str) -> tuple[float, float]:
    srt = np.sort(reps)
    if alternative == "greater":
        return order_statistic_quantile(srt, 1.0 - level), math.inf
    if alternative == "less":
        return -math.inf, order_statistic_quantile(srt, level)
    tail = (1.0 - level) / 2.0
    return order_statistic_quantile(srt, tail), order_statistic_quantile(srt, 1.0 - tail)


def _normal(estimate: float, se: float, level: float, alternative: str) -> tuple[float, float]:
    """``estimate -+ z se`` (one end infinite for a one-sided ``alternative``)."""
    if alternative == "two-sided":
        z = float(ndtri(0.5 + level / 2.0))
        return estimate - z * se, estimate + z * se
    z = float(ndtri(level))
    if alternative == "greater":
        return estimate - z * se, math.inf
    return -math.inf, estimate + z * se


def _normal_p_value(estimate: float, se: float, alternative: str) -> float:
    """The normal test of a zero mean (as the reference's ``ppi_mean_pval``)."""
    if not se > 0:
        return zero_se_test(
            estimate, alternative, "The standard error of the difference is 0: the p-value "
            "is degenerate.",
        )[1]  # fmt: skip
    z = estimate / se
    if alternative == "greater":
        return float(ndtr(-z))
    if alternative == "less":
        return float(ndtr(z))
    return float(min(1.0, 2.0 * ndtr(-abs(z))))


def _fit(
    y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lab: tuple, unl: tuple, *,
    lam: float | None, clip: bool, method: str, level: float, alternative: str,
    n_resamples: int | None, seed: int | None, test: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Every number of a result, as the keyword arguments of :class:`JudgeCorrectedResult`
    (and ``p_value`` where ``test``)."""
    n, big_n = y.size, yu.size
    notes: list[str] = []
    degenerate: list[str] = []
    spread = max(float(yh.max()), float(yu.max())) - min(float(yh.min()), float(yu.min()))
    tiny = 1e-12 * spread * spread  # below this a bootstrap replicate's variance is 0
    details: dict[str, Any] = {"judge_bias": float(yh.mean() - y.mean())}
    if method == "auto":
        few = lab[1] < _FEW_LABELLED
        method = "bootstrap" if few else "clt"
        units = "clusters" if lab[0] is not None else "rows"
        notes.append(
            f"method='auto' chose {method!r}: {lab[1]} labelled {units} ("
            + (f"fewer than {_FEW_LABELLED}, where the normal interval covers less than stated)"
               if few else f"{_FEW_LABELLED} or more, where the normal interval holds its level)")
        )  # fmt: skip
        if not few:
            n_resamples = seed = None
    tuned = lam is None
    if tuned:
        cov, var = _tuned_lambda(y, yh, yu, lab, unl)
        if spread == 0:
            var = 0.0  # constant scores: no information, whatever the rounding says
            notes.append("the judge scores are constant: lambda = 0 (the human labels alone)")
        raw = cov / ((1.0 + n / big_n) * var) if var > 0 else math.nan
        details["lam_unclipped"] = raw
        lam = 0.0 if math.isnan(raw) else min(max(raw, 0.0), 1.0) if clip else raw
        if clip and raw < 0:
            notes.append(
                "the judge scores correlate negatively with the human labels (tuned lambda "
                f"{raw:.3g}): lambda clipped to 0, the human labels alone"
            )
        elif clip and raw > 1:
            notes.append(
                f"the tuned lambda {raw:.3g} was clipped to 1 (as the reference does): where "
                "the judge scores on another scale than the humans, rescale its scores or "
                "pass clip=False"
            )
    estimate = float(np.mean(y - lam * yh) + lam * np.mean(yu))
    human_estimate = float(np.mean(y))
    distribution = None
    p_value = math.nan
    if method == "clt":
        se = math.sqrt(_variance(y, yh, yu, lam, lab, unl))
        human_se = math.sqrt(_variance(y, yh, yu, 0.0, lab, unl))
        low, high = _normal(estimate, se, level, alternative)
        human_low, human_high = _normal(human_estimate, human_se, level, alternative)
        if test:
            p_value = _normal_p_value(estimate, se, alternative)
        if lab[1] < _FEW_LABELLED:
            units = "clusters" if lab[0] is not None else "rows"
            notes.append(
                f"with {lab[1]} labelled {units} the normal interval may cover less than "
                "stated (87-92 % for a nominal 95 % at 20 rows in simulations); "
                "method='bootstrap' covers better"
            )
            warn(notes[-1], SmallSampleWarning)
    else:
        assert n_resamples is not None and seed is not None
        theta, human = _bootstrap(
            y, yh, yu, lab, unl, None if tuned else lam, clip, n_resamples, seed, tiny
        )
        se, human_se = float(np.std(theta, ddof=1)), float(np.std(human, ddof=1))
        low, high = _percentile(theta, level, alternative)
        human_low, human_high = _percentile(human, level, alternative)
        if test:
            p_value = bootstrap_p_value("percentile", estimate, theta, alternative)
        distribution = freeze(theta)
        details["human_distribution"] = freeze(human)
        if theta.min() == theta.max():
            degenerate.append(
                f"all {n_resamples} bootstrap replicates are equal: the interval has zero width"
            )
    if se > 0:
        gain = human_se**2 / se**2
    else:
        gain = math.inf if human_se > 0 else math.nan
        degenerate.append("the standard error is 0: the interval has zero width")
    for text in degenerate:
        warn(text, DegenerateIntervalWarning)
    return {
        "estimate": estimate, "low": low, "high": high, "confidence_level": level,
        "method": method, "alternative": alternative, "lam": float(lam), "lam_tuned": tuned,
        "n_labelled": n, "n_unlabelled": big_n, "standard_error": se,
        "human_estimate": human_estimate, "human_low": human_low, "human_high": human_high,
        "human_standard_error": human_se, "gain": gain, "effective_n": n * gain,
        "judge_mean": (float(yh.sum()) + float(yu.sum())) / (n + big_n),
        "n_clusters_labelled": lab[1] if lab[0] is not None else None,
        "n_clusters_unlabelled": unl[1] if unl[0] is not None else None,
        "n_resamples": n_resamples, "seed": seed, "notes": tuple(notes + degenerate),
        "distribution": distribution, "details": details, "p_value": p_value,
    }  # fmt: skip


def _options(
    method: object, lam: object, clip: object, n_resamples: int, seed: int | None, level: float
) -> tuple[str, float | None, bool, int | None, int | None]:
    method = check_choice(method, "method", JUDGE_METHODS)  # "auto": decided by _fit
    lam_value = _check_lam(lam)
    clip_value = _check_bool(clip, "clip")
    if method == "clt":
        return method, lam_value, clip_value, None, None
    b = check_n_resamples(n_resamples, level)
    return method, lam_value, clip_value, b, check_seed(seed)


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------


@accepts_options
@validated
def judge_corrected_ci(
    human: Any, judge_labelled: Any, judge_unlabelled: Any, *,
    confidence_level: float = 0.95, method: str = "auto", lam: float | None = None,
    clip: bool = True, clusters: Any = None, clusters_unlabelled: Any = None,
    alternative: str = "two-sided", n_resamples: int = 10_000, seed: int | None = None,
) -> JudgeCorrectedResult:  # fmt: skip
    """Mean human score from human labels on a subset and a judge's scores on every item
    (prediction-powered inference, PPI++).

    The estimate is ``mean(Y - lam * Yhat) + lam * mean(Yhat_unlabelled)``: the judge's
    mean on the unlabelled items, corrected by its error measured on the labelled ones. It
    is unbiased whatever the judge; a judge that agrees with the humans makes it more
    precise than the human labels alone, and with the power-tuned ``lam`` it is never
    (asymptotically) less precise.

    Parameters
    ----------
    human : array-like, shape (n,)
        The human labels (scores) of the labelled items: 0/1 correctness, ratings.
    judge_labelled : array-like, shape (n,)
        The judge's scores of the same items, in the same order.
    judge_unlabelled : array-like, shape (N,)
        The judge's scores of the items without human labels.
    confidence_level : float, default 0.95
    method : {"auto", "clt", "bootstrap"}, default "auto"
        ``"auto"``: ``"bootstrap"`` with fewer than 30 labelled rows (or clusters), where
        the normal interval covers 87-92 % for a nominal 95 % in simulations
        (``docs/judge_correction.md``), ``"clt"`` otherwise; the choice is in ``notes``.
        ``"clt"``: ``estimate -+ z * se`` with
        ``se^2 = var(Y - lam Yhat) / n + lam^2 var(Yhat_unlabelled) / N`` (variances with
        denominators ``n`` and ``N``), the reference's ``ppi_mean_ci``. ``"bootstrap"``:
        the percentile interval of ``n_resamples`` replicates that resample the labelled and
        the unlabelled rows independently and tune ``lam`` again in each (a given ``lam``
        stays fixed), so that the error of the tuned ``lam`` is part of the interval.
    lam : float, optional
        ``None``: power-tuned, ``cov(Y, Yhat) / ((1 + n / N) var(Yhat))`` with the
        covariance over the labelled rows (denominator ``n``) and the variance over the
        judge's scores of both sets (denominator ``n + N - 1``), as ``ppi_py``. ``1``:
        classic PPI. ``0``: the human labels alone.
    clip : bool, default True
        Clip the power-tuned ``lam`` to [0, 1], as the reference does (a negative value
        means the judge disagrees with the humans). The bound 1 assumes the judge scores on
        the humans' scale: for a judge on another scale (a 0-1 metric against 1-5 ratings)
        pass ``False`` or rescale its scores. Ignored for a given ``lam``.
    clusters : array-like, shape (n,), optional
        Cluster label of each labelled row (questions from one source, responses to one
        prompt): the variances sum deviations within clusters (cluster-robust, without a
        small-sample factor, so one row per cluster gives the iid numbers) and the
        bootstrap resamples whole clusters.
    clusters_unlabelled : array-like, shape (N,), optional
        The same for the unlabelled rows. A label in both sets names two independent
        clusters (PPI's two samples are independent); ``notes`` say where that happens.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: an interval ``(low, inf)``; ``"less"``: ``(-inf, high)``.
    n_resamples : int, default 10000
        Bootstrap replicates (``method="bootstrap"`` only).
    seed : int, optional
        Of the bootstrap; drawn and recorded in the result when ``None``. The same seed gives
        the same replicates whatever the batching (each set drawn within itself, by
        the compiled engine, or as counts of cells of equal rows).

    Returns
    -------
    JudgeCorrectedResult
        With ``lam``, ``n_labelled``, ``n_unlabelled``, the human-only interval
        (``human_low``, ``human_high``) and the ``gain``: the ratio of the human-only
        variance to this estimate's, and ``effective_n = n_labelled * gain``.

    Raises
    ------
    booteval.InvalidInputError
        Missing or non-finite scores, ``human`` and ``judge_labelled`` of different lengths,
        fewer than 2 labelled rows, clusters of the wrong length or fewer than 2 clusters, a
        ``lam`` that is not a finite number, an unknown ``method``.

    Notes
    -----
    The labelled rows must be a random sample of the items (or of the same population as
    the unlabelled ones); the judge may be biased or noisy, but must not have been tuned
    on the labelled rows. With a judge unrelated to the humans the tuned ``lam`` is near 0 and the
    result is the human-only interval; the gain grows with the judge's correlation with the
    humans and with ``N / n``: with the best ``lam`` it is about ``1 / (1 - rho^2 N / (n + N))``
    for a correlation ``rho`` between the judge and the humans.

    References: A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan and T. Zrnic,
    "Prediction-powered inference", Science 382 (2023); A. N. Angelopoulos, J. C. Duchi and
    T. Zrnic, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453 (2023).

    Examples
    --------
    >>> import numpy as np
    >>> import booteval
    >>> rng = np.random.default_rng(0)
    >>> right = rng.random(2200) < 0.7                        # is each answer right?
    >>> judge = np.where(rng.random(2200) < 0.9, right, ~right)  # agrees 90 % of the time
    >>> r = booteval.judge_corrected_ci(right[:200], judge[:200], judge[200:])
    >>> print(r)
    0.6639 (0.6198, 0.7081)
    >>> r.n_labelled, r.n_unlabelled, round(r.lam, 3), round(r.gain, 2)
    (200, 2000, 0.742, 2.29)
    >>> print(r.human_estimate, (round(r.human_low, 4), round(r.human_high, 4)))
    0.635 (0.5683, 0.7017)
    """
    level = confidence_level
    method, lam_value, clip_value, b, seed_int = _options(
        method, lam, clip, n_resamples, seed, level
    )
    y = as_float_array(human, "human")
    yh = as_float_array(judge_labelled, "judge_labelled")
    yu = as_float_array(judge_unlabelled, "judge_unlabelled")
    n = check_same_length({"human": y, "judge_labelled": yh})
    if n < 2:
        raise InvalidInputError("human", "at least 2 labelled rows", f"{n} row")
    lab = _units(clusters, "clusters", n)
    unl = _units(clusters_unlabelled, "clusters_unlabelled", yu.size)
    out = _fit(
        y, yh, yu, lab, unl, lam=lam_value, clip=clip_value, method=method, level=level,
        alternative=alternative, n_resamples=b, seed=seed_int,
    )  # fmt: skip
    out.pop("p_value")
    out["notes"] = _overlap_note(clusters, clusters_unlabelled) + out["notes"]
    return JudgeCorrectedResult(**out)


@accepts_options
@validated
def judge_corrected_compare(
    human_a: Any, human_b: Any, judge_a_labelled: Any, judge_b_labelled: Any,
    judge_a_unlabelled: Any, judge_b_unlabelled: Any, *, names: tuple[str, str] = ("A", "B"),
    confidence_level: float = 0.95, method: str = "auto", lam: float | None = None,
    clip: bool = True, clusters: Any = None, clusters_unlabelled: Any = None,
    alternative: str = "two-sided", n_resamples: int = 10_000, seed: int | None = None,
) -> JudgeCorrectedComparison:  # fmt: skip
    """The difference ``B - A`` of two systems' mean human scores, from human labels of both
    on a subset of items and one judge's scores of both on every item (paired PPI++).

    PPI++ applied to the per-item differences: ``Y_B - Y_A`` on the labelled items and
    ``Yhat_B - Yhat_A`` on all of them, so the pairing (both systems on the same items)
    cancels what is common to an item, and one ``lam`` is tuned for the difference. The
    result equals :func:`judge_corrected_ci` of the differences, with each system's
    estimate at that ``lam`` and a p-value added.

    Parameters
    ----------
    human_a, human_b : array-like, shape (n,)
        Human labels of A's and of B's outputs on the labelled items.
    judge_a_labelled, judge_b_labelled : array-like, shape (n,)
        The judge's scores of the same outputs.
    judge_a_unlabelled, judge_b_unlabelled : array-like, shape (N,)
        The judge's scores of A's and B's outputs on the other items (the same items for
        both, in the same order).
    names : (str, str), default ("A", "B")
    confidence_level, method, lam, clip, alternative, n_resamples, seed
        As for :func:`judge_corrected_ci`, for the differences.
    clusters, clusters_unlabelled : array-like, optional
        As for :func:`judge_corrected_ci`: one cluster label per labelled (unlabelled) item.

    Returns
    -------
    JudgeCorrectedComparison
        ``estimate`` (alias ``difference``), its interval, ``p_value``, ``lam``, the
        human-only interval of the difference, the ``gain`` and ``estimate_a``,
        ``estimate_b``.

    Raises
    ------
    booteval.InvalidInputError
        As :func:`judge_corrected_ci`, naming the argument; arrays of one set of different
        lengths; ``names`` that are not two distinct strings.

    Examples
    --------
    >>> import numpy as np
    >>> import booteval
    >>> rng = np.random.default_rng(1)
    >>> hard = rng.random(3000)                                # each item's difficulty
    >>> a, b = hard < 0.6, hard < 0.7                          # B solves more items
    >>> ja = np.where(rng.random(3000) < 0.95, a, ~a)          # the judge's verdicts
    >>> jb = np.where(rng.random(3000) < 0.95, b, ~b)
    >>> r = booteval.judge_corrected_compare(a[:300], b[:300], ja[:300], jb[:300],
    ...                                      ja[300:], jb[300:], names=("base", "new"))
    >>> print(r)
    0.1045 (0.0764, 0.1326)
    >>> bool(r.p_value < 0.001), round(r.lam, 3), round(r.gain, 2)
    (True, 0.478, 1.63)
    >>> round(r.estimate_a, 4), round(r.estimate_b, 4)
    (0.6099, 0.7144)
    """
    level = confidence_level
    name_a, name_b = check_names(names)
    method, lam_value, clip_value, b, seed_int = _options(
        method, lam, clip, n_resamples, seed, level
    )
    ya, yb = as_float_array(human_a, "human_a"), as_float_array(human_b, "human_b")
    ha = as_float_array(judge_a_labelled, "judge_a_labelled")
    hb = as_float_array(judge_b_labelled, "judge_b_labelled")
    ua = as_float_array(judge_a_unlabelled, "judge_a_unlabelled")
    ub = as_float_array(judge_b_unlabelled, "judge_b_unlabelled")
    n = check_same_length(
        {"human_a": ya, "human_b": yb, "judge_a_labelled": ha, "judge_b_labelled": hb}
    )
    check_same_length({"judge_a_unlabelled": ua, "judge_b_unlabelled": ub})
    if n < 2:
        raise InvalidInputError("human_a", "at least 2 labelled rows", f"{n} row")
    lab = _units(clusters, "clusters", n)
    unl = _units(clusters_unlabelled, "clusters_unlabelled", ua.size)
    out = _fit(
        yb - ya, hb - ha, ub - ua, lab, unl, lam=lam_value, clip=clip_value, method=method,
        level=level, alternative=alternative, n_resamples=b, seed=seed_int, test=True,
    )  # fmt: skip
    lam_used = out["lam"]
    out["notes"] = _overlap_note(clusters, clusters_unlabelled) + out["notes"]
    return JudgeCorrectedComparison(
        **out,
        name_a=name_a,
        name_b=name_b,
        estimate_a=float(np.mean(ya - lam_used * ha) + lam_used * np.mean(ua)),
        estimate_b=float(np.mean(yb - lam_used * hb) + lam_used * np.mean(ub)),
        human_estimate_a=float(np.mean(ya)),
        human_estimate_b=float(np.mean(yb)),
    )
