"""One BLAS thread while booteval's own threads run matrix products."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["one_blas_thread"]

_blas_lock = threading.Lock()
_blas_state: dict[str, Any] = {"users": 0, "limiter": None}


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread while our worker threads run (a process-wide setting).

    A multi-threaded BLAS inside each of our threads oversubscribes the cores
    (measured 1.6x slower on the integer-count products of text metrics). The
    limit is set by the first of any concurrent runs and lifted by the last, so
    that overlapping runs from several user threads restore the original setting.
    The BLAS libraries are looked up once per process (a scan of the loaded
    libraries costs milliseconds: a leaderboard runs hundreds of systems).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     product = np.ones((4, 3)) @ np.ones((3, 2))
    >>> product.tolist()[0]
    [3.0, 3.0]
    """
    with _blas_lock:
        if _blas_state["users"] == 0:
            if "controller" not in _blas_state:  # the loaded libraries, found once
                from threadpoolctl import ThreadpoolController

                _blas_state["controller"] = ThreadpoolController()
            _blas_state["limiter"] = _blas_state["controller"].limit(limits=1, user_api="blas")
        _blas_state["users"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_state["users"] -= 1
            if _blas_state["users"] == 0:
                _blas_state["limiter"].restore_original_limits()
                _blas_state["limiter"] = None
