"""Fuzzing the readers: generated tables (CSV, JSON Lines, Parquet) and damaged harness logs.

A generated file goes through the library (``booteval.logs.read``, ``read_table``) and
through the command line (in-process, and a few invocations in a subprocess, as a user
runs it). The contract is the one of ``test_fuzz_cli.py``: a result, or one clear error
(``BootevalError`` from the library; exit status 2 and one ``error:`` line from
``booteval``), never a traceback and never another exception. The examples are
derandomized, so a run in CI is the same run every time.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import booteval
from booteval.cli import main
from booteval.core.tables import InputFileError, read_table
from test_fuzz_cli import check_streams

LOGS = Path(__file__).resolve().parent / "data" / "logs"
FUZZ = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))  # fmt: skip

# ----------------------------------------------------------------- generated tables
NAMES = ["y", "pred", "score", "model", "id", "doc", "Y", "y ", "", "é", "a,b", 'q"', "1", "nan"]
CELLS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0, 1, 1, 0.5, 0.25, 1e308, -0.0]),
    st.sampled_from(["", "nan", "NA", "null", "None", "inf", "-inf", "True", "false", "007",
                     "1e5", "x", "a,b", 'say "hi"', "line\nbreak", "é", " 1 ", "0x10"]),
    st.none(),
)  # fmt: skip


CLEAN = {
    "y": st.integers(0, 1),
    "pred": st.integers(0, 1),
    "score": st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 3)),
    "model": st.sampled_from(["m1", "m2", "m3", "007", "1.10"]),
    "id": st.integers(0, 7),
}


@st.composite
def tables(draw) -> tuple[list[str], list[list[object]]]:
    """A clean results table (labels, predictions, scores, a system and an id column)
    with some of its names and cells replaced by junk, or a table of junk."""
    n = draw(st.integers(0, 25))
    if draw(st.integers(0, 3)) == 0:
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5))
        return names, [[draw(CELLS) for _ in names] for _ in range(n)]
    names = list(CLEAN)
    rows = [[draw(CLEAN[c]) for c in names] for _ in range(n)]
    for _ in range(draw(st.integers(0, 2))):
        if rows:
            rows[draw(st.integers(0, n - 1))][draw(st.integers(0, 4))] = draw(CELLS)
    if draw(st.integers(0, 4)) == 0:
        names[draw(st.integers(0, 4))] = draw(st.sampled_from(NAMES))
    return names, rows


def _write(folder: Path, kind: str, names: list[str], rows: list[list[object]]) -> Path:
    path = folder / f"t.{kind}"
    if kind in ("csv", "tsv"):
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, delimiter="," if kind == "csv" else "\t")
            w.writerow(names)
            w.writerows(["" if v is None else v for v in r] for r in rows)
    elif kind == "jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(dict(zip(names, r, strict=True))) + "\n")
    else:
        import pandas as pd

        frame = pd.DataFrame(rows, columns=[f"{c}_{i}" for i, c in enumerate(names)])
        frame = frame.astype({c: str for c in frame.columns if frame[c].dtype == object})
        frame.to_parquet(path)
    return path


def run_cli(argv: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)  # any exception escaping main fails the test
    check_streams(argv, code, out.getvalue(), err.getvalue())
    return code


def _columns(path: Path, names: list[str], kind: str) -> list[str]:
    return [f"{c}_{i}" for i, c in enumerate(names)] if kind == "parquet" else names


@pytest.mark.long  # 30 generated tables a format; the named regressions stay in the fast lane
@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet"])
def test_generated_tables_give_a_result_or_one_clear_error(kind, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"tables_{kind}")
    codes: list[int] = []

    @FUZZ
    @given(tables(), st.data())
    def run(table, data):
        names, rows = table
        path = _write(folder, kind, names, rows)
        cols = _columns(path, names, kind)
        try:
            read_table(str(path))
        except InputFileError as exc:
            assert str(exc).strip() and "Traceback" not in str(exc)
        pick = st.sampled_from([*cols, *cols, "nope"])
        command = data.draw(st.sampled_from(["ci", "compare", "leaderboard"]))
        argv = [command, str(path), "-B", "50", "--seed", "0"]
        if command == "ci":
            argv += data.draw(st.sampled_from([["--score"], ["--y-true"]]))
            argv += [data.draw(pick)]
            if argv[-2] == "--y-true":
                argv += ["--y-pred", data.draw(pick)]
        elif command == "compare":
            argv += ["--score", data.draw(pick), "--score", data.draw(pick)]
        else:
            argv += ["--system", data.draw(pick), "--id", data.draw(pick), "--score",
                     data.draw(pick)]  # fmt: skip
        if data.draw(st.booleans()):
            argv += ["--cluster", data.draw(pick)]
        codes.append(run_cli(argv))

    run()
    assert codes.count(0) >= 2 and codes.count(2) >= 2, {c: codes.count(c) for c in set(codes)}


# ---------------------------------------------------------------------- damaged logs
def _mutate_json(value: object, draw) -> object:
    """One change somewhere in a JSON value: a key removed, a value replaced by junk."""
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value)))
        action = draw(st.sampled_from(["drop", "junk", "deeper", "deeper"]))
        out = dict(value)
        if action == "drop":
            del out[key]
        elif action == "junk":
            out[key] = draw(st.sampled_from([None, "x", -1, 1e308, [], {}, [None], True, "nan"]))
        else:
            out[key] = _mutate_json(value[key], draw)
        return out
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        out = list(value)
        out[i] = _mutate_json(value[i], draw) if draw(st.booleans()) else None
        return out
    return draw(st.sampled_from([None, "x", -1, [], {}, 0.5]))


def _damage_text(text: str, draw) -> bytes:
    """A JSON or JSON Lines text with one record changed, cut short, or made non-UTF-8."""
    how = draw(st.sampled_from(["record", "record", "record", "truncate", "bytes", "empty"]))
    if how == "truncate":
        return text.encode()[: draw(st.integers(0, max(len(text) - 1, 0)))]
    if how == "bytes":
        raw = bytearray(text.encode())
        raw[draw(st.integers(0, max(len(raw) - 1, 0)))] = 0xFF
        return bytes(raw)
    if how == "empty":
        return b""
    lines = text.splitlines()
    if len(lines) > 1:  # JSON Lines: change one line's record
        i = draw(st.integers(0, len(lines) - 1))
        try:
            lines[i] = json.dumps(_mutate_json(json.loads(lines[i]), draw))
        except ValueError:
            lines[i] = "{"
        return ("\n".join(lines) + "\n").encode()
    return json.dumps(_mutate_json(json.loads(text), draw)).encode()


def _eee(folder: Path) -> None:
    for model in ("org/a", "org/b"):
        lines = [json.dumps({
            "schema_version": "instance_level_eval_0.2.1", "evaluation_id": "e1",
            "model_id": model, "evaluation_name": "gsm8k", "sample_id": f"g{i}",
            "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]},
            "output": {"raw": ["a"]}, "answer_attribution": [],
            "evaluation": {"score": float(i % 2), "is_correct": bool(i % 2)},
            "metadata": {"subject": f"s{i % 3}"},
        }) for i in range(12)]  # fmt: skip
        (folder / f"{model[4:]}.jsonl").write_text("\n".join(lines) + "\n")


SOURCES = {
    "lm-eval": lambda dst: shutil.copytree(LOGS / "lm_eval", dst),
    "helm": lambda dst: shutil.copytree(LOGS / "helm", dst),
    "inspect": lambda dst: shutil.copytree(LOGS / "inspect", dst),
    "code": lambda dst: shutil.copytree(LOGS / "code" / "human_eval", dst),
    "eee": lambda dst: (dst.mkdir(), _eee(dst)),
}


def _damage_zip(path: Path, draw) -> None:
    """An Inspect ``.eval`` archive with one member's JSON damaged (or the archive cut)."""
    with zipfile.ZipFile(path) as z:
        members = {i.filename: z.read(i.filename) for i in z.infolist()}
    if draw(st.booleans()):
        path.write_bytes(path.read_bytes()[: draw(st.integers(0, path.stat().st_size - 1))])
        return
    name = draw(st.sampled_from(sorted(n for n in members if n.endswith(".json"))))
    members[name] = _damage_text(members[name].decode(), draw)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, raw in members.items():
            z.writestr(n, raw)


