"""Train two scikit-learn classifiers and report their test metrics with 95 % intervals.

Run with:  pip install ".[examples]" && python examples/quickstart.py
Uses only data that ships with scikit-learn (no network).
"""

from __future__ import annotations

import time

from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import booteval


def report(title: str, rows: list[tuple[str, booteval.CIResult]]) -> None:
    print(f"\n{title}")
    width = max(len(name) for name, _ in rows)
    for name, r in rows:  # each with the method that method="auto" chose for it
        print(f"  {name:<{width}}  {r.format(scale=100, digits=2)}  {r.method}")


def main() -> None:
    start = time.perf_counter()
    # binary: breast cancer, scores from predict_proba
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
    models = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "random forest": RandomForestClassifier(n_estimators=200, random_state=0),
    }
    for name, model in models.items():
        model.fit(X_tr, y_tr)
        pred = model.predict(X_te)
        score = model.predict_proba(X_te)[:, 1]
        report(
            f"breast cancer, {name} ({len(y_te)} test rows; x100, 95 %, B = 10,000)",
            [
                ("accuracy", booteval.ci(y_te, pred, metric="accuracy", seed=0)),
                ("F1", booteval.ci(y_te, pred, metric="f1", seed=0)),
                ("ROC-AUC", booteval.ci(y_te, score, metric="roc_auc", seed=0)),
                ("Brier score", booteval.ci(y_te, score, metric="brier", seed=0)),
            ],
        )

    # multiclass: digits, macro-F1 with the per-class counts kept by stratifying on the label
    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=0)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X_tr, y_tr)
    pred = model.predict(X_te)
    macro = booteval.ci(
        y_te, pred, metric="f1", metric_kwargs={"average": "macro"}, seed=0, strata=y_te
    )
    report(
        f"digits, logistic regression ({len(y_te)} test rows, 10 classes)",
        [
            ("accuracy", booteval.ci(y_te, pred, metric="accuracy", seed=0)),
            ("macro-F1 (stratified)", macro),
            ("Cohen's kappa", booteval.ci(y_te, pred, metric="cohen_kappa", seed=0)),
        ],
    )
    print("\nIn full:\n" + macro.describe(scale=100, digits=2))
    print(f"\n(done in {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
