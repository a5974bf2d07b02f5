"""booteval.logs: each reader on real-format files (tests/data/logs, see its README).

The per-model means read from the per-item records must equal the aggregate numbers the
harness itself wrote beside them (lm-eval's results json, Inspect's header, HELM's
stats.json, lighteval's results json, evalplus's pass@1); malformed files must raise an
error naming the file, the line and the field; nothing is left out without a note.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

import booteval
from booteval import InvalidInputError
from booteval.logs import (
    LogFormatError,
    detect_format,
    read,
    read_code_samples,
    read_helm,
    read_inspect,
    read_lighteval,
    read_lm_eval,
    read_long,
    wide,
)

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

LOGS = Path(__file__).resolve().parent / "data" / "logs"
LM = LOGS / "lm_eval"
INSPECT = LOGS / "inspect"


def _results(folder: Path) -> dict:
    (path,) = folder.glob("results_*.json")
    return json.loads(path.read_text())


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit_line(path: Path, n: int, fn) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[n - 1] = fn(lines[n - 1])
    path.write_text("".join(lines))


# --------------------------------------------------------------------------- lm-eval
def test_lm_eval_means_equal_results_json():
    df = read_lm_eval(LM)
    assert set(df["model"]) == {"EleutherAI/pythia-160m", "EleutherAI/pythia-410m",
                                "EleutherAI/pythia-1b"}  # fmt: skip
    assert list(df.columns[:4]) == ["model", "task", "item", "sample"]
    assert df["item"].map(type).eq(str).all() and (df["sample"] == 0).all()
    assert df.attrs["scores"] == ["exact_match", "acc"]
    for folder in LM.iterdir():
        res = _results(folder)
        rows = df[df["model"] == res["model_name"]]
        mmlu = rows[rows.task == "mmlu_mini"]
        assert len(mmlu) == 40
        assert mmlu["acc"].mean() == pytest.approx(res["results"]["mmlu_mini"]["acc,none"])
        gsm = rows[rows.task == "gsm8k_mini"]
        assert len(gsm) == 12 and (gsm["filter"] == "strict-match").all()
        want = res["results"]["gsm8k_mini"]["exact_match,strict-match"]
        assert gsm["exact_match"].mean() == pytest.approx(want)
    # the nested document, flattened; one value per item
    assert df.loc[df.task == "mmlu_mini", "doc.subject"].nunique() == 8
    assert (df.groupby(["task", "item"])["doc_hash"].nunique() == 1).all()
    (note,) = [n for n in df.attrs["notes"] if "filter" in n]
    assert "kept filter 'strict-match'" in note and "36 rows" in note


def test_lm_eval_other_filter_and_hash_pairing():
    df = read_lm_eval(LM, filter="flexible-extract")
    for folder in LM.iterdir():
        res = _results(folder)
        gsm = df[(df.model == res["model_name"]) & (df.task == "gsm8k_mini")]
        want = res["results"]["gsm8k_mini"]["exact_match,flexible-extract"]
        assert gsm["exact_match"].mean() == pytest.approx(want)
    by_hash = read_lm_eval(LM, item="doc_hash")
    assert set(by_hash["item"]) == set(df["doc_hash"])
    with pytest.raises(LogFormatError, match=r"filter='nope' not found.*'strict-match'"):
        read_lm_eval(LM, filter="nope")


def test_lm_eval_malformed_lines_name_file_line_field(tmp_path):
    folder = _copy(LM / "EleutherAI__pythia-1b", tmp_path / "m")
    (path,) = folder.glob("samples_mmlu_mini_*.jsonl")
    _edit_line(path, 5, lambda s: s[: len(s) // 2] + "\n")
    with pytest.raises(LogFormatError) as info:
        read_lm_eval(folder)
    assert str(path) in str(info.value) and "line 5:" in str(info.value)
    assert "not valid JSON" in str(info.value)
    shutil.copy(LM / "EleutherAI__pythia-1b" / path.name, path)
    _edit_line(path, 3, lambda s: json.dumps({k: v for k, v in json.loads(s).items()
                                              if k != "acc"}) + "\n")  # fmt: skip
    with pytest.raises(LogFormatError, match=r"line 3: field 'acc': missing"):
        read_lm_eval(path)
    shutil.copy(LM / "EleutherAI__pythia-1b" / path.name, path)
    _edit_line(path, 7, lambda s: json.dumps(json.loads(s) | {"acc": "high"}) + "\n")
    with pytest.raises(LogFormatError, match=r"line 7: field 'acc': expected a number"):
        read_lm_eval(path)
    _edit_line(path, 7, lambda s: json.dumps({k: v for k, v in json.loads(s).items()
                                              if k != "doc_id"}) + "\n")  # fmt: skip
    with pytest.raises(LogFormatError, match=r"line 7: field 'doc_id'"):
        read_lm_eval(path)
    shutil.copy(LM / "EleutherAI__pythia-1b" / path.name, path)
    _edit_line(path, 4, lambda s: json.dumps(json.loads(s) | {"doc_id": None}) + "\n")
    with pytest.raises(LogFormatError, match=r"line 4: field 'doc_id': expected an id"):
        read_lm_eval(path)  # not the item "None"


def test_lm_eval_different_documents_refused(tmp_path):
    root = tmp_path / "runs"
    for name in ("EleutherAI__pythia-1b", "EleutherAI__pythia-410m"):
        _copy(LM / name, root / name)
    (path,) = (root / "EleutherAI__pythia-410m").glob("samples_mmlu_mini_*.jsonl")
    _edit_line(path, 2, lambda s: json.dumps(json.loads(s) | {"doc_hash": "0" * 64}) + "\n")
    with pytest.raises(LogFormatError, match=r"item '1': the models saw different documents"):
        read_lm_eval(root)
    # paired by content, the changed document is its own item, scored by one model only
    df = read_lm_eval(root, item="doc_hash")
    with pytest.raises(InvalidInputError, match="2 incomplete item"):
        wide(df[df.task == "mmlu_mini"], "acc")
    w = wide(df[df.task == "mmlu_mini"], "acc", missing="drop")
    assert len(w) == 39 and any("2 item(s) not scored for every model" in n
                                for n in w.attrs["notes"])  # fmt: skip


def test_lm_eval_corpus_metric_noted_and_model_from_directory(tmp_path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    lines = []
    for i in range(4):
        lines.append({"doc_id": i, "doc": {"src": f"s{i}"}, "target": "t", "filter": "none",
                      "metrics": ["bleu", "exact_match"], "doc_hash": str(i),
                      "bleu": ["ref", "hyp"], "exact_match": i % 2})  # fmt: skip
    (folder / "samples_wmt_2024-01-01T00-00-00.000001.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines))  # fmt: skip
    df = read_lm_eval(folder)
    assert set(df["model"]) == {"my-model"} and df.attrs["scores"] == ["exact_match"]
    assert "bleu" not in df.columns
    assert any("metric 'bleu' left out" in n for n in df.attrs["notes"])
    assert read_lm_eval(folder, model="x")["model"].eq("x").all()


def test_lm_eval_older_lines_without_metrics_list(tmp_path):
    (src,) = (LM / "EleutherAI__pythia-1b").glob("samples_mmlu_mini_*.jsonl")
    lines = [json.loads(s) for s in src.read_text().splitlines()]
    for rec in lines:
        del rec["metrics"], rec["filter"]
    path = tmp_path / src.name
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    df = read_lm_eval(path, model="m")
    assert df.attrs["scores"] == ["acc"]
    assert df["acc"].tolist() == read_lm_eval(src)["acc"].tolist()
    path.write_text("".join(json.dumps(r) + "\n" for r in lines + lines[:1]))  # 2 filters?
    with pytest.raises(LogFormatError, match=r"line 41: field 'doc_id': doc_id 0 repeats line 1"):
        read_lm_eval(path)


def test_lm_eval_parquet_records(tmp_path):
    (src,) = (LM / "EleutherAI__pythia-1b").glob("samples_mmlu_mini_*.jsonl")
    recs = [json.loads(s) for s in src.read_text().splitlines()]
    pd.DataFrame(recs).to_parquet(tmp_path / "samples_mmlu_mini_2024-05-16T12-32-05.1.parquet")
    df = read(tmp_path / "samples_mmlu_mini_2024-05-16T12-32-05.1.parquet")
    want = read_lm_eval(src)
    assert df["acc"].tolist() == want["acc"].tolist()
    assert df["doc.subject"].tolist() == want["doc.subject"].tolist()


# --------------------------------------------------------------------------- Inspect
def _inspect_header(path: Path) -> dict:
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as zf:
            return json.loads(zf.read("header.json"))
    return json.loads(path.read_text())


def test_inspect_means_equal_header_accuracy():
    df = read_inspect(INSPECT)
    assert len(df) == 2 * 12 * 3
    assert sorted(df["sample"].unique()) == [0, 1, 2]
    assert df["metadata.source.grade"].notna().all()
    for path in INSPECT.iterdir():
        header = _inspect_header(path)
        rows = df[df.model == header["eval"]["model"]]
        (score,) = header["results"]["scores"]
        # Inspect reduces the epochs of each sample by their mean, then averages the samples
        per_item = rows.groupby("item")[score["name"]].mean()
        assert per_item.mean() == pytest.approx(score["metrics"]["accuracy"]["value"])
        assert rows[score["name"]].mean() == pytest.approx(per_item.mean())  # balanced epochs
    notes = " ".join(df.attrs["notes"])
    assert "C -> 1, I -> 0, P -> 0.5, N -> 0" in notes
    assert "1 samples without scores left out (1 with an error)" in notes


def test_inspect_value_mapping_override():
    base = read_inspect(INSPECT)
    strict = read_inspect(INSPECT, values={"P": 0.0})
    raw = []
    for path in INSPECT.iterdir():
        if path.suffix == ".json":
            raw += [s["scores"]["choice"]["value"] for s in json.loads(path.read_text())["samples"]
                    if "scores" in s]  # fmt: skip
        else:
            with zipfile.ZipFile(path) as zf:
                raw += [json.loads(zf.read(n))["scores"]["choice"]["value"]
                        for n in zf.namelist() if n.startswith("samples/")]  # fmt: skip
    assert "P" in raw
    assert strict["choice"].sum() == raw.count("C")
    assert base["choice"].sum() == raw.count("C") + 0.5 * raw.count("P")
    with pytest.raises(InvalidInputError, match="values"):
        read_inspect(INSPECT, values={"P": "half"})


def test_inspect_malformed(tmp_path):
    (src,) = INSPECT.glob("*.eval")
    bad = tmp_path / src.name
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bad, "w") as zout:
        for name in zin.namelist():
            data = zin.read(name)
            if name == "samples/arc_002_epoch_2.json":
                data = data[:40]
            zout.writestr(name, data)
    with pytest.raises(LogFormatError, match=r"samples/arc_002_epoch_2.json.*not valid JSON"):
        read_inspect(bad)
    (src_json,) = INSPECT.glob("*.json")
    log = json.loads(src_json.read_text())
    log["samples"][4]["scores"]["choice"]["value"] = "maybe"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log, indent=2))
    with pytest.raises(LogFormatError, match=r"samples\[4\]: field 'scores.choice.value'"):
        read_inspect(path)
    assert read_inspect(path, values={"maybe": 0.25})["choice"].notna().all()
    path.write_text(json.dumps(log, indent=2)[:-30])
    with pytest.raises(LogFormatError, match=r"log.json: line \d+: not valid JSON"):
        read_inspect(path)


# ------------------------------------------------------------------------------ HELM
def test_helm_means_equal_stats_json():
    df = read_helm(LOGS / "helm")
    assert set(df["model"]) == {"openai/gpt2", "meta/llama-7b"}
    assert df["task"].str.startswith("mmlu:subject=").all()
    assert set(df["run.subject"]) == {"anatomy", "virology"}
    assert len(df) == 40 and df["perturbation"].isna().all() and (df["split"] == "test").all()
    for spec in (LOGS / "helm").rglob("run_spec.json"):
        run = json.loads(spec.read_text())
        stats = json.loads(spec.with_name("stats.json").read_text())
        (em,) = [s for s in stats if s["name"] == {"name": "exact_match", "split": "test"}]
        rows = df[(df.model == run["adapter_spec"]["model"])
                  & (df["run.subject"] == run["scenario_spec"]["args"]["subject"])]  # fmt: skip
        assert len(rows) == em["count"] == 10
        assert rows["exact_match"].mean() == pytest.approx(em["mean"])
    (note,) = df.attrs["notes"]
    assert "12 rows of other perturbations left out (typo: 12" in note


def test_helm_perturbation_and_malformed(tmp_path):
    typo = read_helm(LOGS / "helm", perturbation="typo")
    assert len(typo) == 12 and (typo["perturbation"] == "typo").all()
    assert "40 rows" in typo.attrs["notes"][0]
    (run,) = [p for p in (LOGS / "helm").rglob("per_instance_stats.json")][:1]
    entries = json.loads(run.read_text())
    del entries[3]["stats"][1]["name"]
    path = tmp_path / "per_instance_stats.json"
    path.write_text(json.dumps(entries))
    with pytest.raises(LogFormatError, match=r"entry 3: field 'stats\[1\].name'"):
        read_helm(path)
    with pytest.raises(LogFormatError, match="no instance left"):
        read_helm(LOGS / "helm", split="valid")


# ------------------------------------------------------------------------- lighteval
def test_lighteval_means_equal_results_json(tmp_path):
    df = read_lighteval(LOGS / "lighteval")
    assert set(df["model"]) == {"HuggingFaceTB/SmolLM2-135M", "HuggingFaceTB/SmolLM2-360M"}
    assert df.attrs["scores"] == ["acc", "acc_norm"] and set(df["task"]) == {"arc_easy"}
    assert df["doc.specific.grade"].between(3, 7).all()
    for path in (LOGS / "lighteval" / "results").rglob("results_*.json"):
        res = json.loads(path.read_text())
        rows = df[df.model == res["config_general"]["model_name"]]
        for metric in ("acc", "acc_norm"):
            assert rows[metric].mean() == pytest.approx(res["results"]["arc_easy"][metric])
    (src,) = list((LOGS / "lighteval").rglob("details_*.parquet"))[:1]
    table = pd.read_parquet(src)
    table["metric"] = [json.dumps(m) for m in table["metric"]]  # metrics as JSON text
    table.at[4, "metric"] = json.dumps({"acc": "yes", "acc_norm": 1.0})
    bad = tmp_path / src.name
    table.to_parquet(bad)
    with pytest.raises(LogFormatError, match=r"line 5: field 'metric.acc': expected a number"):
        read_lighteval(bad)


# ------------------------------------------------------------------------------ code
def test_code_samples_human_eval_and_evalplus(tmp_path):
    df = read_code_samples(LOGS / "code" / "human_eval")
    assert set(df["model"]) == {"codegen-2B", "starcoder2-3b"}
    assert (df.groupby(["model", "item"]).size() == 5).all()
    assert sorted(df["sample"].unique()) == [0, 1, 2, 3, 4] and set(df["task"]) == {"HumanEval"}
    for path in (LOGS / "code" / "human_eval").iterdir():
        recs = [json.loads(s) for s in path.read_text().splitlines()]
        model = path.name.split("_samples")[0]
        assert df[df.model == model]["passed"].mean() == pytest.approx(
            np.mean([r["passed"] for r in recs]))  # fmt: skip
    (ev,) = (LOGS / "code" / "evalplus").rglob("eval_results.json")
    plus = read_code_samples(ev)
    assert set(plus["model"]) == {"deepseek-coder-1.3b"}
    want = json.loads(ev.read_text())["pass_at_k"]
    per_item = plus.groupby("item")[["base", "plus"]].mean().mean()
    assert per_item["base"] == pytest.approx(want["base"]["pass@1"])
    assert per_item["plus"] == pytest.approx(want["plus"]["pass@1"])
    path = tmp_path / "m_samples.jsonl_results.jsonl"
    path.write_text('{"task_id": "HumanEval/0", "passed": true}\n'
                    '{"task_id": "HumanEval/0", "result": "failed"}\n')  # fmt: skip
    with pytest.raises(LogFormatError, match=r"line 2: field 'passed': missing"):
        read_code_samples(path)


# ------------------------------------------------------------------- long, read, detect
def test_long_and_errors(tmp_path):
    df = read_long(LOGS / "long" / "results.csv")
    assert df.attrs["scores"] == ["correct"] and list(df.columns) == [
        "model", "task", "item", "sample", "correct", "subject"]  # fmt: skip
    path = tmp_path / "r.jsonl"
    path.write_text('{"system": "a", "q": 1, "s": 0.5, "doc": {"topic": "x"}}\n'
                    '{"system": "b", "q": 1, "s": 0.25, "doc": {"topic": "x"}}\n')  # fmt: skip
    got = read_long(path, model="system", item="q", score="s")
    assert got["doc.topic"].tolist() == ["x", "x"] and got["s"].tolist() == [0.5, 0.25]
    with pytest.raises(LogFormatError, match=r"column 'model' \(model=\) not found"):
        read_long(path)


def test_detect_and_read_everything(tmp_path):
    assert detect_format(next(LM.rglob("samples_*.jsonl"))) == "lm-eval"
    assert detect_format(next(LM.rglob("results_*.json"))) is None
    assert {detect_format(p) for p in INSPECT.iterdir()} == {"inspect"}
    assert detect_format(next((LOGS / "helm").rglob("per_instance_stats.json"))) == "helm"
    assert detect_format(next((LOGS / "helm").rglob("stats.json"))) is None
    assert detect_format(next((LOGS / "lighteval").rglob("*.parquet"))) == "lighteval"
    assert {detect_format(p) for p in (LOGS / "code").rglob("*.json*")} == {"code"}
    assert detect_format(LOGS / "long" / "results.csv") == "long"
    # the fixtures, without real/ (logs the harnesses wrote, tested in test_real_logs.py)
    fixtures = shutil.copytree(LOGS, tmp_path / "logs", ignore=shutil.ignore_patterns("real"))
    df = read(fixtures)
    assert set(df.attrs["format"].split(",")) == {"lm-eval", "inspect", "helm", "lighteval",
                                                  "code", "long"}  # fmt: skip
    assert len(df) == 120 + 36 + 72 + 40 + 60 + 100 + 32 + 24
    assert any("README.md" in n for n in df.attrs["notes"])  # skipped files are said
    glob = read(str(LM / "*" / "samples_mmlu*.jsonl"))
    assert set(glob["task"]) == {"mmlu_mini"} and len(glob) == 120
    assert read([LM / "EleutherAI__pythia-1b", INSPECT], filter="flexible-extract").shape[0] == \
        40 + 12 + 72  # fmt: skip
    with pytest.raises(LogFormatError, match="no such file"):
        read(LOGS / "nope")
    with pytest.raises(LogFormatError, match="cannot tell the log format"):
        read(LOGS / "README.md")
    with pytest.raises(InvalidInputError, match="format"):
        read(LM, format="lmeval")
    assert read(LOGS / "long" / "results.csv", format="long").shape == (24, 6)


# ------------------------------------------------------------------------------ wide
def test_wide_pivots_keeps_metadata_and_feeds_leaderboard():
    df = read(str(LM / "*" / "samples_mmlu*.jsonl"))
    w = wide(df, "acc")
    models = w.attrs["models"]
    assert len(w) == 40 and len(models) == 3
    assert list(w.columns[:2]) == ["task", "item"] and "doc.subject" in w.columns
    assert "target" in w.columns and "doc_hash" in w.columns
    for m in models:
        assert w[m].mean() == pytest.approx(df[df.model == m]["acc"].mean())
    long = booteval.leaderboard(df, system_col="model", row_col="item", output_col="acc",
                                clusters="doc.subject", seed=3, n_resamples=300)  # fmt: skip
    board = booteval.leaderboard(w[models], clusters=w["doc.subject"], seed=3, n_resamples=300)
    assert {e.name: e.estimate for e in board.entries} == {e.name: e.estimate
                                                          for e in long.entries}  # fmt: skip


def test_wide_samples_need_agg():
    df = read_inspect(INSPECT)
    with pytest.raises(InvalidInputError, match="agg='mean'"):
        wide(df, "choice")
    w = wide(df, "choice", agg="mean")
    assert len(w) == 12 and "metadata.difficulty" in w.columns
    for m in w.attrs["models"]:
        assert w[m].tolist() == df[df.model == m].groupby("item", sort=False)["choice"].mean(
        ).tolist()  # fmt: skip
    assert any("averaged over the samples of each item (3 per item)" in n for n in w.attrs["notes"])
    by_task = wide(df[df["sample"] == 0], "choice", by="task")
    assert list(by_task.columns[:2]) == ["model", "item"] and by_task.attrs["models"] == [
        "arc_mini"]  # fmt: skip
    with pytest.raises(InvalidInputError, match="score"):
        wide(df, "nope")


def test_fixtures_are_what_the_script_makes(tmp_path):
    """The committed files are the script's output (data compared; Parquet and zip by content)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_fixtures", LOGS / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    kept = sorted(p.relative_to(LOGS) for p in LOGS.rglob("*") if p.is_file()
                  and p.suffix not in (".py", ".md") and "__pycache__" not in p.parts
                  and p.relative_to(LOGS).parts[0] != "real")  # fmt: skip
    assert made == kept
    for rel in made:
        new, old = tmp_path / rel, LOGS / rel
        if rel.suffix == ".parquet":
            pd.testing.assert_frame_equal(pd.read_parquet(new), pd.read_parquet(old))
        elif rel.suffix == ".eval":
            with zipfile.ZipFile(new) as a, zipfile.ZipFile(old) as b:
                assert a.namelist() == b.namelist()
                assert all(a.read(n) == b.read(n) for n in a.namelist())
        else:
            assert new.read_bytes() == old.read_bytes(), rel
    assert sum(p.stat().st_size for p in LOGS.rglob("*") if p.is_file()
               and p.relative_to(LOGS).parts[0] != "real") < 300_000  # fmt: skip


