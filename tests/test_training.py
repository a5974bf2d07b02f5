"""Training-set bootstrap (issue 6, item 2): booteval.training.bootstrap_training."""

from __future__ import annotations

import numpy as np
import pytest

from booteval.core.errors import BootevalError, BootevalWarning, InvalidInputError
from booteval.methods.training import bootstrap_training

sklearn = pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402


def _data(seed=0, n=240):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0).astype(int)
    return X[:160], y[:160], X[160:], y[160:]


def _model_seed(seed, r):
    """The documented per-replicate model seed."""
    return int(np.random.SeedSequence(seed, spawn_key=(11, 2, r)).generate_state(1)[0] >> 1)


def test_same_seed_same_result_for_one_or_two_jobs():
    Xtr, ytr, Xte, yte = _data()
    est = DecisionTreeClassifier(max_depth=3, max_features=2)
    one = bootstrap_training(est, Xtr, ytr, Xte, yte, n_resamples=12, seed=5, workers=1)
    two = bootstrap_training(est, Xtr, ytr, Xte, yte, n_resamples=12, seed=5, workers=2)
    thr = bootstrap_training(
        est, Xtr, ytr, Xte, yte, n_resamples=12, seed=5, workers=2, backend="threading"
    )
    np.testing.assert_array_equal(one.replicate_values, two.replicate_values)
    np.testing.assert_array_equal(one.replicate_values, thr.replicate_values)
    assert (one.low, one.high, one.estimate) == (two.low, two.high, two.estimate)
    other = bootstrap_training(est, Xtr, ytr, Xte, yte, n_resamples=12, seed=6, workers=1)
    assert not np.array_equal(one.replicate_values, other.replicate_values)
    # refits differ (training rows and seed vary), and the full fit is the estimate
    assert np.unique(one.replicate_values).size > 1
    full = DecisionTreeClassifier(max_depth=3, max_features=2)
    assert one.low <= one.mean <= one.high and 0 <= one.estimate <= 1
    assert full is not est  # the caller's estimator is never fitted
    assert not hasattr(est, "tree_")


def test_callable_fit_predict_with_test_resampling_and_progress():
    Xtr, ytr, Xte, yte = _data(1)
    seen_seeds = []

    def fit(X, y, seed):
        seen_seeds.append(seed)
        return LogisticRegression().fit(X, y)

    def predict(model, X):
        return model.predict(X)

    calls = []
    r = bootstrap_training(
        fit, Xtr, ytr, Xte, yte, predict=predict, n_resamples=10, test_resamples=50,
        seed=3, workers=1, progress=lambda done, total: calls.append((done, total)),
    )  # fmt: skip
    assert calls[-1] == (11, 11) and len(calls) == 11  # 10 refits + the full fit
    assert seen_seeds[:3] == [_model_seed(3, r_) for r_ in range(3)]
    assert r.distribution.shape == (500,)
    assert r.test_variance > 0 and r.training_variance >= 0
    # pooling the test resamples widens the interval
    fixed = bootstrap_training(fit, Xtr, ytr, Xte, yte, predict=predict, n_resamples=10, seed=3,
                               workers=1)  # fmt: skip
    assert r.high - r.low > fixed.high - fixed.low
    np.testing.assert_array_equal(r.replicate_values, fixed.replicate_values)
    assert "test resamples" in r.describe()


def test_probability_metric_uses_predict_proba():
    Xtr, ytr, Xte, yte = _data(2)
    r = bootstrap_training(
        LogisticRegression(), Xtr, ytr, Xte, yte, metric="roc_auc", n_resamples=8, seed=0,
        workers=1,
    )  # fmt: skip
    from sklearn.metrics import roc_auc_score

    full = LogisticRegression().fit(Xtr, ytr)
    assert r.estimate == pytest.approx(roc_auc_score(yte, full.predict_proba(Xte)[:, 1]))


def test_failing_replicates_are_reported_and_the_others_kept():
    Xtr, ytr, Xte, yte = _data(3)
    bad = {r for r in range(20) if _model_seed(11, r) % 3 == 0}
    assert 0 < len(bad) < 20

    def fit(X, y, random_state):
        if random_state % 3 == 0:
            raise RuntimeError(f"diverged with seed {random_state}")
        return DecisionTreeClassifier(max_depth=2, random_state=random_state).fit(X, y)

    kw = dict(predict=lambda m, X: m.predict(X), n_resamples=20, seed=11, fit_full=False)
    with pytest.warns(BootevalWarning, match="refits failed"):
        r1 = bootstrap_training(fit, Xtr, ytr, Xte, yte, workers=1, **kw)
    with pytest.warns(BootevalWarning):
        r2 = bootstrap_training(fit, Xtr, ytr, Xte, yte, workers=2, **kw)
    assert {i for i, _ in r1.failures} == bad == {i for i, _ in r2.failures}
    assert r1.n_failed == len(bad) and all("RuntimeError: diverged" in m for _, m in r1.failures)
    values = r1.replicate_values
    assert np.isnan(values[sorted(bad)]).all()
    assert np.isfinite(np.delete(values, sorted(bad))).all()
    assert r1.distribution.size == 20 - len(bad) == r1.n_succeeded
    np.testing.assert_array_equal(r1.replicate_values, r2.replicate_values)
    assert "failed" in r1.describe()


