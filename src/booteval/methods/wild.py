"""Wild bootstrap for fixed-design regression with heteroskedastic errors (R11).

When the predictors ``X`` are a *fixed design* (chosen by the experimenter, or
conditioned on) and the error variance depends on ``x``, resampling
``(x, y)`` pairs is the wrong model of the data: it changes the design from
replicate to replicate. The wild bootstrap keeps ``X`` fixed and builds
pseudo-responses

    ``y*_i = fitted_i + r_i * v_i``

from the fitted values and (optionally rescaled) residuals ``r_i`` of the
original fit, with independent multipliers ``v_i`` of mean 0 and variance 1.
Each pseudo-error then has conditional mean 0 and variance ``r_i^2``, which
tracks the local error variance ``sigma^2(x_i)`` without a model of it. The
caller's whole pipeline is refitted on every ``(X, y*)`` and any statistic of
the refit (a slope, a prediction, a classification accuracy derived from the
regression on a fixed test set) is recorded.

Multipliers
-----------
``"rademacher"``
    ``+1`` or ``-1`` with probability 1/2 each (mean 0, variance 1, third
    moment 0, fourth moment 1). The usual default: it reproduces the first
    four moments of a symmetric error exactly where it can.
``"mammen"``
    Mammen's (1993) two-point distribution: ``-(sqrt(5) - 1) / 2`` with
    probability ``(sqrt(5) + 1) / (2 sqrt(5))`` and ``(sqrt(5) + 1) / 2``
    otherwise (mean 0, variance 1, third moment 1): it also carries the
    residuals' skewness into the pseudo-errors.
``"normal"``
    Standard normal (mean 0, variance 1, third moment 0, fourth moment 3).

Residual rescaling (``residuals=``)
-----------------------------------
OLS residuals are too small on average: ``E[e_i^2] = (1 - h_ii) sigma_i^2``
with ``h_ii`` the leverage (the diagonal of the hat matrix
``X (X'X)^-1 X'``). As with the heteroskedasticity-consistent (HC) covariance
estimators, the residuals can be rescaled before they are multiplied:

``"hc0"``
    the raw residuals ``e_i``;
``"hc2"`` (default)
    ``e_i / sqrt(1 - h_ii)``, unbiased for ``sigma_i^2`` under
    heteroskedasticity when the model is OLS;
``"hc3"``
    ``e_i / (1 - h_ii)``, more conservative (a jackknife-like correction).

The leverages are those of the linear least-squares design (``X``, with a
column of ones first when ``fit_intercept``); for a custom ``fit`` they are an
approximation that is right for OLS-like linear fits (use ``"hc0"`` for a fit
far from OLS). Points with leverage 1 have a zero residual and get a zero
pseudo-error (noted in the result).

Vectorized OLS
--------------
Without ``fit``, the model is OLS (``numpy.linalg.lstsq`` on the original data)
and all the coefficient replicates of a batch are one product
``A @ Y*`` with ``A = (X'X)^-1 X'`` (computed once, by the pseudo-inverse) and
``Y*`` the ``(n, batch)`` matrix of pseudo-responses: no per-replicate fit.
The ``statistic`` then receives the coefficient vector (intercept first when
``fit_intercept``), or, for ``statistic=j`` (an integer), the result is the
``j``-th coefficient, fully vectorized, and the studentized interval is
available with per-replicate HC standard errors (HC0/HC2/HC3 following
``residuals``).

Reproducibility
---------------
With the default OLS fit, the default engine draws each replicate's multipliers in
the compiled kernel (:mod:`booteval.core.wild_kernels`, the ``kernels.wild`` stream,
one generator per replicate). With a custom ``fit``, or ``engine="numpy"``, multipliers
are drawn in blocks of a size that depends only on ``n``; block ``j`` uses the ``wild``
stream of :mod:`booteval.core.streams` at key ``j``. Either way replicate ``b`` is the
same for any ``batch`` and number of threads, and a run of ``B`` replicates is a prefix
of any longer run with the same seed; the two engines' multipliers differ.

Interval methods: ``"percentile"`` (default), ``"basic"``, ``"normal"``, and
``"studentized"`` for an integer coefficient statistic of the default OLS fit.
BCa is not offered: its acceleration needs a jackknife over independent units,
which a fixed-design residual bootstrap does not define.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.engine import (
    NO_KERNEL,
    check_choice,
    check_run_options,
    run_engine,
    screen_undefined,
)
from ..core.errors import InvalidInputError
from ..core.intervals import STUDENTIZED, methods_offered
from ..core.options import entry_point
from ..core.streams import generator
from ..core.validation import as_float_array, check_same_length, describe_value
from ..core.weights import WeightSource
from ..metrics.base import matmul
from ..results import CIResult, IntervalRecipe, freeze

__all__ = [
    "MULTIPLIERS",
    "RESIDUAL_SCALINGS",
    "WILD_METHODS",
    "draw_multipliers",
    "multiplier_support",
    "wild_ci",
]

MULTIPLIERS: tuple[str, ...] = ("rademacher", "mammen", "normal")
RESIDUAL_SCALINGS: tuple[str, ...] = ("hc0", "hc2", "hc3")
#: what the wild bootstrap offers: no BCa (the multipliers are no resample of rows to jackknife)
WILD_METHODS: tuple[str, ...] = methods_offered(jackknife=False)

# multiplier cells (replicates x rows) per generator block, and replicates per block at most
_BLOCK_CELLS = 1 << 20
_BLOCK_REPLICATES = 1024
_SQRT5 = math.sqrt(5.0)


def multiplier_support(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of a two-point multiplier distribution.

    Parameters
    ----------
    name : {"rademacher", "mammen"}

    Returns
    -------
    (values, probabilities) : tuple of ndarray, shape (2,)

    Examples
    --------
    >>> v, p = multiplier_support("mammen")
    >>> [round(float(x), 12) for x in (p @ v, p @ v**2, p @ v**3)]
    [0.0, 1.0, 1.0]
    """
    name = check_choice(name, "multipliers", ("rademacher", "mammen"))
    if name == "rademacher":
        return np.array([-1.0, 1.0]), np.array([0.5, 0.5])
    values = np.array([-(_SQRT5 - 1.0) / 2.0, (_SQRT5 + 1.0) / 2.0])
    p_low = (_SQRT5 + 1.0) / (2.0 * _SQRT5)
    return values, np.array([p_low, 1.0 - p_low])