def test_wide_refuses_repeated_rows():
    df = read_long(LOGS / "long" / "results.csv")
    twice = pd.concat([df, df.iloc[:1]], ignore_index=True)
    twice.attrs = df.attrs
    with pytest.raises(InvalidInputError, match="1 repeated"):
        wide(twice, "correct")
    w = wide(df, "correct")
    assert w.attrs["models"] == ["small", "large"] and "subject" in w.columns


def test_lighteval_older_details_columns(tmp_path):
    """Open LLM Leaderboard v1 details: ``metrics``, ``example``, ``hash_example``, ..."""
    folder = tmp_path / "details" / "org" / "old-model" / "2023-10-10T10-10-10.000001"
    folder.mkdir(parents=True)
    rows = [{"example": f"Q{i}", "gold": "A", "choices": ["A", "B"], "metrics": {"acc": i % 2},
             "hash_example": f"h{i}", "predictions": [-1.0, -2.0]} for i in range(6)]  # fmt: skip
    pd.DataFrame(rows).to_parquet(folder / "details_harness|arc:challenge|25_2023-10-10T10-10-10"
                                  ".000001.parquet")  # fmt: skip
    df = read(tmp_path)
    assert df.attrs["format"] == "lighteval" and set(df["model"]) == {"org/old-model"}
    assert set(df["task"]) == {"harness|arc:challenge|25"} and df["acc"].tolist() == [0, 1] * 3
    assert df["hash_example"].tolist() == [f"h{i}" for i in range(6)]
    assert "predictions" not in df.columns
    assert any("numbered by their row" in n for n in df.attrs["notes"])


