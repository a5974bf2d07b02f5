"""Fuzzing the command line: every subcommand, good and bad options, real files.

For any argument list, ``booteval`` either exits 0 with output that parses in the format
asked for, or exits 2 with one error line on standard error (warnings and notes may come
before it). Never a traceback, never another status. The examples are derandomized, so a
run in CI is the same run every time.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from booteval.cli import main

HERE = Path(__file__).resolve().parent
FILES: dict[str, Path] = {}


@pytest.fixture(scope="module", autouse=True)
def files(tmp_path_factory):
    import pandas as pd

    folder = tmp_path_factory.mktemp("fuzz")
    rng = np.random.default_rng(0)
    n = 24
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "doc_id": np.arange(n), "y": y, "a": np.where(rng.random(n) < 0.8, y, 1 - y),
        "b": np.where(rng.random(n) < 0.7, y, 1 - y), "sa": np.round(rng.random(n), 3),
        "sb": np.round(rng.random(n), 3), "g": np.arange(n) % 5, "word": list("xyzw" * 6),
        "t": pd.date_range("2024-01-01", periods=n).astype(str),
    })  # fmt: skip
    frame.to_csv(folder / "wide.csv", index=False)
    frame.to_csv(folder / "wide.tsv", index=False, sep="\t")
    frame.to_json(folder / "wide.jsonl", orient="records", lines=True)
    frame.to_parquet(folder / "wide.parquet")
    long = pd.DataFrame({
        "system": np.repeat(["m1", "m2", "m3"], n), "item": np.tile(np.arange(n), 3),
        "correct": rng.integers(0, 2, 3 * n), "g": np.tile(np.arange(n) % 4, 3),
        "human": rng.random(3 * n), "metric": rng.random(3 * n),
    })  # fmt: skip
    long.to_csv(folder / "long.csv", index=False)
    (folder / "ref.txt").write_text('the cat sat\na dog ran\n"hi," she said\nok\n')
    (folder / "hyp.txt").write_text('the cat sat down\na dog ran\n"hi" she said\nok then\n')
    (folder / "empty.csv").write_text("")
    (folder / "junk.csv").write_text('a,"b\n1,2,3,4\n\x00\x01')
    FILES.update({p.name: p for p in folder.iterdir()})
    FILES["out"] = folder / "out"
    FILES["out"].mkdir()
    FILES["lm_eval"] = HERE / "data" / "logs" / "lm_eval"
    yield folder


COLUMNS = ["y", "a", "b", "sa", "sb", "g", "word", "t", "doc_id", "nope", "system", "item",
           "correct", "human", "metric", "*", "s*", "ref", "hyp", ""]  # fmt: skip
JUNK = st.sampled_from(["", "-1", "0", "nan", "inf", "1e309", "abc", "--", "=1+1", "x" * 300,
                        "\u00e9\u00e8", "0.95", "95", "1.5", "10", "200"])  # fmt: skip
METRICS = st.sampled_from(
    [
        "accuracy",
        "f1",
        "f1:average=macro",
        "f1:average=nope",
        "roc_auc",
        "mean",
        "bleu",
        "chrf",
        "ece:n_bins=5",
        "ece:n_bins=-1",
        "mse",
        "pearson",
        "nosuch",
        "accuracy:x=1",
        "f1:average=",
        ":",
        "kendall",
    ]
)


def option(name: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return values.map(lambda v: [name, v])


COMMON = [
    option("--y-true", st.sampled_from(COLUMNS)),
    option("--y-pred", st.sampled_from(COLUMNS)),
    option("--score", st.sampled_from(COLUMNS)),
    option("--cluster", st.sampled_from(COLUMNS)),
    option("--strata", st.sampled_from(COLUMNS)),
    option("--method", st.sampled_from(["percentile", "basic", "normal", "bca", "nope"])),
    option("--confidence", st.sampled_from(["0.9", "0.95", "95", "0", "1", "nan", "x"])),
    option("-B", st.sampled_from(["50", "100", "200", "0", "-1", "10", "x", "1e3"])),
    option("--seed", st.sampled_from(["0", "1", "-1", "x", str(2**70)])),
    option("-f", st.sampled_from(["text", "markdown", "latex", "json", "csv", "xml"])),
    option("--scale", JUNK),
    option("--digits", JUNK),
    option("-m", METRICS),
    option(
        "--input-format",
        st.sampled_from(["csv", "tsv", "jsonl", "parquet", "lines", "lm-eval", "nope"]),
    ),
    st.just(["-q"]),
]
PER_COMMAND = {
    "ci": [option("--system", st.sampled_from(COLUMNS))],
    "compare": [
        option("--a", st.sampled_from([*COLUMNS, "m1", "m2"])),
        option("--b", st.sampled_from([*COLUMNS, "m1", "m2"])),
        option("--test", st.sampled_from(["bootstrap", "permutation", "mcnemar", "delong", "t"])),
        option("--system", st.sampled_from(COLUMNS)),
        option("--id", st.sampled_from(COLUMNS)),
        option("--alternative", st.sampled_from(["two-sided", "greater", "less", "x"])),
    ],
    "leaderboard": [
        option("--system", st.sampled_from(COLUMNS)),
        option("--id", st.sampled_from(COLUMNS)),
        st.just(["--joint"]),
    ],
    "correlate": [
        option("--system", st.sampled_from(COLUMNS)),
        option("--input", st.sampled_from(COLUMNS)),
        option("--metric-col", st.sampled_from(COLUMNS)),
        option("--human", st.sampled_from(COLUMNS)),
        option("--level", st.sampled_from(["system", "summary", "global", "x"])),
        option("--resample", st.sampled_from(["both", "systems", "inputs", "none"])),
    ],
    "power": [
        option("--a", st.sampled_from(COLUMNS)),
        option("--b", st.sampled_from(COLUMNS)),
        option("--solve", st.sampled_from(["mde", "power", "n", "x"])),
        option("--effect", JUNK),
        option("--power", JUNK),
        option("--alpha", JUNK),
        option("--n", JUNK),
        option("--standard-error", JUNK),
    ],
}
INPUTS = st.lists(
    st.sampled_from(
        [
            "wide.csv",
            "wide.tsv",
            "wide.jsonl",
            "wide.parquet",
            "long.csv",
            "ref.txt",
            "hyp.txt",
            "empty.csv",
            "junk.csv",
            "missing.csv",
            "w*.csv",
            "lm_eval",
        ]
    ),
    min_size=1,
    max_size=2,
)


#: a valid invocation per command, which the fuzz then mutates
BASES = {
    "ci": [
        ["wide.csv", "--y-true", "y", "--y-pred", "a", "-B", "100"],
        ["wide.csv", "--score", "sa", "--cluster", "g", "-B", "100"],
        ["ref.txt", "hyp.txt", "--y-true", "ref", "--y-pred", "hyp", "-m", "chrf", "-B", "50"],
        ["long.csv", "--system", "system", "--score", "correct", "-B", "100"],
    ],
    "compare": [
        ["wide.csv", "--y-true", "y", "--a", "a", "--b", "b", "-B", "100"],
        ["long.csv", "--system", "system", "--id", "item", "--score", "correct", "--a", "m1",
         "--b", "m2", "-B", "100"],
    ],
    "leaderboard": [
        ["long.csv", "--system", "system", "--id", "item", "--score", "correct", "-B", "200"],
        ["wide.csv", "--y-true", "y", "--y-pred", "a", "--y-pred", "b", "-B", "200"],
    ],
    "correlate": [
        ["long.csv", "--system", "system", "--input", "item", "--metric-col", "metric",
         "--human", "human", "-B", "100"],
    ],
    "power": [
        ["wide.csv", "--y-true", "y", "--a", "a", "--b", "b", "-B", "100"],
        ["wide.csv", "--y-true", "y", "--a", "a", "--b", "b", "--effect", "0.1", "-B", "100"],
    ],
}  # fmt: skip


def argv_for(command: str) -> st.SearchStrategy[list[str]]:
    """A valid invocation with up to three mutations: options added (good or bad values),
    a value replaced by junk, an argument dropped, the input files replaced."""
    pool = COMMON + PER_COMMAND[command]
    added = st.lists(st.sampled_from(range(len(pool))), max_size=2).flatmap(
        lambda picks: st.tuples(*(pool[i] for i in picks)) if picks else st.just(())
    )
    output = st.sampled_from([[], [], [], [], ["-o", "out/r.json"], ["-o", "out/r.csv"],
                              ["-o", "wide.csv"], ["-o", "missing/r.md"]])  # fmt: skip

    def build(base, extra, out, drop, junk, inputs):
        argv = list(base)
        if junk is not None and len(argv) > 1:
            argv[junk[0] % len(argv)] = junk[1]
        if drop is not None and len(argv) > 1:
            del argv[drop % len(argv)]
        if inputs is not None:
            argv = [*inputs, *argv[1:]]
        return [command, *argv, *(x for pair in extra for x in pair), *out]

    maybe = lambda s: st.one_of(st.none(), st.none(), st.none(), s)  # noqa: E731
    return st.builds(
        build,
        st.sampled_from(BASES[command]),
        added,
        output,
        maybe(st.integers(0, 20)),
        maybe(st.tuples(st.integers(0, 20), st.one_of(JUNK, st.sampled_from(COLUMNS)))),
        maybe(INPUTS),
    )


def resolve(argv: list[str]) -> list[str]:
    """File names to paths in the fixture folder (an output stays relative to it)."""
    out = []
    for a in argv:
        if a in FILES:
            out.append(str(FILES[a]))
        elif a.startswith(("out/", "missing/")) or a in ("missing.csv", "w*.csv"):
            out.append(str(FILES["wide.csv"].parent / a))
        else:
            out.append(a)
    return out


def check_outcome(argv: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(resolve(argv))  # any exception escaping main fails the test
    stdout, stderr = out.getvalue(), err.getvalue()
    check_streams(argv, code, stdout, stderr)
    return code


def check_streams(argv: list[str], code: int, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr, (argv, stderr)
    if code == 0:
        fmt = argv[argv.index("-f") + 1] if "-f" in argv else "text"
        if "-o" in argv:
            return  # written to a file (checked below for the formats that parse)
        assert stdout.strip(), (argv, stderr)
        if fmt == "json":
            json.loads(stdout)
        elif fmt == "csv":
            rows = list(csv.reader(io.StringIO(stdout)))
            assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), stdout
        return
    assert code == 2, (argv, code, stderr)
    errors = [line for line in stderr.splitlines() if ": error:" in line]
    assert len(errors) == 1, (argv, stderr)
    others = [line for line in stderr.splitlines() if line and ": error:" not in line]
    assert all(line.startswith("booteval") for line in others), (argv, stderr)


#: examples per fuzzed function: 75 in the README's test command, 150 in CI's own fuzz step
#: (``BOOTEVAL_FUZZ_EXAMPLES=150``, .ci/run)
EXAMPLES = int(os.environ.get("BOOTEVAL_FUZZ_EXAMPLES", "75"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))  # fmt: skip


@pytest.mark.slow  # 150 invocations a command; test_known_invocations stays in the fast lane
@pytest.mark.parametrize("command", sorted(PER_COMMAND))
def test_cli_exits_0_with_parseable_output_or_2_with_one_line(command):
    codes: list[int] = []

    @FUZZ
    @given(argv_for(command))
    def run(argv):
        codes.append(check_outcome(argv))

    run()
    # the mutations leave some invocations valid: both outcomes are exercised
    assert codes.count(0) >= 3 and codes.count(2) >= 3, {c: codes.count(c) for c in set(codes)}


@pytest.mark.parametrize(
    "argv",
    [
        ["ci", "wide.csv", "--y-true", "y", "--y-pred", "a", "-B", "50", "--seed", "1"],
        ["ci", "ref.txt", "hyp.txt", "--y-true", "ref", "--y-pred", "hyp", "-m", "chrf", "-B",
         "50", "-f", "json"],
        ["compare", "wide.csv", "--y-true", "y", "--a", "a", "--b", "b", "-B", "50", "-f", "csv"],
        ["leaderboard", "long.csv", "--system", "system", "--id", "item", "--score", "correct",
         "-B", "200", "-f", "json"],
        ["correlate", "long.csv", "--system", "system", "--input", "item", "--metric-col",
         "metric", "--human", "human", "-B", "50"],
        ["ci", "wide.csv", "--y-true", "y", "--y-pred", "a", "-o", "wide.csv"],
        ["ci", "junk.csv", "--score", "a"],
        ["power", "wide.csv", "--a", "a", "--b", "b", "--effect", "x"],
    ],
)  # fmt: skip
def test_known_invocations(argv):
    check_outcome(argv)