@pytest.mark.long  # 30 damaged copies a harness
@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_damaged_logs_are_read_or_refused_with_one_clear_error(fmt, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"logs_{fmt}")
    outcomes: list[str] = []

    @FUZZ
    @given(st.data())
    def run(data):
        folder = base / "copy"
        if folder.exists():
            shutil.rmtree(folder)
        SOURCES[fmt](folder)
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".md")
        target = data.draw(st.sampled_from(files))
        if target.suffix == ".eval":
            _damage_zip(target, data.draw)
        elif target.suffix in (".json", ".jsonl"):
            target.write_bytes(_damage_text(target.read_text(encoding="utf-8"), data.draw))
        try:
            booteval.logs.read(folder)
            outcomes.append("read")
        except booteval.BootevalError as exc:
            assert str(exc).strip() and "\n" not in str(exc).strip(), repr(exc)
            outcomes.append("refused")
        run_cli(["leaderboard", str(folder), "-B", "50", "--seed", "0"])

    run()
    # some damage is harmless (an unused field), some is seen
    assert outcomes.count("read") >= 2 and outcomes.count("refused") >= 2, outcomes


# -------------------------------------------------------------- the CLI, as a user runs it
SUBPROCESS_CASES = [
    ["ci", "{wide}", "--score", "nope"],
    ["ci", "{wide}", "--y-true", "y", "--y-pred", "y", "-B", "abc"],
    ["compare", "{wide}", "--score", "s", "--score", "s"],
    ["leaderboard", "{logs}/lm_eval", "--method", "nope"],
    ["ci", "{missing}", "--score", "s"],
    ["ci", "{wide}", "--score", "s", "-B", "50", "-f", "json"],
]


@pytest.mark.long  # a Python start-up each
@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=lambda a: " ".join(a[:3]))
def test_the_installed_command_exits_0_or_2_with_one_line(argv, tmp_path):
    wide = tmp_path / "wide.csv"
    rng = np.random.default_rng(0)
    wide.write_text("y,s\n" + "\n".join(f"{rng.integers(0, 2)},{rng.random():.3f}"
                                        for _ in range(30)) + "\n")  # fmt: skip
    args = [a.format(wide=wide, logs=LOGS, missing=tmp_path / "no.csv") for a in argv]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-m", "booteval", *args], capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip
    check_streams(args, done.returncode, done.stdout, done.stderr)
