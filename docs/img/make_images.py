"""Regenerate the example images of docs/plots.md (run from the repository root).

python docs/img/make_images.py
"""

from __future__ import annotations

from pathlib import Path

from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import booteval
from booteval.plot import plot_distribution, plot_forest, plot_pairwise, plot_reliability

HERE = Path(__file__).resolve().parent

df = booteval.datasets.mmlu_pro()
models = [
    "Meta-Llama-3-70B", "Qwen1.5-110B", "Qwen1.5-72B-Chat", "Yi-34B",
    "Mixtral-8x7B-Instruct-v0.1", "Phi-3-mini-4k-instruct", "Mixtral-8x7B-v0.1", "gemma-7b",
]  # fmt: skip

# one system: clustered by source subject
r = booteval.ci(df["Meta-Llama-3-70B"], clusters=df["src"], seed=0)
plot_distribution(r, HERE / "distribution.png", scale=100, digits=2)

# a paired comparison
c = booteval.compare(
    df["Qwen1.5-110B"], df["Meta-Llama-3-70B"],
    names=("Qwen1.5-110B", "Meta-Llama-3-70B"), clusters=df["src"], seed=0,
)  # fmt: skip
plot_distribution(c, HERE / "comparison.png", scale=100, digits=2)

# a leaderboard of 8 systems, B = 2000
lb = booteval.leaderboard(df[models], clusters=df["src"], n_resamples=2000, seed=0)
plot_forest(lb, path=HERE / "forest.png", scale=100, digits=1)
plot_pairwise(lb, HERE / "pairwise.png", scale=100)

# calibration of a naive Bayes classifier on held-out breast-cancer data
X, y = load_breast_cancer(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
lr = (
    make_pipeline(StandardScaler(), LogisticRegression(C=0.01))
    .fit(X_tr, y_tr)
    .predict_proba(X_te)[:, 1]
)
plot_reliability(y_te, lr, n_bins=10, path=HERE / "reliability.png", n_resamples=2000, seed=0,
                 title="Logistic regression (C = 0.01), breast cancer, held-out half")  # fmt: skip
