"""Long runs say so when they start, stop promptly on Ctrl-C, and absurd sizes are refused."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import booteval
from booteval.core import engine as _engine

S = np.random.default_rng(0).random(2_000)


@pytest.mark.parametrize(("engine", "batch"), [("auto", None), ("auto", 100), ("numpy", None)])
def test_a_long_run_says_so_when_it_starts(monkeypatch, engine, batch):
    # the compiled engine times its second chunk, whatever size batch= makes the chunks
    monkeypatch.setattr(_engine, "LONG_RUN_SECONDS", 0.0)
    with pytest.warns(booteval.LongRunWarning, match=r"will take about .* \(5000 resamples"):
        booteval.ci(S, n_resamples=5_000, seed=0, method="percentile", engine=engine, batch=batch)


def test_a_short_run_says_nothing(recwarn):
    booteval.ci(S, n_resamples=1_000, seed=0, method="percentile")
    assert not [w for w in recwarn if issubclass(w.category, booteval.LongRunWarning)]


@pytest.mark.parametrize("batch", [None, pytest.param(7, marks=pytest.mark.slow), 64, 1000])
def test_the_timed_first_batch_changes_no_replicate(batch):
    ref = booteval.ci(S, n_resamples=3_000, seed=5, batch=3_000, workers=1)
    r = booteval.ci(S, n_resamples=3_000, seed=5, batch=batch, workers=2)
    assert np.array_equal(r.distribution, ref.distribution)


def test_absurd_resample_counts_are_refused_before_any_work():
    with pytest.raises(booteval.InvalidInputError, match=r"`n_resamples`.*at most 10,000,000"):
        booteval.ci(S, n_resamples=10**9)


_API_RUN = """
import sys
import numpy as np
import booteval
big = np.random.default_rng(1).random(300_000)
print("started", flush=True)
booteval.ci(big, n_resamples=200_000, seed=0, method="percentile", workers=int(sys.argv[1]))
print("finished", flush=True)
"""


# The run stops within one batch (measured here: 0.07 s on one thread, 0.4 s on two, the
# interpreter's exit included); the bound leaves room for a loaded CI machine running
# other tests beside it. What it guards against took minutes.
_STOPS_WITHIN = 3.0


def _stop_limit(startup: float) -> float:
    """Seconds a run may take to stop after Ctrl-C: 3, or more on a machine that is loaded
    now (``startup``: as long as a fresh interpreter takes to load booteval's run), so that
    the pass does not depend on what else the machine is doing."""
    return max(_STOPS_WITHIN, startup)


def _startup_seconds() -> float:
    """How long a fresh interpreter takes to import what a run of the command line loads
    (booteval imports its modules on first use: the parser's, and ``ci``'s engine with
    numba), on this machine now."""
    code = (
        "import booteval.cli, booteval.inference.confidence, booteval.core.kernels\n"
        "booteval.cli.build_parser()\n"
    )
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_after_start(cmd: list[str], startup: float) -> tuple[float, int, str]:
    """Start ``cmd``, send SIGINT once it has printed its first line and had time to
    import booteval (at least a second; three times ``startup``, a fresh import's time,
    on a loaded machine); return (seconds from SIGINT to exit, exit status, standard
    error)."""
    settle = max(1.0, 3 * startup)
    pipe = subprocess.PIPE
    # the child must not inherit an ignored SIGINT (a test runner's worker may ignore it,
    # and Python then installs no KeyboardInterrupt handler): the default, as in a shell
    proc = subprocess.Popen(cmd, stdout=pipe, stderr=pipe, text=True, preexec_fn=_default_sigint)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the run is under way (or the command is reading)
        time.sleep(settle)
        assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        _, err = proc.communicate(timeout=60)
        return time.perf_counter() - sent, proc.returncode, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.long
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery differs on Windows")
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_stops_the_api_within_a_second(workers):
    startup = _startup_seconds()  # measured once: it sets both the wait and the limit
    elapsed, code, err = _interrupt_after_start(
        [sys.executable, "-c", _API_RUN, str(workers)], startup
    )
    assert "KeyboardInterrupt" in err
    assert code != 0
    limit = _stop_limit(startup)
    assert elapsed < limit, f"stopped {elapsed:.1f} s after Ctrl-C (limit {limit:.1f} s)"


@pytest.mark.long
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery differs on Windows")
def test_ctrl_c_on_the_command_exits_130_with_one_line(tmp_path):
    data = tmp_path / "scores.csv"
    values = np.random.default_rng(2).random(300_000)
    data.write_text("score\n" + "\n".join(f"{v:.6f}" for v in values) + "\n")
    exe = shutil.which("booteval")
    cmd = [exe] if exe else [sys.executable, "-m", "booteval"]
    # the command prints nothing before its result, so a shell prints the first line
    script = 'echo started; exec "$@"'
    startup = _startup_seconds()
    elapsed, code, err = _interrupt_after_start(
        [
            "sh",
            "-c",
            script,
            "sh",
            *cmd,
            "ci",
            str(data),
            "--score",
            "score",
            "-B",
            "200000",
            "--method",
            "percentile",
        ],
        startup,
    )
    assert code == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == "booteval ci: interrupted", err
    assert "Traceback" not in err
    limit = _stop_limit(startup)
    assert elapsed < limit, f"stopped {elapsed:.1f} s after Ctrl-C (limit {limit:.1f} s)"


def test_compiled_chunks_take_at_most_a_quarter_second(monkeypatch):
    """After the timed probe, the compiled engine's chunks are cut to about 0.25 s, so that
    Ctrl-C and progress are answered soon on large data; the values do not change."""
    clock = [0.0]
    calls = []

    def compiled(seed, start, stop, want_se):
        calls.append(stop - start)
        clock[0] += 1e-4 * (stop - start)  # 0.1 ms a replicate
        return np.arange(start, stop, dtype=float), None

    monkeypatch.setattr(_engine.time, "perf_counter", lambda: clock[0])
    values, _ = _engine._compiled_chunks(compiled, 0, 200_000, False, None, 1, None)
    assert np.array_equal(values, np.arange(200_000.0))
    assert calls[:2] == [256, 256] and max(calls[2:]) == 2500  # not 8192: 0.25 s / 0.1 ms
    calls.clear()
    _engine._compiled_chunks(compiled, 0, 20_000, False, None, 1, 5000)  # batch= is kept
    assert calls == [5000] * 4
