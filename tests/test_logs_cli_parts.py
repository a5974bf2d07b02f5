"""The command line answers LLM questions from harness logs directly.

One row (or leaderboard) per (task, score), ``--task`` and several ``--score``; repeated
samples as the nested design; ``--pass-at-k`` / ``--pass-hat-k``; runs given as separate
files or directories joined by item id with a join report. Each answer must equal the
Python function that answers the same question, for the same seed.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import booteval
from booteval.cli import main
from booteval.logs import read, wide
from booteval.methods.pass_at_k import pass_hat_k_values

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

LOGS = Path(__file__).resolve().parent / "data" / "logs"
LM = LOGS / "lm_eval"
HUMAN_EVAL = LOGS / "code" / "human_eval"
B = ("--seed", "3", "-B", "300")


def cli(capsys, *args: object, fmt: str = "json") -> tuple[int, str, str]:
    argv = [*map(str, args)] + (["--format", fmt] if fmt else [])
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def cli_json(capsys, *args: object) -> tuple[dict, str]:
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    return json.loads(out), err


def cli_error(capsys, *args: object) -> str:
    code, _, err = cli(capsys, *args, fmt="")
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) >= 1
    return err.strip().splitlines()[-1]


# ---------------------------------------------------------------- tasks and scores
def test_one_row_per_task_and_model_each_equal_to_ci(capsys):
    doc, err = cli_json(capsys, "ci", LM, *B)
    table = read(LM)
    seen = set()
    for rec in doc["results"]:
        task, model = rec["task"], rec["system"]
        score = {"mmlu_mini": "acc", "gsm8k_mini": "exact_match"}[task]
        w = wide(table[table["task"] == task], score)
        want = booteval.ci(w[model].to_numpy(), seed=3, n_resamples=300)
        assert (rec["estimate"], rec["low"], rec["high"]) == (want.estimate, want.low, want.high)
        seen.add((task, model))
    assert len(seen) == 6 == len(doc["results"])
    assert "task 'gsm8k_mini' scored by 'exact_match'" not in err  # its only score
    assert {p["task"]: p["score"] for p in doc["logs"]} == {
        "mmlu_mini": "acc", "gsm8k_mini": "exact_match"}  # fmt: skip


def test_text_output_names_the_task_and_score(capsys):
    code, out, _ = cli(capsys, "ci", LM, *B, "-q", fmt="text")
    assert code == 0
    head = out.splitlines()[0].split()
    assert head[:4] == ["task", "score", "system", "value"]
    assert any(line.split()[:2] == ["gsm8k_mini", "exact_match"] for line in out.splitlines())
    assert any(line.split()[:2] == ["mmlu_mini", "acc"] for line in out.splitlines())
    # one score for every task: one column per score
    code, out, _ = cli(capsys, "ci", LM, "--task", "mmlu_mini", *B, "-q", fmt="text")
    assert out.splitlines()[0].split()[:3] == ["task", "system", "acc"]


def test_task_chooses_and_unknown_task_is_named(capsys):
    doc, _ = cli_json(capsys, "ci", LM, "--task", "mmlu_mini", *B)
    assert {r["task"] for r in doc["results"]} == {"mmlu_mini"}
    assert {r["metric"] for r in doc["results"]} == {"acc"}
    line = cli_error(capsys, "ci", LM, "--task", "mmlu")
    assert "--task 'mmlu': not a task of these logs; expected one of: " in line
    assert "gsm8k_mini" in line and "mmlu_mini" in line


def test_several_scores_give_one_leaderboard_each(capsys):
    doc, _ = cli_json(capsys, "leaderboard", LM, "--score", "acc", "--score", "exact_match",
                      "--joint", *B)  # fmt: skip
    boards = doc["boards"]
    assert [(b["task"], b["score"]) for b in boards] == [
        ("gsm8k_mini", "exact_match"), ("mmlu_mini", "acc")]  # fmt: skip
    table = read(LM)
    for b in boards:
        w = wide(table[table["task"] == b["task"]], b["score"])
        board = booteval.leaderboard(w[w.attrs["models"]], seed=3, n_resamples=300)
        mine = [r for r in doc["results"] if r["task"] == b["task"]]
        assert [r["name"] for r in mine] == list(board.names)
        for rec, e in zip(mine, board.entries, strict=True):
            assert (rec["estimate"], rec["low"], rec["high"]) == (e.estimate, e.low, e.high)
        assert b["p_best"] == pytest.approx(board.p_best)
    # the text output titles each leaderboard
    code, out, _ = cli(capsys, "leaderboard", LM, "--score", "acc", "--score", "exact_match",
                       *B, "-q", fmt="text")  # fmt: skip
    assert code == 0 and "gsm8k_mini (exact_match)" in out and "mmlu_mini (acc)" in out


def test_compare_by_task(capsys):
    a, b = "EleutherAI/pythia-160m", "EleutherAI/pythia-1b"
    doc, _ = cli_json(capsys, "compare", LM, "--a", a, "--b", b, *B)
    assert [r["task"] for r in doc["results"]] == ["gsm8k_mini", "mmlu_mini"]
    table = read(LM)
    for rec in doc["results"]:
        score = rec["metric"]
        w = wide(table[table["task"] == rec["task"]], score)
        want = booteval.compare(w[a], w[b], names=(a, b), seed=3, n_resamples=300)
        assert (rec["difference"], rec["low"], rec["high"]) == (want.difference, want.low,
                                                               want.high)  # fmt: skip
    line = cli_error(capsys, "compare", LM, "--a", a, "--b", "gpt")
    assert "model 'gpt' (--b) not in the logs" in line


def test_power_on_several_tasks_asks_for_one(capsys):
    line = cli_error(capsys, "power", LM, "--a", "EleutherAI/pythia-160m", "--b",
                     "EleutherAI/pythia-1b")  # fmt: skip
    assert "power reads one task and score; the logs give 2" in line and "--task" in line


# ---------------------------------------------------------------- repeats and pass@k
def test_pass_hat_k_values_equal_enumeration():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 8))
        c = int(rng.integers(0, n + 1))
        k = int(rng.integers(1, n + 1))
        outcomes = [1] * c + [0] * (n - c)
        draws = list(itertools.combinations(range(n), k))
        all_right = np.mean([all(outcomes[i] for i in d) for d in draws])
        assert pass_hat_k_values(n, c, k)[0] == pytest.approx(all_right, abs=1e-12)
        assert pass_hat_k_values(n, c, k)[0] == pytest.approx(math.comb(c, k) / math.comb(n, k))


@pytest.mark.parametrize("flag,kind", [("--pass-at-k", "pass@k"), ("--pass-hat-k", "pass^k")])
def test_pass_at_k_in_ci_compare_and_leaderboard_equals_the_api(capsys, flag, kind):
    hum = read(HUMAN_EVAL)
    models = list(dict.fromkeys(hum["model"]))
    doc, _ = cli_json(capsys, "ci", HUMAN_EVAL, flag, "3", *B)
    label = f"{kind.replace('k', '3')} (passed)"
    for rec in doc["results"]:
        rows = hum[hum["model"] == rec["system"]]
        want = booteval.pass_at_k(rows["passed"], rows["item"], 3, kind=kind, method="auto",
                                  seed=3, n_resamples=300)  # fmt: skip
        assert (rec["estimate"], rec["low"], rec["high"]) == (want.estimate, want.low, want.high)
        assert rec["metric"] == label
    doc, _ = cli_json(capsys, "compare", HUMAN_EVAL, flag, "3", *B)
    ra, rb = (hum[hum["model"] == m] for m in models)
    want = booteval.compare_pass_at_k(ra["passed"], ra["item"], rb["passed"], rb["item"], 3,
                                      kind=kind, names=tuple(models), method="auto", seed=3,
                                      n_resamples=300)  # fmt: skip
    (rec,) = doc["results"]
    assert (rec["difference"], rec["low"], rec["high"]) == (want.difference, want.low, want.high)
    assert doc["logs"][0]["samples_per_item"] == [5, 5]
    doc, _ = cli_json(capsys, "leaderboard", HUMAN_EVAL, flag, "3", *B)
    est = {r["name"]: r["estimate"] for r in doc["results"]}
    for m in models:
        rows = hum[hum["model"] == m]
        one = booteval.pass_at_k(rows["passed"], rows["item"], 3, kind=kind, n_resamples=50)
        assert est[m] == pytest.approx(one.estimate, abs=1e-12)


def test_pass_at_k_text_states_the_design(capsys):
    code, out, _ = cli(capsys, "ci", HUMAN_EVAL, "--pass-at-k", "2", *B, "-q", fmt="text")
    assert code == 0
    assert "design (passed): 5 samples per item; each item's value is the unbiased pass@2" in out


def test_pass_at_k_refusals(capsys):
    assert "k must be at most the fewest samples" in cli_error(
        capsys, "ci", HUMAN_EVAL, "--pass-at-k", "6"
    )
    assert "not both" in cli_error(capsys, "ci", HUMAN_EVAL, "--pass-at-k", "2",
                                   "--pass-hat-k", "2")  # fmt: skip
    assert "expected an integer >= 1" in cli_error(capsys, "ci", HUMAN_EVAL, "--pass-at-k", "0")
    # Inspect's partial credit (P -> 0.5) is not a 0/1 score
    assert "needs a 0/1 score" in cli_error(capsys, "ci", LOGS / "inspect", "--pass-at-k", "2")
    # one sample per item: nothing to draw k of
    assert "one sample per item" in cli_error(capsys, "ci", LM, "--task", "mmlu_mini",
                                              "--pass-at-k", "2")  # fmt: skip
    line = cli_error(capsys, "ci", HUMAN_EVAL, "--metric", "mean", "--metric", "mean")
    assert "harness logs hold one score per item and model, and the metric is their mean" in line
    line = cli_error(capsys, "ci", HUMAN_EVAL, "--y-true", "passed")
    assert "--y-true: harness logs hold one score per item" in line


def test_repeats_are_the_nested_design_by_default(capsys):
    """The old refusal is gone: epochs give each model's nested_ci, counted in the output."""
    code, out, err = cli(capsys, "ci", LOGS / "inspect", *B, fmt="text")
    assert code == 0, err
    assert "3 samples per item" in out and "nested design" in out


