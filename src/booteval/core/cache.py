"""The user cache directory: where booteval keeps what it builds (compiled kernels, the
example logs unpacked), never in the installed package or the source tree."""

from __future__ import annotations

import os
import sys

__all__ = ["user_cache_dir"]


def user_cache_dir(*parts: str) -> str:
    """``booteval/<parts>`` under the platform's user cache directory.

    ``$XDG_CACHE_HOME`` (default ``~/.cache``) on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows. The directory is not created here.

    Examples
    --------
    >>> user_cache_dir("logs").replace(os.sep, "/").endswith("booteval/logs")
    True
    """
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "booteval", *parts)