def draw_multipliers(name: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Draw mean-0, variance-1 wild-bootstrap multipliers.

    Parameters
    ----------
    name : {"rademacher", "mammen", "normal"}
    shape : tuple of int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> v = draw_multipliers("rademacher", (4, 3), np.random.default_rng(0))
    >>> v.shape, sorted(set(v.ravel().tolist())) == [-1.0, 1.0]
    ((4, 3), True)
    """
    name = check_choice(name, "multipliers", MULTIPLIERS)
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if (
        not isinstance(dims, tuple)
        or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims)
        or any(d < 0 for d in dims)
        or math.prod(dims) > 10**9
    ):
        raise InvalidInputError(
            "shape", "a tuple of non-negative integers (at most 10**9 values in all)", repr(shape)
        )
    if not isinstance(rng, np.random.Generator):
        raise InvalidInputError(
            "rng", "a numpy Generator (from numpy.random.default_rng)", repr(rng)
        )
    if name == "normal":
        return rng.standard_normal(shape)
    values, probs = multiplier_support(name)
    upper = rng.random(shape) >= probs[0]
    return np.where(upper, values[1], values[0])


def _block_size(n: int) -> int:
    return max(1, min(_BLOCK_REPLICATES, _BLOCK_CELLS // max(n, 1)))


class _MultiplierSource(WeightSource):
    """The wild bootstrap's weight source for the engine: ``unit_weights(seed, start,
    stop)`` are the multipliers of replicates ``start .. stop - 1`` (one per row), drawn
    from the ``wild`` stream in fixed blocks, so they do not depend on the batching."""

    clustered = False
    stream = "wild"

    def __init__(self, name: str, n: int) -> None:
        self.name, self.n = name, n
        self.block_size = _block_size(n)

    def block(self, seed: int, j: int) -> np.ndarray:
        return draw_multipliers(self.name, (self.block_size, self.n), generator("wild", seed, j))


class _WildRun:
    """The engine's view of a wild bootstrap: the statistics of a batch of multiplier
    rows (and their HC standard errors for a studentized interval)."""

    design = None

    def __init__(
        self,
        estimate: np.ndarray,
        replicate: Callable[[np.ndarray], np.ndarray],
        standard_errors: Callable[[np.ndarray], np.ndarray] | None,
        *,
        thread_safe: bool,
    ) -> None:
        self._estimate, self._replicate, self._ses = estimate, replicate, standard_errors
        self.has_standard_error = standard_errors is not None
        self.thread_safe = thread_safe

    def estimate(self) -> np.ndarray:
        return self._estimate

    def replicates(self, weights: np.ndarray) -> np.ndarray:
        return self._replicate(weights)

    def standard_errors(self, weights: np.ndarray) -> np.ndarray:
        assert self._ses is not None
        return self._ses(weights)


def _leverages(design: np.ndarray) -> np.ndarray:
    """Diagonal of the hat matrix of a least-squares fit on ``design`` (rank-aware)."""
    u, s, _ = np.linalg.svd(design, full_matrices=False)
    tol = s.max() * max(design.shape) * np.finfo(float).eps if s.size else 0.0
    u = u[:, s > tol]
    return np.clip(np.einsum("ij,ij->i", u, u), 0.0, 1.0)


def _rescale_factor(h: np.ndarray, residuals: str) -> tuple[np.ndarray, int]:
    """Per-row factors multiplying the residuals; rows with leverage ~1 get 0."""
    one = h >= 1.0 - 1e-10
    safe = np.where(one, 0.5, 1.0 - h)
    if residuals == "hc0":
        f = np.ones_like(h)
    elif residuals == "hc2":
        f = 1.0 / np.sqrt(safe)
    else:
        f = 1.0 / safe
    return np.where(one, 0.0, f), int(one.sum())


def _as_statistic_values(value: object) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.ndim > 1:
        raise InvalidInputError(
            "statistic", "a float or a 1-D array of floats", f"an array of shape {a.shape}"
        )
    return a.reshape(-1)


@entry_point
def wild_ci(
    X: object, y: object, statistic: Callable[[Any], object] | int | None = None, *,
    fit: Callable[[np.ndarray, np.ndarray], Any] | None = None,
    predict: Callable[[Any, np.ndarray], object] | None = None, fit_intercept: bool = True,
    multipliers: str = "rademacher", residuals: str = "hc2", method: str = "percentile",
    confidence_level: float = 0.95, n_resamples: int = 2000, seed: int | None = None,
    batch: int | None = None, on_undefined: str = "drop", vectorized: bool = False,
    workers: int | None = None, engine: str = "auto", progress: Any = None,
) -> CIResult | tuple[CIResult, ...]:  # fmt: skip
    """Wild-bootstrap confidence interval for any statistic of a refitted regression.

    Parameters
    ----------
    X : array-like, shape (n,) or (n, p)
        The fixed design (a 1-D array is one predictor).
    y : array-like, shape (n,)
        Responses.
    statistic : callable, int or None
        ``statistic(model) -> float or 1-D array`` on the refitted model. With
        the default OLS fit the model is the coefficient vector (intercept
        first when ``fit_intercept``); an integer ``j`` means coefficient ``j``
        (fully vectorized; allows ``method="studentized"``); ``None`` means all
        coefficients. With ``vectorized=True`` (OLS only) the callable receives
        a ``(batch, n_coef)`` matrix and returns ``(batch,)`` or ``(batch, k)``.
    fit : callable, optional
        ``fit(X, y) -> model``, the caller's pipeline, refitted on every
        pseudo-sample (e.g. ``lambda X, y: Ridge().fit(X, y)``; ``X`` is passed
        as given, 2-D). Default: OLS by ``numpy.linalg.lstsq``, vectorized.
    predict : callable, optional
        ``predict(model, X) -> fitted values`` for a custom ``fit``; default
        ``model.predict(X)``.
    fit_intercept : bool
        Add a column of ones for the default OLS fit and for the leverages.
    multipliers : {"rademacher", "mammen", "normal"}
        The multiplier distribution (see the module notes).
    residuals : {"hc2", "hc0", "hc3"}
        Residual rescaling by the leverages (see the module notes).
    method : {"percentile", "basic", "normal", "studentized", "studentized-symmetric"}
    confidence_level : float
    n_resamples : int
        Number of wild replicates ``B``.
    seed : int, optional
        Recorded in the result; drawn when ``None``.
    batch : int, optional
        Replicates per batch (results do not depend on it).
    on_undefined : {"drop", "raise"}
        Replicates where ``fit`` or ``statistic`` raise or return NaN are
        dropped and counted (``"drop"``) or raise.
    vectorized : bool
        See ``statistic``.
    workers : int, optional
        Threads for the resampling (default: all cores) when the statistic is a
        coefficient of the default fit; a callable statistic or fit runs on one thread.
        Never changes the result.
    {engine}
    {progress}

    Returns
    -------
    CIResult or tuple of CIResult
        One result for a scalar statistic; one per component (from the same
        replicates) for an array-valued one. ``design`` describes the wild
        bootstrap and ``details`` holds ``multipliers``, ``residuals``,
        ``fit`` and ``component``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.linspace(-1, 1, 40)
    >>> y = 1 + 2 * x + np.abs(x) * rng.standard_normal(40)
    >>> r = wild_ci(x, y, statistic=1, n_resamples=500, seed=1)
    >>> bool(r.low < 2 < r.high), r.details["multipliers"]
    (True, 'rademacher')
    >>> # a classification accuracy derived from the regression, on a fixed test set
    >>> x_test = np.array([-0.8, -0.1, 0.02, 0.9]); label = np.array([0, 0, 1, 1])
    >>> acc = lambda beta: float(np.mean((beta[0] + beta[1] * x_test > 1) == label))
    >>> wild_ci(x, y, acc, n_resamples=200, seed=1).estimate
    1.0
    """
    opts = check_run_options(
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, method=method,
        on_undefined=on_undefined, batch=batch, workers=workers, methods=WILD_METHODS,
    )  # fmt: skip
    check_choice(multipliers, "multipliers", MULTIPLIERS)
    check_choice(residuals, "residuals", RESIDUAL_SCALINGS)
    x = as_float_array(X, "X", ndim=(1, 2))
    if x.ndim == 1:
        x = x[:, None]
    yv = as_float_array(y, "y")
    n = check_same_length({"X": x, "y": yv})
    design = np.hstack([np.ones((n, 1)), x]) if fit_intercept else x
    if n < 2:
        raise InvalidInputError("y", "at least 2 observations", f"{n}")
    if not isinstance(statistic, (int, np.integer)) and statistic is not None:
        if not callable(statistic):
            raise InvalidInputError(
                "statistic",
                "a callable, an integer coefficient index or None",
                describe_value(statistic),
            )
    if fit is not None and not callable(fit):
        raise InvalidInputError("fit", "a callable fit(X, y) -> model", describe_value(fit))
    if fit is not None and (vectorized or statistic is None or isinstance(statistic, int)):
        raise InvalidInputError(
            "statistic",
            "a callable statistic(model) with a custom `fit` (integer indices, None and "
            "vectorized=True apply to the default OLS fit)",
            describe_value(statistic),
        )
    if method in STUDENTIZED and (fit is not None or not isinstance(statistic, (int, np.integer))):
        raise InvalidInputError(
            "method",
            "'percentile', 'basic' or 'normal' for this statistic ('studentized' needs the "
            "default OLS fit and an integer coefficient `statistic`, for the HC standard errors)",
            repr(method),
        )

    h = _leverages(design)
    factor, n_lev1 = _rescale_factor(h, residuals)
    seed_int, b = opts.seed, opts.n_resamples
    first_error: list[str] = []

    if fit is None:
        a_mat = np.linalg.pinv(design)  # (p, n): beta = A @ y, as lstsq
        beta_hat = np.linalg.lstsq(design, yv, rcond=None)[0]
        fitted = design @ beta_hat
        resid = yv - fitted
        r = resid * factor
        p = design.shape[1]
        if isinstance(statistic, (int, np.integer)):
            j = int(statistic)
            if not -p <= j < p:
                raise InvalidInputError(
                    "statistic",
                    f"a coefficient index in [0, {p})",
                    str(j),
                    "Index 0 is the intercept when fit_intercept=True.",
                )

        def stats_of(betas: np.ndarray) -> np.ndarray:  # betas (batch, p)
            if statistic is None:
                return betas
            if isinstance(statistic, (int, np.integer)):
                return betas[:, int(statistic)][:, None]
            if vectorized:
                out = np.asarray(statistic(betas), dtype=float)
                return out.reshape(betas.shape[0], -1)
            rows = []
            for beta in betas:
                try:
                    rows.append(_as_statistic_values(statistic(beta)))
                except InvalidInputError:
                    raise
                except Exception as exc:
                    if not first_error:
                        first_error.append(f"{type(exc).__name__}: {exc}")
                    rows.append(None)
            width = next((len(v) for v in rows if v is not None), 1)
            return np.vstack([np.full(width, np.nan) if v is None else v for v in rows])

        est = stats_of(beta_hat[None, :])[0]
        k = est.size
        want_se = method in STUDENTIZED
        aj2 = a_mat[int(statistic)] ** 2 * factor**2 if want_se else None

        def betas_of(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # v (batch, n)
            y_star = fitted[None, :] + r[None, :] * v
            # (batch, p), each row summed batch-independently
            return y_star, matmul(y_star, a_mat.T)

        def values_of(betas: np.ndarray) -> np.ndarray:
            vals = stats_of(betas)
            if vals.shape[1] != k:
                raise InvalidInputError(
                    "statistic",
                    f"{k} value(s) per replicate, as on the original data",
                    f"{vals.shape[1]}",
                )
            return vals

        def replicate(v: np.ndarray) -> np.ndarray:
            return values_of(betas_of(v)[1])

        def standard_errors(v: np.ndarray) -> np.ndarray:  # HC standard errors
            y_star, betas = betas_of(v)
            e_star = y_star.copy()
            for c in range(p):
                e_star -= betas[:, c : c + 1] * design[:, c]
            return np.sqrt(matmul(e_star**2, aj2[:, None])[:, 0])

        run = _WildRun(
            est, replicate, standard_errors if want_se else None,
            thread_safe=statistic is None or isinstance(statistic, (int, np.integer)),
        )  # fmt: skip

        def compiled_wild(_: Any) -> Any:  # the coefficients of fitted + sum_i v_i A_i r_i
            from ..core.wild_kernels import wild_runner

            base = matmul(fitted[None, :], a_mat.T)[0]
            se_parts = (design, fitted, r, aj2) if want_se else None
            return wild_runner((a_mat * r).T, base, multipliers, values_of, se_parts)

        ran = run_engine(
            run, _MultiplierSource(multipliers, n), n_resamples=b, seed=seed_int,
            engine=engine, batch=opts.batch, workers=opts.workers, want_se=want_se,
            kernel=compiled_wild,
        )  # fmt: skip
        reps, ses = ran.values, ran.standard_errors
        notes_engine, compiled = ran.notes, ran.engine
        se_hat = float(np.sqrt(resid**2 @ aj2)) if want_se else None
        fit_name = "OLS (numpy.linalg.lstsq, vectorized)"
    else:
        model = fit(x, yv)
        if predict is None:
            if not hasattr(model, "predict"):
                raise InvalidInputError(
                    "predict",
                    "predict(model, X) -> fitted values, since the model from `fit` has no "
                    ".predict method",
                    "None",
                )
            fitted = np.asarray(model.predict(x), dtype=float).reshape(-1)
        else:
            fitted = np.asarray(predict(model, x), dtype=float).reshape(-1)
        if fitted.shape[0] != n:
            raise InvalidInputError("predict", f"{n} fitted values", f"{fitted.shape[0]}")
        r = (yv - fitted) * factor
        est = _as_statistic_values(statistic(model))
        k = est.size
        se_hat = None

        def refit(v: np.ndarray) -> np.ndarray:  # one refit per replicate
            out = np.full((v.shape[0], k), np.nan)
            for i in range(v.shape[0]):
                try:
                    vals = _as_statistic_values(statistic(fit(x, fitted + r * v[i])))
                except InvalidInputError:
                    raise
                except Exception as exc:
                    if not first_error:
                        first_error.append(f"{type(exc).__name__}: {exc}")
                    continue
                if vals.size != k:
                    raise InvalidInputError(
                        "statistic",
                        f"{k} value(s) per replicate, as on the original data",
                        f"{vals.size}",
                    )
                out[i] = vals
            return out

        ran = run_engine(
            _WildRun(est, refit, None, thread_safe=False), _MultiplierSource(multipliers, n),
            n_resamples=b, seed=seed_int, engine=engine, batch=opts.batch, workers=1,
            kernel=NO_KERNEL,
        )  # fmt: skip
        reps, ses = ran.values, ran.standard_errors
        notes_engine, compiled = ran.notes, ran.engine
        fit_name = getattr(fit, "__name__", "custom fit")

    notes: list[str] = list(notes_engine)
    if n_lev1:
        notes.append(
            f"{n_lev1} observation(s) with leverage 1 have zero residuals and zero pseudo-errors"
        )
    label_base = (
        f"coef[{int(statistic)}]"
        if isinstance(statistic, (int, np.integer))
        else "coef"
        if statistic is None
        else getattr(statistic, "__name__", "statistic")
    )
    design_text = (
        f"wild bootstrap ({n} observations, fixed design; {multipliers} multipliers, "
        f"{residuals} residuals){compiled}"
    )

    results = []
    for c in range(k):
        values_all = reps[:, c]
        defined = np.isfinite(values_all)
        n_undefined = screen_undefined(
            defined,
            f"statistic {label_base!r}",
            opts.on_undefined,
            reason=first_error[0] if first_error else None,
        )
        values = values_all[defined]
        rep_se = None if ses is None else ses[defined]
        label = label_base if k == 1 else f"{label_base}[{c}]"
        results.append(
            _build(
                est=float(est[c]),
                values=values,
                rep_se=rep_se,
                se_hat=se_hat,
                label=label,
                n=n,
                b=b,
                seed=seed_int,
                n_undefined=n_undefined,
                design_text=design_text,
                notes=tuple(notes),
                details=dict(
                    multipliers=multipliers,
                    residuals=residuals,
                    fit=fit_name,
                    component=c,
                    fit_intercept=fit_intercept,
                ),
                method=opts.method,
                level=opts.confidence_level,
            )
        )
    return results[0] if k == 1 else tuple(results)


def _build(
    *, est: float, values: np.ndarray, rep_se: np.ndarray | None, se_hat: float | None, label: str,
    n: int, b: int, seed: int, n_undefined: int, design_text: str, notes: tuple[str, ...],
    details: dict[str, Any], method: str, level: float,
) -> CIResult:  # fmt: skip
    result = CIResult(
        estimate=est, low=math.nan, high=math.nan, confidence_level=level, method=method,
        metric=label, n=n, n_clusters=None, effective_n=float(n), n_resamples=b, seed=seed,
        standard_error=float(np.std(values, ddof=1)) if values.size > 1 else 0.0,
        n_undefined=n_undefined, mcse_low=math.nan, mcse_high=math.nan, design=design_text,
        transform=None, distribution=freeze(values), replicate_standard_errors=freeze(rep_se),
        estimate_standard_error=se_hat,
        _recompute=IntervalRecipe(
            WILD_METHODS, notes_before=notes, details=details,
            studentized_hint="Run booteval.wild_ci(..., method='studentized') instead.",
        ),
    )  # fmt: skip
    return result.with_method(method, confidence_level=level)
