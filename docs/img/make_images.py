"""Draw the images of docs/plots.md from the code shown beside them (run from anywhere).

    python docs/img/make_images.py

Runs every script block of ``docs/plots.md`` (the ``python`` blocks without ``>>>``) with
this folder as the current directory, so that each ``path=`` of the page writes its image
here, and records the text of every saved figure (titles, axis labels, legend entries,
annotations) in ``figures.txt``. The test suite (``tests/test_docs.py``) runs the same blocks
into a temporary folder and compares their text with ``figures.txt``: a changed number in a
figure fails a test until this script has drawn it again. (``coverage_atlas.png`` is drawn
by ``benchmarks/coverage_atlas.py --render``.)
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import markdown_examples  # noqa: E402  (the test suite's runner of Markdown pages)

PAGE = ROOT / "docs" / "plots.md"


def figure_text(fig) -> list[str]:
    """The words and numbers a figure shows, axes by axes, in drawing order."""
    lines = (
        [f"suptitle: {line}" for line in fig._suptitle.get_text().splitlines()]
        if fig._suptitle
        else []
    )
    for i, ax in enumerate(fig.axes):
        for what, text in (("title", ax.get_title()), ("x", ax.get_xlabel()),
                           ("y", ax.get_ylabel())):  # fmt: skip
            if text:
                lines += [f"axes {i} {what}: {line}" for line in text.splitlines()]
        legend = ax.get_legend()
        if legend is not None:
            lines += [f"axes {i} legend: {t.get_text()}" for t in legend.get_texts()]
        lines += [f"axes {i} text: {t.get_text()}" for t in ax.texts if t.get_text().strip()]
        for axis in ("x", "y"):  # named ticks (systems, rows), not the locator's numbers
            ticks = getattr(ax, f"get_{axis}ticklabels")()
            lines += [
                f"axes {i} {axis} tick: {t.get_text()}"
                for t in ticks
                if any(ch.isalpha() for ch in t.get_text())
            ]
    return lines


def draw(folder: Path) -> dict[str, list[str]]:
    """Run the page's script blocks in ``folder``: each saved image's name and text."""
    from matplotlib.figure import Figure

    saved: dict[str, list[str]] = {}
    original = Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        saved[Path(fname).name] = figure_text(self)
        return original(self, fname, *args, **kwargs)

    Figure.savefig = savefig
    try:
        page = markdown_examples.parse(PAGE)
        page.blocks = [b for b in page.blocks if b.lang == "python" and not b.doctest]
        _, _, errors = markdown_examples.run_blocks(page, folder)
    finally:
        Figure.savefig = original
    if errors:
        raise RuntimeError("\n".join(errors))
    return saved


def render(saved: dict[str, list[str]]) -> str:
    return "".join(f"{name}\n" + "".join(f"  {line}\n" for line in lines) for name, lines in
                   sorted(saved.items()))  # fmt: skip


if __name__ == "__main__":
    text = render(draw(HERE))
    (HERE / "figures.txt").write_text(text)
    print(text, end="")