# ---------------------------------------------------------------- runs joined by id
def _run(tmp_path: Path, name: str, model_dir: str, keep=None, flip=()) -> Path:
    """A copy of one lm-eval model folder (mmlu only) as a run, optionally with items
    dropped (``keep``) or answers flipped."""
    out = tmp_path / name
    out.mkdir()
    src = LM / model_dir
    for f in src.iterdir():
        if "gsm8k" in f.name:
            continue
        if f.name.startswith("samples_"):
            recs = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            recs = [r for r in recs if keep is None or r["doc_id"] in keep]
            for r in recs:
                if r["doc_id"] in flip:
                    r["acc"] = 1.0 - r["acc"]
            (out / f.name).write_text("".join(json.dumps(r) + "\n" for r in recs))
        else:
            shutil.copy(f, out / f.name)
    return out


def test_runs_of_the_same_model_are_named_apart_and_joined(tmp_path, capsys):
    a = _run(tmp_path, "baseline", "EleutherAI__pythia-1b", keep=set(range(37)))
    b = _run(tmp_path, "new_prompt", "EleutherAI__pythia-1b", flip={1, 2, 3, 5, 8})
    doc, err = cli_json(capsys, "compare", a, b, *B)
    name_a, name_b = "EleutherAI/pythia-1b (baseline)", "EleutherAI/pythia-1b (new_prompt)"
    (rec,) = doc["results"]
    assert (rec["name_a"], rec["name_b"]) == (name_a, name_b)
    assert "is in several runs" in err
    (logs,) = doc["logs"]
    assert logs["items"] == 37
    assert logs["join"] == (f"items joined by id: 37 scored by every model (only in {name_a}: "
                            f"0, only in {name_b}: 3; those are left out)")  # fmt: skip
    # the same numbers as the API on the joined items
    ta, tb = read(a), read(b)
    ya = ta.set_index("item")["acc"]
    yb = tb.set_index("item")["acc"]
    items = [i for i in tb["item"] if i in set(ya.index)]
    want = booteval.compare(ya[items].to_numpy(), yb[items].to_numpy(), seed=3, n_resamples=300)
    assert (rec["difference"], rec["low"], rec["high"]) == (want.difference, want.low, want.high)
    # the text output carries the join report
    code, out, _ = cli(capsys, "compare", a, b, *B, "-q", fmt="text")
    assert code == 0 and "join (acc): items joined by id: 37 scored by every model" in out