def test_import_is_light_and_pandas_error_is_clear(monkeypatch):
    import subprocess
    import sys

    code = "import sys, booteval, booteval.logs; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    with pytest.raises(ImportError, match=r'pip install "booteval\[logs\]"'):
        read_long(LOGS / "long" / "results.csv")


def test_wide_missing_values_refused_or_dropped_with_a_note():
    df = read_long(LOGS / "long" / "results.csv")
    holes = df.copy()
    holes.attrs = df.attrs
    holes.loc[3, "correct"] = np.nan
    with pytest.raises(InvalidInputError, match="1 rows without one"):
        wide(holes, "correct")
    w = wide(holes, "correct", missing="drop")
    assert len(w) == 11
    assert any("1 item(s) not scored for every model left out (of 12)" in n
               for n in w.attrs["notes"])  # fmt: skip
    assert any("1 rows without a 'correct' value left out" in n for n in w.attrs["notes"])


def _zip_with_zstandard(members: dict[str, bytes], path: Path) -> None:
    """A zip whose members are Zstandard-compressed (method 93), as inspect-ai writes its
    .eval logs by default; zipfile cannot write that method, so the records are built here
    (APPNOTE: local headers, the central directory, its end record)."""
    import struct

    zstandard = pytest.importorskip("zstandard")
    out, central = bytearray(), bytearray()
    for name, raw in members.items():
        data = zstandard.ZstdCompressor().compress(raw)
        crc, n = zipfile.crc32(raw), name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, 93, 0, 0x21, crc, len(data),
                           len(raw), len(n), 0) + n + data  # fmt: skip
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, 93, 0, 0x21, crc,
                               len(data), len(raw), len(n), 0, 0, 0, 0, 0, offset) + n  # fmt: skip
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central),
                      len(out), 0)  # fmt: skip
    path.write_bytes(bytes(out + central + end))


