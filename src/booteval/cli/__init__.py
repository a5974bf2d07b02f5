"""The ``booteval`` command line: from a results file to a paper-ready table in one command.

Subcommands: ``ci``, ``compare``, ``leaderboard``, ``correlate``, ``power`` and ``demo``;
``booteval SUBCOMMAND --help`` describes each. Bad input (a missing column, a non-numeric
value, a NaN, an empty or unreadable file, an invalid option) ends with a one-line message
on standard error and exit status 2; success is 0.

Examples
--------
>>> main(["--version"])  # doctest: +SKIP
booteval 0.1.0
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from ..core.errors import InvalidInputError
from ..core.progress import reporting
from ..core.tables import (
    InputFileError,
    group_column,
    label_column,
    numeric_column,
    require,
    select,
)

__all__ = ["CliError", "build_parser", "main", "parse_metric"]

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
        try:
            normalise(name, value)
        except InvalidInputError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            raise CliError(f"{flag} {value}: expected {exc.expected}{hint}") from None
    path = getattr(args, "plot", None)
    if path and Path(path).suffix.lower() not in _PLOT_SUFFIXES:
        raise CliError(f"--plot {path}: expected a file name ending in .png, .pdf or .svg")
    inputs = _input_paths(args)
    for flag, target in (("--plot", path), ("--output", getattr(args, "output", None))):
        if not target:
            continue
        parent = Path(target).parent
        if not parent.is_dir():
            raise CliError(f"{flag} {target}: the directory {_shown(parent)} does not exist")
        if Path(target).is_dir():
            raise CliError(f"{flag} {target}: is a directory; expected a file name")
        if _resolved(target) in inputs:
            raise CliError(
                f"{flag} {target}: is one of the input files; writing it would overwrite the "
                "data (choose another file name)"
            )
    output = getattr(args, "output", None)
    if path and output and _resolved(path) == _resolved(output):
        raise CliError(f"--plot {path}: the same file as --output; choose two file names")


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
    """Draw with ``booteval.plot.<function>`` (imported only now) and save to ``--plot``."""
    path = args.plot
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
        if fmt is None:
            fmt = _OUTPUT_SUFFIXES.get(Path(args.output).suffix.lower(), "text")
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


# ------------------------------------------------------------------------- datasets
def _cmd_datasets(args: argparse.Namespace) -> int:
    from .. import datasets

    if args.name is None:
        if args.kind or args.output:
            raise CliError("--kind and --output need a data set NAME")
        for name in datasets.names():
            print(datasets.describe(name))
        return 0
    try:
        data = datasets.csv_bytes(args.name, args.kind)
    except InvalidInputError as exc:
        flag = "NAME" if exc.parameter == "name" else f"--{exc.parameter}"
        raise CliError(f"{flag} {exc.received}: expected {exc.expected}") from None
    if args.output:
        target = Path(args.output)
        if not target.parent.is_dir():
            raise CliError(f"--output {args.output}: the directory {target.parent} does not exist")
        try:
            target.write_bytes(data)
        except OSError as exc:
            raise CliError(f"--output {args.output}: cannot write it ({exc.strerror})") from None
        if not args.quiet:
            rows = data.count(b"\n") - 1
            print(f"{args.name}: {rows:,} rows written to {args.output}", file=sys.stderr)
        return 0
    if hasattr(sys.stdout, "buffer"):
        sys.stdout.buffer.write(data)
    else:  # a text stream (e.g. captured in tests)
        sys.stdout.write(data.decode("utf-8"))
    sys.stdout.flush()
    return 0


# ------------------------------------------------------------------------------- ci
def _cmd_ci(args: argparse.Namespace) -> int:
    from ..inference.confidence import ci
    from ..report import ci_report

    _check_outputs(args)
    metrics = _metrics(args)
    for m in metrics:
        _check_y_true(m, args)
    df, file = _load(args)
    groups: list[tuple[str, Any]] = []  # (system name, row mask or None)
    if args.system:
        sys_col = group_column(df, args.system, file, "--system")
        for flag, cols in (("--y-pred", args.y_pred), ("--score", args.score)):
            if cols and len(cols) > 1:
                raise CliError(f"{file}: with --system (long format) give one {flag} column")
        names = list(dict.fromkeys(sys_col.tolist()))
        groups = [(str(n), sys_col == n) for n in names]
        pred = args.y_pred[0] if args.y_pred else None
        score = args.score[0] if args.score else None
        if pred is None and score is None:
            raise CliError(f"{file}: name the output column with --y-pred or --score")
        systems = [(name, pred, score) for name, _ in groups]
    else:
        systems = _wide_systems(df, args, file)
        groups = [(name, None) for name, _, _ in systems]
    design_all = _design(df, args, file)
    opts = _run_options(args)
    results: list[tuple[str, Any]] = []
    with _progress(args, len(systems) * len(metrics), "ci") as step:
        for (name, pred, score), (_, mask) in zip(systems, groups, strict=True):
            sub = df if mask is None else df[mask].reset_index(drop=True)
            design = design_all if mask is None else {k: v[mask] for k, v in design_all.items()}
            for m in metrics:
                step(f"{name}, {m.label}")
                col, flag = _output_for(m, pred, score)
                y = _read_y_true(sub, args, m, file)
                out = _read_output(sub, col, flag, m, file)
                data = (out,) if y is None else (y, out)
                cols = (f"--y-true {args.y_true}, " if y is not None else "") + f"{flag} {col}"
                r = _api(file, f"{m.label} on {cols}", ci, *data, metric=m, **opts, **design)
                results.append((name, r))
    _emit(args, ci_report(results, scale=args.scale, digits=args.digits))
    if args.plot:
        only = [r for _, r in results]
        if all(r.metric.startswith("ece") for r in only):
            name, pred, score = systems[0]
            sub = df if groups[0][1] is None else df[groups[0][1]].reset_index(drop=True)
            _plot(args, "plot_reliability", label_column(sub, args.y_true, file, "--y-true"),
                  numeric_column(sub, score or pred, file, "--score"))  # fmt: skip
        elif len(only) == 1:
            _plot(args, "plot_distribution", only[0], scale=args.scale, digits=args.digits)
        else:
            labels = [f"{s}, {r.metric}" if len(metrics) > 1 and len(systems) > 1
                      else (s if len(systems) > 1 else r.metric) for s, r in results]  # fmt: skip
            _plot(args, "plot_forest", only, labels=labels, scale=args.scale, digits=args.digits)
    return 0


# ------------------------------------------------------------------------- pairs (A, B)
def _pair_columns(df: Any, args: argparse.Namespace, file: str) -> tuple[Any, str, str, str, str]:
    """A wide frame with the two systems' output columns: ``(frame, col_a, col_b, flag, names)``.

    Wide input: ``--a COL --b COL``, or two ``--y-pred`` / two ``--score`` columns. Long
    input (``--system``): ``--id`` aligns the rows, ``--a`` / ``--b`` name the systems.
    """
    if args.system:
        if not args.id:
            raise CliError(f"{file}: with --system (long format) name the row id column with --id")
        outs = [(c, "--y-pred") for c in args.y_pred or []] + [
            (c, "--score") for c in args.score or []]  # fmt: skip
        if len(outs) != 1:
            raise CliError(
                f"{file}: with --system (long format) give exactly one output column "
                "(--y-pred or --score)"
            )
        out_col, flag = outs[0]
        sys_col = group_column(df, args.system, file, "--system")
        require(df, out_col, file, flag)
        args._frame = df
        group_column(df, args.id, file, "--id")
        present = list(dict.fromkeys(map(str, sys_col.tolist())))
        a, b = args.a, args.b
        if a is None and b is None:
            if len(present) != 2:
                raise CliError(
                    f"{file}: column {args.system!r} (--system) has {len(present)} systems; "
                    f"choose two with --a and --b (one of: {', '.join(present[:20])})"
                )
            a, b = present
        for flag_ab, name in (("--a", a), ("--b", b)):
            if name not in present:
                raise CliError(
                    f"{file}: system {name!r} ({flag_ab}) not found in column {args.system!r}; "
                    f"expected one of: {', '.join(present[:20])}"
                )
        keyed = df.assign(_sys=sys_col.astype(str))
        parts = {}
        for name in (a, b):
            part = keyed[keyed["_sys"] == name].set_index(args.id)
            dup = part.index.duplicated()
            if dup.any():
                raise CliError(
                    f"{file}: column {args.id!r} (--id): expected one row per id for system "
                    f"{name!r}; id {part.index[dup][0]!r} repeats"
                )
            parts[name] = part
        ids_a, ids_b = parts[a].index, parts[b].index
        if set(ids_a) != set(ids_b):
            missing = next(iter(set(ids_a) ^ set(ids_b)))
            raise CliError(
                f"{file}: column {args.id!r} (--id): expected the same ids for systems {a!r} and "
                f"{b!r}; id {missing!r} is only in one"
            )
        wide = parts[a].copy()
        wide["_b_output"] = parts[b].loc[ids_a, out_col].to_numpy()
        if args.y_true:
            require(df, args.y_true, file, "--y-true")
            if not (
                parts[b].loc[ids_a, args.y_true].to_numpy() == wide[args.y_true].to_numpy()
            ).all():
                raise CliError(
                    f"{file}: column {args.y_true!r} (--y-true): expected the same label for "
                    f"both systems on every id"
                )
        wide = wide.reset_index()
        wide["_a_output"] = wide[out_col]
        return wide, "_a_output", "_b_output", flag, f"{a}\t{b}"
    skip = _used_columns(args)
    if args.a or args.b:
        if not (args.a and args.b):
            raise CliError(f"{file}: give both --a and --b (the two systems' output columns)")
        if args.y_pred or args.score:
            raise CliError(f"{file}: give the two columns either as --a/--b or as --y-pred/--score")
        for flag_ab, c in (("--a", args.a), ("--b", args.b)):
            require(df, c, file, flag_ab)
        return df, args.a, args.b, "--a/--b", f"{args.a}\t{args.b}"
    preds = select(df, args.y_pred or [], file, "--y-pred", skip)
    scores = select(df, args.score or [], file, "--score", skip)
    cols, flag = (preds, "--y-pred") if preds else (scores, "--score")
    if (preds and scores) or len(cols) != 2:
        raise CliError(
            f"{file}: expected two output columns (--a COL --b COL, two --y-pred or two --score); "
            f"received {len(preds)} --y-pred and {len(scores)} --score"
        )
    return df, cols[0], cols[1], flag, f"{cols[0]}\t{cols[1]}"


def _pair_data(
    df: Any, args: argparse.Namespace, file: str, m: Any, col_a: str, col_b: str, flag: str
) -> tuple[Any, ...]:
    """``(a, b)`` or ``(y_true, a, b)`` for metric ``m`` from the frame of :func:`_pair_columns`."""
    kind = "--score" if flag == "--score" else "--y-pred"
    if args.system:  # check the long column itself, so that errors name it
        out_col = (args.y_pred or args.score)[0]
        _read_output(args._frame, out_col, kind, m, file)
    a = _read_output(df, col_a, kind if flag != "--a/--b" else "--a", m, file)
    b = _read_output(df, col_b, kind if flag != "--a/--b" else "--b", m, file)
    y = _read_y_true(df, args, m, file)
    return (a, b) if y is None else (y, a, b)


def _cmd_compare(args: argparse.Namespace) -> int:
    from ..inference.comparison import compare
    from ..report import compare_report

    _check_outputs(args)
    metrics = _metrics(args)
    for m in metrics:
        _check_y_true(m, args)
    need = {"mcnemar": "accuracy", "delong": "roc_auc", "t": "mean"}
    for m in metrics:
        if args.test in need and m.name != need[args.test]:
            raise CliError(
                f"--test {args.test} applies to the metric {need[args.test]} only; received "
                f"--metric {m.label} (use --test bootstrap or permutation)"
            )
    df, file = _load(args)
    wide, col_a, col_b, flag, names = _pair_columns(df, args, file)
    name_a, name_b = names.split("\t")
    design = _design(wide, args, file)
    results = []
    with _progress(args, len(metrics), "compare") as step:
        for m in metrics:
            step(m.label)
            data = _pair_data(wide, args, file, m, col_a, col_b, flag)
            results.append(_api(
                file, f"{m.label}, {name_b} - {name_a}", compare, *data, metric=m,
                names=(name_a, name_b), test=args.test, alternative=args.alternative,
                **_run_options(args), **design,
            ))  # fmt: skip
    _emit(args, compare_report(results, scale=args.scale, digits=args.digits))
    if args.plot:
        if len(results) == 1:
            _plot(args, "plot_distribution", results[0], scale=args.scale, digits=args.digits)
        else:
            _plot(args, "plot_forest", results, labels=[r.metric for r in results],
                  scale=args.scale, digits=args.digits)  # fmt: skip
    return 0


# ----------------------------------------------------------------------- leaderboard
def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from ..inference.leaderboard import leaderboard
    from ..report import leaderboard_report

    _check_outputs(args)
    metrics = _metrics(args)
    if len(metrics) != 1:
        raise CliError("leaderboard ranks by one metric: give --metric once")
    m = metrics[0]
    _check_y_true(m, args)
    df, file = _load(args)
    opts = _run_options(args)
    if args.method == "studentized":
        raise CliError("--method: expected bca, percentile, basic or normal for a leaderboard")
    if args.system:
        if not args.id:
            raise CliError(f"{file}: with --system (long format) name the row id column with --id")
        outs = [(c, "--y-pred") for c in args.y_pred or []] + [
            (c, "--score") for c in args.score or []]  # fmt: skip
        if len(outs) != 1:
            raise CliError(
                f"{file}: with --system (long format) give exactly one output column "
                "(--y-pred or --score)"
            )
        out_col, flag = outs[0]
        group_column(df, args.system, file, "--system")
        group_column(df, args.id, file, "--id")
        _read_output(df, out_col, flag, m, file)
        if args.y_true:
            _read_y_true(df, args, m, file)
        _design(df, args, file)
        with _progress(args, 1, f"leaderboard ({m.label})") as step:
            step()
            board = _api(
                file, f"{m.label} by {args.system!r}", leaderboard, df, metric=m,
                system_col=args.system, row_col=args.id, output_col=out_col,
                label_col=args.y_true, clusters=args.cluster, strata=args.strata,
                correction=args.correction, **opts,
            )  # fmt: skip
    else:
        systems = _wide_systems(df, args, file)
        mapping = {}
        for name, pred, score in systems:
            col, flag = _output_for(m, pred, score)
            mapping[name] = _read_output(df, col, flag, m, file)
        y = _read_y_true(df, args, m, file)
        with _progress(args, 1, f"leaderboard of {len(mapping)} systems ({m.label})") as step:
            step()
            board = _api(
                file, f"{m.label}", leaderboard, mapping, y_true=y, metric=m,
                correction=args.correction, **opts, **_design(df, args, file),
            )  # fmt: skip
    _emit(args, leaderboard_report(board, scale=args.scale, digits=args.digits, pairs=args.pairs))
    if args.plot:
        _plot(args, "plot_pairwise", board, scale=args.scale, digits=args.digits)
    return 0


# ------------------------------------------------------------------------- correlate
def _cmd_correlate(args: argparse.Namespace) -> int:
    from ..meta import correlate_metrics, score_matrices
    from ..report import correlation_report

    _check_outputs(args)
    df, file = _load(args)
    group_column(df, args.system, file, "--system")
    group_column(df, args.input, file, "--input")
    skip = (args.system, args.input, args.human, *(args.exclude or ()))
    cols = select(df, args.metric_col, file, "--metric-col", skip)
    numeric_column(df, args.human, file, "--human")
    for c in cols:
        numeric_column(df, c, file, "--metric-col")
    mats = _api(file, "pivoting to systems x inputs", score_matrices, df, [*cols, args.human],
                system=args.system, input=args.input)  # fmt: skip
    resample = None if args.resample == "none" else args.resample
    method = "fisher" if resample is None else args.method
    with _progress(args, 1, f"correlate {len(cols)} metric(s) with {args.human}") as step:
        step()
        out = _api(
            file, f"{args.level}-level {args.coefficient} with {args.human!r}", correlate_metrics,
            {c: mats[c] for c in cols}, mats[args.human], level=args.level,
            coefficient=args.coefficient, resample=resample, method=method,
            confidence_level=args.confidence, n_resamples=args.n_resamples, seed=args.seed,
            human=args.human,
        )  # fmt: skip
    results = list(out.values())
    _emit(args, correlation_report(results, scale=args.scale, digits=args.digits))
    if args.plot:
        _plot(args, "plot_forest", results, labels=list(out), scale=args.scale,
              digits=args.digits)  # fmt: skip
    return 0


# ----------------------------------------------------------------------------- power
def _cmd_power(args: argparse.Namespace) -> int:
    from ..inference import power as pw
    from ..report import power_report

    if getattr(args, "plot", None):
        raise CliError("--plot: power has no plot")
    _check_outputs(args)
    solve = args.solve or ("mde" if args.effect is None else "power")
    if solve in ("power", "n") and args.effect is None:
        raise CliError(f"--solve {solve}: give the true difference to detect with --effect")
    common: dict[str, Any] = {"alpha": args.alpha, "alternative": args.alternative}
    if args.file is not None:
        if args.standard_error is not None:
            raise CliError("give either a pilot results FILE or --standard-error, not both")
        df, file = _load(args)
        wide, col_a, col_b, flag, names = _pair_columns(df, args, file)
        name_a, name_b = names.split("\t")
        design = _design(wide, args, file)
        if args.metric or args.y_true:
            from ..inference.comparison import compare

            metrics = _metrics(args)
            if len(metrics) != 1:
                raise CliError("power: give --metric once")
            m = metrics[0]
            _check_y_true(m, args)
            data = _pair_data(wide, args, file, m, col_a, col_b, flag)
            with _progress(args, 1, f"bootstrap of {name_b} - {name_a}") as step:
                step()
                ref = (_api(file, f"{m.label}, {name_b} - {name_a}", compare, *data, metric=m,
                            names=(name_a, name_b), **_run_options(args), **design),)  # fmt: skip
            context = f"{m.label}, {name_b} - {name_a}"
        else:
            from ..metrics import get_metric

            m = get_metric("mean")
            ref = _pair_data(wide, args, file, m, col_a, col_b, flag)
            if "clusters" in design:
                common["clusters"] = design["clusters"]
            context = f"pilot outcomes {name_a}, {name_b}"
    else:
        if args.standard_error is None:
            raise CliError(
                "power needs a reference: a pilot results FILE (with --a/--b columns) or "
                "--standard-error SE [--n N] [--n-clusters G]"
            )
        ref = ()
        file = "power"
        common.update(standard_error=args.standard_error, n=args.n, n_clusters=args.n_clusters)
        context = "--standard-error"
    sizes = {"n_new": args.n_new, "n_clusters_new": args.n_clusters_new}
    if solve == "mde":
        a = _api(file, context, pw.minimum_detectable_effect, *ref, power=args.power, **common,
                 **sizes)  # fmt: skip
    elif solve == "power":
        a = _api(file, context, pw.power_for_effect, *ref, effect=args.effect, **common, **sizes)
    else:
        if args.n_new is not None or args.n_clusters_new is not None:
            raise CliError("--solve n computes the size: drop --n-new / --n-clusters-new")
        a = _api(file, context, pw.required_sample_size, *ref, effect=args.effect,
                 power=args.power, **common)  # fmt: skip
    _emit(args, power_report(a, scale=args.scale, digits=args.digits))
    return 0


# ------------------------------------------------------------------------------ demo
def _cmd_demo(args: argparse.Namespace) -> int:
    import tempfile

    try:
        import pandas as pd
        from sklearn.datasets import load_breast_cancer
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
        from sklearn.naive_bayes import GaussianNB
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
    except ImportError as exc:
        raise CliError(
            f"demo needs scikit-learn and pandas ({_one_line(exc)}): "
            "pip install 'booteval[cli,examples]'"
        ) from None

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
    models = {
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": RandomForestClassifier(n_estimators=200, random_state=0),
        "bayes": GaussianNB(),
    }
    wide = pd.DataFrame({"row": range(len(y_te)), "label": y_te})
    for name, model in models.items():
        model.fit(X_tr, y_tr)
        wide[f"{name}_pred"] = model.predict(X_te)
        wide[f"{name}_prob"] = model.predict_proba(X_te)[:, 1].round(6)
        wide[f"{name}_correct"] = (wide[f"{name}_pred"] == wide["label"]).astype(int)
    long = pd.concat(
        [
            pd.DataFrame({"system": name, "row": wide["row"], "label": wide["label"],
                          "pred": wide[f"{name}_pred"], "prob": wide[f"{name}_prob"]})
            for name in models
        ],
        ignore_index=True,
    )  # fmt: skip
    b = str(args.n_resamples)
    print(
        "booteval demo: three scikit-learn classifiers trained on the breast cancer data that "
        f"ships with scikit-learn,\nscored on {len(y_te)} held-out rows (label 1 = benign). "
        "Files written to a temporary folder:\n  test.csv (one row per test case, columns per "
        "model) and test_long.csv (one row per model and case).\n"
    )
    with tempfile.TemporaryDirectory(prefix="booteval-demo-") as tmp:
        wide_path, long_path = Path(tmp, "test.csv"), Path(tmp, "test_long.csv")
        wide.to_csv(wide_path, index=False)
        long.to_csv(long_path, index=False)
        steps = [
            ("Accuracy and ROC-AUC of each model, with 95 % BCa intervals (x100):",
             ["ci", "test.csv", "--y-true", "label", "--y-pred", "*_pred", "--score", "*_prob",
              "--metric", "accuracy", "--metric", "roc_auc", "--scale", "100", "--digits", "2"]),
            ("Is the random forest's ROC-AUC different from logistic regression's? "
             "Paired bootstrap interval, DeLong's test:",
             ["compare", "test.csv", "--y-true", "label", "--score", "logreg_prob",
              "--score", "forest_prob", "--metric", "roc_auc", "--test", "delong",
              "--scale", "100", "--digits", "2"]),
            ("All three ranked by accuracy from the long file, with rank intervals and "
             "Holm-adjusted pairwise tests:",
             ["leaderboard", "test_long.csv", "--system", "system", "--id", "row",
              "--y-true", "label", "--y-pred", "pred", "--metric", "accuracy",
              "--pairs", "all", "--scale", "100", "--digits", "2"]),
            ("How large a difference in accuracy can a test set of this size detect? "
             "(pilot: the two models' per-row correctness)",
             ["power", "test.csv", "--a", "logreg_correct", "--b", "forest_correct",
              "--scale", "100", "--digits", "2"]),
            ("And how many test rows would a 1-point difference need?",
             ["power", "test.csv", "--a", "logreg_correct", "--b", "forest_correct",
              "--effect", "0.01", "--solve", "n", "--scale", "100", "--digits", "2"]),
        ]  # fmt: skip
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            for i, (text, argv) in enumerate(steps, 1):
                extra = ["--seed", "0", "--n-resamples", b] if argv[0] != "power" else []
                shown = " ".join(a if a.isidentifier() or "-" in a[:1] or a.replace(
                    ".", "").isalnum() or a.replace("_", "").replace(".", "").isalnum()
                    else repr(a) for a in argv + extra)  # fmt: skip
                print(f"{i}. {text}\n$ booteval {shown}\n", flush=True)
                sub = [*argv, *extra] + (["--quiet"] if args.quiet else [])
                code = main(sub)
                print(flush=True)
                if code:
                    return code
        finally:
            os.chdir(cwd)
    print("Run `booteval SUBCOMMAND --help` for the options; add --format markdown|latex|json|csv "
          "for files and --plot FILE.png for a figure.")  # fmt: skip
    return 0


# ---------------------------------------------------------------------------- parser
_DESCRIPTION = """\
Honest numbers for machine-learning evaluation: every metric with a bootstrap confidence
interval, from the per-example results you already saved (CSV, TSV, Parquet or JSON Lines;
'-' reads standard input).

