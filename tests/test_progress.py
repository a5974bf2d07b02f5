"""Progress that moves: one hook in the engine, per batch of replicates, in Python and the CLI."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest

import booteval
from booteval import cli

X = np.random.default_rng(0).random(3_000)
Y = (X > 0.5).astype(int)
P = np.where(np.random.default_rng(1).random(3_000) < 0.8, Y, 1 - Y)
Q = np.where(np.random.default_rng(2).random(3_000) < 0.7, Y, 1 - Y)


def _collect():
    calls: list[tuple[int, int]] = []
    return calls, lambda done, total: calls.append((done, total))


@pytest.mark.parametrize("workers", [1, 2])
def test_ci_reports_per_batch_and_the_result_does_not_change(workers):
    calls, listener = _collect()
    r = booteval.ci(X, n_resamples=3_000, seed=1, batch=500, workers=workers, progress=listener)
    done = [d for d, _ in calls]
    assert len(calls) >= 6 and done == sorted(done) and calls[-1] == (3_000, 3_000)
    assert {t for _, t in calls} == {3_000}
    assert r == booteval.ci(X, n_resamples=3_000, seed=1, batch=500, workers=workers)


CALLS = {
    "compare": lambda p: booteval.compare(Y, P, Q, metric="accuracy", n_resamples=900, seed=1,
                                          progress=p),
    "leaderboard": lambda p: booteval.leaderboard({"p": P, "q": Q}, y_true=Y, metric="accuracy",
                                                  n_resamples=900, seed=1, progress=p),
    "pool_seeds": lambda p: booteval.pool_seeds(Y, [P, Q], metric="accuracy", n_resamples=900,
                                                seed=1, progress=p),
    "compare_methods": lambda p: booteval.compare_methods(Y, [P, Q], [Q, P], metric="accuracy",
                                                          n_resamples=900, seed=1, progress=p),
    "multilabel_ci": lambda p: booteval.multilabel_ci(np.c_[Y, 1 - Y, P], np.c_[P, 1 - P, Q],
                                                      n_resamples=900, seed=1, progress=p),
    "wild_ci": lambda p: booteval.wild_ci(np.c_[X[:200]], X[:200] * 2 + Y[:200], 1,
                                          n_resamples=900, seed=1, progress=p),
    "threshold_ci": lambda p: booteval.threshold_ci(Y[:1000], X[:1000], Y[1000:], X[1000:],
                                                    n_resamples=900, seed=1, progress=p),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CALLS))
def test_entry_points_on_the_engine_report_progress(name):
    calls, listener = _collect()
    CALLS[name](listener)
    assert calls and calls[-1][0] == calls[-1][1] == 900


def test_progress_true_prints_to_stderr(capsys):
    booteval.ci(X, n_resamples=2_000, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "booteval: 2000/2000 resamples" in err


def test_runs_in_two_threads_report_to_their_own_listeners():
    seen: dict[str, list[int]] = {"a": [], "b": []}

    def run(key: str, b: int) -> None:
        booteval.ci(X, n_resamples=b, seed=1, batch=250, workers=1,
                    progress=lambda done, total: seen[key].append(total))  # fmt: skip

    threads = [threading.Thread(target=run, args=("a", 1_000)),
               threading.Thread(target=run, args=("b", 1_500))]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(seen["a"]) == {1_000} and set(seen["b"]) == {1_500}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_command_lines_bar_advances_per_batch_of_resamples(tmp_path, monkeypatch):
    rich_progress = pytest.importorskip("rich.progress")
    path = tmp_path / "scores.csv"
    path.write_text("score\n" + "\n".join(f"{v:.6f}" for v in X) + "\n")
    completed: list[float] = []
    update = rich_progress.Progress.update

    def spy(self, task_id, **kwargs):
        if "completed" in kwargs:
            completed.append(kwargs["completed"])
        return update(self, task_id, **kwargs)

    monkeypatch.setattr(rich_progress.Progress, "update", spy)
    monkeypatch.setattr(cli.sys, "stderr", _Terminal())
    code = cli.main(["ci", str(path), "--score", "score", "-B", "5000", "--seed", "1"])
    assert code == 0
    fractions = [c for c in completed if 0 < c < 1]
    assert len(fractions) >= 3  # the one metric's bar moved during its resamples
    assert fractions == sorted(fractions)
