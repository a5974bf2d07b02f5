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

import contextlib
import os
import sys
import warnings
from typing import Any

from ..core.errors import InvalidInputError
from ..core.tables import InputFileError
from .common import CliError, _one_line, parse_metric
from .parser import build_parser

__all__ = ["CliError", "build_parser", "main", "parse_metric"]


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                  line: Any = None) -> None:  # fmt: skip
    print(f"booteval: warning: {_one_line(message)}", file=sys.stderr)


#: the extra that installs each optional module (the command line's own: "cli")
_EXTRAS = {
    "matplotlib": "plot", "sacrebleu": "text", "dask": "dask", "distributed": "dask",
    "pyspark": "spark", "sklearn": "examples",
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the ``booteval`` command line; returns the exit status (0 ok, 2 bad input, 130 Ctrl-C).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:  # booteval's modules load here, on first use: Ctrl-C may come during the imports
        parser = build_parser()
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    except KeyboardInterrupt:
        command = next((a for a in argv if not a.startswith("-")), None)
        print(f"booteval{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    args.main = main  # for the demo, which runs the commands it prints
    if getattr(args, "seed", 0) is None:  # one seed for every metric, printed to pass back
        from ..core.streams import fresh_seed

        args.seed = fresh_seed()
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
        except OSError as exc:  # the output cannot be written (a full disk, a closed stream)
            with contextlib.suppress(Exception):
                sys.stdout = open(os.devnull, "w")
            reason = exc.strerror or _one_line(exc)
            print(f"booteval {args.command}: error: cannot write the output ({reason})",
                  file=sys.stderr)  # fmt: skip
            return 2
        except ImportError as exc:  # an optional dependency of the command line is missing
            missing = (getattr(exc, "name", None) or "").partition(".")[0]
            what = f"{missing} is not installed" if missing else _one_line(exc)
            extra = _EXTRAS.get(missing, "cli")
            print(
                f"booteval {args.command}: error: {what}; this needs it: "
                f'pip install "booteval[{extra}]"',
                file=sys.stderr,
            )
            return 2
        except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for SIGINT
            print(f"booteval {args.command}: interrupted", file=sys.stderr)
            return 130
