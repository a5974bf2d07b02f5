"""Training-set bootstrap: refit a method on resampled training sets, score on a fixed test set.

Where :func:`booteval.ci` keeps the model fixed and resamples the test set (the
evaluation's uncertainty), :func:`bootstrap_training` resamples the *training*
set, refits the model on each resample (varying its random seed too), and scores
every refit on the same test set: the spread reflects the method's instability
with respect to the training data and the seed, conditional on the test set.
With ``test_resamples=K`` each refit is also scored on ``K`` bootstrap resamples
of the test set, and all ``R x K`` values are pooled, which adds the test-data
variance (the procedure of Ferrer's guide for methods).

Reproducibility
---------------
Everything random is derived from the one ``seed`` in the calling process and
indexed by the replicate number: replicate ``r``'s training rows (drawn by the
training design at key 0), its model seed (key ``(2, r)``) and its test resamples (key
1, replicates ``r*K .. r*K + K - 1``), all on the ``training`` stream of
:mod:`booteval.core.streams`.
Results are collected in replicate order, so ``workers`` never changes them.
"""

from __future__ import annotations

import inspect
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.design import make_design
from ..core.engine import check_choice, engine_note
from ..core.errors import BootevalError, BootevalWarning, InvalidInputError, collect_warnings, warn
from ..core.format import format_triplet
from ..core.intervals import compute_interval, methods_offered
from ..core.options import accepts_options
from ..core.params import renamed, validated
from ..core.progress import resolve_progress
from ..core.streams import seed_sequence
from ..core.validation import check_confidence_level, check_positive_int, check_seed
from ..core.weights import WeightSource
from ..metrics import Metric, resolve_metric
from ..results import Result, freeze, with_notes

__all__ = ["TRAINING_METHODS", "TrainingBootstrapResult", "bootstrap_training"]

#: interval methods of :func:`bootstrap_training`
TRAINING_METHODS: tuple[str, ...] = methods_offered(standard_errors=False, jackknife=False)
_SCORE_METRICS = ("roc_auc", "average_precision", "log_loss", "brier", "ece")