Bad input ends with a one-line message and exit status 2."""

_EPILOG = """\
examples:
  booteval demo
  booteval ci results.csv --y-true label --y-pred model_a --y-pred model_b --metric accuracy
  booteval compare results.csv --a model_a --b model_b --cluster doc_id
  booteval leaderboard long.jsonl --system model --id item --score correct --cluster source
  booteval correlate summeval.csv --system system_id --input input_id \\
      --metric-col 'rouge*_f1' --human expert_relevance --level system
  booteval power pilot.csv --a model_a --b model_b --effect 0.01 --solve n

Run 'booteval SUBCOMMAND --help' for each subcommand's options."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (the usage is one --help away)."""

    def error(self, message: str) -> NoReturn:
        text = _one_line(Exception(message))
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=100)


_FILES_HELP = ("results files, directories or globs (several are stacked), or '-' for standard "
               "input; harness logs (lm-eval, Inspect, HELM, lighteval, code samples) are "
               "detected and read as one row per item and one column per model")  # fmt: skip
_ID_HELP = ("long format: the row (item) id that pairs the systems; repeat for a composite id "
            "(--id task --id doc_id)")  # fmt: skip


def _input_parent() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("input")
    g.add_argument("--input-format", choices=("csv", "tsv", "parquet", "jsonl", "lines", "lm-eval",
                   "inspect", "helm", "lighteval", "code", "long"),
                   help="format of FILE (default: from its extension or content; CSV for "
                   "'-'); nested fields are read with dots (--cluster doc.subject)")  # fmt: skip
    g.add_argument("--agg", choices=("mean",),
                   help="harness logs with several samples per item (epochs, repeats): "
                   "average them per item (default: refuse)")  # fmt: skip
    g.add_argument("--drop-incomplete", action="store_true",
                   help="harness logs: leave out items not scored for every model (counted "
                   "in a note; default: refuse)")  # fmt: skip
    return p


