"""What the subcommands share: reading columns, checking outputs, progress, emitting reports."""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InvalidInputError
from ..core.progress import reporting
from ..core.tables import (
    group_column,
    label_column,
    numeric_column,
    select,
)

_PLOT_SUFFIXES = (".png", ".pdf", ".svg")
_OUTPUT_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".tex": "latex",
                    ".json": "json", ".csv": "csv", ".txt": "text"}  # fmt: skip


class CliError(Exception):
    """A usage or input problem reported as one line with exit status 2."""


# ------------------------------------------------------------------------ small helpers
def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_metric(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME[:KEY=VALUE,...]`` into the metric name and its parameters.

    Examples
    --------
    >>> parse_metric("f1:average=macro")
    ('f1', {'average': 'macro'})
    >>> parse_metric("ece:n_bins=10")
    ('ece', {'n_bins': 10})
    >>> parse_metric("accuracy")
    ('accuracy', {})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise CliError(
                    f"--metric {spec!r}: expected NAME or NAME:KEY=VALUE[,KEY=VALUE...] "
                    "(e.g. f1:average=macro)"
                )
            params[key.strip()] = _literal(value.strip())
    return name.strip(), params


def _one_line(exc: BaseException) -> str:
    """The error on one line, a value pasted at great length shortened to its start."""
    return " ".join(_shorten(word) for word in str(exc).split())


def _shorten(word: str, limit: int = 300) -> str:
    if len(word) <= limit:  # file paths stay whole
        return word
    return f"{word[:100]}... ({len(word):,} characters)"


@contextlib.contextmanager
def _progress(args: argparse.Namespace, total: int, what: str) -> Iterator[Callable[..., None]]:
    """A transient rich progress bar on stderr; silent with --quiet or without a terminal.

    Yields ``step(description)``: call it before each unit of work.
    """
    quiet = getattr(args, "quiet", False) or not sys.stderr.isatty()
    if quiet:
        yield lambda description=None: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    ) as prog:  # fmt: skip
        task = prog.add_task(what, total=total)
        finished = [-1]  # units of work finished before the current one

        def step(description: str | None = None) -> None:
            finished[0] += 1
            prog.update(task, completed=finished[0])
            if description:
                prog.update(task, description=f"{what}: {description}")

        def resamples(done: int, of: int) -> None:  # per batch of replicates (the engine)
            prog.update(task, completed=max(finished[0], 0) + done / max(of, 1))

        with reporting(resamples):
            yield step
        prog.update(task, completed=total)


def _api(file: str, context: str, fn: Callable[..., Any], *a: Any, **k: Any) -> Any:
    """Call the Python API, turning its input errors into one line naming file and columns."""
    try:
        return fn(*a, **k)
    except InvalidInputError as exc:
        raise CliError(f"{file}: {context}: {_one_line(exc)}") from None


def _harness(args: argparse.Namespace) -> Any:
    """Harness logs without ``--system``: their (task, score) parts (see
    :mod:`booteval.cli.harness`); ``None`` for any other input."""
    from ..logs.cli import is_harness, load_harness, refuse_repeats

    files = args.file if isinstance(args.file, list) else [args.file]
    refuse_repeats(files)
    return load_harness(args) if is_harness(args) else None


def _load(args: argparse.Namespace) -> tuple[Any, str]:
    from ..logs.cli import load  # several files, globs, directories, harness logs, --id x2

    return load(args)