def test_inspect_eval_with_zstandard_members_reads_as_deflate(tmp_path):
    """inspect-ai's default .eval (zip method 93) gives the same table as the same log with
    deflated members; a damaged member is named."""
    original = next((LOGS / "inspect").glob("*.eval"))
    with zipfile.ZipFile(original) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    target = tmp_path / original.name
    _zip_with_zstandard(members, target)
    with zipfile.ZipFile(target) as zf:
        assert {i.compress_type for i in zf.infolist()} == {93}
    want, got = read_inspect(original), read_inspect(target)
    assert got.drop(columns=["file"], errors="ignore").equals(
        want.drop(columns=["file"], errors="ignore")
    )
    damaged = tmp_path / "damaged.eval"
    _zip_with_zstandard({**members, "header.json": b"{}"}, damaged)
    data = bytearray(damaged.read_bytes())
    start = data.index(b"header.json") + len("header.json")
    data[start + 4] ^= 0xFF  # a byte of the compressed header
    damaged.write_bytes(bytes(data))
    with pytest.raises(LogFormatError, match="damaged"):
        read_inspect(damaged)


@pytest.mark.parametrize("spec_names", [None, ["quasi_exact_match"]])
def test_helm_default_score_is_the_runs_metric_not_a_count(tmp_path, spec_names):
    """HELM lists counts (tokens, references) before the correctness statistics; the
    default score is the run spec's metric, else the first correctness statistic."""
    run = tmp_path / "mmlu:subject=x,model=org_m"
    run.mkdir()

    def stat(name, value):
        return {"name": {"name": name, "split": "test"}, "count": 1, "sum": value,
                "mean": value}  # fmt: skip

    entries = [
        {"instance_id": f"id{i}", "train_trial_index": 0,
         "stats": [stat("num_prompt_tokens", 4.0), stat("quasi_exact_match", i % 2),
                   stat("exact_match", i % 2)]}
        for i in range(6)
    ]  # fmt: skip
    (run / "per_instance_stats.json").write_text(json.dumps(entries))
    if spec_names is not None:
        spec = {
            "name": "mmlu:subject=x,model=org/m",
            "metric_specs": [{"class_name": "BasicMetric", "args": {"names": spec_names}}],
        }
        (run / "run_spec.json").write_text(json.dumps(spec))
    scores = booteval.logs.read_helm(run).attrs["scores"]
    assert scores[0] == (spec_names[0] if spec_names else "exact_match")
    assert scores[-1] == "num_prompt_tokens"


