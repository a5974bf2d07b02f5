"""Run the code blocks of a Markdown page and compare what they print with what it shows.

The README and every guide in ``docs/`` are checked by ``tests/test_docs.py`` and rewritten
by ``scripts/regenerate_docs.py`` through this module, so a page can show only numbers that
the code prints today. How a page's fenced blocks are treated:

``python`` with ``>>>`` prompts
    doctest examples (ELLIPSIS and NORMALIZE_WHITESPACE), all of a page in one namespace.
``python`` without prompts
    a script: run, in one namespace per page, and it must not raise (the figures of
    ``docs/plots.md`` are drawn this way, from the code shown beside them).
``console``
    ``$ command`` lines (a trailing ``\\`` continues one) run by the shell, each followed by
    the output it must print (standard output and error together); ``...`` matches any text.
``text`` preceded by ``<!-- docs: output of COMMAND -->``
    the output of ``COMMAND``, run by the shell.

Markers are HTML comments on the line just before a fence, which neither GitHub nor the docs
site shows:

- ``<!-- docs: sketch -->``: the block is an outline (names the reader supplies, options
  spelled out) and is not run. Blocks of other languages (``bash`` install lines) are not run
  either; a ``text`` block must be the output of a command or a sketch.
- ``<!-- docs: setup COMMAND -->``, anywhere on the page: a shell command run before the
  page's blocks, in the page's folder (``$REPO`` is the repository).

Every page runs in a fresh temporary folder, its current directory, with the interpreter's
``bin`` folder first on ``PATH`` (so ``booteval`` is the one under test).
"""

from __future__ import annotations

import contextlib
import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!-- docs: (sketch|output of .+|setup .+) -->\s*$")
#: languages that show no output and are never run (install lines, file contents)
QUIET = {"bash", "sh", "toml", "yaml", "json", "ini", ""}


@dataclass
class Block:
    """One fenced block: its language, first content line (1-based), lines and marker."""

    lang: str
    line: int
    lines: list[str]
    marker: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def doctest(self) -> bool:
        return self.lang in ("python", "pycon") and any(
            s.lstrip().startswith(">>>") for s in self.lines
        )


@dataclass
class Mismatch:
    """An example whose output differs: where, the command, what the page shows and got."""

    path: Path
    line: int
    source: str
    want: str
    got: str
    #: first and last line (0-based, end exclusive) of the shown output in the page
    span: tuple[int, int] = (0, 0)
    #: a doctest example (a blank line of its output is written ``<BLANKLINE>``)
    doctest: bool = False

    def __str__(self) -> str:
        return (
            f"{self.path.name}:{self.line}: {self.source.strip()}\n--- the page shows\n"
            f"{self.want}--- it prints\n{self.got}"
        )


@dataclass
class Page:
    """A parsed page: its blocks and its setup commands."""

    path: Path
    blocks: list[Block] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)


def parse(path: Path) -> Page:
    """The fenced blocks of a Markdown file, each with the marker just above it."""
    page = Page(path)
    lines = path.read_text().splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = _MARKER.match(lines[i])
        if m and m.group(1).startswith("setup "):
            page.setup.append(m.group(1)[len("setup ") :])
        fence = _FENCE.match(lines[i])
        if fence:
            marker = None
            if (
                i > 0
                and (mk := _MARKER.match(lines[i - 1]))
                and not mk.group(1).startswith("setup")
            ):
                marker = mk.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            page.blocks.append(Block(fence.group(1), i + 2, lines[i + 1 : j], marker))
            i = j
        i += 1
    return page


def unchecked(page: Page) -> list[str]:
    """Blocks that show output and are neither run nor marked as sketches."""
    return [
        f"{page.path.name}:{b.line} ({b.lang})"
        for b in page.blocks
        if b.lang == "text" and b.marker is None
    ]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["REPO"] = str(ROOT)
    env["COLUMNS"] = "100"
    env.pop("PYTHONSTARTUP", None)
    return env


def shell(command: str, cwd: Path) -> str:
    """What ``command`` prints (standard output and error together)."""
    done = subprocess.run(
        command, shell=True, cwd=cwd, env=_environment(), capture_output=False, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600, check=False,
    )  # fmt: skip
    return done.stdout


def _matches(want: str, got: str) -> bool:
    """Line-trimmed equality, ``...`` matching any text."""
    want = "\n".join(s.rstrip() for s in want.strip("\n").splitlines()) + "\n"
    got = "\n".join(s.rstrip() for s in got.strip("\n").splitlines()) + "\n"
    return doctest.OutputChecker().check_output(want, got, doctest.ELLIPSIS)


