"""OOB, resubstitution, .632 and .632+ errors, and OOB accuracy extrapolated over ensemble size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from booteval.core.errors import InvalidInputError
from booteval.methods.oob import (
    bootstrap_error_estimates,
    no_information_error,
    oob_ensemble_extrapolation,
    point632,
    point632_plus,
)


def centroid_fit(X, y):
    return np.array([X[y == c].mean(axis=0) if np.any(y == c) else np.full(X.shape[1], 1e9)
                     for c in (0, 1)])  # fmt: skip


def centroid_predict(c, X):
    return ((X[:, None, :] - c) ** 2).sum(-1).argmin(1)


def knn1_fit(X, y):
    return X.copy(), y.copy()


def knn1_predict(model, X):
    Xt, yt = model
    return yt[((X[:, None, :] - Xt) ** 2).sum(-1).argmin(1)]


def data(n=30, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + noise * rng.normal(size=n) > 0).astype(int)
    return X, y


def boot_indices(seed, b, n):
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(5, 2, b))))
    return rng.integers(0, n, size=n)


@pytest.mark.parametrize(
    ("fit", "predict"), [(centroid_fit, centroid_predict), (knn1_fit, knn1_predict)]
)
def test_agrees_with_direct_computation(fit, predict):
    X, y = data(25, seed=1)
    n, B, seed = len(y), 40, 7
    r = bootstrap_error_estimates(X, y, fit=fit, predict=predict, n_resamples=B, seed=seed)

    # direct, loop by loop
    full = predict(fit(X, y), X)
    err = np.mean(full != y)
    gamma = np.mean([[y[i] != full[j] for j in range(n)] for i in range(n)])
    L = np.zeros((B, n))
    N = np.zeros((B, n))
    for b in range(B):
        idx = boot_indices(seed, b, n)
        for i in idx:
            N[b, i] += 1
        L[b] = predict(fit(X[idx], y[idx]), X) != y
    E = np.array([np.mean([L[b, i] for b in range(B) if N[b, i] == 0]) for i in range(n)])
    err1 = E.mean()
    e632 = 0.368 * err + 0.632 * err1
    e1p = min(err1, gamma)
    R = (e1p - err) / (gamma - err) if (e1p > err and gamma > err) else 0.0
    w = 0.632 / (1 - 0.368 * R)
    e632p = (1 - w) * err + w * e1p
    q = np.array([sum(L[b, i] for i in range(n) if N[b, i] == 0) / n for b in range(B)])
    en = (1 - 1 / n) ** (-n)
    D = [(2 + 1 / (n - 1)) * (E[i] - err1) / n + en * np.cov(N[:, i], q)[0, 1] for i in range(n)]
    se = math.sqrt(sum(d * d for d in D))

    assert r.resubstitution.estimate == pytest.approx(err)
    assert r.no_information == pytest.approx(gamma)
    assert r.oob.estimate == pytest.approx(err1)
    assert r.point632.estimate == pytest.approx(e632)
    assert r.point632_plus.estimate == pytest.approx(e632p)
    assert r.relative_overfitting == pytest.approx(R)
    assert r.weight == pytest.approx(w)
    assert r.oob.standard_error == pytest.approx(se)
    z = stats.norm.ppf(0.975)
    assert r.oob.low == pytest.approx(max(err1 - z * se, 0.0))
    assert r.oob.high == pytest.approx(min(err1 + z * se, 1.0))
    assert np.allclose(r.row_oob_errors, E)
    assert np.allclose(r.replicate_train_errors, L.mean(axis=1))
    assert np.allclose(r.replicate_oob_errors, [L[b, N[b] == 0].mean() for b in range(B)])
    assert math.isnan(r.resubstitution.low) and "none" in r.resubstitution.interval
    assert r.n_rows_never_oob == 0


def test_one_nearest_neighbour_resubstitution_is_zero_and_632plus_larger():
    X, y = data(40, seed=2, noise=2.0)
    r = bootstrap_error_estimates(X, y, fit=knn1_fit, predict=knn1_predict, n_resamples=50, seed=0)
    assert r.resubstitution.estimate == 0.0
    assert r.point632.estimate == pytest.approx(0.632 * r.oob.estimate)
    assert r.point632.estimate <= r.point632_plus.estimate <= max(r.oob.estimate, r.no_information)
    assert 0 < r.relative_overfitting <= 1
    assert "resubstitution" in r.summary()


def test_formulas():
    assert point632(0.3, 0.1) == pytest.approx(0.368 * 0.1 + 0.632 * 0.3)
    # R = 0.5 -> w = .632 / (1 - .184)
    w = 0.632 / (1 - 0.368 * 0.5)
    assert point632_plus(0.3, 0.1, 0.5) == pytest.approx((1 - w) * 0.1 + w * 0.3)
    assert point632_plus(0.6, 0.1, 0.5) == pytest.approx(0.5)  # Err1 capped at gamma, R = 1
    assert point632_plus(0.05, 0.1, 0.5) == pytest.approx(point632(0.05, 0.1))  # R = 0
    assert no_information_error([0, 1, 1, 1], [1, 1, 0, 0], "zero_one") == pytest.approx(
        np.mean([[a != b for b in [1, 1, 0, 0]] for a in [0, 1, 1, 1]])
    )
    yt, yp = np.array([0.0, 1.0, 3.0]), np.array([0.5, 2.0, 2.5])
    for loss, f in [
        ("squared_error", lambda a, b: (a - b) ** 2),
        ("absolute_error", lambda a, b: abs(a - b)),
    ]:
        direct = np.mean([[f(a, b) for b in yp] for a in yt])
        assert no_information_error(yt, yp, loss) == pytest.approx(direct)


def test_regression_loss_and_seeding():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = X @ [1.0, 2.0] + rng.normal(size=30)
    fit = lambda X, y: np.linalg.lstsq(X, y, rcond=None)[0]  # noqa: E731
    predict = lambda b, X: X @ b  # noqa: E731
    a = bootstrap_error_estimates(
        X, y, fit=fit, predict=predict, loss="squared_error", n_resamples=30, seed=3
    )
    b = bootstrap_error_estimates(
        X, y, fit=fit, predict=predict, loss="squared_error", n_resamples=30, seed=3
    )
    assert a.oob.estimate == b.oob.estimate and a.oob.low == b.oob.low
    assert a.resubstitution.estimate < a.point632.estimate < a.oob.estimate
    assert a.oob.low >= 0


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"n_resamples": 1}, "n_resamples"),
        ({"loss": "accuracy"}, "loss"),
        ({"loss": lambda t, p: 0.5}, "loss"),
        ({"confidence_level": 0}, "confidence_level"),
    ],
)
def test_errors(kwargs, parameter):
    X, y = data(20)
    with pytest.raises(InvalidInputError) as exc:
        bootstrap_error_estimates(X, y, fit=centroid_fit, predict=centroid_predict, **kwargs)
    assert exc.value.parameter == parameter


def test_mismatched_lengths_and_learner_errors():
    X, y = data(20)
    with pytest.raises(InvalidInputError, match="same number of rows"):
        bootstrap_error_estimates(X, y[:-2], fit=centroid_fit, predict=centroid_predict)
    with pytest.raises(InvalidInputError) as exc:
        bootstrap_error_estimates(X, y)
    assert exc.value.parameter == "fit"
    with pytest.raises(InvalidInputError) as exc:
        oob_ensemble_extrapolation(X, y[:5], fit=centroid_fit, predict=centroid_predict)
    assert exc.value.parameter == "y"
    for sizes in [(10,), (5, 500), (0, 10)]:
        with pytest.raises(InvalidInputError) as exc:
            oob_ensemble_extrapolation(X, y, fit=centroid_fit, predict=centroid_predict,
                                       n_estimators=20, sizes=sizes)  # fmt: skip
        assert exc.value.parameter == "sizes"
    with pytest.raises(InvalidInputError) as exc:
        oob_ensemble_extrapolation(X, y, fit=centroid_fit, predict=centroid_predict, n_estimators=1)
    assert exc.value.parameter == "n_estimators"


# --------------------------------------------------------------------------- extrapolation


def _direct_votes(X, y, fit, predict, B, seed, sizes):
    n = len(y)
    preds, oob = [], []
    for b in range(B):
        idx = boot_indices(seed, b, n)
        preds.append(predict(fit(X[idx], y[idx]), X))
        oob.append(~np.isin(np.arange(n), idx))
    correct = []
    for m in sizes:
        row = []
        for i in range(n):
            votes = [preds[b][i] for b in range(m) if oob[b][i]]
            row.append(
                np.nan if not votes else float(np.bincount(votes, minlength=2).argmax() == y[i])
            )
        correct.append(row)
    correct = np.array(correct)
    keep = ~np.isnan(correct).any(axis=0)
    return correct[:, keep].mean(axis=1), keep.sum()


def test_extrapolation_two_sizes_solves_the_reference_system():
    X, y = data(60, seed=4)
    B, seed = 40, 2
    r = oob_ensemble_extrapolation(
        X, y, fit=centroid_fit, predict=centroid_predict, n_estimators=B, seed=seed
    )
    acc, used = _direct_votes(X, y, centroid_fit, centroid_predict, B, seed, (20, 40))
    assert r.sizes == (20, 40) and r.n_rows_used == used
    assert np.allclose(r.accuracies, acc)
    a_half, a_full = acc
    # a(B) = a_inf - c/B, a(B/2) = a_inf - 2c/B
    a_inf, c = 2 * a_full - a_half, B * (a_full - a_half)
    assert r.accuracy_infinite == pytest.approx(a_inf)
    assert r.c == pytest.approx(c)
    q = (1 - 1 / 60) ** 60
    assert r.estimate == pytest.approx(a_inf - c * q / B)
    assert r.oob_accuracy == pytest.approx(a_full)
    assert r.low < r.estimate < r.high and r.oob_low < r.oob_accuracy < r.oob_high


def test_extrapolation_least_squares_and_exact_model():
    X, y = data(50, seed=5)
    kw = {"fit": centroid_fit, "predict": centroid_predict}
    r = oob_ensemble_extrapolation(X, y, **kw, n_estimators=30, sizes=(10, 20, 30), seed=0)
    m = np.array([10, 20, 30.0])
    A = np.column_stack([np.ones(3), -1 / m])
    coef = np.linalg.lstsq(A, np.array(r.accuracies), rcond=None)[0]
    assert (r.accuracy_infinite, r.c) == pytest.approx(tuple(coef))


def test_extrapolation_uses_same_models_as_bootstrap_errors():
    X, y = data(40, seed=6)
    kw = {"fit": centroid_fit, "predict": centroid_predict, "seed": 9}
    r = oob_ensemble_extrapolation(X, y, n_estimators=10, sizes=(1, 10), **kw)
    s = bootstrap_error_estimates(X, y, n_resamples=10, **kw)
    # with one model the OOB vote is that model's prediction on its OOB rows
    assert r.accuracies[0] == pytest.approx(1 - s.replicate_oob_errors[0])


# --------------------------------------------------------------------------- mlxtend


@pytest.mark.slow
def test_agrees_with_mlxtend_in_distribution():
    mlx = pytest.importorskip("mlxtend.evaluate")
    tree = pytest.importorskip("sklearn.tree")
    X, y = data(80, seed=8, noise=0.8)
    est = tree.DecisionTreeClassifier(max_depth=2, random_state=0)
    B = 200
    ours = bootstrap_error_estimates(X, y, est, n_resamples=B, seed=0)
    theirs_oob = 1 - mlx.bootstrap_point632_score(
        est, X, y, n_splits=B, method="oob", random_seed=1
    )
    theirs_632 = 1 - mlx.bootstrap_point632_score(
        est, X, y, n_splits=B, method=".632", random_seed=1
    )
    for a, b in [(ours.replicate_oob_errors, theirs_oob), (ours.replicate_632, theirs_632)]:
        se = math.sqrt(a.var(ddof=1) / B + b.var(ddof=1) / B)
        assert abs(a.mean() - b.mean()) < 4 * se
        assert stats.ks_2samp(a, b).pvalue > 1e-3
        assert 0.5 < a.std() / b.std() < 2.0
    # and the per-replicate OOB mean estimates the same thing as Err(1), roughly
    assert abs(ours.replicate_oob_errors.mean() - ours.oob.estimate) < 0.05