def _eee_line(model, i, correct, **extra):
    return json.dumps({
        "schema_version": "instance_level_eval_0.2.1", "evaluation_id": "e1", "model_id": model,
        "evaluation_name": "gsm8k", "sample_id": f"gsm8k_{i:04d}",
        "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]},
        "output": {"raw": ["a"]}, "answer_attribution": [],
        "evaluation": {"score": float(correct), "is_correct": bool(correct)},
        "metadata": {"subject": f"s{i % 3}"}, **extra,
    })  # fmt: skip


def test_every_eval_ever_instances_are_read_and_named_by_model(tmp_path):
    """EEE instance-level JSON Lines (schema 0.2.x) are detected; the system is the
    model_id (not the score's name), the item the sample_id; a malformed record is named."""
    rng = np.random.default_rng(2)
    want = {}
    for model in ("org/a", "org/b"):
        correct = rng.random(30) < 0.6
        want[model] = correct.mean()
        lines = [_eee_line(model, i, c) for i, c in enumerate(correct)]
        (tmp_path / f"{model.split('/')[1]}.jsonl").write_text("\n".join(lines) + "\n")
    assert booteval.logs.detect_format(tmp_path / "a.jsonl") == "eee"
    df = booteval.logs.read(tmp_path)
    assert df.attrs["format"] == "eee" and df.attrs["scores"] == ["score", "is_correct"]
    assert set(df["model"]) == {"org/a", "org/b"} and "metadata.subject" in df.columns
    w = booteval.logs.wide(df, "score")
    assert {m: w[m].mean() for m in w.attrs["models"]} == pytest.approx(want)
    (tmp_path / "bad.jsonl").write_text(_eee_line("org/c", 0, True).replace('"score": 1.0',
                                        '"score": "high"') + "\n")  # fmt: skip
    with pytest.raises(LogFormatError, match=r"bad.jsonl.*evaluation.score"):
        booteval.logs.read(tmp_path / "bad.jsonl")


