"""``python -m booteval``: the command line (see :mod:`booteval.cli`)."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