def _columns_parent(outputs: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("columns")
    g.add_argument("--y-true", metavar="COL", help="true labels (or targets)")
    if outputs:
        g.add_argument("--y-pred", metavar="COL", action="append",
                       help="predicted labels; repeat, or use a glob ('*_pred'), for several "
                       "systems")  # fmt: skip
        g.add_argument("--score", metavar="COL", action="append",
                       help="scores, probabilities or per-row metric values (e.g. 0/1 "
                       "correctness, sentence BLEU); repeatable, globs allowed")  # fmt: skip
    g.add_argument("--cluster", metavar="COL",
                   help="independent unit of each row (document, speaker, source): "
                   "resample whole clusters")  # fmt: skip
    g.add_argument("--strata", metavar="COL", help="resample within these strata")
    g.add_argument("--exclude", metavar="COL", action="append",
                   help="never match this column with a glob (id-like columns such as id, "
                   "doc_id or idx never are)")  # fmt: skip
    return p


def _bootstrap_parent(
    methods: tuple[str, ...], default_method: str = "bca"
) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("bootstrap")
    g.add_argument("--method", choices=methods, default=default_method,
                   help=f"interval method (default: {default_method})")  # fmt: skip
    g.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level (default: 0.95)")  # fmt: skip
    g.add_argument("-B", "--n-resamples", type=int, default=10_000, metavar="B",
                   help="bootstrap resamples (default: 10000)")  # fmt: skip
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        help="random seed (default: fresh entropy, printed with the results)",
    )
    return p