def test_inspect_scorer_the_logs_do_not_have_is_refused_naming_theirs():
    with pytest.raises(
        InvalidInputError, match=r"`scorer`: expected one of the logs' scorers \(choice\)"
    ):
        read_inspect(LOGS / "inspect", scorer="nope")


def test_a_non_utf8_line_and_a_too_deep_line_are_named(tmp_path):
    folder = _copy(LM / "EleutherAI__pythia-1b", tmp_path / "m")
    (path,) = folder.glob("samples_mmlu_mini_*.jsonl")
    with path.open("ab") as fh:
        fh.write(b"\xff\xfe not text\n")
    with pytest.raises(LogFormatError, match=r"line \d+: not UTF-8 text"):
        read_lm_eval(folder)
    deep = tmp_path / "deep" / "samples_mmlu_mini_2024-05-16T12-32-05.123458.jsonl"
    deep.parent.mkdir()
    deep.write_text('{"doc_id": 0, "doc": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(LogFormatError, match="line 1: JSON nested too deeply"):
        read_lm_eval(deep)


def test_an_empty_lighteval_details_file_is_said_not_dropped(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    folder = tmp_path / "lighteval"
    shutil.copytree(LOGS / "lighteval" / "details", folder)
    first = sorted(folder.rglob("*.parquet"))[0]
    pd.read_parquet(first).iloc[0:0].to_parquet(first)
    df = booteval.logs.read_lighteval(folder)
    assert any("empty details files" in n and first.name in n for n in df.attrs["notes"])
    for other in folder.rglob("*.parquet"):
        pd.read_parquet(other).iloc[0:0].to_parquet(other)
    with pytest.raises(LogFormatError, match="every details file is empty"):
        booteval.logs.read_lighteval(folder)


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: [s.pop("mean") and s.update(sum=None) for s in d[0]["stats"]], "stats[0].sum"),
        (lambda d: [s.pop("mean") and s.update(sum="x") for s in d[0]["stats"]], "stats[0].sum"),
        (lambda d: d[0].update(train_trial_index=float("nan")), "train_trial_index"),
        (lambda d: d[0].update(train_trial_index=1.5), "train_trial_index"),
    ],
)
def test_helm_malformed_sums_and_trials_are_named(tmp_path, edit, field):
    src = next((LOGS / "helm").rglob("per_instance_stats.json"))
    run = tmp_path / src.parent.name
    shutil.copytree(src.parent, run)
    data = json.loads((run / src.name).read_text())
    for s in data[0]["stats"]:
        s["mean"] = s.get("mean", 0.0) or 1.0  # a mean to pop, so the sum is used
    edit(data)
    (run / src.name).write_text(json.dumps(data))
    with pytest.raises(LogFormatError, match=rf"entry 0: field '{re.escape(field)}'"):
        booteval.logs.read_helm(run)


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "1e30", "0", "2.5"])
def test_inspect_an_epoch_that_is_not_a_count_is_named(tmp_path, bad):
    src = next((LOGS / "inspect").glob("*.json"))
    data = json.loads(src.read_text())
    data["samples"][0]["epoch"] = "__EPOCH__"
    path = tmp_path / src.name
    path.write_text(json.dumps(data).replace('"__EPOCH__"', bad))
    with pytest.raises(LogFormatError, match=r"samples\[0\]: field 'epoch': expected an epoch"):
        read_inspect(path)
