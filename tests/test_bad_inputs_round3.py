"""Bad inputs, round three: each class of silent wrong answer or raw traceback found by the
third round of bad inputs has a named regression test here (the command line in-process,
except where the process itself is what is tested)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import booteval
from booteval.cli import main

pd = pytest.importorskip("pandas")


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ------------------------------------------------------------ ids turned into numbers
def test_ids_are_read_as_written_1_1_and_1_10_stay_apart(here, capsys):
    """``1.1`` and ``1.10``, ``01`` and ``1`` are four items, not two: the pairs are
    the rows with the same written id."""
    ids = ["1.1", "1.10", "01", "1"]
    a, b = [0.5, 0.7, 0.2, 0.3], [0.4, 0.9, 0.1, 0.6]
    rows = [f"A,{i},{s}" for i, s in zip(ids, a, strict=True)]
    rows += [f"B,{i},{s}" for i, s in zip(reversed(ids), reversed(b), strict=True)]
    Path("long.csv").write_text("model,id,s\n" + "\n".join(rows) + "\n")
    code, out, err = run(capsys, "compare", "long.csv", "--system", "model", "--id", "id",
                         "--score", "s", "--a", "A", "--b", "B", "-B", "300", "--seed", "0",
                         "-f", "json")  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)["results"][0]
    assert doc["n"] == 4
    assert doc["difference"] == pytest.approx(np.mean(b) - np.mean(a))
    api = booteval.compare(np.array(a), np.array(b), n_resamples=300, seed=0)
    assert (doc["low"], doc["high"]) == (api.low, api.high)  # rows paired by written id


def test_jsonl_ids_0_and_00_are_two_items(here, capsys):
    lines = [{"model": m, "id": i, "s": s} for m, vals in (("A", (0.2, 0.9)), ("B", (0.4, 0.5)))
             for i, s in zip((0, "00"), vals, strict=True)]  # fmt: skip
    Path("long.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    code, out, err = run(capsys, "leaderboard", "long.jsonl", "--system", "model", "--id", "id",
                         "--score", "s", "-B", "200", "--seed", "0", "-f", "json")  # fmt: skip
    assert code == 0, err
    # two items per system (merged, 0 and "00" would be one id twice: refused)
    assert json.loads(out)["results"][0]["estimate"] == pytest.approx(0.55)  # (0.2 + 0.9) / 2


def test_a_long_leaderboard_keeps_the_rows_order_whatever_the_ids_type():
    """The API pivots a long table in the order rows first appear, so numeric and text
    ids give the same intervals (as the command line reads ids as text)."""
    rng = np.random.default_rng(3)
    ids = rng.permutation(40) * 7
    frames = [pd.DataFrame({"m": m, "id": ids, "s": rng.random(40)}) for m in ("x", "y")]
    long = pd.concat(frames, ignore_index=True)
    as_text = long.assign(id=long["id"].astype(str))
    kw = {"system_col": "m", "row_col": "id", "output_col": "s", "seed": 1, "n_resamples": 300}
    a, b = booteval.leaderboard(long, **kw), booteval.leaderboard(as_text, **kw)
    assert [(e.low, e.high) for e in a.entries] == [(e.low, e.high) for e in b.entries]


# ------------------------------------------------------------------ the same rows twice
@pytest.mark.parametrize("second", ["a.csv", "./a.csv", "*.csv"])
def test_the_same_file_twice_is_refused(here, capsys, second):
    Path("a.csv").write_text("s\n0.1\n0.5\n0.9\n")
    code, _, err = run(capsys, "ci", "a.csv", second, "--score", "s")
    assert code == 2
    assert "a.csv" in one_line(err) and "more than once" in err


# ------------------------------------------------------------ a column read as another
def test_y_pred_without_y_true_is_refused(here, capsys):
    Path("a.csv").write_text("p,y\n1,1\n0,1\n1,0\n")
    code, _, err = run(capsys, "ci", "a.csv", "--y-pred", "p")
    assert code == 2 and "--y-true" in one_line(err)


# ---------------------------------------------------------------------------- tiny samples
def test_two_rows_warn_in_ci_compare_and_the_command_line(here, capsys):
    with pytest.warns(booteval.SmallSampleWarning, match="only 2 rows"):
        r = booteval.ci([0.7, 0.9], seed=0)
    assert any("only 2 rows" in n for n in r.notes)
    with pytest.warns(booteval.SmallSampleWarning, match="only 2 paired rows"):
        c = booteval.compare([0.7, 0.9], [0.8, 0.95], seed=0)
    assert any("only 2 paired rows" in n for n in c.notes)
    Path("two.csv").write_text("s\n0.7\n0.9\n")
    code, _, err = run(capsys, "ci", "two.csv", "--score", "s", "--seed", "0")
    assert code == 0 and "only 2 rows" in err


# ----------------------------------------------------------------------- raw tracebacks
def test_a_callable_with_the_wrong_arity_or_keywords_is_named(here):
    with pytest.raises(booteval.InvalidInputError, match=r"`metric`.*accepts <lambda>\(scores\)"):
        booteval.ci([1.0, 2.0, 3.0, 4.0], metric=lambda a, b: 1.0, n_resamples=50, seed=0)
    with pytest.raises(booteval.InvalidInputError, match=r"zz=\.\.\..*unexpected keyword"):
        booteval.ci([1.0, 2.0, 3.0, 4.0], metric=lambda a: 1.0, metric_kwargs={"zz": 1},
                    n_resamples=50, seed=0)  # fmt: skip


def test_an_empty_table_and_strata_on_a_table_are_named():
    with pytest.raises(booteval.InvalidInputError, match="at least one row"):
        booteval.ci(pd.DataFrame({"score": []}), scores="score", seed=0)
    df = pd.DataFrame({"score": np.linspace(0, 1, 40), "label": np.arange(40) % 2})
    with pytest.raises(booteval.InvalidInputError, match="`strata`: expected no strata"):
        booteval.ci(df, scores="score", strata="label", seed=0, n_resamples=100)


def test_a_leaderboard_too_large_for_memory_is_refused_before_any_work():
    systems = {f"s{i}": np.linspace(0, 1, 50) for i in range(20)}
    with pytest.raises(booteval.InvalidInputError, match=r"at most 2,500,000 for 20 systems"):
        booteval.leaderboard(systems, n_resamples=10**7, seed=0)


def test_options_given_by_position_are_named():
    with pytest.raises(booteval.InvalidInputError, match=r"argument 3: 'accuracy'.*metric="):
        booteval.ci([1, 0, 1, 1], [0, 1, 0, 1], "accuracy", 0.95)
    for f in (booteval.ci, booteval.compare):
        with pytest.raises(booteval.InvalidInputError, match="'auto', 'percentile'"):
            f([1, 0, 1, 1], [0, 1, 1, 1], method="bcaa")


# --------------------------------------------------------------------- scale and format
def test_a_negative_scale_is_refused(here, capsys):
    r = booteval.ci([0.1, 0.5, 0.7, 0.9], seed=0, n_resamples=200)
    with pytest.raises(booteval.InvalidInputError, match="`scale`: expected a finite, positive"):
        r.format(scale=-1)
    Path("a.csv").write_text("s\n0.1\n0.5\n0.9\n")
    code, _, err = run(capsys, "ci", "a.csv", "--score", "s", "--scale", "-1")
    assert code == 2 and "--scale" in one_line(err)


def test_a_line_break_in_a_system_name_stays_in_its_cell():
    rng = np.random.default_rng(0)
    board = booteval.leaderboard({"a\nb": rng.random(30), "c": rng.random(30)}, seed=0,
                                 n_resamples=200)  # fmt: skip
    text = board.to_text()
    assert "a\\nb" in text and len(text.splitlines()[1].split()) >= 4


def test_an_output_file_of_an_unknown_kind_is_refused(here, capsys):
    Path("a.csv").write_text("s\n0.1\n0.5\n0.9\n")
    code, _, err = run(capsys, "ci", "a.csv", "--score", "s", "-o", "out.xlsx", "-B", "100")
    assert code == 2 and ".xlsx" in one_line(err) and ".csv" in err
    assert not Path("out.xlsx").exists()


def test_drop_incomplete_on_a_flat_file_is_refused_not_ignored(here, capsys):
    Path("a.csv").write_text("s\n0.1\n0.5\n0.9\n")
    code, _, err = run(capsys, "ci", "a.csv", "--score", "s", "--drop-incomplete")
    assert code == 2 and "--drop-incomplete applies to harness logs" in one_line(err)


# ------------------------------------------------------------------- misleading errors
@pytest.mark.parametrize("path", ["nodir", "nodir/", "missing.xyz"])
def test_a_missing_path_says_so(here, capsys, path):
    code, _, err = run(capsys, "ci", path, "--score", "s")
    assert code == 2 and "no such file or directory" in one_line(err)


def test_the_percentage_hint_only_where_the_value_reads_as_one(here, capsys):
    Path("p.csv").write_text("a,b\n1,1\n0,1\n1,0\n1,1\n")
    _, _, err = run(capsys, "power", "p.csv", "--a", "a", "--b", "b", "--power", "1.5")
    assert "1.5" in one_line(err) and "0.015" not in err
    _, _, err = run(capsys, "power", "p.csv", "--a", "a", "--b", "b", "--power", "80")
    assert "0.8" in one_line(err)


# ------------------------------------------------------------- faults of the process
def _booteval() -> list[str]:
    return [sys.executable, "-c", "import sys; from booteval.cli import main; sys.exit(main())"]


@pytest.mark.long
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_and_a_closed_stdin_end_in_one_line(tmp_path):
    values = "\n".join(f"{v:.3f}" for v in np.linspace(0.1, 0.9, 12))
    (tmp_path / "a.csv").write_text(f"s\n{values}\n")
    with open("/dev/full", "w") as full:
        cmd = [*_booteval(), "ci", "a.csv", "--score", "s", "-B", "100"]
        done = subprocess.run(cmd, cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2 and "cannot write the output" in one_line(done.stderr)
    done = subprocess.run([*_booteval(), "ci", "-", "--score", "s"], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          preexec_fn=lambda: os.close(0))  # fmt: skip
    assert done.returncode == 2 and "standard input" in one_line(done.stderr)


@pytest.mark.slow
def test_a_parquet_glob_that_matches_nothing_and_a_csv_named_parquet(here):
    pytest.importorskip("dask.dataframe")
    with pytest.raises(booteval.InvalidInputError, match="the pattern matches nothing"):
        booteval.ci("nomatch/*.parquet", scores="s", seed=0, n_resamples=100)
    Path("c.parquet").write_text("s\n0.1\n0.5\n")
    with pytest.raises(booteval.InvalidInputError, match=r"`data`.*'c.parquet'"):
        booteval.ci("c.parquet", scores="s", seed=0, n_resamples=100)