@dataclass(frozen=True, eq=False)
class TrainingBootstrapResult(Result):
    """A method's metric under training-set (and optionally test-set) resampling.

    Attributes
    ----------
    estimate : float
        The metric of the model fit on the full training set (``nan`` with
        ``fit_full=False``, then :attr:`mean` is the natural point estimate).
    mean : float
        Mean of the refits' metrics on the fixed test set.
    low, high : float
        Interval from the pooled distribution.
    confidence_level, method, metric : as in :class:`~booteval.CIResult`
    replicate_values : ndarray, shape (R,)
        Each refit's metric on the full test set (``nan`` for failed or
        undefined replicates).
    distribution : ndarray
        The defined pooled values: the refits' metrics, or with test
        resampling all ``R x K`` (refit, test resample) values.
    training_variance : float
        Variance over refits of the metric on the fixed test set (training
        data and seed).
    test_variance : float
        Mean over refits of the variance over test resamples (``nan`` without
        ``test_resamples``).
    n_train, n_test, n_resamples, test_resamples, seed : int
    n_failed : int
        Replicates whose ``fit`` or ``predict`` raised.
    failures : tuple of (int, str)
        ``(replicate index, "ExceptionType: message")`` for each failure.
    n_undefined : int
        Replicates where the metric was undefined on the test set.
    elapsed : float
        Wall-clock seconds of the refits.
    notes : tuple of str
    """

    estimate: float
    mean: float
    low: float
    high: float
    confidence_level: float
    method: str
    metric: str
    replicate_values: np.ndarray = field(repr=False)
    distribution: np.ndarray = field(repr=False)
    training_variance: float = math.nan
    test_variance: float = math.nan
    n_train: int = 0
    n_test: int = 0
    n_resamples: int = 0
    test_resamples: int = 0
    seed: int = 0
    n_failed: int = 0
    failures: tuple[tuple[int, str], ...] = ()
    n_undefined: int = 0
    elapsed: float = 0.0
    notes: tuple[str, ...] = ()

    @property
    def n_succeeded(self) -> int:
        """Replicates that produced a defined metric."""
        return self.n_resamples - self.n_failed - self.n_undefined

    def format(self, scale: float = 1.0, digits: int = 4) -> str:
        """``estimate (low, high)`` (the mean of the refits when there is no full fit)."""
        point = self.estimate if math.isfinite(self.estimate) else self.mean
        return format_triplet(point, self.low, self.high, scale=scale, digits=digits)

    def __str__(self) -> str:
        return self.format()

    def describe(self, scale: float = 1.0, digits: int = 4) -> str:
        """A longer description: interval, counts, variance split and failures."""
        pct = f"{self.confidence_level * 100:g}%"
        what = "training-set" + (" and test-set" if self.test_resamples else "")
        lines = [
            f"{self.metric}: {self.format(scale, digits)}",
            f"  {pct} {self.method} interval; {what} bootstrap, {self.n_resamples} refits"
            + (f" x {self.test_resamples} test resamples" if self.test_resamples else "")
            + f" ({self.n_train} training rows, {self.n_test} test rows), seed = {self.seed}",
            f"  mean of refits {self.mean * scale:.{digits}f}; training SD "
            f"{math.sqrt(self.training_variance) * scale:.{digits}g}"
            + (
                f", test-data SD {math.sqrt(self.test_variance) * scale:.{digits}g}"
                if math.isfinite(self.test_variance)
                else ""
            ),
        ]
        if self.n_failed:
            lines.append(
                f"  {self.n_failed} of {self.n_resamples} refits failed (first: replicate "
                f"{self.failures[0][0]}: {self.failures[0][1]})"
            )
        if self.n_undefined:
            lines.append(f"  {self.n_undefined} refits with an undefined metric (dropped)")
        return with_notes(lines, self.notes)


