"""The command line on harness logs, several files, globs, nested fields and composite ids.

``booteval leaderboard`` on a directory of lm-eval sample files from several models must
give the same numbers as the Python API (``booteval.logs.read`` + ``wide`` +
``booteval.leaderboard``) on the same data, clustered by a nested field.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import booteval
from booteval.cli import main
from booteval.logs import read, wide

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

LOGS = Path(__file__).resolve().parent / "data" / "logs"
LM = LOGS / "lm_eval"


def cli_json(capsys, *args: str) -> tuple[dict, str]:
    code = main([*map(str, args), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


def cli_error(capsys, *args: str) -> str:
    code = main(list(map(str, args)))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err


def assert_board(doc: dict, board) -> None:
    assert [r["name"] for r in doc["results"]] == list(board.names)
    for rec, e in zip(doc["results"], board.entries, strict=True):
        assert (rec["estimate"], rec["low"], rec["high"]) == (e.estimate, e.low, e.high)
        assert (rec["rank_low"], rec["rank_high"]) == (e.rank_low, e.rank_high)
    assert doc["n_clusters"] == board.n_clusters


def test_leaderboard_on_lm_eval_directory_equals_api(tmp_path):
    """The installed command on a directory of several models' runs, clustered by doc.subject."""
    runs = tmp_path / "runs"
    for folder in LM.iterdir():  # only the mmlu task, as `lm_eval --tasks mmlu_mini` writes
        (runs / folder.name).mkdir(parents=True)
        for f in folder.iterdir():
            if "gsm8k" not in f.name:
                shutil.copy(f, runs / folder.name / f.name)
    exe = shutil.which("booteval")
    cmd = [exe] if exe else [sys.executable, "-m", "booteval"]
    out = subprocess.run(
        [*cmd, "leaderboard", str(runs), "--cluster", "doc.subject", "--seed", "11",
         "-B", "500", "--pairs", "all", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    table = read(runs)
    w = wide(table, "acc")
    models = w.attrs["models"]
    board = booteval.leaderboard(w[models], clusters=w["doc.subject"], seed=11, n_resamples=500)
    assert_board(doc, board)
    assert doc["n"] == 40 and doc["n_clusters"] == 8 and len(models) == 3
    got = {(p["name_a"], p["name_b"]): (p["difference"], p["low"], p["high"], p["p_adjusted"])
           for p in doc["pairs"]}  # fmt: skip
    for p in board.pairs:
        assert got[(p.name_a, p.name_b)] == (p.difference, p.low, p.high, p.p_adjusted)
    # and the per-model means are lm-eval's own numbers
    for folder in LM.iterdir():
        (res,) = folder.glob("results_*.json")
        res = json.loads(res.read_text())
        (rec,) = [r for r in doc["results"] if r["name"] == res["model_name"]]
        assert rec["estimate"] == pytest.approx(res["results"]["mmlu_mini"]["acc,none"])


def test_glob_and_several_files_with_notes(capsys):
    pattern = str(LM / "*" / "samples_mmlu*.jsonl")
    doc, err = cli_json(capsys, "leaderboard", pattern, "--cluster", "doc.subject", "--seed",
                        "2", "-B", "300")  # fmt: skip
    files = sorted(LM.glob("*/samples_mmlu*.jsonl"))
    doc2, _ = cli_json(capsys, "leaderboard", *files, "--cluster", "doc.subject", "--seed", "2",
                       "-B", "300")  # fmt: skip
    assert doc["results"] == doc2["results"]
    # the whole directory: two tasks; the notes say what is left out
    doc3, err = cli_json(capsys, "leaderboard", LM, "--score", "acc", "--cluster",
                         "doc.subject", "--seed", "2", "-B", "300")  # fmt: skip
    assert doc3["results"] == doc["results"]
    assert "kept filter 'strict-match'; 36 rows" in err
    assert "task 'gsm8k_mini' has no 'acc' (36 rows); the task is left out" in err
    err = cli_error(capsys, "leaderboard", LM, "--score", "bleu")
    assert "--score 'bleu': not a score of these logs; expected one of: exact_match, acc" in err


def test_compare_and_ci_on_inspect_epochs(capsys):
    """Epochs are the nested design by default: each item's mean over its samples, items
    resampled with their samples; ``--agg mean`` says the same and gives the same numbers."""
    doc, err = cli_json(capsys, "compare", LOGS / "inspect", "--cluster",
                        "metadata.difficulty", "--seed", "5", "-B", "400")  # fmt: skip
    doc_agg, _ = cli_json(capsys, "compare", LOGS / "inspect", "--agg", "mean", "--cluster",
                          "metadata.difficulty", "--seed", "5", "-B", "400")  # fmt: skip
    assert doc_agg["results"] == doc["results"]
    assert "C -> 1, I -> 0, P -> 0.5" in err and "1 samples without scores" in err
    table = read(LOGS / "inspect")
    w = wide(table.sort_values("item", kind="stable"), "choice", agg="mean")
    a, b = w.attrs["models"]
    groups = w["metadata.difficulty"].to_numpy()
    x = table["choice"].dropna()
    metric = booteval.methods.samples.PerItemMean("choice", (x.min(), x.max()))
    r = booteval.compare(w[a].to_numpy(), w[b].to_numpy(), names=(a, b), clusters=groups,
                         seed=5, n_resamples=400, metric=metric)  # fmt: skip
    (rec,) = doc["results"]
    assert (rec["difference"], rec["low"], rec["high"]) == (r.difference, r.low, r.high)
    (logs,) = doc["logs"]
    assert logs["samples_per_item"] == [3, 3] and logs["task"] == "arc_mini"
    # ci: each model's interval is booteval.nested_ci's on its samples
    doc, _ = cli_json(capsys, "ci", LOGS / "code" / "human_eval", "--seed", "1", "-B", "300",
                      "-q")  # fmt: skip
    hum = read(LOGS / "code" / "human_eval")
    for rec in doc["results"]:
        rows = hum[hum["model"] == rec["system"]]
        want = booteval.nested_ci(rows["passed"], rows["item"], method="auto", seed=1,
                                  n_resamples=300)  # fmt: skip
        assert (rec["estimate"], rec["low"], rec["high"]) == (want.estimate, want.low, want.high)
        assert rec["task"] == "HumanEval" and rec["metric"] == "passed"
    err = cli_error(capsys, "compare", LM, "--score", "acc")
    assert "the logs hold 3 models" in err and "--a and --b" in err
    err = cli_error(capsys, "compare", LM, "--score", "acc", "--a", "EleutherAI/pythia-1b",
                    "--b", "gpt")  # fmt: skip
    assert "model 'gpt' (--b) not in the logs" in err


def test_malformed_log_exits_2_naming_file_line_field(tmp_path, capsys):
    folder = tmp_path / "m"
    shutil.copytree(LM / "EleutherAI__pythia-1b", folder)
    (path,) = folder.glob("samples_mmlu_mini_*.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    rec = json.loads(lines[8])
    rec["acc"] = [1, 2]
    lines[8] = json.dumps(rec) + "\n"
    path.write_text("".join(lines))
    err = cli_error(capsys, "ci", folder, "--score", "acc")
    assert f"{path}: line 9: field 'acc': expected a number" in err


def test_flat_files_nested_fields_and_composite_ids(tmp_path, capsys):
    rows = []
    for model, shift in (("a", 0), ("b", 1), ("c", 2)):
        for task in ("t1", "t2"):
            for doc_id in range(15):  # doc_id repeats across tasks: the id is (task, doc_id)
                rows.append({"model": model, "task": task, "doc_id": doc_id,
                             "correct": int((doc_id * 7 + shift + len(task)) % 3 > 0),
                             "doc": {"subject": f"s{doc_id % 4}",
                                     "meta": {"len": doc_id}}})  # fmt: skip
    half = len(rows) // 2
    for name, part in (("one.jsonl", rows[:half]), ("two.jsonl", rows[half:])):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in part))
    doc, _ = cli_json(capsys, "leaderboard", tmp_path / "one.jsonl", tmp_path / "two.jsonl",
                      "--system", "model", "--id", "task", "--id", "doc_id", "--score", "correct",
                      "--cluster", "doc.subject", "--seed", "3", "-B", "300", "--method",
                      "percentile")  # fmt: skip
    df = pd.DataFrame([{**{k: v for k, v in r.items() if k != "doc"},
                        "doc.subject": r["doc"]["subject"], "key": f"{r['task']} | {r['doc_id']}"}
                       for r in rows])  # fmt: skip
    board = booteval.leaderboard(df, system_col="model", row_col="key", output_col="correct",
                                 clusters="doc.subject", seed=3, n_resamples=300,
                                 method="percentile")  # fmt: skip
    assert_board(doc, board)
    assert doc["n"] == 30
    # a single --id of a column that repeats is refused, as before
    err = cli_error(capsys, "leaderboard", tmp_path / "one.jsonl", tmp_path / "two.jsonl",
                    "--system", "model", "--id", "doc_id", "--score", "correct")  # fmt: skip
    assert "doc_id" in err
    # --input-format long reads the same rows as a log table (model/item/score columns)
    long = tmp_path / "long.csv"
    df.rename(columns={"key": "item"}).drop(columns=["task", "doc_id"]).to_csv(long, index=False)
    doc2, _ = cli_json(capsys, "leaderboard", long, "--input-format", "long", "--score",
                       "correct", "--cluster", "doc.subject", "--seed", "3", "-B", "300",
                       "--method", "percentile")  # fmt: skip
    assert [r["estimate"] for r in doc2["results"]] == [e.estimate for e in board.entries]