def _output_parent(plot: bool = True, digits: int = 4) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("output")
    g.add_argument("-f", "--format", choices=("text", "markdown", "latex", "json", "csv"),
                   help="output format (default: a table; with --output, from its extension: "
                   ".md .tex .json .csv)")  # fmt: skip
    g.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    g.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply estimates and endpoints (100 for percentages; default 1)",
    )
    g.add_argument("--digits", type=int, default=digits,
                   help=f"decimals shown (default: {digits})")  # fmt: skip
    if plot:
        g.add_argument("--plot", metavar="FILE",
                       help="also draw a figure to FILE (.png, .pdf or .svg)")  # fmt: skip
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar or status messages on stderr")  # fmt: skip
    return p


def build_parser() -> argparse.ArgumentParser:
    """The ``booteval`` argument parser with its subcommands."""
    from .. import __version__
    from ..core.intervals import METHODS
    from ..inference.comparison import TESTS
    from ..inference.leaderboard import CORRECTIONS
    from ..meta import BOOTSTRAP_METHODS, COEFFICIENTS, LEVELS
    from ..metrics import list_metrics

    parser = _Parser(
        prog="booteval", description=_DESCRIPTION, epilog=_EPILOG, formatter_class=_Formatter
    )
    parser.add_argument("-V", "--version", action="version", version=f"booteval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", title="subcommands")
    metric_help = (
        "metric name, with parameters as NAME:KEY=VALUE (e.g. f1:average=macro); repeat for "
        f"several. One of: {', '.join(list_metrics())}"
    )
    boot = _bootstrap_parent(tuple(METHODS))

    # ci
    p = sub.add_parser(
        "ci", help="metrics with confidence intervals for one or more systems",
        formatter_class=_Formatter, parents=[_input_parent(), _columns_parent(), boot,
                                             _output_parent()],
        description="Metrics with bootstrap confidence intervals for one or more systems.\n\n"
        "Wide files: one output column per system (repeat --y-pred / --score, or use a glob).\n"
        "Long files: --system names the column that says which system a row belongs to.\n"
        "Default metric: accuracy with --y-true and --y-pred, roc_auc with --y-true and "
        "--score,\nthe mean of --score otherwise. With both --y-pred and --score, each metric "
        "reads the\none it needs (labels or scores), paired up by position.",
        epilog="examples:\n"
        "  booteval ci runs.csv --score bleu --cluster doc --scale 100 --digits 2\n"
        "  booteval ci runs.parquet --y-true label --y-pred pred --score prob \\\n"
        "      --metric accuracy --metric f1:average=macro --metric roc_auc\n"
        "  booteval ci long.jsonl --system model --y-true label --y-pred pred -f markdown",
    )  # fmt: skip
    p.add_argument("file", metavar="FILE", nargs="+", help=_FILES_HELP)
    p.add_argument("--system", metavar="COL", help="long format: the column naming the system")
    p.add_argument("-m", "--metric", action="append", metavar="NAME", help=metric_help)
    p.set_defaults(func=_cmd_ci)

    # compare
    p = sub.add_parser(
        "compare", help="paired comparison of two systems on the same rows",
        formatter_class=_Formatter, parents=[_input_parent(), _columns_parent(), boot,
                                             _output_parent()],
        description="The paired difference B - A of a metric between two systems scored on the "
        "same rows,\nwith its bootstrap interval and a p-value (both systems share every "
        "resample).\n\nWide files: --a COL --b COL (or two --y-pred / two --score columns).\n"
        "Long files: --system COL --id COL with one --y-pred or --score column; --a and --b "
        "name\nthe two systems.",
        epilog="examples:\n"
        "  booteval compare runs.csv --a baseline --b ours --cluster doc\n"
        "  booteval compare runs.csv --y-true label --score p_old --score p_new "
        "--metric roc_auc --test delong\n"
        "  booteval compare long.csv --system model --id item --y-true label --y-pred pred \\\n"
        "      --a old --b new --metric accuracy --test mcnemar",
    )  # fmt: skip
    p.add_argument("file", metavar="FILE", nargs="+", help=_FILES_HELP)
    p.add_argument("--a", metavar="NAME", help="system A: a column (wide) or a system (long)")
    p.add_argument("--b", metavar="NAME", help="system B: a column (wide) or a system (long)")
    p.add_argument("--system", metavar="COL", help="long format: the column naming the system")
    p.add_argument("--id", metavar="COL", action="append", help=_ID_HELP)
    p.add_argument("-m", "--metric", action="append", metavar="NAME", help=metric_help)
    p.add_argument(
        "--test",
        choices=TESTS,
        default="bootstrap",
        help="what computes the p-value (default: bootstrap, which inverts the "
        "interval); mcnemar: accuracy only, delong: roc_auc only, t: the mean only",
    )
    p.add_argument(
        "--alternative",
        choices=("two-sided", "greater", "less"),
        default="two-sided",
        help="greater: B's metric is larger (default: two-sided)",
    )
    p.set_defaults(func=_cmd_compare)

    # leaderboard
    p = sub.add_parser(
        "leaderboard", help="rank many systems with rank intervals and adjusted pairwise tests",
        formatter_class=_Formatter,
        parents=[_input_parent(), _columns_parent(), _bootstrap_parent(
            ("bca", "percentile", "basic", "normal")), _output_parent()],
        description="Every system ranked by one metric, with its interval, a rank interval, "
        "all pairwise\ndifferences with multiplicity-adjusted p-values, and letter groups of "
        "systems the data\ncannot tell apart.\n\nLong files: --system COL --id COL and one "
        "--score or --y-pred column (with --y-true).\nWide files: one column per system "
        "(--score 'model_*' --exclude ...).",
        epilog="examples:\n"
        "  booteval leaderboard long.csv --system model --id question --score correct "
        "--cluster subject\n"
        "  booteval leaderboard mmlu_pro_correct.csv --score '*' --exclude question_id \\\n"
        "      --exclude category --exclude answer --cluster src --scale 100 --digits 1\n"
        "  booteval leaderboard runs/*/samples_mmlu*.jsonl --cluster doc.subject",
    )  # fmt: skip
    p.add_argument("file", metavar="FILE", nargs="+", help=_FILES_HELP)
    p.add_argument("--system", metavar="COL", help="long format: the column naming the system")
    p.add_argument("--id", "--row", dest="id", metavar="COL", action="append", help=_ID_HELP)
    p.add_argument("-m", "--metric", action="append", metavar="NAME", help=metric_help)
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="adjustment of the pairwise p-values (default: holm)")  # fmt: skip
    p.add_argument(
        "--pairs",
        choices=("adjacent", "all"),
        help="also list the differences between neighbours, or all pairs",
    )
    p.set_defaults(func=_cmd_leaderboard)

    # correlate
    p = sub.add_parser(
        "correlate", help="meta-evaluation: correlation of metric columns with human scores",
        formatter_class=_Formatter,
        parents=[_input_parent(), _bootstrap_parent(tuple(BOOTSTRAP_METHODS), "percentile"),
                 _output_parent(digits=2)],
        description="How well do automatic metrics agree with human judgments? A long file "
        "with one row\nper (system, input), metric columns and a human column; the correlation "
        "at the chosen\nlevel with a bootstrap interval over systems, inputs or both.",
        epilog="example:\n"
        "  booteval correlate summeval_long.csv --system system_id --input input_id \\\n"
        "      --metric-col rouge2_f1 --metric-col bertscore_r --human expert_relevance \\\n"
        "      --level system --coefficient kendall --resample both",
    )  # fmt: skip
    p.add_argument("file", metavar="FILE", help="results file, or '-' for standard input")
    g = p.add_argument_group("columns")
    g.add_argument("--system", metavar="COL", required=True, help="system id column")
    g.add_argument("--input", metavar="COL", required=True, help="input (document) id column")
    g.add_argument(
        "--metric-col",
        metavar="COL",
        action="append",
        required=True,
        help="metric score column; repeat, or use a glob ('rouge*_f1')",
    )
    g.add_argument("--human", metavar="COL", required=True, help="human score column")
    g.add_argument("--exclude", metavar="COL", action="append",
                   help="never match this column with a glob (id-like columns such as id, "
                   "doc_id or idx never are)")  # fmt: skip
    g = p.add_argument_group("correlation")
    g.add_argument("--level", choices=LEVELS, default="system",
                   help="system: correlate system means; summary: per input, averaged; "
                   "global: all cells (default: system)")  # fmt: skip
    g.add_argument("--coefficient", choices=COEFFICIENTS, default="pearson",
                   help="default: pearson (kendall is tau-b)")  # fmt: skip
    g.add_argument("--resample", choices=("both", "systems", "inputs", "none"), default="both",
                   help="bootstrap design: new systems and inputs (both), new systems, new "
                   "inputs; none: the Fisher interval (default: both)")  # fmt: skip
    p.set_defaults(func=_cmd_correlate)

    # power
    p = sub.add_parser(
        "power", help="minimum detectable effect, power or sample size from pilot results",
        formatter_class=_Formatter,
        parents=[_input_parent(), _columns_parent(outputs=True), boot,
                 _output_parent(plot=False)],
        description="Planning a comparison of two systems: the minimum detectable effect "
        "(MDE), the power\nto detect a given difference, or the test-set size needed. The "
        "uncertainty comes from\npilot results (FILE with --a/--b: per-row outcomes whose "
        "mean is the metric, e.g. 0/1\ncorrectness; or --metric/--y-true to bootstrap any "
        "metric) or from numbers\n(--standard-error of the difference at --n rows / "
        "--n-clusters clusters).",
        epilog="examples:\n"
        "  booteval power pilot.csv --a old_correct --b new_correct --cluster doc\n"
        "  booteval power pilot.csv --a old_correct --b new_correct --effect 0.01 --solve n\n"
        "  booteval power --standard-error 0.0076 --n 12032 --n-clusters 91 --scale 100",
    )  # fmt: skip
    p.add_argument("file", metavar="FILE", nargs="?", help="pilot results (or '-')")
    p.add_argument("--a", metavar="NAME", help="system A: a column (wide) or a system (long)")
    p.add_argument("--b", metavar="NAME", help="system B: a column (wide) or a system (long)")
    p.add_argument("--system", metavar="COL", help="long format: the column naming the system")
    p.add_argument("--id", metavar="COL", action="append", help=_ID_HELP)
    p.add_argument("-m", "--metric", action="append", metavar="NAME",
                   help="bootstrap this metric's paired difference instead of using per-row "
                   "outcomes")  # fmt: skip
    g = p.add_argument_group("question")
    g.add_argument(
        "--solve",
        choices=("mde", "power", "n"),
        help="what to compute (default: mde without --effect, power with it)",
    )
    g.add_argument("--effect", type=float, help="true difference B - A to detect (metric units)")
    g.add_argument("--power", type=float, default=0.8, help="requested power (default: 0.8)")
    g.add_argument("--alpha", type=float, help="test level (default: 0.05 or 1 - --confidence)")
    g.add_argument("--alternative", choices=("two-sided", "one-sided"), default="two-sided")
    g.add_argument("--n-new", type=int, metavar="N", help="answer for a test set of N rows")
    g.add_argument("--n-clusters-new", type=int, metavar="G", help="... or of G clusters")
    g = p.add_argument_group("reference given as numbers")
    g.add_argument("--standard-error", type=float, metavar="SE",
                   help="standard error of the difference B - A")  # fmt: skip
    g.add_argument("--n", type=int, help="rows SE was computed at")
    g.add_argument("--n-clusters", type=int, help="clusters SE was computed at")
    p.set_defaults(func=_cmd_power)

    # demo
    p = sub.add_parser(
        "demo", help="run a real example end to end (scikit-learn data, no network)",
        formatter_class=_Formatter,
        description="Trains three scikit-learn classifiers on the breast cancer data that ships "
        "with\nscikit-learn, writes their test-set predictions to files, and runs ci, compare,\n"
        "leaderboard and power on them, printing each command and what it shows.",
    )  # fmt: skip
    p.add_argument("-B", "--n-resamples", type=int, default=10_000, metavar="B",
                   help="bootstrap resamples (default: 10000)")  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_cmd_demo, plot=None)

    # datasets
    p = sub.add_parser(
        "datasets", help="list or write out the example data that ships with booteval",
        formatter_class=_Formatter,
        description="Without NAME: the data sets, one line each. With NAME: its CSV, to "
        "standard output\nor to --output (e.g. booteval datasets mmlu_pro -o mmlu_pro.csv).",
    )  # fmt: skip
    p.add_argument("name", nargs="?", metavar="NAME", help="mmlu_pro, summeval or wmt20_mqm")
    p.add_argument("--kind", help="which file of the data set (mmlu_pro: correct, pred; "
                   "summeval: long, ratings)")  # fmt: skip
    p.add_argument("-o", "--output", metavar="FILE", help="write the CSV to FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no status message")
    p.set_defaults(func=_cmd_datasets, plot=None)
    return parser


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                  line: Any = None) -> None:  # fmt: skip
    print(f"booteval: warning: {_one_line(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``booteval`` command line; returns the exit status (0 ok, 2 bad input, 130 Ctrl-C).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            return int(args.func(args))
        except (CliError, InputFileError) as exc:
            print(f"booteval {args.command}: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except InvalidInputError as exc:
            print(f"booteval {args.command}: error: {_one_line(exc)}", file=sys.stderr)
            return 2
        except BrokenPipeError:  # e.g. piped into head
            with contextlib.suppress(Exception):
                sys.stdout = open(os.devnull, "w")
            return 0
        except ImportError as exc:  # an optional dependency of the command line is missing
            missing = (getattr(exc, "name", None) or "").partition(".")[0]
            what = f"{missing} is not installed" if missing else _one_line(exc)
            print(
                f"booteval {args.command}: error: {what}; the command line needs it: "
                'pip install "booteval[cli]"',
                file=sys.stderr,
            )
            return 2
        except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for SIGINT
            print(f"booteval {args.command}: interrupted", file=sys.stderr)
            return 130