# ------------------------------------------------------------------ helpers
def _take(x: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of an array, DataFrame/Series (positional) or list."""
    if hasattr(x, "iloc"):
        return x.iloc[idx]
    if isinstance(x, np.ndarray):
        return x[idx]
    if hasattr(x, "tocsr"):  # scipy sparse
        return x.tocsr()[idx]
    return [x[i] for i in idx]


def _n_rows(x: Any, name: str) -> int:
    try:
        return int(x.shape[0]) if hasattr(x, "shape") else len(x)
    except TypeError:
        raise InvalidInputError(name, "an array-like of rows", type(x).__name__) from None


def _accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


@dataclass(frozen=True)
class _Task:
    """Everything one refit needs (picklable for process workers)."""

    estimator: Any
    fit: Callable[..., Any] | None
    predict: Callable[..., Any] | None
    response: str


def _fit_predict(
    task: _Task, x_tr: Any, y_tr: Any, x_te: Any, model_seed: int | None
) -> np.ndarray:
    if task.estimator is not None:
        from sklearn.base import clone

        est = clone(task.estimator)
        if model_seed is not None and "random_state" in est.get_params(deep=False):
            est.set_params(random_state=model_seed)
        model = est.fit(x_tr) if y_tr is None else est.fit(x_tr, y_tr)
        if task.predict is not None:
            return np.asarray(task.predict(model, x_te))
        if task.response == "predict_proba":
            proba = np.asarray(model.predict_proba(x_te))
            return proba[:, 1] if proba.ndim == 2 and proba.shape[1] == 2 else proba
        if task.response == "decision_function":
            return np.asarray(model.decision_function(x_te))
        return np.asarray(model.predict(x_te))
    assert task.fit is not None and task.predict is not None
    kwargs: dict[str, Any] = {}
    if model_seed is not None:
        if _accepts(task.fit, "random_state"):
            kwargs["random_state"] = model_seed
        elif _accepts(task.fit, "seed"):
            kwargs["seed"] = model_seed
    model = task.fit(x_tr, **kwargs) if y_tr is None else task.fit(x_tr, y_tr, **kwargs)
    return np.asarray(task.predict(model, x_te))


def _one_replicate(
    r: int, task: _Task, x_train: Any, y_train: Any, x_test: Any, idx: np.ndarray | None,
    model_seed: int | None,
) -> tuple[int, np.ndarray | None, str | None]:  # fmt: skip
    """``(r, outputs, None)`` or ``(r, None, "Type: message")``; never raises."""
    try:
        if idx is None:
            x_tr, y_tr = x_train, y_train
        else:
            x_tr = _take(x_train, idx)
            y_tr = None if y_train is None else _take(y_train, idx)
        return r, _fit_predict(task, x_tr, y_tr, x_test, model_seed), None
    except Exception as exc:  # recorded and reported; the others are kept
        return r, None, f"{type(exc).__name__}: {exc}"


def _run_all(
    jobs: list[tuple[Any, ...]], n_jobs: int, backend: str | None, report: Any
) -> list[tuple[int, np.ndarray | None, str | None]]:
    total = len(jobs)
    out: list[tuple[int, np.ndarray | None, str | None]] = []
    if n_jobs > 1 and total > 1:
        try:
            import joblib
        except ImportError:  # pragma: no cover - joblib ships with scikit-learn
            warn("joblib is not installed: refitting on one core", BootevalWarning, stacklevel=3)
        else:
            par = joblib.Parallel(
                n_jobs=min(n_jobs, total), backend=backend, return_as="generator_unordered"
            )
            for res in par(joblib.delayed(_one_replicate)(*job) for job in jobs):
                out.append(res)
                if report is not None:
                    report(len(out), total)
            return sorted(out, key=lambda t: t[0])
    for job in jobs:
        out.append(_one_replicate(*job))
        if report is not None:
            report(len(out), total)
    return out


def _stream_seed(seed: int, *key: int, shift: int = 0) -> int:
    """An integer seed derived from the ``training`` stream at ``key``."""
    return int(seed_sequence("training", seed, *key).generate_state(1)[0] >> shift)


class _TrainingSource(WeightSource):
    """The training-set bootstrap's weight source: ``unit_weights(seed, start, stop)`` are
    the training row counts of replicates ``start .. stop - 1``, shape ``(stop - start,
    n_train)``, drawn by the training design (strata, clusters) from a seed derived from
    the ``training`` stream (key 0), in the design's blocks, so they do not depend on the
    batching. The same stream gives each replicate's model seed (key ``(2, r)``), the seed
    of the test resamples (key 1) and the full fit's model seed (key 3).
    """

    clustered = False
    stream = "training"

    def __init__(self, train_design: Any) -> None:
        self.train_design = train_design
        self.block_size = train_design.block_size

    def unit_weights(self, seed: int, start: int, stop: int) -> np.ndarray:
        d = self.train_design
        return d.row_weights(d.unit_weights(_stream_seed(seed, 0), start, stop))

    def training_rows(self, seed: int, start: int, stop: int) -> list[np.ndarray]:
        """Each replicate's training rows (row ``i`` repeated as often as it was drawn)."""
        rows = np.arange(self.train_design.n_rows)
        counts = self.unit_weights(seed, start, stop).astype(np.int64)
        return [np.repeat(rows, c) for c in counts]

    @staticmethod
    def model_seed(seed: int, r: int) -> int:
        """Replicate ``r``'s model seed (``r = -1``: the fit on the full training set)."""
        return _stream_seed(seed, 3, shift=1) if r < 0 else _stream_seed(seed, 2, r, shift=1)

    @staticmethod
    def test_seed(seed: int) -> int:
        """The seed of the test resamples (replicate ``r``'s are ``r*K .. r*K + K - 1``)."""
        return _stream_seed(seed, 1)


def _metric_for(metric: Any, metric_kwargs: Any, n_inputs: int) -> Metric:
    m = resolve_metric(metric, metric_kwargs, n_inputs)
    if m.n_inputs != n_inputs:
        raise InvalidInputError(
            "metric",
            f"a metric of {n_inputs} input(s) ({'y_test, predictions' if n_inputs == 2 else 'per-row scores'})",  # noqa: E501
            f"{m.label!r} with inputs {', '.join(m.input_names)}",
        )
    return m


# --------------------------------------------------------------- public API
def _joblib_jobs(n_jobs: Any) -> Any:
    """joblib's ``n_jobs`` as a number of workers (``-1``: all cores, ``-2``: all but one)."""
    if isinstance(n_jobs, int) and not isinstance(n_jobs, bool) and n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


@accepts_options
@renamed(n_jobs=("workers", _joblib_jobs), test_strata="strata_test", test_clusters="clusters_test")
@validated
def bootstrap_training(
    estimator: Any, X_train: Any, y_train: Any, X_test: Any, y_test: Any, *,
    predict: Callable[[Any, Any], Any] | None = None,
    metric: str | Metric | Callable[..., float] = "accuracy",
    metric_kwargs: dict[str, Any] | None = None, response: str = "auto", n_resamples: int = 200,
    test_resamples: int = 0, method: str = "percentile", confidence_level: float = 0.95,
    seed: int | None = None, strata: Any = None, clusters: Any = None, strata_test: Any = None,
    clusters_test: Any = None, fit_full: bool = True, workers: int | None = None,
    backend: str | None = None, engine: str = "auto", progress: Any = None,
) -> TrainingBootstrapResult:  # fmt: skip
    """Refit a method on bootstrap resamples of the training set and score it on a test set.

    Parameters
    ----------
    estimator : scikit-learn estimator or callable
        An unfitted estimator with ``fit`` (cloned for every replicate, with
        ``random_state`` set to a per-replicate seed where it has one), or a
        function ``fit(X_rows, y_rows) -> model`` (called ``fit(X_rows)`` when
        ``y_train`` is None; it receives ``random_state=`` or ``seed=`` with the
        replicate's seed when it accepts such a keyword). A callable needs
        ``predict``.
    X_train, y_train : array-like
        Training rows (arrays, DataFrames, sparse matrices or lists; rows are
        taken positionally); ``y_train`` may be None.
    X_test, y_test : array-like
        The fixed test set; ``y_test`` may be None for a per-row score metric
        (then the predictions are the scores).
    predict : callable, optional
        ``predict(model, X_test) -> outputs``; default for estimators: the
        output ``response`` names.
    metric : str, Metric or callable
        Applied as ``metric(y_test, outputs)`` (or ``metric(outputs)`` without
        ``y_test``); registry names, Metric objects and callables as in
        :func:`booteval.ci`.
    metric_kwargs : dict, optional
    response : {"auto", "predict", "predict_proba", "decision_function"}
        For estimators without ``predict``: ``"auto"`` uses the positive-class
        probability for ranking/probabilistic metrics (roc_auc,
        average_precision, log_loss, brier, ece) and ``predict`` otherwise.
    n_resamples : int
        Number of refits ``R``.
    test_resamples : int
        ``K``: if positive, each refit is also scored on ``K`` bootstrap
        resamples of the test set (design ``strata_test`` / ``clusters_test``),
        and the interval pools all ``R x K`` values.
    method : {"percentile", "basic", "normal"}
    confidence_level : float
    seed : int, optional
        The one seed every resample and model seed derive from (drawn and
        recorded when omitted).
    strata, clusters : array-like, optional
        Design of the *training* resampling (resample within strata / whole
        clusters, as in :func:`booteval.ci`).
    strata_test, clusters_test : array-like, optional
        Design of the test resampling.
    fit_full : bool
        Also fit on the full training set for :attr:`~TrainingBootstrapResult.estimate`.
    workers : int, optional
        Parallel refits through joblib (default: all cores; 1: no joblib).
        Never changes the result. (``n_jobs``, joblib's name, is accepted for one more
        release, ``-1`` meaning all cores; so are ``test_strata`` and ``test_clusters``.)
    {engine}
    backend : str, optional
        joblib backend (default ``"loky"``, processes; ``"threading"`` for
        estimators that release the GIL or cannot be pickled).
    progress : None, True or callable
        ``True`` prints progress to stderr (see :func:`stderr_progress`); a
        callable is called as ``progress(done, total)`` after each refit.

    Returns
    -------
    TrainingBootstrapResult
        The interval, the refits' metrics and the training/test variance split.

    Raises
    ------
    BootevalError
        When every replicate fails (the message gives the first error), or
        the full fit fails. Failures of some replicates are recorded in
        ``failures`` and warned about; the others are kept.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from booteval.training import bootstrap_training
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> r = bootstrap_training(LogisticRegression(), X[:120], y[:120], X[120:], y[120:],
    ...                        n_resamples=20, seed=0, workers=1)
    >>> r.n_resamples, r.n_failed, r.low <= r.mean <= r.high
    (20, 0, True)
    """
    level = check_confidence_level(confidence_level)
    b = check_positive_int(n_resamples, "n_resamples", minimum=2)
    k = 0 if test_resamples in (0, None) else check_positive_int(test_resamples, "test_resamples")
    seed_int = check_seed(seed)
    method = check_choice(method, "method", TRAINING_METHODS)
    response = check_choice(
        response, "response", ("auto", "predict", "predict_proba", "decision_function")
    )
    jobs_n = max(1, os.cpu_count() or 1) if workers is None else workers
    report = resolve_progress(progress, unit="refits")

    if hasattr(estimator, "fit") and hasattr(estimator, "get_params"):
        task_est, task_fit = estimator, None
    elif callable(estimator):
        if predict is None:
            raise InvalidInputError(
                "predict",
                "a function predict(model, X_test) when `estimator` is a fit function",
                "None",
            )
        task_est, task_fit = None, estimator
    else:
        raise InvalidInputError(
            "estimator",
            "a scikit-learn estimator (with fit) or a function fit(X, y) -> model",
            type(estimator).__name__,
        )
    if predict is not None and not callable(predict):
        raise InvalidInputError("predict", "a callable predict(model, X)", repr(predict))

    n_train = _n_rows(X_train, "X_train")
    if y_train is not None and _n_rows(y_train, "y_train") != n_train:
        raise InvalidInputError(
            "y_train", f"{n_train} rows (as X_train)", f"{_n_rows(y_train, 'y_train')} rows"
        )
    n_test = _n_rows(X_test, "X_test")
    if y_test is not None and _n_rows(y_test, "y_test") != n_test:
        raise InvalidInputError(
            "y_test", f"{n_test} rows (as X_test)", f"{_n_rows(y_test, 'y_test')} rows"
        )
    n_in = 1 if y_test is None else 2
    m = _metric_for(metric, metric_kwargs, n_in)
    if response == "auto":
        response = "predict_proba" if m.name in _SCORE_METRICS else "predict"
    task = _Task(task_est, task_fit, predict, response)

    train_design = make_design(n_train, strata=strata, clusters=clusters)
    test_design = make_design(n_test, strata=strata_test, clusters=clusters_test)
    # The weights come from a weight source, as for every other entry point, but the refits
    # do not run on the engine's loop (run_replicates): its thread pool would run the
    # caller's fit in several threads of one process, and a model's fit need not be
    # thread-safe (nor release the GIL), so joblib runs them, in processes by default.
    # Each job carries its replicate's rows and model seed, so the result does not depend
    # on `workers` or the backend.
    source = _TrainingSource(train_design)
    test_seed = source.test_seed(seed_int)
    jobs: list[tuple[Any, ...]] = [
        (r, task, X_train, y_train, X_test, idx, source.model_seed(seed_int, r))
        for r, idx in enumerate(source.training_rows(seed_int, 0, b))
    ]
    if fit_full:
        jobs.append((-1, task, X_train, y_train, X_test, None, source.model_seed(seed_int, -1)))

    t0 = time.perf_counter()
    results = _run_all(jobs, jobs_n, backend, report)
    elapsed = time.perf_counter() - t0

    def score(outputs: np.ndarray, r: int) -> tuple[float, np.ndarray | None, str | None]:
        try:
            arrays = m.validate(outputs) if y_test is None else m.validate(y_test, outputs)
            ev = m.bind(arrays, test_design)
            value = float(ev.estimate())
            reps = None
            if k and r >= 0:  # the full fit (r = -1) is not test-resampled
                start = r * k
                reps = np.asarray(
                    ev.replicates(
                        test_design.unit_weights(test_seed, start, start + k)
                        if ev.design is None
                        else ev.design.unit_weights(test_seed, start, start + k)
                    ),
                    dtype=float,
                )
            return value, reps, None
        except Exception as exc:  # a failed replicate, recorded
            return math.nan, None, f"{type(exc).__name__} (scoring the predictions): {exc}"

    estimate = math.nan
    values = np.full(b, math.nan)
    pooled = np.full((b, max(k, 1)), math.nan)
    failures: list[tuple[int, str]] = []
    for r, outputs, err in results:
        if err is None:
            value, reps, err = score(outputs, r)  # type: ignore[arg-type]
        if r == -1:
            if err is not None:
                raise BootevalError(f"fitting on the full training set failed: {err}")
            estimate = value
            continue
        if err is not None:
            failures.append((r, err))
            continue
        values[r] = value
        if k:
            pooled[r] = reps  # type: ignore[assignment]
    n_failed = len(failures)
    if n_failed == b:
        raise BootevalError(
            f"all {b} refits failed; first error (replicate {failures[0][0]}): {failures[0][1]}"
        )
    if n_failed:
        warn(
            f"{n_failed} of {b} refits failed and were dropped (first: replicate "
            f"{failures[0][0]}: {failures[0][1]}); see result.failures",
            BootevalWarning,
            stacklevel=2,
        )
    ok = np.isfinite(values)
    failed_idx = {i for i, _ in failures}
    n_undefined = int(sum(1 for r in range(b) if not ok[r] and r not in failed_idx))
    if not ok.any():
        raise BootevalError(f"metric {m.label!r} was undefined on every refit's predictions")
    if k:
        dist = pooled[ok].ravel()
        dist = dist[np.isfinite(dist)]
        test_var = float(np.mean(np.nanvar(pooled[ok], axis=1, ddof=1)))
    else:
        dist = values[ok]
        test_var = math.nan
    mean = float(values[ok].mean())
    centre = estimate if math.isfinite(estimate) else mean
    with collect_warnings() as caught:
        out = compute_interval(method, centre, dist, level, bounds=m.bounds)
    for w in caught:
        warn(w.message, w.category, stacklevel=2)
    return TrainingBootstrapResult(
        estimate=estimate, mean=mean, low=out.low, high=out.high, confidence_level=level,
        method=method, metric=m.label, replicate_values=freeze(values),
        distribution=freeze(dist),
        training_variance=float(np.var(values[ok], ddof=1)) if ok.sum() > 1 else math.nan,
        test_variance=test_var, n_train=n_train, n_test=n_test, n_resamples=b,
        test_resamples=k, seed=seed_int, n_failed=n_failed, failures=tuple(failures),
        n_undefined=n_undefined, elapsed=elapsed, notes=(*engine_note(engine), *out.notes),
    )  # fmt: skip
