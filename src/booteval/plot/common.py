"""What the plots share: matplotlib on demand, figure set-up and saving, colours, labels."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import InvalidInputError
from ..provenance import methods_text
from ..results import Result

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


#: file formats :func:`plot_distribution` and the others can write
FORMATS = (".png", ".pdf", ".svg")

_EST_COLOR = "#1f4e79"
_CI_COLOR = "#2e75b6"
_HIST_COLOR = "#9dc3e6"
_REF_COLOR = "#c00000"
_MUTED = "#7f7f7f"
_MINUS = "\u2212"
_TIMES = "\u00d7"
_DASH = "\u2013"


# ----------------------------------------------------------------- helpers
def _matplotlib() -> Any:
    """Import matplotlib, or say how to install it."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "booteval's plots need matplotlib, which is not installed: pip install 'booteval[plot]'"
        ) from exc
    return matplotlib


def _check_path(path: str | Path | None) -> Path | None:
    if path is None:
        return None
    if not isinstance(path, str | Path):
        raise InvalidInputError("path", "a file name (str or Path) or None", type(path).__name__)
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise InvalidInputError(
            "path",
            "a file name ending in .png, .pdf or .svg",
            repr(str(path)),
            "The extension chooses the format.",
        )
    return p


def _new_figure(figsize: tuple[float, float], dpi: float) -> Figure:
    _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _axes(ax: Axes | None, figsize: tuple[float, float], dpi: float) -> tuple[Figure, Axes]:
    if ax is None:
        fig = _new_figure(figsize, dpi)
        return fig, fig.add_subplot()
    _matplotlib()
    from matplotlib.axes import Axes as _Axes

    if not isinstance(ax, _Axes):
        raise InvalidInputError("ax", "a matplotlib Axes or None", type(ax).__name__)
    return ax.figure, ax


def _save(fig: Figure, path: Path | None) -> Figure:
    if path is not None:
        fig.savefig(path, dpi=fig.dpi, format=path.suffix.lower().lstrip("."))
    return fig


def _num(x: float, digits: int | None) -> str:
    """Fixed decimals when ``digits`` is given, four significant figures otherwise."""
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}f}" if digits is not None else f"{x:.4g}"


def _scaled(label: str, scale: float) -> str:
    return label if scale == 1 else f"{label} ({_TIMES} {scale:g})"


def _provenance(r: Any) -> str:
    """``95% bca interval · B = 10000 · seed 0`` and the design, on two lines: each method
    named once, a closed form said to be one (its histogram is still of the replicates)."""
    methods: Any = r.method
    if getattr(r, "system_methods", ()):
        methods = {"systems": list(r.system_methods), "pairs": list(r.pair_methods)}
    text, closed_only = methods_text(methods, r.confidence_level)
    if not isinstance(methods, dict) and text.endswith(" intervals"):
        text = text[: -len("s")]
    parts = [text]
    if getattr(r, "n_resamples", 0):
        parts.append(f"{'replicates: ' if closed_only else ''}B = {r.n_resamples}")
        parts.append(f"seed {r.seed}")
    if getattr(r, "n_undefined", 0):
        parts.append(f"{r.n_undefined} undefined (dropped)")
    text = " · ".join(parts)
    return f"{text}\n{r.design}" if getattr(r, "design", "") else text


def _label(r: Any) -> str:
    return str(r.label)


def _is_collection(r: Any) -> bool:
    """A leaderboard (a result whose ``entries`` are results), drawn row by row."""
    return isinstance(r, Result) and isinstance(getattr(r, "entries", None), tuple | list)


def _is_interval(r: Any) -> bool:
    return isinstance(r, Result) and not _is_collection(r) and bool(r.has_interval)


_SUPPORTED = "booteval result (a CIResult, ComparisonResult, ...) or a LeaderboardResult"
