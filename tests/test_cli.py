"""The installed ``booteval`` command, run as a subprocess on real files of each format.

The numbers it prints (``--format json``) must equal the Python API's for the same seed;
bad input must end with exit status 2 and one line naming the file, the column and what was
expected, never a traceback.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import booteval

pd = pytest.importorskip("pandas")

B = "400"

# Every test here starts the installed command (a fresh interpreter, about half a second) at
# least once. The fast lane (`-m "not slow"`) keeps one run of `ci` per path (a file, a bad
# file, `power`, `demo`); the other subcommands run in-process in test_fuzz_cli.py,
# test_logs_cli.py and test_datasets.py, and everything here runs in the full suite.
slow = pytest.mark.slow


def run(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    exe = shutil.which("booteval")
    cmd = [exe] if exe else [sys.executable, "-m", "booteval"]
    return subprocess.run(
        [*cmd, *map(str, args)], input=stdin, capture_output=True, text=True, cwd=cwd,
        timeout=120,
    )  # fmt: skip


def run_here(capsys, *args: object) -> subprocess.CompletedProcess:
    """The command run in this process (``booteval.cli.main``): what a fresh process
    prints, without its start-up, for tests of the output rather than of the process."""
    from booteval.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), code, out, err)


def run_json(*args: str, **kw) -> dict:
    out = run(*args, "--format", "json", **kw)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def assert_same(record: dict, result) -> None:
    # exact equality: the command line and the API run the same computation
    for key in ("estimate", "low", "high", "n_resamples", "seed", "method", "n"):
        assert record[key] == getattr(result, key), key


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 300
    y = rng.integers(0, 2, n)
    p_a = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1).round(4)
    p_b = np.clip(0.25 * y + 0.75 * rng.random(n), 0, 1).round(4)
    return pd.DataFrame({
        "id": np.arange(n), "doc": rng.integers(0, 30, n), "label": y,
        "pred_a": (p_a > 0.5).astype(int), "pred_b": (p_b > 0.5).astype(int),
        "prob_a": p_a, "prob_b": p_b, "bleu": rng.random(n).round(4),
    })  # fmt: skip


def write(df: pd.DataFrame, path: Path) -> Path:
    suffix = path.suffix
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".tsv":
        df.to_csv(path, sep="\t", index=False)
    elif suffix == ".parquet":
        pytest.importorskip("pyarrow")
        df.to_parquet(path, index=False)
    else:
        df.to_json(path, orient="records", lines=True)
    return path


# ----------------------------------------------------------------------- help and version
@slow
def test_version_and_help(capsys):
    out = run("--version")  # the installed command, in a fresh process
    assert out.returncode == 0 and out.stdout.strip() == f"booteval {booteval.__version__}"
    out = run_here(capsys, "--help")
    assert out.returncode == 0
    for sub in ("ci", "compare", "leaderboard", "correlate", "power", "demo"):
        assert sub in out.stdout
    for sub in ("ci", "compare", "leaderboard", "correlate", "power", "demo"):
        h = run_here(capsys, sub, "--help")
        assert h.returncode == 0 and "usage: booteval " + sub in h.stdout, sub
        assert not h.stderr


# ----------------------------------------------------------------------------- ci
@pytest.mark.parametrize(
    "suffix", [".csv", *(pytest.param(s, marks=slow) for s in (".tsv", ".parquet", ".jsonl"))]
)
def test_ci_matches_api_for_every_format(frame, tmp_path, suffix):
    path = write(frame, tmp_path / f"runs{suffix}")
    doc = run_json(
        "ci", path, "--y-true", "label", "--y-pred", "pred_a", "--score", "prob_a",
        "--metric", "accuracy", "--metric", "roc_auc", "--seed", "3", "-B", B,
    )  # fmt: skip
    recs = {r["metric"]: r for r in doc["results"]}
    acc = booteval.ci(frame["label"], frame["pred_a"], metric="accuracy", seed=3, n_resamples=400)
    auc = booteval.ci(frame["label"], frame["prob_a"], metric="roc_auc", seed=3, n_resamples=400)
    assert_same(recs["accuracy"], acc)
    assert_same(recs["roc_auc"], auc)
    assert doc["provenance"]["booteval"] == booteval.__version__
    assert doc["provenance"]["seed"] == 3 and doc["provenance"]["n_resamples"] == 400


@slow
def test_ci_clusters_method_level_and_several_systems(frame, tmp_path):
    path = write(frame, tmp_path / "runs.csv")
    doc = run_json(
        "ci", path, "--score", "prob_*", "--cluster", "doc", "--method", "percentile",
        "--confidence", "0.9", "--seed", "1", "-B", B,
    )  # fmt: skip
    assert [r["system"] for r in doc["results"]] == ["prob_a", "prob_b"]
    for rec, col in zip(doc["results"], ["prob_a", "prob_b"], strict=True):
        r = booteval.ci(frame[col], clusters=frame["doc"], method="percentile",
                        confidence_level=0.9, seed=1, n_resamples=400)  # fmt: skip
        assert_same(rec, r)
        assert rec["n_clusters"] == 30


@slow
def test_ci_long_format_and_stdin(frame):
    long = pd.concat([
        pd.DataFrame({"system": s, "label": frame["label"], "pred": frame[f"pred_{s}"]})
        for s in ("a", "b")
    ])  # fmt: skip
    doc = run_json("ci", "-", "--system", "system", "--y-true", "label", "--y-pred", "pred",
                   "--seed", "0", "-B", B, stdin=long.to_csv(index=False))  # fmt: skip
    assert [r["system"] for r in doc["results"]] == ["a", "b"]
    for rec, s in zip(doc["results"], "ab", strict=True):
        r = booteval.ci(frame["label"], frame[f"pred_{s}"], metric="accuracy", seed=0,
                        n_resamples=400)  # fmt: skip
        assert_same(rec, r)


@slow
def test_ci_metric_parameters(frame, tmp_path):
    path = write(frame, tmp_path / "runs.jsonl")
    doc = run_json("ci", path, "--y-true", "label", "--y-pred", "pred_b", "--metric",
                   "f1:average=macro", "--seed", "0", "-B", B)  # fmt: skip
    r = booteval.ci(frame["label"], frame["pred_b"], metric="f1",
                    metric_kwargs={"average": "macro"}, seed=0, n_resamples=400)  # fmt: skip
    assert doc["results"][0]["metric"] == "f1(average='macro')"
    assert_same(doc["results"][0], r)


# ------------------------------------------------------------------------- outputs
@slow
def test_text_markdown_latex_csv_carry_provenance(frame, tmp_path, capsys):
    path = write(frame, tmp_path / "runs.csv")
    base = ["ci", path, "--score", "bleu", "--seed", "5", "-B", B, "--scale", "100",
            "--digits", "2"]  # fmt: skip
    r = booteval.ci(frame["bleu"], seed=5, n_resamples=400)
    for fmt in ("text", "markdown", "latex", "csv"):
        out = run_here(capsys, *base, "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert f"booteval {booteval.__version__}" in out.stdout or fmt == "csv"
        if fmt != "csv":
            assert r.format(100, 2) in out.stdout, fmt
            assert "seed = 5" in out.stdout and "B = 400" in out.stdout
            assert r.method in out.stdout  # method="auto" names what it chose
        else:
            rows = list(pd.read_csv(pd.io.common.StringIO(out.stdout)).itertuples())
            assert rows[0].estimate == pytest.approx(r.estimate)
            assert rows[0].seed == 5 and rows[0].method == r.method
            assert rows[0].provenance_booteval == booteval.__version__
    assert "\\toprule" in run_here(capsys, *base, "--format", "latex").stdout
    target = tmp_path / "table.md"
    out = run_here(capsys, *base, "--output", target, "--quiet")
    assert out.returncode == 0 and out.stdout == ""
    assert target.read_text().startswith("| system |")


# ------------------------------------------------------------------------- compare
@slow
def test_compare_wide_and_long_match_api(frame, tmp_path):
    path = write(frame, tmp_path / "runs.parquet")
    doc = run_json(
        "compare",
        path,
        "--y-true",
        "label",
        "--score",
        "prob_a",
        "--score",
        "prob_b",
        "--metric",
        "roc_auc",
        "--cluster",
        "doc",
        "--seed",
        "2",
        "-B",
        B,
    )
    r = booteval.compare(frame["label"], frame["prob_a"], frame["prob_b"], metric="roc_auc",
                         clusters=frame["doc"], seed=2, n_resamples=400,
                         names=("prob_a", "prob_b"))  # fmt: skip
    rec = doc["results"][0]
    for key in ("difference", "low", "high", "p_value", "estimate_a", "estimate_b"):
        assert rec[key] == getattr(r, key), key
    assert (rec["name_a"], rec["name_b"]) == ("prob_a", "prob_b")

    # long format, shuffled rows, aligned by --id; McNemar's test
    long = pd.concat([
        pd.DataFrame({"model": s, "item": frame["id"], "label": frame["label"],
                      "pred": frame[f"pred_{s}"]})
        for s in ("a", "b")
    ]).sample(frac=1.0, random_state=0)  # fmt: skip
    lpath = write(long, tmp_path / "long.tsv")
    doc = run_json("compare", lpath, "--system", "model", "--id", "item", "--y-true", "label",
                   "--y-pred", "pred", "--a", "a", "--b", "b", "--metric", "accuracy",
                   "--test", "mcnemar", "--seed", "0", "-B", B)  # fmt: skip
    r = booteval.compare(
        frame["label"],
        frame["pred_a"],
        frame["pred_b"],
        metric="accuracy",
        test="mcnemar",
        seed=0,
        n_resamples=400,
        names=("a", "b"),
    )
    rec = doc["results"][0]
    assert rec["difference"] == pytest.approx(r.difference)
    assert rec["p_value"] == pytest.approx(r.p_value) and rec["test"] == "mcnemar"


# --------------------------------------------------------------------- leaderboard
@slow
def test_leaderboard_long_matches_api(frame, tmp_path):
    long = pd.concat([
        pd.DataFrame({"model": s, "item": frame["id"], "correct": frame[f"pred_{s}"] ==
                      frame["label"], "doc": frame["doc"]})
        for s in ("a", "b")
    ]).astype({"correct": int})  # fmt: skip
    long = pd.concat([long, long[long.model == "a"].assign(model="c")])
    path = write(long, tmp_path / "long.jsonl")
    doc = run_json(
        "leaderboard",
        path,
        "--system",
        "model",
        "--id",
        "item",
        "--score",
        "correct",
        "--cluster",
        "doc",
        "--seed",
        "4",
        "-B",
        "1000",
        "--pairs",
        "all",
    )
    board = booteval.leaderboard(long, system_col="model", row_col="item", output_col="correct",
                                 clusters="doc", seed=4, n_resamples=1000)  # fmt: skip
    assert [s["name"] for s in doc["results"]] == list(board.names)
    for rec, e in zip(doc["results"], board.entries, strict=True):
        assert (rec["estimate"], rec["low"], rec["high"]) == (e.estimate, e.low, e.high)
        assert (rec["rank_low"], rec["rank_high"], rec["letters"]) == (
            e.rank_low, e.rank_high, e.letters)  # fmt: skip
    assert [p["p_adjusted"] for p in doc["pairs"]] == [p.p_adjusted for p in board.pairs]
    text = run("leaderboard", path, "--system", "model", "--id", "item", "--score", "correct",
               "--seed", "4", "-B", "1000", "--pairs", "adjacent").stdout  # fmt: skip
    assert "rank 95%" in text and "pairwise differences" in text and "seed = 4" in text


# ---------------------------------------------------------------------------- power
def test_power_from_pilot_and_numbers(frame, tmp_path):
    frame = frame.assign(ok_a=(frame.pred_a == frame.label).astype(int),
                         ok_b=(frame.pred_b == frame.label).astype(int))  # fmt: skip
    path = write(frame, tmp_path / "pilot.csv")
    doc = run_json("power", path, "--a", "ok_a", "--b", "ok_b", "--cluster", "doc")
    m = booteval.minimum_detectable_effect(frame.ok_a, frame.ok_b, clusters=frame.doc)
    assert doc["results"][0]["effect"] == pytest.approx(m.effect)
    doc = run_json("power", path, "--a", "ok_a", "--b", "ok_b", "--effect", "0.05", "--solve", "n")
    n = booteval.required_sample_size(frame.ok_a, frame.ok_b, effect=0.05)
    assert doc["results"][0]["n"] == n.n
    doc = run_json("power", "--standard-error", "0.01", "--n", "1000", "--effect", "0.02")
    assert doc["results"][0]["power"] == pytest.approx(
        booteval.power_for_effect(standard_error=0.01, n=1000, effect=0.02).power
    )


# ---------------------------------------------------------------------------- errors
@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "text.csv").write_text("label,score\n1,0.5\n0,abc\n")
    (tmp_path / "nan.csv").write_text("label,pred\n1,1\n0,\n1,0\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("label,pred\n")
    (tmp_path / "broken.parquet").write_text("not parquet")
    (tmp_path / "ok.csv").write_text("label,pred\n1,1\n0,0\n1,0\n")
    return tmp_path


def _slow_but(cases: list, *fast: int) -> list:
    """The cases at the indices ``fast`` stay in the fast lane; the others are slow."""
    return [c if i in fast else pytest.param(*c, marks=slow) for i, c in enumerate(cases)]


@pytest.mark.parametrize(
    ("args", "needles"),
    _slow_but([
        (["ci", "missing.csv", "--score", "s"], ["missing.csv", "no such file"]),
        (["ci", "ok.csv", "--score", "nope"], ["ok.csv", "'nope'", "--score", "not found",
                                               "label, pred"]),
        (["ci", "text.csv", "--score", "score"], ["text.csv", "'score'", "expected numbers",
                                                  "'abc'", "row 2"]),
        (["ci", "nan.csv", "--y-true", "label", "--y-pred", "pred"],
         ["nan.csv", "'pred'", "missing", "row 2"]),
        (["ci", "empty.csv", "--score", "s"], ["empty.csv", "empty"]),
        (["ci", "header.csv", "--score", "pred"], ["header.csv", "no data rows"]),
        (["ci", "broken.parquet", "--score", "s"], ["broken.parquet", "parquet"]),
        (["ci", "ok.csv", "--y-true", "label", "--y-pred", "pred", "--metric", "nosuch"],
         ["--metric", "nosuch", "accuracy"]),
        (["ci", "ok.csv", "--score", "pred", "--confidence", "95"],
         ["--confidence 95", "0.95"]),
        (["ci", "ok.csv", "--y-pred", "pred", "--metric", "accuracy"], ["--y-true"]),
        (["compare", "ok.csv", "--a", "pred", "--b", "zz"], ["ok.csv", "'zz'", "--b"]),
        (["compare", "ok.csv", "--y-true", "label", "--a", "pred", "--b", "pred", "--metric",
          "roc_auc", "--test", "mcnemar"], ["mcnemar", "accuracy"]),
        (["leaderboard", "ok.csv", "--system", "label", "--score", "pred"], ["--id"]),
        (["ci", "ok.csv", "--score", "pred", "--plot", "fig.jpg"], ["--plot", ".png"]),
        (["ci", "ok.csv", "--score", "pred", "--method", "nope"], ["--method", "nope"]),
    ], 0, 2),
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(bad_files, args, needles, request, capsys, monkeypatch):
    # the fast lane's cases start the installed command; the others run it in-process
    if any(m.name == "slow" for m in request.node.iter_markers()):
        monkeypatch.chdir(bad_files)
        out = run_here(capsys, *args)
    else:
        out = run(*args, cwd=bad_files)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    for needle in needles:
        assert needle in last, (needle, last)
    if "--method" not in args:  # argparse's own errors come after the usage
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr


# ---------------------------------------------------------------------------- plots
@slow
def test_plot_flag_writes_an_image(frame, tmp_path):
    pytest.importorskip("matplotlib")
    try:
        import booteval.plot  # noqa: F401
    except ImportError:
        pytest.skip("booteval.plot is not available")
    path = write(frame, tmp_path / "runs.csv")
    fig = tmp_path / "dist.png"
    out = run("ci", path, "--score", "bleu", "-B", B, "--seed", "0", "--plot", fig, "-q")
    assert out.returncode == 0, out.stderr
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------ demo
def test_demo_runs_end_to_end(tmp_path):
    pytest.importorskip("sklearn")
    out = run("demo", "-B", "300", "--quiet", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for needle in ("$ booteval ci", "$ booteval compare", "$ booteval leaderboard",
                   "$ booteval power", "roc_auc (95% CI)", "B = 300, seed = 0",
                   "Files written to booteval-demo/", "files stay in booteval-demo/"):  # fmt: skip
        assert needle in out.stdout, needle
    assert sorted(p.name for p in (tmp_path / "booteval-demo").iterdir()) == [
        "test.csv",
        "test_long.csv",
    ]


@slow
def test_demo_commands_rerun_as_printed(tmp_path, capsys, monkeypatch):
    """Every command the demo prints, run again from the same folder, prints what the demo
    showed under it; ``--out`` names the folder."""
    pytest.importorskip("sklearn")
    monkeypatch.chdir(tmp_path)
    out = run_here(capsys, "demo", "-B", "300", "--quiet", "--out", "my demo")
    assert out.returncode == 0, out.stderr
    assert "Files written to my demo/" in out.stdout
    # the ROC-AUC interval excludes 0 while DeLong's p > 0.05: the output says why
    assert "excludes 0 but the delong test gives p = " in out.stdout
    steps = out.stdout.split("\n$ booteval ")[1:]
    assert len(steps) == 5
    for step in steps:
        command = step.partition("\n")[0]
        again = run_here(capsys, *shlex.split(command))  # as a shell would split it
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() and again.stdout.strip() in out.stdout, command


def test_demo_refuses_an_out_that_is_a_file(tmp_path):
    (tmp_path / "taken").write_text("x")
    out = run("demo", "-B", "200", "--quiet", "--out", "taken", cwd=tmp_path)
    assert out.returncode == 2
    assert "--out" in out.stderr and "is a file" in out.stderr


# ------------------------------------------------------------------------ real data
@slow
def test_mmlu_pro_leaderboard_matches_api(tmp_path):
    path = tmp_path / "mmlu_pro_correct.csv"  # the shipped data, as `booteval datasets` writes it
    path.write_bytes(booteval.datasets.csv_bytes("mmlu_pro"))
    doc = run_json("leaderboard", path, "--score", "Meta-Llama-3-*", "--score", "Qwen1.5-110B",
                   "--cluster", "src", "--seed", "0", "-B", "500")  # fmt: skip
    df = pd.read_csv(path)
    cols = ["Meta-Llama-3-70B", "Meta-Llama-3-8B", "Qwen1.5-110B"]
    board = booteval.leaderboard({c: df[c] for c in cols}, clusters=df["src"], seed=0,
                                 n_resamples=500)  # fmt: skip
    assert [r["name"] for r in doc["results"]] == list(board.names)
    assert [r["high"] for r in doc["results"]] == [e.high for e in board.entries]
    assert doc["n_clusters"] == 91


@slow
def test_summeval_correlate_matches_api(tmp_path):
    path = tmp_path / "summeval_long.csv"
    path.write_bytes(booteval.datasets.csv_bytes("summeval"))
    doc = run_json("correlate", path, "--system", "system_id", "--input", "input_id",
                   "--metric-col", "rouge2_f1", "--metric-col", "bertscore_r", "--human",
                   "expert_relevance", "--level", "system", "--coefficient", "kendall",
                   "--seed", "0", "-B", "300")  # fmt: skip
    df = pd.read_csv(path)
    mats = booteval.meta.score_matrices(df, ["rouge2_f1", "bertscore_r", "expert_relevance"],
                                   system="system_id", input="input_id")  # fmt: skip
    out = booteval.correlate_metrics(
        {k: mats[k] for k in ("rouge2_f1", "bertscore_r")}, mats["expert_relevance"],
        coefficient="kendall", seed=0, n_resamples=300,
    )  # fmt: skip
    for rec, (name, r) in zip(doc["results"], out.items(), strict=True):
        assert rec["metric"] == name
        assert (rec["estimate"], rec["low"], rec["high"]) == (r.estimate, r.low, r.high)


@slow
def test_without_seed_one_short_seed_is_printed_for_every_metric(tmp_path):
    path = tmp_path / "p.csv"
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    pd.DataFrame({"y": y, "p": y ^ (rng.random(80) < 0.2), "s": rng.random(80)}).to_csv(
        path, index=False
    )
    args = ("ci", path, "--y-true", "y", "--y-pred", "p", "--score", "s", "-m", "f1",
            "-m", "roc_auc", "-B", "300")  # fmt: skip
    out = run(*args)
    assert out.returncode == 0, out.stderr
    seeds = [int(s) for s in re.findall(r"seed = (\d+)", out.stdout)]
    assert len(seeds) == 1 and seeds[0] < 2**32
    again = run(*args, "--seed", str(seeds[0]))
    assert again.stdout == out.stdout