def _console(path: Path, block: Block, cwd: Path) -> list[Mismatch]:
    """Run the ``$`` commands of a console block; one Mismatch per differing output."""
    out: list[Mismatch] = []
    lines = block.lines
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        start = i
        command = lines[i][2:].rstrip("\n")
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        first = i
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        want = "".join(lines[first:i])
        got = shell(command, cwd)
        if not _matches(want, got):
            span = (block.line - 1 + first, block.line - 1 + i)
            out.append(Mismatch(path, block.line + start, command, want, got, span))
    return out


def _doctests(page: Page, cwd: Path) -> tuple[int, list[Mismatch], list[str]]:
    """Run the page's ``>>>`` examples: (attempted, mismatches, errors raised)."""
    parser = doctest.DocTestParser()
    # a block's closing fence ends its last example's output (doctest would read it as
    # expected output): it is blanked, line for line, so that line numbers stay valid
    text = "".join(
        "\n" if line.strip() == "```" else line
        for line in page.path.read_text().splitlines(keepends=True)
    )
    test = parser.get_doctest(text, {"__name__": "__docs__"}, page.path.name, str(page.path), 0)
    mismatches: list[Mismatch] = []
    errors: list[str] = []

    class Runner(doctest.DocTestRunner):
        def report_failure(self, out, test, example, got):  # type: ignore[override]
            start = example.lineno + example.source.count("\n")
            end = start + example.want.count("\n")
            mismatches.append(
                Mismatch(page.path, example.lineno + 1, example.source, example.want, got,
                         (start, end), doctest=True)
            )  # fmt: skip

        def report_unexpected_exception(self, out, test, example, exc_info):  # type: ignore[override]
            errors.append(f"{page.path.name}:{example.lineno + 1}: {exc_info[1]!r}")

    runner = Runner(optionflags=FLAGS, verbose=False)
    with _working_directory(cwd):
        runner.run(test, out=lambda _text: None, clear_globs=True)
    return len(test.examples), mismatches, errors


@contextlib.contextmanager
def _working_directory(path: Path):
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_page(path: Path, workdir: Path) -> tuple[int, list[Mismatch], list[str]]:
    """Run every checked block of ``path`` in ``workdir``: (examples run, mismatches,
    errors). The setup commands run first; then the doctests, the scripts, the console
    blocks and the outputs of commands, in that order."""
    page = parse(path)
    errors: list[str] = []
    for command in page.setup:
        done = subprocess.run(
            command, shell=True, cwd=workdir, env=_environment(), capture_output=True,
            text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode:
            errors.append(f"{path.name}: setup {command!r} failed: {done.stdout}{done.stderr}")
            return 0, [], errors
    attempted, mismatches, raised = _doctests(page, workdir)
    more, other, failed = run_blocks(page, workdir)
    return attempted + more, mismatches + other, errors + raised + failed


def run_blocks(page: Page, workdir: Path) -> tuple[int, list[Mismatch], list[str]]:
    """Run the page's scripts, console blocks and outputs of commands (not its doctests)
    in ``workdir``: (blocks run, mismatches, errors)."""
    path = page.path
    attempted, mismatches, errors = 0, [], []
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in page.blocks:
        if block.marker == "sketch":
            continue
        if block.lang == "python" and not block.doctest:
            attempted += 1
            with _working_directory(workdir):
                try:
                    exec(compile(block.text, f"{path.name}:{block.line}", "exec"), namespace)
                except Exception as exc:  # reported with its place
                    errors.append(f"{path.name}:{block.line}: {exc!r}")
        elif block.lang == "console":
            attempted += 1
            mismatches += _console(path, block, workdir)
        elif block.lang == "text" and block.marker and block.marker.startswith("output of "):
            attempted += 1
            command = block.marker[len("output of ") :]
            got = shell(command, workdir)
            if not _matches(block.text, got):
                span = (block.line - 1, block.line - 1 + len(block.lines))
                mismatches.append(Mismatch(path, block.line, command, block.text, got, span))
    return attempted, mismatches, errors


def rewrite(path: Path, mismatches: list[Mismatch]) -> int:
    """Write each mismatch's new output in place of the page's; the count rewritten."""
    lines = path.read_text().splitlines(keepends=True)
    for m in sorted(mismatches, key=lambda m: m.span[0], reverse=True):
        got = m.got if m.got.endswith("\n") or not m.got else m.got + "\n"
        if m.doctest:
            got = "".join(s if s.strip() else "<BLANKLINE>\n" for s in got.splitlines(True))
        elif m.want.endswith("\n\n") and not got.endswith("\n\n"):
            got += "\n"  # keep the blank line that separates commands
        lines[m.span[0] : m.span[1]] = [got]
    path.write_text("".join(lines))
    return len(mismatches)
