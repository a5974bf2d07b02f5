"""Execute the guide and every docstring example, so the documentation cannot drift."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import booteval

ROOT = Path(__file__).resolve().parents[1]
#: pages written by a program, with tables and no code (the coverage atlas)
GENERATED = {"coverage.md"}
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in GENERATED)
MODULES = sorted(m.name for m in pkgutil.walk_packages(booteval.__path__, prefix="booteval."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


DATA = ROOT.parent / "shared" / "data"


#: guides that run seconds of bootstrap on the real data: the full suite runs them
SLOW_GUIDES = {"leaderboard_mmlu_pro.md", "meta_evaluation.md"}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW_GUIDES else [])
        for p in DOCS
    ],
)
def test_guide_examples_run(path):
    if "shared/data" in path.read_text() and not DATA.is_dir():
        pytest.skip(f"{path.name} reads the real data in {DATA}, which is absent")
    result = doctest.testfile(str(path), module_relative=False, optionflags=FLAGS)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0
