"""Execute the guide and every docstring example, so the documentation cannot drift."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import booteval
import markdown_examples

ROOT = Path(__file__).resolve().parents[1]
#: pages written by a program, with tables and no code (the coverage atlas)
GENERATED = {"coverage.md"}
GUIDES = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in GENERATED)
PAGES = [ROOT / "README.md", *GUIDES]
MODULES = sorted(m.name for m in pkgutil.walk_packages(booteval.__path__, prefix="booteval."))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


DATA = ROOT.parent / "shared" / "data"


@pytest.mark.long  # seconds a page, two minutes for all: CI runs them (-m long)
@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_print_what_the_page_shows(path, tmp_path):
    """Every block that shows output is run (``tests/markdown_examples.py``) and prints
    what the page shows; ``python scripts/regenerate_docs.py`` rewrites a page that no
    longer does."""
    if "shared/data" in path.read_text() and not DATA.is_dir():
        pytest.skip(f"{path.name} reads the real data in {DATA}, which is absent")
    attempted, mismatches, errors = markdown_examples.run_page(path, tmp_path)
    assert not errors, "\n".join(errors)
    assert not mismatches, "\n\n".join(map(str, mismatches))
    assert attempted > 0


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_every_block_that_shows_output_is_checked(path):
    """A text block is the output of a command (``<!-- docs: output of ... -->``) or a
    marked sketch; nothing shows output that no test runs."""
    assert not markdown_examples.unchecked(markdown_examples.parse(path))


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_every_block_names_its_language(path):
    """A fence without a language opens no block of ours: a stray closing fence (one too
    many after a block) would open one, swallow the prose and pair off every later fence
    wrongly, so that the page's later examples went unchecked."""
    bare = [b.line for b in markdown_examples.parse(path).blocks if b.lang == ""]
    assert not bare, f"{path.name}: blocks without a language at lines {bare}"


@pytest.mark.long
def test_figures_show_what_the_code_beside_them_draws(tmp_path):
    """The images of docs/plots.md are drawn by docs/img/make_images.py from the page's own
    code blocks; their text (titles, labels, legends, numbers) is what that code draws
    today (the text, not the pixels, is compared)."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("make_images", ROOT / "docs/img/make_images.py")
    make_images = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_images)
    saved = make_images.draw(tmp_path)
    shown = set(re.findall(r"\]\(img/([\w.]+\.png)\)", (ROOT / "docs/plots.md").read_text()))
    assert shown and shown <= set(saved), "an image of docs/plots.md is drawn by no code block"
    assert make_images.render(saved) == (ROOT / "docs/img/figures.txt").read_text(), (
        "a figure's text changed: run python docs/img/make_images.py and commit the images"
    )


def test_the_runner_catches_a_wrong_number(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```python\n>>> print(1 + 1)\n3\n```\n\n```console\n$ echo 41\n42\n```\n\n"
        "<!-- docs: output of echo a -->\n```text\nb\n```\n\n"
        "<!-- docs: sketch -->\n```python\nundefined_name\n```\n"
    )
    attempted, mismatches, errors = markdown_examples.run_page(page, tmp_path)
    assert attempted == 3 and not errors
    assert [m.got.strip() for m in mismatches] == ["2", "41", "a"]
    markdown_examples.rewrite(page, mismatches)
    assert markdown_examples.run_page(page, tmp_path)[1] == []


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0


@pytest.mark.slow
def test_the_example_script_prints_the_readme_headline(capsys):
    """``examples/quickstart.py`` trains the demo's logistic regression on the same split:
    its accuracy line is the README's headline, with the method that gave it."""
    pytest.importorskip("sklearn")
    import runpy

    runpy.run_path(str(ROOT / "examples" / "quickstart.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "accuracy     96.49 (93.49, 98.33)  jeffreys" in out
    assert "96.49 (93.49, 98.33)" in (ROOT / "README.md").read_text()


def test_a_rewritten_example_keeps_its_blocks_closing_fence(tmp_path):
    """An example that ends its block without a blank line before the fence: the fence is
    not read as expected output, and the rewrite puts the output above it."""
    page = tmp_path / "page.md"
    page.write_text("# t\n\n```python\n>>> 1 + 1\n```\n\nText.\n\n```python\n>>> 2 * 3\n5\n```\n")
    attempted, mismatches, errors = markdown_examples.run_page(page, tmp_path)
    assert attempted == 2 and not errors and len(mismatches) == 2
    markdown_examples.rewrite(page, mismatches)
    text = page.read_text()
    assert text == "# t\n\n```python\n>>> 1 + 1\n2\n```\n\nText.\n\n```python\n>>> 2 * 3\n6\n```\n"
    assert markdown_examples.run_page(page, tmp_path)[1] == []
