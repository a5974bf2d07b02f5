"""booteval's warnings are thread-safe: runs from many threads at once neither lose
warnings nor change the process's warning filters (``warnings.catch_warnings`` is not
thread-safe, so booteval collects its own warnings in a context variable instead)."""

from __future__ import annotations

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import booteval
from booteval.core.errors import BootevalWarning, collect_warnings, warn

CONSTANT = np.ones(30)  # every replicate equal: one DegenerateIntervalWarning per call
N_THREADS, PER_THREAD = 8, 5


def _many(fn):
    barrier = threading.Barrier(N_THREADS)

    def work(_):
        barrier.wait()
        return [fn() for _ in range(PER_THREAD)]

    with ThreadPoolExecutor(N_THREADS) as pool:
        return [r for rs in pool.map(work, range(N_THREADS)) for r in rs]


@pytest.mark.parametrize(
    "call",
    [
        lambda: booteval.ci(CONSTANT, method="bca", n_resamples=200, seed=1, workers=1),
        lambda: booteval.compare(
            CONSTANT, CONSTANT, method="bca", n_resamples=200, seed=1, workers=1
        ),
    ],
    ids=["ci", "compare"],
)
def test_threads_lose_no_warning_and_keep_the_filters(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message="an unrelated filter of the user's")
        before = list(warnings.filters)
        results = _many(call)
        after = list(warnings.filters)
    assert after == before
    degenerate = [
        w
        for w in caught
        if issubclass(w.category, booteval.DegenerateIntervalWarning)
        and "replicates are equal" in str(w.message)
    ]
    assert len(degenerate) == N_THREADS * PER_THREAD
    assert all(r.notes for r in results)
    assert len({(r.low, r.high) for r in results}) == 1


def test_the_users_error_filter_still_applies_after_threaded_runs():
    _many(
        lambda: booteval.ci(np.linspace(0, 1, 20), method="bca", n_resamples=200, seed=0, workers=1)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", booteval.DegenerateIntervalWarning)
        with pytest.raises(booteval.DegenerateIntervalWarning):
            booteval.ci(CONSTANT, method="bca", n_resamples=200, seed=0)


def test_collect_warnings_is_per_thread():
    seen = []

    def other():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn("from another thread", BootevalWarning)
        seen.extend(caught)

    with collect_warnings() as held:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        warn("held here", BootevalWarning)
    assert [str(w.message) for w in held] == ["held here"]
    assert [str(w.message) for w in seen] == ["from another thread"]


# ------------------------------------------------------------------ threads and processes
RNG = np.random.default_rng(11)
Y = RNG.integers(0, 2, 300)
S = np.clip(Y * 0.3 + RNG.random(300) * 0.7, 0, 1)
P = (S > 0.5).astype(int)


def _numbers(which: str) -> tuple:
    """A few results as plain numbers (picklable, comparable bit for bit)."""
    if which == "ci":
        r = booteval.ci(Y, S, metric="roc_auc", n_resamples=500, seed=3)
        return (r.estimate, r.low, r.high, r.distribution.tobytes())
    if which == "compare":
        r = booteval.compare(Y, P, 1 - P, metric="accuracy", n_resamples=500, seed=3)
        return (r.estimate, r.low, r.high, r.p_value, r.distribution.tobytes())
    r = booteval.ci(S, n_resamples=500, seed=3, clusters=np.arange(300) // 10, workers=2)
    return (r.estimate, r.low, r.high, r.distribution.tobytes())


# each case starts two fresh interpreters; the fast lane keeps one
@pytest.mark.parametrize(
    "which", ["ci", *(pytest.param(w, marks=pytest.mark.slow) for w in ("compare", "clustered"))]
)
def test_threads_and_processes_give_the_numbers_of_one_process(which):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    expected = _numbers(which)
    with ThreadPoolExecutor(4) as pool:
        assert all(got == expected for got in pool.map(_numbers, [which] * 4))
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing inherited
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        assert all(got == expected for got in pool.map(_numbers, [which] * 2))