def test_leaderboard_across_three_runs_reports_the_join(tmp_path, capsys):
    runs = [_run(tmp_path, f"r{i}", d, keep=set(range(40 - i)))
            for i, d in enumerate(sorted(p.name for p in LM.iterdir()))]  # fmt: skip
    doc, _ = cli_json(capsys, "leaderboard", *runs, *B)
    assert doc["logs"][0]["items"] == 38
    assert "not scored by" in doc["logs"][0]["join"]
    assert len(doc["results"]) == 3


def test_runs_with_nothing_in_common_are_refused(tmp_path, capsys):
    a = _run(tmp_path, "a", "EleutherAI__pythia-1b", keep=set(range(20)))
    b = _run(tmp_path, "b", "EleutherAI__pythia-410m", keep=set(range(20, 40)))
    line = cli_error(capsys, "compare", a, b)
    assert "no item id is scored by every model" in line
    assert "20 items" in line and "nothing to pair" in line


def test_a_run_named_twice_is_refused(tmp_path, capsys):
    a = _run(tmp_path, "a", "EleutherAI__pythia-1b")
    line = cli_error(capsys, "compare", a, str(a) + "/")
    assert "named more than once" in line


def test_a_model_without_the_score_is_named_not_dropped(tmp_path, capsys):
    """Runs of two formats with differently named scores: the models without the chosen
    score are named in a note, never dropped silently; --human is refused on logs."""
    real = LOGS / "real"
    if not (real / "eee").is_dir():
        pytest.skip("the harness-written logs are absent")
    code, _, err = cli(capsys, "compare", real / "lm_eval", real / "eee", "--task", "science_mc",
                       *B)  # fmt: skip
    assert code == 0, err
    assert "'mock/dummy-a (eee)', 'mock/dummy-b (eee)' have no 'acc' value" in err
    line = cli_error(capsys, "ci", LM, "--human", "x")
    assert "--human: the judge correction reads a flat table" in line