def _check_outputs(args: argparse.Namespace) -> None:
    """Check --plot, --output and the declared options before any work is done.

    A run that can only fail at the end (a missing directory, a bad scale) fails
    first; the output may not be one of the input files (it would overwrite them).
    """
    from ..core.params import normalise

    # the options that are public parameters get the API's own checks (booteval.core.params)
    for flag, attr, name in _DECLARED_OPTIONS:
        value = getattr(args, attr, None)
        if value is None and name not in ("scale", "digits"):
            continue
        if attr == "n_resamples" and value == "auto":
            if getattr(args, "command", None) != "ci":
                raise CliError("-B auto: only `booteval ci` sets B by its Monte Carlo error")
            continue
        try:
            normalise(name, value)
        except InvalidInputError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            raise CliError(f"{flag} {value}: expected {exc.expected}{hint}") from None
    path = getattr(args, "plot", None)
    pairs = getattr(args, "plot_pairs", None)
    for flag, target in (("--plot", path), ("--plot-pairs", pairs)):
        if target and Path(target).suffix.lower() not in _PLOT_SUFFIXES:
            raise CliError(f"{flag} {target}: expected a file name ending in .png, .pdf or .svg")
    inputs = _input_paths(args)
    for flag, target in (("--plot", path), ("--plot-pairs", pairs),
                         ("--output", getattr(args, "output", None))):  # fmt: skip
        if not target:
            continue
        parent = Path(target).parent
        if not parent.is_dir():
            raise CliError(f"{flag} {target}: the directory {_shown(parent)} does not exist")
        if Path(target).is_dir():
            raise CliError(f"{flag} {target}: is a directory; expected a file name")
        writable = os.access(target, os.W_OK) if Path(target).exists() else os.access(
            parent, os.W_OK
        )  # fmt: skip
        if not writable:
            raise CliError(f"{flag} {target}: cannot be written here (permission denied)")
        if _resolved(target) in inputs:
            raise CliError(
                f"{flag} {target}: is one of the input files; writing it would overwrite the "
                "data (choose another file name)"
            )
    output = getattr(args, "output", None)
    if path and output and _resolved(path) == _resolved(output):
        raise CliError(f"--plot {path}: the same file as --output; choose two file names")
    if output and getattr(args, "format", None) is None:
        suffix = Path(output).suffix.lower()
        if suffix not in _OUTPUT_SUFFIXES:
            raise CliError(
                f"--output {output}: expected a file ending in {', '.join(_OUTPUT_SUFFIXES)} "
                f"(its format), or --format; received {suffix or 'no extension'!r}"
            )


#: (flag, argparse attribute, declared parameter) checked before any work
_DECLARED_OPTIONS = (
    ("--confidence", "confidence", "confidence_level"),
    ("-B", "n_resamples", "n_resamples"),
    ("--seed", "seed", "seed"),
    ("--scale", "scale", "scale"),
    ("--digits", "digits", "digits"),
)


def _shown(path: Path) -> str:
    return str(path) if str(path) not in ("", ".") else "'.'"


def _resolved(path: str | Path) -> Path:
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):  # pragma: no cover - unreadable path
        return Path(path)


def _input_paths(args: argparse.Namespace) -> set[Path]:
    """The existing input files named by FILE arguments (globs expanded)."""
    import glob

    given = getattr(args, "file", None)
    if not given:
        return set()
    found: set[Path] = set()
    for item in given if isinstance(given, list) else [given]:
        if item == "-":
            continue
        matches = glob.glob(item, recursive=True) if glob.has_magic(item) else [item]
        found.update(_resolved(m) for m in matches if Path(m).is_file())
    return found


def _plot(args: argparse.Namespace, function: str, *a: Any, **k: Any) -> None:
    """Draw with ``booteval.plot.<function>`` (imported only now) and save to ``--plot`` (or
    to ``path=``)."""
    path = k.pop("path", None) or args.plot
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        from .. import plot as plotting
    except ImportError as exc:
        raise CliError(
            f"--plot {path}: plotting is not available ({_one_line(exc)}); "
            "install matplotlib: pip install 'booteval[plot]'"
        ) from None
    fn = getattr(plotting, function, None)
    if fn is None:
        raise CliError(f"--plot {path}: booteval.plot has no {function}() in this version")
    accepted = inspect.signature(fn).parameters
    k = {key: v for key, v in k.items() if key in accepted}
    fig = fn(*a, path=path, **k)
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # pragma: no cover - closing is a courtesy
        pass
    if not args.quiet:
        print(f"plot written to {path}", file=sys.stderr)


def _emit(args: argparse.Namespace, report: Any) -> None:
    """Write the report to --output (format from --format or the extension) or stdout."""
    from ..report import print_rich, render

    fmt = args.format
    if args.output:
        if fmt is None:  # the suffix was checked before the run (_check_outputs)
            fmt = _OUTPUT_SUFFIXES[Path(args.output).suffix.lower()]
        text = render(report, fmt)
        try:
            Path(args.output).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"--output {args.output}: cannot write it ({exc.strerror})") from None
        if not args.quiet:
            print(f"{fmt} written to {args.output}", file=sys.stderr)
        return
    fmt = fmt or "text"
    if fmt == "text" and sys.stdout.isatty():
        print_rich(report)
    else:
        print(render(report, fmt))


# ------------------------------------------------------------------------ column logic
_SCORE_INPUTS = ("y_score", "scores", "x", "y")


def _default_metric(args: argparse.Namespace) -> list[str]:
    if getattr(args, "y_pred", None) and not getattr(args, "y_true", None):
        raise CliError(
            "--y-pred: predicted labels are scored against the true ones: add --y-true COL "
            "(a column of per-row scores, such as 0/1 correctness, is --score COL)"
        )
    if args.metric:
        return args.metric
    if getattr(args, "y_true", None):
        return ["accuracy"] if getattr(args, "y_pred", None) else ["roc_auc"]
    return ["mean"]


