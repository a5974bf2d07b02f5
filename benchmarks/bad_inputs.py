"""Bad inputs people actually give, and what booteval does with each.

Each case is a call of the Python API or of the command line with an input that must not
give a number: a label type mismatch, ids that are not ids, values that overflow, options
that cannot work. The outcome of each is classified as

- ``clear error``: a booteval error naming the parameter (API) or exit status 2 with one
  line on standard error (CLI);
- ``traceback``: any other exception, or a CLI traceback;
- ``silent``: the call returned a result (API) or exited 0 (CLI) where it should not;
- ``right``: a case that should run (marked so) ran and gave the right kind of answer.

Run it against any installed version (``PYTHONPATH=/path/to/old/src``) to compare::

    python benchmarks/bad_inputs.py            # a table of counts, then the cases not clear
    python benchmarks/bad_inputs.py --all      # every case with its outcome
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

import booteval

Y = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0] * 3)
P = np.array([1, 0, 0, 1, 0, 1, 1, 1, 1, 0] * 3)
S = np.linspace(0.05, 0.95, 30)


def api_cases() -> list[tuple[str, Callable[[], object]]]:
    ci, B = booteval.ci, {"n_resamples": 100, "seed": 0}
    return [
        # label semantics
        ("int labels, str predictions", lambda: ci(Y, P.astype(float).astype(str), **B)),
        ("bool labels, str predictions", lambda: ci(Y.astype(bool), P.astype(str), **B)),
        ("probabilities as predicted labels", lambda: ci(Y, S, metric="accuracy", **B)),
        ("labels sharing no value", lambda: ci(Y, P + 5, metric="accuracy", **B)),
        ("mixed-type predictions", lambda: ci(Y, [1, "0"] * 15, metric="accuracy", **B)),
        ("McNemar on str vs int", lambda: booteval.mcnemar_test(Y, P.astype(str), P)),
        # ids that are not ids
        ("NaN cluster ids", lambda: ci(S, clusters=[np.nan] * 15 + list(range(15)), **B)),
        ("None strata", lambda: ci(S, strata=[None] * 30, **B)),
        ("dict cluster ids", lambda: ci(S, clusters=[{"a": i} for i in range(30)], **B)),
        ("list cluster ids", lambda: ci(S, clusters=[[i] for i in range(30)], **B)),
        ("clusters of the wrong length", lambda: ci(S, clusters=list(range(29)), **B)),
        # resources
        ("n_resamples=10**9", lambda: ci(S, n_resamples=10**9, seed=0)),
        (
            "ece n_bins=10**9 (should run: empty bins are skipped)",
            lambda: ci(Y, S, metric="ece", metric_kwargs={"n_bins": 10**9}, **B),
        ),
        ("negative seed", lambda: ci(S, n_resamples=100, seed=-1)),
        ("batch=0", lambda: ci(S, batch=0, **B)),
        ("workers=-1", lambda: ci(S, workers=-1, **B)),
        # errors that are not ours
        ("metric returning an array", lambda: ci(S, metric=lambda x: x, **B)),
        ("metric returning None", lambda: ci(S, metric=lambda x: None, **B)),
        ("metric returning a string", lambda: ci(S, metric=lambda x: "high", **B)),
        (
            "threshold rule returning a string",
            lambda: booteval.threshold_ci(
                Y, S, Y, S, rule=lambda y, s, w: "best", metric="f1", **B
            ),
        ),
        ("metric_kwargs a list", lambda: ci(Y, P, metric="f1", metric_kwargs=["macro"], **B)),
        (
            "names of the wrong length",
            lambda: booteval.compare(Y, P, 1 - P, metric="accuracy", names=("a",), **B),
        ),
        ("format(scale='100')", lambda: ci(S, **B).format(scale="100")),
        ("format(digits=-1)", lambda: ci(S, **B).format(digits=-1)),
        ("confidence_level=95", lambda: ci(S, confidence_level=95, **B)),
        ("confidence_level='0.95'", lambda: ci(S, confidence_level="0.95", **B)),
        ("unknown metric", lambda: ci(S, metric="acuracy", **B)),
        ("unknown method", lambda: ci(S, method="bcaa", **B)),
        ("empty scores", lambda: ci([], **B)),
        ("2-D scores", lambda: ci(np.ones((5, 5)), **B)),
        ("strings as scores", lambda: ci(["a", "b", "c"] * 10, **B)),
        # misleading results
        (
            "non-monotone transform",
            lambda: ci(S, transform=(lambda x: np.sin(20 * x), lambda x: np.arcsin(x) / 20), **B),
        ),
        ("values of 1e200", lambda: ci(np.array([1e200, 2e200, 3e200] * 10), **B)),
        ("values of 1e308", lambda: ci(np.full(30, 1e308), **B)),
        ("inf in scores", lambda: ci(np.r_[S[:-1], np.inf], **B)),
        ("NaN in labels", lambda: ci(np.r_[Y[:-1], np.nan], P, metric="accuracy", **B)),
    ]


def cli_cases(folder: Path) -> list[tuple[str, list[str]]]:
    (folder / "a.csv").write_text("y,p,s\n" + "".join(
        f"{y},{p},{s:.3f}\n" for y, p, s in zip(Y, P, S, strict=True)))  # fmt: skip
    (folder / "dup.csv").write_text("y,p,p\n1,1,0\n0,0,1\n1,1,1\n")
    (folder / "ids.csv").write_text("doc_id,m1,m2,y\n" + "".join(
        f"{i},{p},{1 - p},{y}\n" for i, (y, p) in enumerate(zip(Y, P, strict=True))))  # fmt: skip
    (folder / "time.jsonl").write_text(
        "".join(f'{{"timestamp": "2024-01-{i % 28 + 1:02d}", "y": {y}}}\n' for i, y in enumerate(Y))
    )
    a = str(folder / "a.csv")
    return [
        ("-o equal to the input", ["ci", a, "--y-true", "y", "--y-pred", "p", "-o", a]),
        ("--plot into a missing directory", ["ci", a, "--score", "s", "--plot", "no/x.png"]),
        ("--scale nan", ["ci", a, "--score", "s", "--scale", "nan"]),
        ("--digits -1", ["ci", a, "--score", "s", "--digits", "-1"]),
        ("--confidence 95", ["ci", a, "--score", "s", "--confidence", "95"]),
        ("duplicate headers", ["ci", str(folder / "dup.csv"), "--y-true", "y", "--y-pred", "p"]),
        ("timestamp as scores", ["ci", str(folder / "time.jsonl"), "--score", "timestamp"]),
        ("5,000-character -m", ["ci", a, "--score", "s", "-m", "x" * 5000]),
        (
            "glob over an id column",
            [
                "leaderboard",
                str(folder / "ids.csv"),
                "--y-true",
                "y",
                "--y-pred",
                "*",
                "-B",
                "200",
                "--seed",
                "0",
                "-q",
            ],
        ),
        ("missing file", ["ci", str(folder / "nope.csv"), "--score", "s"]),
        ("unknown column", ["ci", a, "--score", "nope"]),
        ("labels as scores for roc_auc", ["ci", a, "--y-true", "y", "--y-pred", "s"]),
    ]


def run_api(name: str, fn: Callable[[], object]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
            if "should run" in name:
                return "right" if np.isfinite(getattr(result, "estimate", np.nan)) else "silent"
        except booteval.BootevalError as exc:
            return "clear error" if "`" in str(exc) or "parameter" in dir(exc) else "traceback"
        except Exception as exc:
            return f"traceback ({type(exc).__name__})"
    return "silent"


def run_cli(args: list[str]) -> str:
    cmd = [sys.executable, "-m", "booteval", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ)
    if out.returncode == 0:
        # the one case that should succeed: right unless the id column became a system
        return "right" if "leaderboard" in args and "doc_id" not in out.stdout else "silent"
    if "Traceback" in out.stderr:
        return "traceback"
    lines = [line for line in out.stderr.splitlines() if "error" in line]
    return "clear error" if out.returncode == 2 and len(lines) == 1 else "traceback"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every case")
    opts = parser.parse_args()
    try:  # an allocation of many gigabytes fails as MemoryError instead of ending the process
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, resource.RLIM_INFINITY))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on this platform
        pass
    rows: list[tuple[str, str, str]] = []
    for name, fn in api_cases():
        rows.append(("api", name, run_api(name, fn)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in cli_cases(Path(tmp)):
            with contextlib.redirect_stderr(io.StringIO()):
                rows.append(("cli", name, run_cli(args)))
    counts = Counter((where, outcome.split(" (")[0]) for where, _, outcome in rows)
    print(f"booteval {booteval.__version__} from {Path(booteval.__file__).parent}")
    print(f"{'':5}{'cases':>7}{'clear/right':>13}{'traceback':>11}{'silent':>8}")
    for where in ("api", "cli"):
        n = sum(1 for w, _, _ in rows if w == where)
        good = counts[where, "clear error"] + counts[where, "right"]
        print(f"{where:5}{n:7}{good:13}{counts[where, 'traceback']:11}"
              f"{counts[where, 'silent']:8}")  # fmt: skip
    for where, name, outcome in rows:
        if opts.all or outcome not in ("clear error", "right"):
            print(f"  {where}: {name}: {outcome}")


if __name__ == "__main__":
    main()
