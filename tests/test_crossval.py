"""Cross-validation intervals: corrected resampled t (Nadeau-Bengio), nested CV (Bates et al.)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from booteval.core.errors import DegenerateIntervalWarning, InvalidInputError
from booteval.methods.crossval import cv_t_interval, nested_cv_interval


def ols_fit(X, y):
    return np.linalg.lstsq(X, y, rcond=None)[0]


def ols_predict(beta, X):
    return X @ beta


def make_regression(n, p, rng, beta=None):
    beta = rng.normal(size=p) / math.sqrt(p) if beta is None else beta
    X = rng.normal(size=(n, p))
    return X, X @ beta + rng.normal(size=n), beta


# --------------------------------------------------------------------------- per-fold t


def test_corrected_t_matches_hand_computation():
    v = np.array([0.74, 0.76, 0.71, 0.78, 0.73, 0.75, 0.72, 0.77, 0.70, 0.79])
    r = cv_t_interval(v, test_train_ratio=1 / 9, confidence_level=0.9)
    j = v.size
    se = v.std(ddof=1) * math.sqrt(1 / j + 1 / 9)
    t = stats.t.ppf(0.95, j - 1)
    assert r.estimate == pytest.approx(v.mean())
    assert r.standard_error == pytest.approx(se)
    assert (r.low, r.high) == pytest.approx((v.mean() - t * se, v.mean() + t * se))
    assert r.df == 9 and r.n_values == 10 and r.method == "corrected"
    naive = cv_t_interval(v, method="naive", confidence_level=0.9)
    assert naive.standard_error == pytest.approx(v.std(ddof=1) / math.sqrt(j))
    assert naive.test_train_ratio is None
    assert naive.high - naive.low < r.high - r.low


def test_sizes_equal_ratio_and_repeats_are_flattened():
    rng = np.random.default_rng(0)
    v = rng.normal(0.8, 0.02, size=(3, 5))  # 3 repeats x 5 folds
    a = cv_t_interval(v, n_train=80, n_test=20)
    b = cv_t_interval(v.ravel(), test_train_ratio=0.25)
    assert a.n_values == 15
    assert (a.low, a.high) == pytest.approx((b.low, b.high))
    # more repeats of the same values: the naive interval shrinks, the corrected one barely
    w = np.tile(v, (10, 1))
    assert cv_t_interval(w, test_train_ratio=0.25).standard_error > 0.5 * a.standard_error
    nv, nw = cv_t_interval(v, method="naive"), cv_t_interval(w, method="naive")
    assert nw.standard_error < 0.5 * nv.standard_error
    assert str(a) == a.format()


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"values": [0.8]}, "values"),
        ({"values": [0.8, 0.7]}, "test_train_ratio"),  # corrected needs the ratio
        ({"values": [0.8, 0.7], "n_train": 10}, "test_train_ratio"),
        ({"values": [0.8, 0.7], "test_train_ratio": 0}, "test_train_ratio"),
        ({"values": [0.8, 0.7], "test_train_ratio": -1.0}, "test_train_ratio"),
        ({"values": [0.8, 0.7], "test_train_ratio": float("inf")}, "test_train_ratio"),
        ({"values": [0.8, 0.7], "n_train": 10, "n_test": 0}, "n_test"),
        (
            {"values": [0.8, 0.7], "test_train_ratio": 0.2, "n_train": 8, "n_test": 2},
            "test_train_ratio",
        ),
        ({"values": [0.8, float("nan")], "test_train_ratio": 0.2}, "values"),
        ({"values": [0.8, 0.7], "method": "bogus"}, "method"),
        (
            {"values": [0.8, 0.7], "test_train_ratio": 0.2, "confidence_level": 95},
            "confidence_level",
        ),
    ],
)
def test_cv_t_interval_errors(kwargs, parameter):
    with pytest.raises(InvalidInputError) as exc:
        cv_t_interval(**kwargs)
    assert exc.value.parameter == parameter


def test_constant_fold_values_warn():
    with pytest.warns(DegenerateIntervalWarning):
        r = cv_t_interval([0.5, 0.5, 0.5], test_train_ratio=0.5)
    assert r.low == r.high == 0.5 and r.notes


# --------------------------------------------------------------------------- nested CV


def _direct_nested(X, y, k, reps, seed, level):
    """Algorithm 1 of Bates, Hastie and Tibshirani (2023), written out without shortcuts."""
    n = len(y)
    a_list, b_list, es, outer = [], [], [], []
    for r in range(reps):
        rng = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(5, 1, r)))
        )
        fold = np.empty(n, dtype=int)
        fold[rng.permutation(n)] = np.arange(n) % k
        for f in range(k):
            e_in = []
            for g in range(k):
                if g == f:
                    continue
                tr = (fold != f) & (fold != g)
                beta = ols_fit(X[tr], y[tr])
                e_in.extend((y[fold == g] - X[fold == g] @ beta) ** 2)
            beta = ols_fit(X[fold != f], y[fold != f])
            e_out = (y[fold == f] - X[fold == f] @ beta) ** 2
            a_list.append((np.mean(e_in) - np.mean(e_out)) ** 2)
            b_list.append(np.var(e_out, ddof=1) / len(e_out))
            es.extend(e_in)
            outer.append(e_out)
    err_ncv = np.mean(es)
    err_cv = np.mean(np.concatenate(outer))
    mse = np.mean(a_list) - np.mean(b_list)
    return err_ncv, err_cv, mse


def test_nested_cv_matches_direct_algorithm():
    rng = np.random.default_rng(3)
    X, y, _ = make_regression(40, 4, rng)
    r = nested_cv_interval(X, y, fit=ols_fit, predict=ols_predict, n_folds=4, n_repeats=3, seed=11)
    err_ncv, err_cv, mse = _direct_nested(X, y, 4, 3, 11, 0.95)
    k = 4
    assert r.err_ncv == pytest.approx(err_ncv)
    assert r.err_cv == pytest.approx(err_cv)
    assert r.mse_hat == pytest.approx(mse)
    bias = (1 + (k - 2) / k) * (err_ncv - err_cv)
    assert r.bias == pytest.approx(bias)
    assert r.estimate == pytest.approx(err_ncv - bias)
    se = min(max(math.sqrt(max(0.0, (k - 1) / k * mse)), r.se_naive), math.sqrt(k) * r.se_naive)
    z = stats.norm.ppf(0.975)
    assert (r.low, r.high) == pytest.approx((r.estimate - z * se, r.estimate + z * se))
    assert r.n_fits == 3 * (4 + 6)
    assert r.fold_errors.shape == (3, 4)
    assert r.err_cv == pytest.approx(r.fold_errors.mean())  # equal-size folds
    assert r.naive_low < r.err_cv < r.naive_high
    assert r.method == "nested_cv" and r.loss == "squared_error"


def test_nested_cv_seeded_and_sklearn_estimator_equals_callables():
    sk = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(5)
    X, y, _ = make_regression(30, 3, rng)
    est = sk.LinearRegression(fit_intercept=False)
    a = nested_cv_interval(X, y, est, n_folds=3, n_repeats=2, seed=1)
    b = nested_cv_interval(X, y, fit=ols_fit, predict=ols_predict, n_folds=3, n_repeats=2, seed=1)
    c = nested_cv_interval(X, y, est, n_folds=3, n_repeats=2, seed=1)
    assert (a.low, a.high) == pytest.approx((b.low, b.high))
    assert (a.low, a.high) == (c.low, c.high)
    d = nested_cv_interval(X, y, est, n_folds=3, n_repeats=2, seed=2)
    assert d.err_cv != a.err_cv


def test_nested_cv_custom_and_zero_one_loss():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)

    def fit(X, y):
        return np.array([X[y == c].mean(axis=0) for c in (0, 1)])

    def predict(c, X):
        return ((X[:, None, :] - c) ** 2).sum(-1).argmin(1)

    r = nested_cv_interval(
        X, y, fit=fit, predict=predict, loss="zero_one", n_folds=4, n_repeats=2, seed=0
    )
    assert 0 <= r.err_cv <= 1 and r.loss == "zero_one"
    r2 = nested_cv_interval(
        X, y, fit=fit, predict=predict, loss=lambda t, p: (t != p).astype(float),
        n_folds=4, n_repeats=2, seed=0,
    )  # fmt: skip
    assert r2.estimate == pytest.approx(r.estimate)


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"n_folds": 2}, "n_folds"),
        ({"n_folds": 15}, "n_folds"),  # fewer than 2 rows per fold
        ({"n_repeats": 0}, "n_repeats"),
        ({"loss": "roc_auc"}, "loss"),
        ({"loss": lambda t, p: float(np.mean((t - p) ** 2))}, "loss"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"seed": -1}, "seed"),
    ],
)
def test_nested_cv_errors(kwargs, parameter):
    rng = np.random.default_rng(0)
    X, y, _ = make_regression(20, 2, rng)
    base = {"fit": ols_fit, "predict": ols_predict, "n_folds": 4, "n_repeats": 1}
    with pytest.raises(InvalidInputError) as exc:
        nested_cv_interval(X, y, **{**base, **kwargs})
    assert exc.value.parameter == parameter


def test_nested_cv_input_errors():
    rng = np.random.default_rng(0)
    X, y, _ = make_regression(20, 2, rng)
    with pytest.raises(InvalidInputError, match="same number of rows"):
        nested_cv_interval(X, y[:-1], fit=ols_fit, predict=ols_predict)
    with pytest.raises(InvalidInputError) as exc:
        nested_cv_interval(X, y, fit=ols_fit)
    assert exc.value.parameter == "predict"
    with pytest.raises(InvalidInputError) as exc:
        nested_cv_interval(X, y, object())
    assert exc.value.parameter == "estimator"
    with pytest.raises(InvalidInputError) as exc:
        nested_cv_interval(X, y, object(), fit=ols_fit, predict=ols_predict)
    assert exc.value.parameter == "estimator"


# --------------------------------------------------------------------------- coverage


@pytest.mark.simulation
@pytest.mark.slow
def test_coverage_nested_cv_closer_to_nominal_than_naive():
    """Linear regression, n = 100, p = 30 (Bates et al.'s regime where the naive interval fails).

    The target is the error of the model fitted to the data at hand, Err_XY = 1 + |b_hat - b|^2,
    exact for X ~ N(0, I) and unit noise (checked against a large test sample below).
    """
    level, n, p, k, reps, trials = 0.90, 100, 30, 5, 10, 300
    rng = np.random.default_rng(20230)
    hits = {"naive_z": 0, "naive_t": 0, "corrected_t": 0, "nested": 0}
    beta = rng.normal(size=p) / math.sqrt(p)
    for t in range(trials):
        X, y, _ = make_regression(n, p, rng, beta)
        err = 1.0 + float(np.sum((ols_fit(X, y) - beta) ** 2))
        if t == 0:  # the exact target agrees with a large independent test sample
            Xt, yt, _ = make_regression(200_000, p, rng, beta)
            assert np.mean((yt - Xt @ ols_fit(X, y)) ** 2) == pytest.approx(err, rel=0.02)
        r = nested_cv_interval(
            X, y, fit=ols_fit, predict=ols_predict, n_folds=k, n_repeats=reps,
            confidence_level=level, seed=t,
        )  # fmt: skip
        c = cv_t_interval(r.fold_errors, test_train_ratio=1 / (k - 1), confidence_level=level)
        nt = cv_t_interval(r.fold_errors[0], method="naive", confidence_level=level)
        hits["naive_z"] += r.naive_low <= err <= r.naive_high
        hits["naive_t"] += nt.low <= err <= nt.high
        hits["corrected_t"] += c.low <= err <= c.high
        hits["nested"] += r.low <= err <= r.high
    cov = {key: v / trials for key, v in hits.items()}
    # Monte Carlo SE of a coverage near 0.9 with 300 trials is about 0.017
    assert cov["naive_z"] < 0.85, cov
    assert cov["naive_t"] < 0.85, cov
    assert cov["nested"] >= 0.86, cov  # conservative here (0.97-0.99 over 6 seeds at R=10)
    assert abs(cov["nested"] - level) < abs(cov["naive_z"] - level), cov
    assert cov["corrected_t"] >= cov["naive_z"] - 0.02, cov
