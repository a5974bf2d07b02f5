"""Long runs say so when they start, stop promptly on Ctrl-C, and absurd sizes are refused."""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pytest

import booteval
from booteval import _engine

S = np.random.default_rng(0).random(2_000)


def test_a_long_run_says_so_when_it_starts(monkeypatch):
    monkeypatch.setattr(_engine, "LONG_RUN_SECONDS", 0.0)
    with pytest.warns(booteval.LongRunWarning, match=r"will take about .* \(5000 resamples"):
        booteval.ci(S, n_resamples=5_000, seed=0, method="percentile")


def test_a_short_run_says_nothing(recwarn):
    booteval.ci(S, n_resamples=1_000, seed=0, method="percentile")
    assert not [w for w in recwarn if issubclass(w.category, booteval.LongRunWarning)]


@pytest.mark.parametrize("batch", [None, 7, 64, 1000])
def test_the_timed_first_batch_changes_no_replicate(batch):
    ref = booteval.ci(S, n_resamples=3_000, seed=5, batch=3_000, workers=1)
    r = booteval.ci(S, n_resamples=3_000, seed=5, batch=batch, workers=2)
    assert np.array_equal(r.distribution, ref.distribution)


def test_absurd_resample_counts_are_refused_before_any_work():
    with pytest.raises(booteval.InvalidInputError, match=r"`n_resamples`.*at most 10,000,000"):
        booteval.ci(S, n_resamples=10**9)


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_within_a_second(workers):
    big = np.random.default_rng(1).random(300_000)
    fired = threading.Event()

    def interrupt():
        time.sleep(1.0)
        fired.set()
        _thread.interrupt_main()

    threading.Thread(target=interrupt, daemon=True).start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        booteval.ci(big, n_resamples=200_000, seed=0, method="percentile", workers=workers)
        time.sleep(30)  # pragma: no cover - the run finished before the interrupt
    assert fired.is_set()
    assert time.perf_counter() - start < 2.5
