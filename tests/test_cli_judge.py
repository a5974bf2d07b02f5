"""``booteval ci/compare --human``: judge scores corrected with human labels (PPI++), the same
numbers as booteval.judge_corrected_ci / judge_corrected_compare for the same seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import booteval
from booteval.cli import main

pd = pytest.importorskip("pandas")


@pytest.fixture
def judged(tmp_path):
    rng = np.random.default_rng(0)
    n = 1500
    truth_a, truth_b = rng.random(n) < 0.6, rng.random(n) < 0.7
    judge_a = np.where(rng.random(n) < 0.85, truth_a, ~truth_a).astype(int)
    judge_b = np.where(rng.random(n) < 0.85, truth_b, rng.random(n) < 0.9).astype(int)
    lab = rng.random(n) < 0.1
    df = pd.DataFrame({
        "judge_a": judge_a, "judge_b": judge_b,
        "human_a": np.where(lab, truth_a.astype(float), np.nan),
        "human_b": np.where(lab, truth_b.astype(float), np.nan),
        "topic": rng.integers(0, 60, n),
    })  # fmt: skip
    path = tmp_path / "judged.csv"
    df.to_csv(path, index=False)
    return path, df


def run(capsys, *args):
    code = main([*map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ci_equals_the_api(judged, capsys):
    path, df = judged
    for method, api in (("auto", "auto"), ("normal", "clt"), ("percentile", "bootstrap")):
        code, out, err = run(capsys, "ci", path, "--score", "judge_a", "--score", "judge_b",
                             "--human", "human_a", "--human", "human_b", "--method", method,
                             "--seed", "4", "-B", "500", "--cluster", "topic", "-f",
                             "json")  # fmt: skip
        assert code == 0, err
        doc = json.loads(out)
        for rec, (j, h) in zip(doc["results"], (("judge_a", "human_a"), ("judge_b", "human_b")),
                               strict=True):  # fmt: skip
            lab = df[h].notna().to_numpy()
            want = booteval.judge_corrected_ci(
                df.loc[lab, h], df.loc[lab, j], df.loc[~lab, j], method=api, seed=4,
                n_resamples=500, clusters=df.loc[lab, "topic"],
                clusters_unlabelled=df.loc[~lab, "topic"],
            )  # fmt: skip
            assert rec["system"] == j
            assert (rec["estimate"], rec["low"], rec["high"], rec["lam"]) == (
                want.estimate, want.low, want.high, want.lam)  # fmt: skip
            assert rec["n_labelled"] == int(lab.sum()) and rec["n_unlabelled"] == int((~lab).sum())


def test_text_states_lambda_sizes_and_gain(judged, capsys):
    path, _ = judged
    code, out, _ = run(capsys, "ci", path, "--score", "judge_a", "--human", "human_a", "--seed",
                       "1")  # fmt: skip
    assert code == 0
    head = out.splitlines()[0]
    for word in ("judge-corrected (95% CI)", "human only", "judge only", "lambda", "labelled",
                 "unlabelled", "eff. n"):  # fmt: skip
        assert word in head
    assert "PPI++ intervals (clt), power-tuned lambda" in out


def test_compare_equals_the_api(judged, capsys):
    path, df = judged
    code, out, err = run(capsys, "compare", path, "--a", "judge_a", "--b", "judge_b", "--human",
                         "human_a", "--human", "human_b", "--seed", "2", "-f", "json")  # fmt: skip
    assert code == 0, err
    (rec,) = json.loads(out)["results"]
    lab = df["human_a"].notna().to_numpy()
    want = booteval.judge_corrected_compare(
        df.loc[lab, "human_a"], df.loc[lab, "human_b"], df.loc[lab, "judge_a"],
        df.loc[lab, "judge_b"], df.loc[~lab, "judge_a"], df.loc[~lab, "judge_b"],
        names=("judge_a", "judge_b"), seed=2,
    )  # fmt: skip
    assert (rec["estimate"], rec["low"], rec["high"], rec["p_value"]) == (
        want.estimate, want.low, want.high, want.p_value)  # fmt: skip
    assert rec["estimate_b"] - rec["estimate_a"] == pytest.approx(rec["estimate"])


def test_long_format(tmp_path, capsys, judged):
    _, df = judged
    long = pd.concat([
        pd.DataFrame({"system": s, "judge": df[f"judge_{s}"], "human": df[f"human_{s}"]})
        for s in ("a", "b")
    ])  # fmt: skip
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    code, out, err = run(capsys, "ci", path, "--system", "system", "--score", "judge",
                         "--human", "human", "--seed", "3", "-f", "json")  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert [r["system"] for r in doc["results"]] == ["a", "b"]
    lab = df["human_a"].notna().to_numpy()
    want = booteval.judge_corrected_ci(df.loc[lab, "human_a"], df.loc[lab, "judge_a"],
                                       df.loc[~lab, "judge_a"], seed=3)  # fmt: skip
    assert doc["results"][0]["low"] == want.low


@pytest.mark.parametrize(
    "edit,args,message",
    [
        (None, ["--score", "judge_a", "--human", "human_a", "--method", "bca"],
         "--method bca: with --human the interval is PPI++'s"),
        (None, ["--score", "judge_a", "--score", "judge_b", "--human", "human_a"],
         "2 --score columns and one --human"),
        ("partial", ["--score", "judge_a", "--human", "human_a", "--human", "human_b",
                     "--score", "judge_b"], None),
        ("none", ["--score", "judge_a", "--human", "human_a"],
         "expected human labels on at least 2 rows"),
        ("all", ["--score", "judge_a", "--human", "human_a"], "every row is labelled"),
        ("text", ["--score", "judge_a", "--human", "human_a"], "expected numbers; found 'yes'"),
    ],
)  # fmt: skip
def test_bad_inputs_are_one_line(judged, tmp_path, capsys, edit, args, message):
    path, df = judged
    df = df.copy()
    if edit == "none":
        df["human_a"] = np.nan
    elif edit == "all":
        df["human_a"] = 1.0
    elif edit == "text":
        df["human_a"] = df["human_a"].astype(object)
        df.loc[df["human_a"].notna().idxmax(), "human_a"] = "yes"
    path = tmp_path / "bad.csv"
    df.to_csv(path, index=False)
    code, _, err = run(capsys, "ci", path, *args)
    if edit == "partial":  # ci pairs judge and human per system: partial rows are fine there
        assert code == 0, err
        return
    assert code == 2 and "Traceback" not in err
    assert message in err


def test_compare_refuses_rows_labelled_for_one_system(judged, tmp_path, capsys):
    _, df = judged
    df = df.copy()
    first = df["human_a"].notna().idxmax()
    df.loc[first, "human_b"] = np.nan
    path = tmp_path / "partial.csv"
    df.to_csv(path, index=False)
    code, _, err = run(capsys, "compare", path, "--a", "judge_a", "--b", "judge_b", "--human",
                       "human_a", "--human", "human_b")  # fmt: skip
    assert code == 2 and "1 rows have one label" in err
