"""The example data that ships with booteval: complete, small, equal to its sources."""

from __future__ import annotations

import gzip
import importlib.util
import io
from pathlib import Path

import numpy as np
import pytest

import booteval
from booteval import datasets
from booteval.cli import main

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
PACKAGE = Path(datasets.__file__).parent
SOURCES = {
    ("mmlu_pro", "correct"): "mmlu_pro/mmlu_pro_correct.csv",
    ("mmlu_pro", "pred"): "mmlu_pro/mmlu_pro_pred.csv",
    ("summeval", "long"): "summeval/summeval_long.csv",
    ("summeval", "ratings"): "summeval/summeval_ratings.csv",
    ("wmt20_mqm", None): "wmt20_mqm_ende/mqm_newstest2020_ende.csv",
}
pd = pytest.importorskip("pandas")


def test_import_booteval_gives_the_datasets():
    assert booteval.datasets.names() == ["mmlu_pro", "summeval", "wmt20_mqm"]


def test_shapes_and_columns():
    mmlu = datasets.mmlu_pro()
    assert mmlu.shape == (12032, 24)
    assert list(mmlu.columns[:4]) == ["question_id", "category", "src", "answer"]
    assert mmlu["category"].nunique() == 14 and mmlu["src"].nunique() == 91
    assert set(np.unique(mmlu.iloc[:, 4:].to_numpy())) == {0, 1}
    pred = datasets.mmlu_pro("pred")
    assert pred.shape == (12032, 22) and pred.iloc[:, 2:].isna().any().all()
    assert datasets.summeval().shape == (1600, 44)
    assert datasets.summeval("ratings").shape == (12800, 8)
    assert datasets.wmt20_mqm().shape == (1418, 11)


def test_published_figures():
    """WMT20 MQM system scores as the source's README prints them; MMLU-Pro's range."""
    mqm = datasets.wmt20_mqm()
    published = [0.75, 0.91, 1.41, 2.02, 2.25, 2.33, 2.35, 2.45, 2.48, 2.99]
    assert (-mqm.drop(columns="seg_id").mean()).round(2).tolist() == published
    acc = datasets.mmlu_pro().iloc[:, 4:].mean()
    assert round(acc.min(), 3) == 0.183 and round(acc.max(), 3) == 0.520
    assert acc.idxmax() == "Meta-Llama-3-70B"


@pytest.mark.parametrize(("key", "source"), list(SOURCES.items()), ids=str)
def test_equal_to_the_shared_copies(key, source):
    if not (SHARED / source).exists():
        pytest.skip(f"{SHARED / source} is not here (only in the project's checkout)")
    name, kind = key
    assert datasets.csv_bytes(name, kind) == (SHARED / source).read_bytes()
    loader = getattr(datasets, name)
    frame = loader(kind) if kind else loader()
    pd.testing.assert_frame_equal(frame, pd.read_csv(SHARED / source))


@pytest.mark.parametrize("key", list(SOURCES), ids=str)
def test_arrays_without_pandas_equal_the_frame(key):
    name, kind = key
    loader = getattr(datasets, name)
    frame = loader(kind) if kind else loader()
    arrays = loader(kind, as_frame=False) if kind else loader(as_frame=False)
    assert list(arrays) == list(frame.columns)
    for col, values in arrays.items():
        expected = frame[col].to_numpy()
        if values.dtype == object:
            expected = frame[col].fillna("").astype(str).to_numpy()
            assert values.tolist() == expected.tolist(), col
        else:
            np.testing.assert_array_equal(values, expected.astype(values.dtype), err_msg=col)


def test_as_frame_without_pandas_says_what_to_do(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(booteval.InvalidInputError, match=r"`as_frame`.*as_frame=False"):
        datasets.wmt20_mqm(as_frame=True)
    assert datasets.wmt20_mqm(as_frame=False)["seg_id"].size == 1418


def test_without_pandas_the_default_is_a_dict_of_arrays(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pandas" else real(name, *a)
    )
    arrays = datasets.mmlu_pro()
    assert isinstance(arrays, dict) and arrays["Meta-Llama-3-70B"].mean() == pytest.approx(
        0.5201, abs=1e-4
    )


def test_bad_names_and_kinds_name_the_parameter():
    with pytest.raises(booteval.InvalidInputError, match=r"`kind`.*'correct', 'pred'"):
        datasets.mmlu_pro("ratings")
    with pytest.raises(booteval.InvalidInputError, match="`name`"):
        datasets.path("mnist")
    with pytest.raises(booteval.InvalidInputError, match="`kind`"):
        datasets.csv_bytes("summeval", "wide")


def test_small_with_provenance_and_licences():
    files = {p.name: p.stat().st_size for p in PACKAGE.iterdir() if p.is_file()}
    assert sum(files.values()) < 2_000_000
    assert {"README.md", "LICENSE-Apache-2.0.txt", "LICENSE-MIT-SummEval.txt"} <= set(files)
    readme = (PACKAGE / "README.md").read_text()
    for commit in ("f418b116db00b065c2aea046518d8fcf74d39872",
                   "7b05bd874defac6c047deb2313c398318f2113e3",
                   "7fadea281aff8db61cc72fc3d469a4dca78b82a6"):  # fmt: skip
        assert commit in readme
    assert "Apache License" in (PACKAGE / "LICENSE-Apache-2.0.txt").read_text()
    assert "Fabbri" in (PACKAGE / "LICENSE-MIT-SummEval.txt").read_text()


@pytest.mark.slow
def test_the_build_script_is_deterministic(tmp_path):
    if not SHARED.is_dir():
        pytest.skip("shared/data is not here")
    spec = importlib.util.spec_from_file_location("build", REPO / "scripts" / "build_datasets.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    build.build(SHARED, tmp_path / "one")
    build.build(SHARED, tmp_path / "two")
    for name in build.SOURCES:
        one = (tmp_path / "one" / name).read_bytes()
        assert one == (tmp_path / "two" / name).read_bytes()  # no timestamp, no file name
        packaged = (PACKAGE / name).read_bytes()
        assert gzip.decompress(one) == gzip.decompress(packaged)


def test_command_lists_and_writes(tmp_path, capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == [*datasets.names(), "logs"]
    assert main(["datasets", "wmt20_mqm", "-o", str(tmp_path / "m.csv")]) == 0
    assert (tmp_path / "m.csv").read_bytes() == datasets.csv_bytes("wmt20_mqm")
    assert main(["datasets", "mmlu_pro", "--kind", "nope"]) == 2
    assert "--kind 'nope'" in capsys.readouterr().err
    assert main(["datasets", "summeval", "--kind", "ratings"]) == 0
    text = capsys.readouterr().out
    assert pd.read_csv(io.StringIO(text)).shape == (12800, 8)
    # the harness logs: a folder, written whole or one tool's
    assert main(["datasets", "logs", "--kind", "human_eval", "-o", str(tmp_path / "he")]) == 0
    names = sorted(p.name for p in (tmp_path / "he").iterdir())
    assert names == ["mock-coder-a_samples.jsonl_results.jsonl",
                     "mock-coder-b_samples.jsonl_results.jsonl"]  # fmt: skip
    assert main(["datasets", "logs"]) == 2
    assert "--output DIR" in capsys.readouterr().err
    assert main(["datasets", "logs", "-o", str(tmp_path / "he")]) == 2  # not empty
    assert "new or empty folder" in capsys.readouterr().err


def test_the_readme_runs_from_a_plain_install():
    """The README's examples (run and compared by tests/test_docs.py) read the shipped
    data, not the repository's shared/ folder."""
    assert "../shared/data" not in (REPO / "README.md").read_text()
