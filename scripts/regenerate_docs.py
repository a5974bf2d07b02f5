"""Rewrite the printed output of documentation examples that no longer match the code.

The test suite runs every example of the README, the guides (``docs/*.md``: ``>>>``
examples, ``console`` blocks and the outputs of commands, as ``tests/markdown_examples.py``
describes) and the docstrings (``tests/test_docs.py``); after a change of a default or of a
format, this script runs the same examples and writes what they print now in place of what
the page shows, so that the page is regenerated from the code rather than edited by hand.
Only failing examples are rewritten (an expected output that still matches, ``...``
included, is kept). Read the diff before committing it: a changed number must be a change
you meant.

    python scripts/regenerate_docs.py                 # the README, every guide and module
    python scripts/regenerate_docs.py README.md docs/plots.md booteval.report
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import sys
import tempfile
from pathlib import Path

import booteval

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import markdown_examples  # noqa: E402  (the test suite's runner, from tests/)

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: pages written by a program (the coverage atlas has its own script)
GENERATED = {"coverage.md"}


class _Recorder(doctest.DocTestRunner):
    """Runs examples and keeps what each failing one printed."""

    def __init__(self) -> None:
        super().__init__(optionflags=FLAGS, verbose=False)
        self.got: list[tuple[doctest.DocTest, doctest.Example, str]] = []

    def report_failure(self, out, test, example, got):  # type: ignore[override]
        self.got.append((test, example, got))

    def report_unexpected_exception(self, out, test, example, exc_info):  # type: ignore[override]
        raise RuntimeError(
            f"{test.name}, line {test.lineno + example.lineno + 1}: the example raised "
            f"{exc_info[1]!r}; fix it by hand"
        )


def _rewrite(path: Path, tests: list[doctest.DocTest]) -> int:
    """Run ``tests`` (examples of the file ``path``) and write the new outputs; the count."""
    runner = _Recorder()
    for test in tests:
        runner.run(test, out=lambda _text: None)
    if not runner.got:
        return 0
    lines = path.read_text().splitlines(keepends=True)
    # from the bottom up, so that earlier line numbers stay valid
    for test, example, got in sorted(
        runner.got, key=lambda t: t[0].lineno + t[1].lineno, reverse=True
    ):
        start = (test.lineno or 0) + example.lineno + example.source.count("\n")
        stop = start + example.want.count("\n")
        pad = " " * example.indent
        new = [
            pad + _fit(line if line.strip() else "<BLANKLINE>", path, len(pad)) + "\n"
            for line in got.rstrip("\n").split("\n")
        ]
        lines[start:stop] = new
    path.write_text("".join(lines))
    return len(runner.got)


#: the longest line of a module (ruff's line-length)
LINE_LENGTH = 100


def _fit(line: str, path: Path, indent: int) -> str:
    """In a module, a line too long for the linter ends at a word with ``...`` (which the
    doctest's ELLIPSIS matches with the rest)."""
    room = LINE_LENGTH - indent
    if path.suffix != ".py" or len(line) <= room:
        return line
    cut = line.rfind(" ", 0, room - 4)
    return line[: cut if cut > 0 else room - 4] + " ..."


def _page(path: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="booteval-docs-") as tmp:
        _, mismatches, errors = markdown_examples.run_page(path, Path(tmp))
    for error in errors:
        print(f"{error}; fix it by hand")
    return markdown_examples.rewrite(path, mismatches) if mismatches else 0


def _module(name: str) -> int:
    module = importlib.import_module(name)
    path = Path(inspect.getfile(module))
    source = path.read_text()
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    # a docstring filled in at import (shared parameter entries) no longer matches its
    # source lines: say so, for a fix by hand, rather than write at the wrong lines
    filled = [t for t in tests if t.docstring and t.docstring not in source]
    for t in filled:
        print(f"{t.name}: its docstring is filled in at import; fix its examples by hand")
    tests = [t for t in tests if t not in filled]
    for t in tests:
        # the docstring's own line: doctest takes a decorated function's from its wrapper's
        # code, defined elsewhere, and would write the outputs at those lines
        t.lineno = source[: source.index(t.docstring)].count("\n")
    return _rewrite(path, tests) if tests else 0


def main(argv: list[str]) -> int:
    targets = argv or [
        str(ROOT / "README.md"),
        *(str(p) for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in GENERATED),
        *(m.name for m in pkgutil.walk_packages(booteval.__path__, prefix="booteval.")),
    ]
    total = 0
    for target in targets:
        path = Path(target)
        count = _page(path) if path.suffix == ".md" else _module(target)
        if count:
            print(f"{target}: {count} example(s) rewritten")
        total += count
    print(f"{total} example(s) rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