def _metrics(args: argparse.Namespace) -> list[Any]:
    from ..metrics import get_metric

    out = []
    for spec in _default_metric(args):
        name, params = parse_metric(spec)
        try:
            out.append(get_metric(name, **params))
        except InvalidInputError as exc:
            raise CliError(f"--metric {spec}: {_one_line(exc)}") from None
    return out


def _output_for(m: Any, pred: str | None, score: str | None) -> tuple[str, str]:
    """Which column (and flag) feeds metric ``m``'s per-system input."""
    wants_score = m.input_names[-1] in _SCORE_INPUTS
    first, second = ((score, "--score"), (pred, "--y-pred")) if wants_score else (
        (pred, "--y-pred"), (score, "--score"))  # fmt: skip
    if first[0] is not None:
        return first  # type: ignore[return-value]
    if second[0] is not None:
        return second  # type: ignore[return-value]
    raise CliError(f"metric {m.label!r} needs --y-pred or --score")  # pragma: no cover


def _read_output(df: Any, col: str, flag: str, m: Any, file: str) -> np.ndarray:
    if flag == "--score" or m.input_names[-1] in _SCORE_INPUTS or m.name in (
        "mae", "mse", "rmse", "r2",
    ):  # fmt: skip
        return numeric_column(df, col, file, flag)
    return label_column(df, col, file, flag)


def _check_y_true(m: Any, args: argparse.Namespace) -> None:
    if m.n_inputs == 2 and not args.y_true:
        raise CliError(
            f"metric {m.label!r} compares {m.input_names[0]} with {m.input_names[1]}: "
            "pass the label column with --y-true"
        )
    if m.n_inputs == 1 and args.y_true:
        raise CliError(
            f"metric {m.label!r} takes per-row scores only; drop --y-true or choose a metric "
            "of labels (e.g. --metric accuracy)"
        )


def _read_y_true(df: Any, args: argparse.Namespace, m: Any, file: str) -> np.ndarray | None:
    if m.n_inputs == 1:
        return None
    if m.input_names[0] in ("x",) or m.name in ("mae", "mse", "rmse", "r2"):
        return numeric_column(df, args.y_true, file, "--y-true")
    return label_column(df, args.y_true, file, "--y-true")


def _design(df: Any, args: argparse.Namespace, file: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if getattr(args, "cluster", None):
        out["clusters"] = group_column(df, args.cluster, file, "--cluster")
    if getattr(args, "strata", None):
        out["strata"] = group_column(df, args.strata, file, "--strata")
    return out


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "method": args.method,
        "confidence_level": args.confidence,
        "n_resamples": args.n_resamples,
        "seed": args.seed,
        "engine": args.engine,
    }


def _used_columns(args: argparse.Namespace) -> tuple[str, ...]:
    names: list[str] = []
    for key in ("y_true", "cluster", "strata", "system", "id"):
        value = getattr(args, key, None)
        names.extend(value if isinstance(value, list) else [value] if value else [])
    return tuple(names) + tuple(getattr(args, "exclude", None) or ())


def _wide_systems(
    df: Any, args: argparse.Namespace, file: str
) -> list[tuple[str, str | None, str | None]]:
    """``(name, pred_col, score_col)`` per system of a wide file."""
    skip = _used_columns(args)
    preds = select(df, args.y_pred or [], file, "--y-pred", skip)
    scores = select(df, args.score or [], file, "--score", skip)
    if not preds and not scores:
        raise CliError(
            f"{file}: name the systems' output columns with --y-pred (predicted labels) or "
            "--score (scores, probabilities, per-row metric values)"
        )
    if preds and scores:
        if len(preds) != len(scores):
            raise CliError(
                f"{file}: --y-pred and --score pair up by position (one of each per system); "
                f"received {len(preds)} --y-pred and {len(scores)} --score columns"
            )
        return [(_common_name(p, s), p, s) for p, s in zip(preds, scores, strict=True)]
    return [(c, c, None) for c in preds] or [(c, None, c) for c in scores]


def _common_name(pred: str, score: str) -> str:
    """The shared prefix of a system's label and score columns (``m_pred``, ``m_prob`` -> ``m``).

    Examples
    --------
    >>> _common_name("logreg_pred", "logreg_prob"), _common_name("a", "b")
    ('logreg', 'a')
    """
    prefix = os.path.commonprefix([pred, score])  # noqa: RUF071
    if prefix not in (pred, score):  # cut back to the last separator
        cut = max(prefix.rfind(ch) for ch in "_-. ")
        prefix = prefix[:cut] if cut > 0 else ""
    return prefix.rstrip("_-. ") or pred