def test_all_failing_raises_a_clear_error():
    Xtr, ytr, Xte, yte = _data(4)

    def fit(X, y):
        raise ValueError("no convergence")

    with pytest.raises(BootevalError, match=r"all 5 refits failed.*replicate 0.*no convergence"):
        bootstrap_training(fit, Xtr, ytr, Xte, yte, predict=lambda m, X: X, n_resamples=5,
                           seed=0, workers=1, fit_full=False)  # fmt: skip
    with pytest.raises(BootevalError, match="full training set"):
        bootstrap_training(fit, Xtr, ytr, Xte, yte, predict=lambda m, X: X, n_resamples=5,
                           seed=0, workers=1)  # fmt: skip


def test_training_design_and_input_errors():
    Xtr, ytr, Xte, yte = _data(5)
    cl = np.repeat(np.arange(40), 4)
    r = bootstrap_training(LogisticRegression(), Xtr, ytr, Xte, yte, n_resamples=6, seed=0,
                           clusters=cl, strata=None, workers=1)  # fmt: skip
    assert r.n_train == 160 and np.isfinite(r.replicate_values).all()
    with pytest.raises(InvalidInputError) as e:
        bootstrap_training(lambda X, y: None, Xtr, ytr, Xte, yte, n_resamples=5)
    assert e.value.parameter == "predict"
    with pytest.raises(InvalidInputError) as e:
        bootstrap_training(LogisticRegression(), Xtr, ytr[:50], Xte, yte, n_resamples=5)
    assert e.value.parameter == "y_train"
    with pytest.raises(InvalidInputError) as e:
        bootstrap_training(LogisticRegression(), Xtr, ytr, Xte, yte[:5], n_resamples=5)
    assert e.value.parameter == "y_test"
    with pytest.raises(InvalidInputError) as e:
        bootstrap_training(LogisticRegression(), Xtr, ytr, Xte, yte, n_resamples=5,
                           method="bca")  # fmt: skip
    assert e.value.parameter == "method"
    with pytest.raises(InvalidInputError) as e:
        bootstrap_training(LogisticRegression(), Xtr, ytr, Xte, yte, n_resamples=5, progress=3)
    assert e.value.parameter == "progress"


def test_stderr_progress(capsys):
    Xtr, ytr, Xte, yte = _data(6)
    bootstrap_training(LogisticRegression(), Xtr, ytr, Xte, yte, n_resamples=3, seed=0,
                       workers=1, progress=True)  # fmt: skip
    assert "booteval: 4/4 refits" in capsys.readouterr().err


def test_training_rows_come_from_a_weight_source_read_in_any_pieces():
    from booteval.core.design import make_design
    from booteval.methods.training import _TrainingSource

    source = _TrainingSource(make_design(60, clusters=np.arange(60) // 3))
    whole = source.unit_weights(7, 0, 50)
    parts = np.vstack([source.unit_weights(7, a, min(a + 9, 50)) for a in range(0, 50, 9)])
    np.testing.assert_array_equal(whole, parts)
    assert (whole.sum(axis=1) == 60).all()  # 20 clusters of 3 rows drawn per replicate
    rows = source.training_rows(7, 10, 12)
    np.testing.assert_array_equal(np.bincount(rows[1], minlength=60), whole[11])
    assert source.model_seed(7, 4) == _model_seed(7, 4)


def test_the_weight_source_keeps_the_numbers_of_before():
    """Values computed before the training rows were drawn through the weight source."""
    Xtr, ytr, Xte, yte = _data(4)
    r = bootstrap_training(DecisionTreeClassifier(max_depth=3, max_features=2), Xtr, ytr,
                           Xte, yte, n_resamples=8, test_resamples=3, seed=21, workers=1,
                           clusters=np.arange(160) // 4, metric="brier")  # fmt: skip
    before = [0.25520960149338523, 0.24863111066041704, 0.2344698485935941,
              0.23406446772291165, 0.26732062877106033, 0.24897511664256824,
              0.23435208949207206, 0.3289067426296088]  # fmt: skip
    assert r.replicate_values.tolist() == before
    assert (r.estimate, r.low, r.high) == (
        0.25112340370699415, 0.19265076398337613, 0.3521387375256911,
    )  # fmt: skip
