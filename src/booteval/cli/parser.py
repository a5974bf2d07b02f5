"""The command line's argument parser: subcommands, their options and help texts."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from ..core.params import ENGINES
from .commands import (
    _cmd_ci,
    _cmd_compare,
    _cmd_correlate,
    _cmd_datasets,
    _cmd_demo,
    _cmd_leaderboard,
    _cmd_power,
)
from .common import _one_line

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
_HUMAN_HELP = ("human labels of the --score (judge) column on a subset of the rows, empty "
               "elsewhere: the judge's mean corrected by them (PPI++, booteval."
               "judge_corrected_ci); --method auto, normal or percentile (bootstrap)")  # fmt: skip
_ID_HELP = ("long format: the row (item) id that pairs the systems; repeat for a composite id "
            "(--id task --id doc_id)")  # fmt: skip


def _data_command(
    sub: Any, name: str, boot: argparse.ArgumentParser, **kwargs: Any
) -> argparse.ArgumentParser:
    """A subcommand that reads system outputs from files: the files, the long format's
    system column, the input, column, bootstrap (``boot``) and output options, and
    ``kwargs`` (help, description, epilog)."""
    parents = [_input_parent(), _columns_parent(), boot, _output_parent()]
    p = sub.add_parser(name, formatter_class=_Formatter, parents=parents, **kwargs)
    p.add_argument("file", metavar="FILE", nargs="+", help=_FILES_HELP)
    p.add_argument("--system", metavar="COL", help="long format: the column naming the system")
    return p


def _input_parent(harness: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("input")
    g.add_argument("--input-format", choices=("csv", "tsv", "parquet", "jsonl", "lines", "lm-eval",
                   "inspect", "helm", "lighteval", "code", "eee", "long"),
                   help="format of FILE (default: from its extension or content; CSV for "
                   "'-'); nested fields are read with dots (--cluster doc.subject)")  # fmt: skip
    if not harness:
        return p
    g = p.add_argument_group("harness logs")
    g.add_argument("--task", metavar="NAME", action="append",
                   help="the task(s) to report; repeat for several (default: every task, "
                   "one row or leaderboard each)")  # fmt: skip
    g.add_argument("--pass-at-k", metavar="K", type=int,
                   help="several samples per item: the unbiased pass@K of each item (at least "
                   "one of K samples right; 0/1 scores)")  # fmt: skip
    g.add_argument("--pass-hat-k", metavar="K", type=int,
                   help="several samples per item: the unbiased pass^K of each item (all K "
                   "samples right; 0/1 scores)")  # fmt: skip
    g.add_argument("--agg", choices=("mean",),
                   help="several samples per item: average them per item (the default: "
                   "items are resampled with their samples, the nested design)")  # fmt: skip
    g.add_argument("--drop-incomplete", action="store_true",
                   help="items not scored by every model or run are left out and counted in "
                   "the output (the default for harness logs; refused for flat files)")  # fmt: skip
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


def _resamples(text: str) -> int | str:
    """``-B``: a whole number, or ``auto``."""
    return "auto" if text.strip().lower() == "auto" else int(text)


_resamples.__name__ = "integer or 'auto'"  # argparse names the type in its message


def _bootstrap_parent(
    methods: tuple[str, ...], default_method: str = "bca"
) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("bootstrap")
    g.add_argument("--method", choices=methods, default=default_method,
                   help=f"interval method (default: {default_method})")  # fmt: skip
    g.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level (default: 0.95)")  # fmt: skip
    g.add_argument("-B", "--n-resamples", type=_resamples, default=10_000, metavar="B",
                   help="bootstrap resamples (default: 10000); 'auto' (ci): grow B until each "
                   "endpoint's Monte Carlo SE is at most 1%% of the half-width")  # fmt: skip
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        help="random seed (default: fresh entropy, printed with the results)",
    )
    g.add_argument("--engine", choices=ENGINES, default="auto",
                   help="replicate engine: auto (default: the compiled kernels where they "
                   "apply, NumPy elsewhere), numba (the kernels, with a note where none "
                   "applies) or numpy (NumPy only; other numbers for the same seed)")  # fmt: skip
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
    from ..core.intervals import METHODS
    from ..core.params import TESTS
    from ..inference.multiple import CORRECTIONS
    from ..meta import BOOTSTRAP_METHODS, COEFFICIENTS, LEVELS
    from ..metrics import list_metrics
    from ..version import __version__

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

    # ci and compare: method "auto" (the coverage atlas's choice) is their own default
    ci_boot = _bootstrap_parent(("auto", *METHODS), "auto")
    p = _data_command(
        sub, "ci", ci_boot, help="metrics with confidence intervals for one or more systems",
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
    p.add_argument("-m", "--metric", action="append", metavar="NAME", help=metric_help)
    p.add_argument("--human", metavar="COL", action="append", help=_HUMAN_HELP)
    p.set_defaults(func=_cmd_ci)

    # compare
    p = _data_command(
        sub, "compare", ci_boot, help="paired comparison of two systems on the same rows",
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
    p.add_argument("--a", metavar="NAME", help="system A: a column (wide) or a system (long)")
    p.add_argument("--b", metavar="NAME", help="system B: a column (wide) or a system (long)")
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
    p.add_argument("--human", metavar="COL", action="append",
                   help=_HUMAN_HELP + "; give A's, then B's")  # fmt: skip
    p.set_defaults(func=_cmd_compare)

    # leaderboard
    p = _data_command(
        sub, "leaderboard", ci_boot,
        help="rank many systems with rank intervals and adjusted pairwise tests",
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
    p.add_argument("--id", "--row", dest="id", metavar="COL", action="append", help=_ID_HELP)
    p.add_argument("-m", "--metric", action="append", metavar="NAME", help=metric_help)
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="adjustment of the pairwise p-values (default: holm)")  # fmt: skip
    p.add_argument("--pairs", choices=("adjacent", "all"),
                   help="also list the differences between neighbours, or all pairs")  # fmt: skip
    p.add_argument("--joint", action="store_true", help="also list each system's probability "
                   "of being best and expected rank, simultaneous (max-T) intervals of all "
                   "pairs and the systems tied with the leader")  # fmt: skip
    p.add_argument("--plot-pairs", metavar="FILE",
                   help="also draw the matrix of pairwise differences to FILE (--plot draws "
                   "each system's interval and rank interval)")  # fmt: skip
    p.set_defaults(func=_cmd_leaderboard)

    # correlate
    p = sub.add_parser(
        "correlate", help="meta-evaluation: correlation of metric columns with human scores",
        formatter_class=_Formatter,
        parents=[_input_parent(harness=False),
                 _bootstrap_parent(tuple(BOOTSTRAP_METHODS), "percentile"),
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
        "with\nscikit-learn, writes their test-set predictions to files in --out DIR (kept), "
        "and runs\nci, compare, leaderboard and power on them, printing each command and what "
        "it shows.",
    )  # fmt: skip
    p.add_argument("-B", "--n-resamples", type=int, default=10_000, metavar="B",
                   help="bootstrap resamples (default: 10000)")  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.add_argument("--out", metavar="DIR", default="booteval-demo",
                   help="the folder for the demo's files (default: booteval-demo)")  # fmt: skip
    p.set_defaults(func=_cmd_demo, plot=None)

    # datasets
    p = sub.add_parser(
        "datasets", help="list or write out the example data that ships with booteval",
        formatter_class=_Formatter,
        description="Without NAME: the data sets, one line each. With NAME: its CSV, to "
        "standard output\nor to --output (e.g. booteval datasets mmlu_pro -o mmlu_pro.csv).\n"
        "NAME logs: the evaluation logs written by the harnesses, copied to the folder "
        "--output\n(e.g. booteval datasets logs -o logs; --kind inspect for one tool's).",
    )  # fmt: skip
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="mmlu_pro, summeval, wmt20_mqm or logs")  # fmt: skip
    p.add_argument("--kind", help="which file of the data set (mmlu_pro: correct, pred; "
                   "summeval: long, ratings; logs: inspect, lm_eval, helm, human_eval, "
                   "eee)")  # fmt: skip
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the CSV to FILE (logs: copy them into the folder FILE)")  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no status message")
    p.set_defaults(func=_cmd_datasets, plot=None)
    return parser
